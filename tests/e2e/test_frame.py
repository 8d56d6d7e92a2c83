"""The web app's frame in headless Chromium: every redirect rule, not found, and the signed-in layout."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from e2e_support import screenshot, sign_in
from playwright.sync_api import Browser, Page, Route, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD

pytestmark = pytest.mark.e2e

# A host outside BEMTEVI_MAIN_DOMAINS (localhost, 127.0.0.1): the browser asks for it and the
# requests are answered by the same server, as a tenant's own domain would be.
TENANT_HOST = "consultas.acme.test"


@pytest.fixture
def tenant_page(browser: Browser, server_url: str) -> Iterator[tuple[Page, str]]:
    port = urlsplit(server_url).port
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="pt-BR")

    def forward(route: Route) -> None:
        url = route.request.url.replace(f"//{TENANT_HOST}:{port}", f"//127.0.0.1:{port}", 1)
        route.fulfill(response=route.fetch(url=url))

    context.route(re.compile(rf"^http://{re.escape(TENANT_HOST)}:{port}/"), forward)
    page = context.new_page()
    yield page, f"http://{TENANT_HOST}:{port}"
    # A request the page still had in flight must not fail inside the handler once the test ends.
    context.unroute_all(behavior="ignoreErrors")
    context.close()


def test_main_domain_root_shows_the_public_home(page: Page, server_url: str) -> None:
    page.goto(f"{server_url}/")
    expect(page).to_have_url(f"{server_url}/")
    expect(page.get_by_role("link", name=re.compile("Login|Entrar", re.IGNORECASE)).first).to_be_visible()


def test_other_host_root_goes_to_login(tenant_page: tuple[Page, str]) -> None:
    page, url = tenant_page
    page.goto(f"{url}/")
    expect(page).to_have_url(f"{url}/login")
    expect(page.get_by_test_id("login-submit")).to_be_visible()


def test_unauthenticated_deep_link_goes_to_login_and_back_to_the_full_path(page: Page, server_url: str) -> None:
    page.goto(f"{server_url}/customer-list?page=2&q=acme")
    expect(page).to_have_url(re.compile(r"/login\?redirect=%2Fcustomer-list%3Fpage%3D2%26q%3Dacme$"))
    page.get_by_test_id("login-email").fill(ADMIN_EMAIL)
    page.get_by_test_id("login-password").fill(ADMIN_PASSWORD)
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(f"{server_url}/customer-list?page=2&q=acme")


def test_signed_in_user_going_to_login_lands_on_the_dashboard(page: Page, server_url: str) -> None:
    sign_in(page, server_url)
    page.goto(f"{server_url}/login")
    expect(page).to_have_url(f"{server_url}/dashboard")
    expect(page.get_by_test_id("dashboard-total")).to_be_visible()


def test_route_outside_the_role_menu_goes_to_error_forbidden(page: Page, server_url: str) -> None:
    # A company owner's menu has no suppliers (super-admin only).
    answer = httpx.post(
        f"{server_url}/api/auth/create-account",
        json={
            "name": "Rita",
            "lastName": "Alves",
            "email": "rita@padariaalves.com.br",
            "companyName": "Padaria Alves Ltda",
            "phone": "(11) 97777-1234",
            "password": "P4daria!Alves",
            "confirmation": "P4daria!Alves",
            "acceptTerms": True,
        },
        timeout=30,
    )
    assert answer.status_code in (200, 201), answer.text
    body = answer.json()
    page.goto(f"{server_url}/login")
    page.evaluate(
        "([token, user]) => { localStorage.setItem('authToken', token); localStorage.setItem('authUser', user) }",
        [body["token"], json.dumps(body["data"])],
    )
    page.goto(f"{server_url}/supplier-list")
    expect(page).to_have_url(f"{server_url}/error-forbidden")
    expect(page.get_by_test_id("forbidden")).to_contain_text("Acesso não permitido")
    # error-forbidden and my-account are always allowed
    page.goto(f"{server_url}/my-account")
    expect(page).to_have_url(f"{server_url}/my-account")


def test_unknown_path_shows_not_found_with_back_to_home(page: Page, server_url: str) -> None:
    page.goto(f"{server_url}/no/such/screen")
    expect(page.get_by_test_id("not-found")).to_be_visible()
    page.get_by_role("link", name="Voltar ao início").click()
    expect(page).to_have_url(f"{server_url}/")


@pytest.mark.parametrize("width", [375, 1440])
def test_signed_in_dashboard_at_phone_and_desktop_widths(page: Page, server_url: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, server_url)
    expect(page.get_by_test_id("dashboard-total")).to_be_visible()
    # The greeting sits in the app bar from 600 px; on a phone it opens the menu drawer.
    if width >= 600:
        expect(page.get_by_test_id("user-first-name")).to_be_visible()
    expect(page.get_by_test_id("app-footer")).to_be_visible()
    expect(page.get_by_test_id("logout")).to_be_in_viewport()
    expect(page.get_by_test_id("language-switch")).to_be_in_viewport()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"
    toggle = page.get_by_test_id("nav-toggle")
    if width < 1024:
        # The drawer folds behind the menu button and closes once a link is followed.
        expect(page.get_by_test_id("nav-dashboard")).to_be_hidden()
        screenshot(page, f"frame-dashboard-{width}")
        toggle.click()
        expect(page.get_by_test_id("nav-dashboard")).to_be_visible()
        expect(page.get_by_test_id("user-first-name-menu")).to_be_visible()
        page.get_by_test_id("nav-queries").click()
        expect(page.get_by_test_id("nav-normal-query")).to_be_visible()
        screenshot(page, f"frame-dashboard-{width}-menu")
        page.get_by_test_id("nav-normal-query").click()
        expect(page).to_have_url(f"{server_url}/normal-query")
        expect(page.get_by_test_id("nav-dashboard")).to_be_hidden()
    else:
        # The sidebar stays beside the screen; a section folds and unfolds its links.
        expect(toggle).to_be_hidden()
        expect(page.get_by_test_id("nav-dashboard")).to_be_visible()
        section = page.get_by_test_id("nav-register")
        expect(section).to_have_attribute("aria-expanded", "false")
        section.click()
        # Each step waits on what the click did, not on time: the section says it is unfolded, then its
        # collapse finishes (a timer of its own, late on a busy machine), then its links show.
        expect(section).to_have_attribute("aria-expanded", "true")
        expect(page.locator(".MuiCollapse-entered #nav-sub-register")).to_be_attached()
        expect(page.get_by_test_id("nav-customers")).to_be_visible()
        section.click()
        expect(section).to_have_attribute("aria-expanded", "false")
        expect(page.locator(".MuiCollapse-hidden #nav-sub-register")).to_be_attached()
        expect(page.get_by_test_id("nav-customers")).to_be_hidden()
        # The pictures come after the clicks: Chromium's full-page capture resizes the page for a moment, and a
        # click right after one once went unseen (the section stayed unfolded).
        screenshot(page, f"frame-dashboard-{width}")
        section.click()
        expect(page.locator(".MuiCollapse-entered #nav-sub-register")).to_be_attached()
        screenshot(page, f"frame-dashboard-{width}-menu")

"""End to end: the login, create-account and recovery screens as a white-label shows them to its own
clients — the default brand's artwork, and a white-label's own logo and login banner on its domain — at
375 and 1440 px in both languages (screenshots `test-results/auth-<brand>-<screen>-<language>-<width>.png`);
then the white-label's owner at first access lands on the dashboard and sees a saved brand at once."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from urllib.parse import urlparse

import httpx
import pytest
from conftest import launch_resolving
from e2e_support import screenshot
from PIL import Image, ImageDraw
from playwright.sync_api import Browser, Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD, invitation_link

from bemtevi.domain.documents import cnpj_check_digits, format_cnpj

# The white-label's own domain: this test's Chromium resolves it to the test server (no DNS involved).
BRAND_HOST = "entrar.vitrine-azul.test"
PRIMARY, SECONDARY = "#0B3D91", "#F2A900"
OWNER_PASSWORD = "Vitr1ne!Azul"

SCREENS = {
    "login": ("/login", {"pt-BR": "Entrar", "en-US": "Sign in"}),
    "create-account": ("/create-account", {"pt-BR": "Criar conta", "en-US": "Create account"}),
    "forgot-password": ("/forgot-password", {"pt-BR": "Recuperar senha", "en-US": "Recover password"}),
}


def png(size: tuple[int, int], draw: str) -> bytes:
    """A recognisable image: the logo a navy plate with a gold mark, the banner stripes of both colours."""
    image = Image.new("RGB", size, PRIMARY)
    pen = ImageDraw.Draw(image)
    if draw == "logo":
        image.paste("#FFFFFF", (0, 0, *size))
        pen.ellipse((6, 6, 62, 62), fill=PRIMARY)
        pen.ellipse((22, 22, 46, 46), fill=SECONDARY)
        pen.rectangle((76, 22, 200, 32), fill=PRIMARY)
        pen.rectangle((76, 40, 160, 48), fill=SECONDARY)
    else:
        for i in range(0, size[1], 64):
            pen.rectangle((0, i, size[0], i + 24), fill="#123F8F" if i % 128 else "#0E347A")
        pen.ellipse((154, 248, 554, 648), fill=SECONDARY)
        pen.ellipse((254, 348, 454, 548), fill="#FFFFFF")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def white_label(server_url: str) -> dict[str, str]:
    """A white-label on its own domain with its title, colours, logo and login banner, set through the API."""
    port = urlparse(server_url).port
    token = httpx.post(f"{server_url}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}).json()[
        "token"
    ]
    admin = {"Authorization": f"Bearer {token}"}
    base = "77665544" + "0001"
    registered = httpx.post(
        f"{server_url}/api/customers",
        headers=admin,
        json={
            "type": "white-label",
            "cnpj": format_cnpj(base + cnpj_check_digits(base)),
            "companyName": "Vitrine Azul Informações Ltda",
            "tradeName": "Vitrine Azul",
            "personInCharge": "Helena Prado",
            "phone": "(48) 99123-4567",
            "email": "helena@vitrineazul.com.br",
            "seller": None,
            "defaultQuery": True,
            "consultProtest": False,
            "quantities": {"unit": 0, "batch": 0, "advanced": 0, "api": 0},
            "enabledQueryTypes": ["cpf-complete"],
            "panelAccess": True,
            "apiAccess": False,
            "whiteLabelUrl": f"{BRAND_HOST}:{port}",
        },
    )
    assert registered.status_code == 200, registered.text
    data = registered.json()["data"]
    group = data["id"]
    brand = httpx.put(
        f"{server_url}/api/group/{group}/brand",
        headers=admin,
        json={"appTitle": "vitrine azul consultas", "primaryColor": PRIMARY, "secondaryColor": SECONDARY},
    )
    assert brand.status_code == 200, brand.text
    for kind, size, draw in (("horizontalLogo", (208, 68), "logo"), ("loginBanner", (708, 896), "banner")):
        uploaded = httpx.put(
            f"{server_url}/api/group/{group}/brand/{kind}",
            headers={**admin, "Content-Type": "image/png"},
            content=png(size, draw),
        )
        assert uploaded.status_code == 200, uploaded.text
    # The read side follows the log: name the last save's position once, so the first screen already
    # shows the brand rather than racing the projector (as the brand editor does after a save).
    shown = httpx.post(
        f"{server_url}/api/group/groups-get-public-data",
        params={"position": uploaded.json()["position"]},
        headers={"Host": f"{BRAND_HOST}:{port}"},
        json={},
    )
    assert shown.status_code == 200 and shown.json()["data"]["loginBanner"], shown.text
    # The owner was invited by e-mail: the first access is the invitation's link, on the white label's domain.
    with httpx.Client(base_url=server_url, timeout=30) as api:
        link = invitation_link(api, data["ownerEmail"])
    return {"url": f"http://{BRAND_HOST}:{port}", "email": data["ownerEmail"], "invitation": link}


@pytest.fixture(scope="module")
def brand_browser(browser: Browser) -> Iterator[Browser]:
    """A second Chromium (same Playwright) that resolves the white-label's host to the loopback server."""
    launched = launch_resolving(browser, BRAND_HOST)
    yield launched
    launched.close()


def open_page(browser: Browser, width: int, language: str) -> Page:
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    context.add_init_script(f"try {{ window.localStorage.setItem('locale', '{language}') }} catch {{}}")
    return context.new_page()


def check_screens(page: Page, base: str, brand: str, language: str, width: int) -> None:
    for name, (path, titles) in SCREENS.items():
        page.goto(f"{base}{path}")
        expect(page.get_by_role("heading", level=1)).to_have_text(titles[language])
        card_brand = page.get_by_test_id("auth-brand")
        expect(card_brand).to_be_visible()
        banner = page.get_by_test_id("auth-banner")
        if width >= 900:
            expect(banner).to_be_visible()
            box = banner.bounding_box()
            assert box and box["height"] >= 880, box  # the whole height beside the form
        else:
            expect(banner).to_be_hidden()
        if brand == "white-label":
            logo = card_brand.locator("img.brand-logo")
            expect(logo).to_have_attribute("src", re.compile(r"/brand/horizontalLogo\?v="))
            page.wait_for_function("document.querySelector('[data-testid=auth-brand] img').naturalWidth === 208")
            if width >= 900:
                image = banner.locator("img")
                expect(image).to_have_attribute("src", re.compile(r"/brand/loginBanner\?v="))
                page.wait_for_function("document.querySelector('[data-testid=auth-banner] img').naturalWidth === 708")
        else:
            expect(card_brand).to_contain_text("Bemtevi")
            expect(card_brand.locator("img")).to_have_count(0)
            if width >= 900:
                expect(banner.locator("svg")).to_be_visible()
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} scrolls sideways by {overflow}px at {width}px"
        # The language switch stays reachable above the screen.
        expect(page.get_by_test_id("language-switch")).to_be_visible()
        screenshot(page, f"auth-{brand}-{name}-{language}-{width}")


@pytest.mark.parametrize("language", ["pt-BR", "en-US"])
@pytest.mark.parametrize("width", [375, 1440])
def test_the_default_brand_draws_its_own_artwork(browser: Browser, server_url: str, width: int, language: str) -> None:
    page = open_page(browser, width, language)
    try:
        check_screens(page, server_url, "default", language, width)
    finally:
        page.context.close()


@pytest.mark.parametrize("language", ["pt-BR", "en-US"])
@pytest.mark.parametrize("width", [375, 1440])
def test_a_white_label_shows_its_own_logo_and_banner(
    brand_browser: Browser, white_label: dict[str, str], width: int, language: str
) -> None:
    page = open_page(brand_browser, width, language)
    try:
        check_screens(page, white_label["url"], "white-label", language, width)
        expect(page).to_have_title("Vitrine Azul Consultas")
        primary = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--primary').trim()")
        assert primary.upper() == PRIMARY
    finally:
        page.context.close()


def test_the_invited_owner_lands_on_the_dashboard_and_a_saved_brand_applies_at_once(
    brand_browser: Browser, white_label: dict[str, str]
) -> None:
    page = open_page(brand_browser, 1440, "pt-BR")
    try:
        # The invitation's link, on the white label's own domain, under its brand: the owner chooses a password.
        page.goto(f"{white_label['url']}{white_label['invitation']}")
        expect(page).to_have_url(re.compile(r"/redefine-new-password$"))
        expect(page.get_by_test_id("auth-brand").locator("img.brand-logo")).to_be_visible()
        page.get_by_test_id("recovery-password").fill(OWNER_PASSWORD)
        page.get_by_test_id("recovery-confirmation").fill(OWNER_PASSWORD)
        screenshot(page, "auth-white-label-first-access-pt-BR-1440")
        page.get_by_test_id("recovery-save").click()
        expect(page).to_have_url(re.compile(r"/login$"))
        page.get_by_test_id("login-email").fill(white_label["email"])
        page.get_by_test_id("login-password").fill(OWNER_PASSWORD)
        page.get_by_test_id("login-submit").click()
        # The address bar says where the user is.
        expect(page).to_have_url(re.compile(r"/dashboard$"))
        expect(page.get_by_test_id("dashboard-total")).to_be_visible()

        page.goto(f"{white_label['url']}/brand-settings")
        # Typed once the form holds the saved brand: the server's answer fills the fields when it comes, and
        # on a busy machine it came after the typing and put the old colour back before the save.
        colour = page.get_by_test_id("brand-primaryColor")
        expect(colour).to_have_value(re.compile(f"^{PRIMARY}$", re.IGNORECASE))
        colour.fill("#5B2C83")
        page.get_by_test_id("brand-title").fill("vitrine roxa")
        page.get_by_test_id("brand-save").click()
        expect(page.get_by_text("Marca salva.")).to_be_visible()
        # Applied without a navigation: the frame's colour and the window title follow the save.
        primary = "getComputedStyle(document.documentElement).getPropertyValue('--primary').trim().toUpperCase()"
        page.wait_for_function(f"{primary} === '#5B2C83'")
        expect(page).to_have_title("Vitrine Roxa")
        expect(page).to_have_url(re.compile(r"/brand-settings$"))
    finally:
        page.context.close()

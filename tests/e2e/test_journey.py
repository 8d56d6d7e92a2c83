"""A person signs in, looks up a CPF, and sees the dashboard count go up — in headless Chromium."""

from __future__ import annotations

import re

import pytest
from e2e_support import screenshot, sign_in
from playwright.sync_api import Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD, KNOWN_CPF

pytestmark = pytest.mark.e2e


def dashboard_total(page: Page) -> int:
    """The dashboard's total once its count-up has reached it (the figure counts up to ``data-target``)."""
    total = page.get_by_test_id("dashboard-total")
    expect(total).to_have_attribute("data-target", re.compile(r"^\d+$"))
    target = total.get_attribute("data-target")
    expect(total).to_have_text(f"{int(target or 0):,}".replace(",", "."))
    return int(target or 0)


def test_sign_in_look_up_a_cpf_and_see_the_dashboard_count_go_up(page: Page, server_url: str) -> None:
    sign_in(page, server_url)
    before = dashboard_total(page)
    screenshot(page, "dashboard-before")

    page.goto(f"{server_url}/normal-query")
    page.get_by_test_id("query-document").fill("529.982.247-25")
    page.get_by_test_id("query-submit").click()
    result = page.get_by_test_id("query-result")
    expect(result).to_be_visible()
    expect(page.get_by_test_id("result-name")).not_to_have_text(re.compile(r"^\s*-?\s*$"))
    screenshot(page, "query-result")

    page.goto(f"{server_url}/dashboard")
    expect(page.get_by_test_id("dashboard-total")).to_have_text(str(before + 1))
    screenshot(page, "dashboard-after")
    assert KNOWN_CPF  # the document looked up is the dataset's known person


def test_invalid_document_shows_the_specification_message_and_charges_nothing(page: Page, server_url: str) -> None:
    sign_in(page, server_url)
    before = dashboard_total(page)
    page.goto(f"{server_url}/normal-query")
    page.get_by_test_id("query-document").fill("529.982.247-24")
    page.get_by_test_id("query-submit").click()
    expect(page.get_by_text(re.compile("inválido|invalid", re.IGNORECASE)).first).to_be_visible()
    page.goto(f"{server_url}/dashboard")
    expect(page.get_by_test_id("dashboard-total")).to_have_text(str(before))


def test_protected_route_sends_to_login_and_back(page: Page, server_url: str) -> None:
    page.goto(f"{server_url}/normal-query")
    expect(page).to_have_url(re.compile(r"/login"))
    page.get_by_test_id("login-email").fill(ADMIN_EMAIL)
    page.get_by_test_id("login-password").fill(ADMIN_PASSWORD)
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(re.compile(r"/normal-query$"))


def test_logout_ends_the_session(page: Page, server_url: str) -> None:
    sign_in(page, server_url)
    page.get_by_test_id("logout").click()
    expect(page).to_have_url(re.compile(r"/login"))
    page.goto(f"{server_url}/dashboard")
    expect(page).to_have_url(re.compile(r"/login"))

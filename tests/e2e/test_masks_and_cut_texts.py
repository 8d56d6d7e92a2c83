"""End to end: documents and phones take their masks as they are typed (customer form, unit query) on a
phone's width without the page scrolling sideways, and a customer's action buttons all fit the list at
1440 px beside the menu (nothing cut at the grid's edge)."""

from __future__ import annotations

import pytest
from e2e_support import Sessions, screenshot, settle
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.e2e


def sideways(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


@pytest.mark.parametrize("language", ["pt-BR", "en-US"])
def test_masks_while_typing_at_375_px(browser: Browser, server_url: str, sessions: Sessions, language: str) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 800}, locale=language)
    page = context.new_page()
    try:
        sessions.resume(page)
        page.evaluate(f"localStorage.setItem('locale', '{language}')")
        page.goto(f"{server_url}/add-new-customer")
        cnpj = page.get_by_test_id("customer-cnpj")
        cnpj.press_sequentially("11444777000161")
        expect(cnpj).to_have_value("11.444.777/0001-61")
        phone = page.get_by_test_id("customer-phone")
        phone.press_sequentially("3198888777")
        expect(phone).to_have_value("(31) 9888-8777")  # ten digits: a landline's mask
        phone.press_sequentially("7")
        expect(phone).to_have_value("(31) 98888-7777")  # the eleventh: a mobile's
        settle(page)
        assert sideways(page) <= 0, "the customer form scrolls sideways at 375 px"
        screenshot(page, f"masks-customer-form-{language}-375")

        page.goto(f"{server_url}/normal-query")
        document = page.get_by_test_id("query-document")
        document.press_sequentially("52998224725")
        expect(document).to_have_value("529.982.247-25")
        document.press_sequentially("000")  # past eleven digits it is a CNPJ being typed
        expect(document).to_have_value("52.998.224/7250-00")
        assert sideways(page) <= 0, "the unit query scrolls sideways at 375 px"
    finally:
        context.close()


def test_customer_actions_fit_the_list_at_1440_px(page: Page, server_url: str, sessions: Sessions) -> None:
    sessions.resume(page)
    page.goto(f"{server_url}/add-new-customer")
    # A CNPJ and phone no other test registers: all browser tests share one server, which refuses taken ones.
    page.get_by_test_id("customer-cnpj").fill("38.615.294/0001-39")
    page.get_by_test_id("customer-company-name").fill("Sabiá Laranjeira Comércio de Alimentos e Bebidas Ltda")
    page.get_by_test_id("customer-trade-name").fill("Sabiá Laranjeira")
    page.get_by_test_id("customer-person").fill("Rita Sabiá")
    page.get_by_test_id("customer-phone").fill("11932107654")
    page.get_by_test_id("customer-email").fill("rita@sabia-laranjeira.com.br")
    page.get_by_test_id("customer-submit").click()
    expect(page.get_by_test_id("customer-registered")).to_be_visible()

    page.goto(f"{server_url}/customer-list")
    row = page.get_by_test_id("customer-row").filter(has_text="Sabiá Laranjeira").first
    expect(row).to_be_visible()
    settle(page)
    grid = page.get_by_test_id("customer-table").bounding_box()
    assert grid is not None
    for button in ("customer-edit", "customer-status"):
        box = row.get_by_test_id(button).bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= grid["x"] + grid["width"], f"{button} is cut at the grid's right edge"
    screenshot(page, "masks-customer-list-1440")

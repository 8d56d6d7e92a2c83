"""End to end: what the screens say when a lookup finds nothing or the server refuses, in the
reader's language (the pages below are in pt-BR, the app's default)."""

from __future__ import annotations

from e2e_support import screenshot, sign_in
from playwright.sync_api import Page, expect

# A valid CPF (its check digits are right) that the demo dataset does not hold.
UNKNOWN_CPF = "000.000.001-91"


def test_a_valid_document_no_source_holds_shows_the_not_found_message(page: Page, server_url: str) -> None:
    page_errors: list[str] = []
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    sign_in(page, server_url)
    page.goto(f"{server_url}/normal-query")
    page.get_by_test_id("query-document").fill(UNKNOWN_CPF)
    page.get_by_test_id("query-submit").click()

    not_found = page.get_by_test_id("query-not-found")
    expect(not_found).to_be_visible()
    expect(not_found).to_contain_text("Nenhuma informação encontrada para o CPF 000.000.001-91")
    expect(not_found).to_contain_text("nenhum crédito foi cobrado")
    # The screen around it is still there: a new lookup can be typed at once.
    expect(page.get_by_test_id("query-document")).to_be_visible()
    expect(page.get_by_test_id("query-result")).to_have_count(0)
    screenshot(page, "query-not-found")

    # The last result's own screen (kept in memory: reached without reloading) says the same.
    page.evaluate(
        "history.pushState({}, '', '/query-result/00000000191'); dispatchEvent(new PopStateEvent('popstate'))"
    )
    expect(page.get_by_test_id("query-not-found")).to_contain_text("Nenhuma informação encontrada")
    assert page_errors == []

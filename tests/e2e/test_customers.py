"""End to end: the super-admin registers a company on the customer form and finds it in the list."""

from __future__ import annotations

import re

from e2e_support import Sessions, screenshot
from playwright.sync_api import Page, expect


def test_register_a_company_and_find_it_in_the_list(page: Page, server_url: str, sessions: Sessions) -> None:
    sessions.resume(page)

    page.goto(f"{server_url}/customer-list")
    page.get_by_test_id("customer-add").click()
    expect(page).to_have_url(re.compile(r"/add-new-customer$"))
    page.get_by_test_id("customer-cnpj").fill("11.444.777/0001-61")
    page.get_by_test_id("customer-submit").click()
    # The form's own rules first: nothing reaches the server while fields are missing.
    expect(page.get_by_text("Campo obrigatório").first).to_be_visible()

    page.get_by_test_id("customer-company-name").fill("Padaria Bem-te-vi Ltda")
    page.get_by_test_id("customer-trade-name").fill("Padaria Bem-te-vi")
    page.get_by_test_id("customer-person").fill("Joana Prado")
    page.get_by_test_id("customer-phone").fill("(31) 98888-7777")
    page.get_by_test_id("customer-email").fill("joana@padariabemtevi.com.br")
    page.get_by_test_id("customer-quantity-unit").fill("15")
    screenshot(page, "customer-form")
    page.get_by_test_id("customer-submit").click()
    registered = page.get_by_test_id("customer-registered")
    expect(registered).to_contain_text("joana@padariabemtevi.com.br")
    expect(page.get_by_test_id("customer-password")).to_have_text(re.compile(r"^.{12}$"))

    page.get_by_role("link", name="Voltar à lista").click()
    row = page.get_by_test_id("customer-row").filter(has_text="Padaria Bem-te-vi Ltda")
    expect(row).to_contain_text("11.444.777/0001-61")  # CNPJ display rule
    expect(row).to_contain_text("Empresa")
    page.get_by_test_id("customer-search").fill("bem-te-vi")
    expect(page.get_by_test_id("customer-row")).to_have_count(1)
    screenshot(page, "customer-list")

    # The same CNPJ again: refused with the reason, in the reader's language.
    page.goto(f"{server_url}/add-new-customer")
    page.get_by_test_id("customer-cnpj").fill("11.444.777/0001-61")
    page.get_by_test_id("customer-company-name").fill("Outra Padaria Ltda")
    page.get_by_test_id("customer-trade-name").fill("Outra")
    page.get_by_test_id("customer-person").fill("Rui Costa")
    page.get_by_test_id("customer-phone").fill("(31) 97777-6666")
    page.get_by_test_id("customer-email").fill("rui@outrapadaria.com.br")
    page.get_by_test_id("customer-submit").click()
    expect(page.get_by_test_id("customer-error")).to_have_text("CNPJ já cadastrado")

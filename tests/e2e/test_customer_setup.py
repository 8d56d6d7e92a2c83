"""End to end: the super-admin sets a new white label up in one guided flow (company, permissions and credits,
brand, the owner's invitation, the next steps); the owner's invitation arrives on a real SMTP server with its
link on the customer's own domain, and the customer is in the list with its brand and credits."""

from __future__ import annotations

import re

import pytest
from e2e_support import choose_language, screenshot, settle, sign_in
from playwright.sync_api import Page, expect
from support import SmtpSink

from bemtevi.domain.documents import cnpj_check_digits, format_cnpj

pytestmark = pytest.mark.e2e

BASE = "31415926" + "0001"
CNPJ = format_cnpj(BASE + cnpj_check_digits(BASE))
OWNER_EMAIL = "lia@passoapasso.com.br"
DOMAIN = "painel.passo-a-passo.test"


def pictured(page: Page, name: str) -> None:
    """The step at a phone's and a wide screen's width, in both languages, for a person to look at; it never
    scrolls sideways. The page is left as it came: pt-BR at 1440 px."""
    for language in ("en-US", "pt-BR"):
        choose_language(page, language)
        for width in (375, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.evaluate("window.scrollTo(0, 0)")  # a full-page picture draws the fixed bar where it was scrolled
            settle(page)
            assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0, (name, width)
            screenshot(page, f"setup-{name}-{language}-{width}")


def test_the_super_admin_sets_a_white_label_up_in_one_flow(page: Page, mail_server_url: str, smtp: SmtpSink) -> None:
    sign_in(page, mail_server_url)
    page.goto(f"{mail_server_url}/customer-list")
    page.get_by_test_id("customer-add").click()
    expect(page).to_have_url(re.compile(r"/add-new-customer/setup$"))

    # Step 1, the company: its own rules before anything reaches the server.
    page.get_by_test_id("customer-type").select_option("white-label")
    page.get_by_test_id("setup-next").click()
    expect(page.get_by_text("Campo obrigatório").first).to_be_visible()
    page.get_by_test_id("customer-cnpj").fill(CNPJ)
    page.get_by_test_id("customer-company-name").fill("Passo a Passo Informações Ltda")
    page.get_by_test_id("customer-trade-name").fill("Passo a Passo")
    page.get_by_test_id("customer-person").fill("Lia Campos")
    page.get_by_test_id("customer-phone").fill("(41) 98765-1234")
    page.get_by_test_id("customer-email").fill(OWNER_EMAIL)
    page.get_by_test_id("customer-url").fill(DOMAIN)
    pictured(page, "company")
    page.get_by_test_id("setup-next").click()

    # Step 2, permissions and credits: registered now, the credits granted from the super-admin's.
    expect(page.get_by_test_id("setup-permissions")).to_be_visible()
    page.get_by_test_id("customer-quantity-unit").fill("25")
    page.get_by_test_id("customer-toggle-allowUploadingManualQueries").check()
    pictured(page, "permissions")
    page.get_by_test_id("setup-next").click()

    # Step 3, the brand, on the customer's domain.
    expect(page.get_by_test_id("setup-brand")).to_be_visible()
    expect(page.get_by_test_id("setup-domain")).to_contain_text(f"https://{DOMAIN}")
    page.get_by_test_id("brand-title").fill("passo a passo consultas")
    page.get_by_test_id("brand-primaryColor").fill("#0A5C36")
    pictured(page, "brand")
    page.get_by_test_id("brand-save").click()

    # Step 4, the owner: invited by e-mail, the link on the customer's own domain.
    expect(page.get_by_test_id("setup-invited")).to_contain_text(OWNER_EMAIL)
    expect(page.get_by_test_id("setup-owner-status")).to_have_text("Aguardando o primeiro acesso")
    mail = smtp.wait_for_text(OWNER_EMAIL)
    assert re.search(rf"https://{re.escape(DOMAIN)}/verify-code/\d{{6}}/\w+/[\w-]+", mail), mail
    assert "Passo a Passo" in mail
    pictured(page, "owner")
    page.get_by_test_id("setup-finish").click()

    expect(page.get_by_test_id("setup-done")).to_be_visible()
    users = page.get_by_test_id("setup-next-users")
    expect(users).to_have_attribute("href", re.compile(r"/users/[0-9a-f]+/[0-9a-f-]{36}$"))
    pictured(page, "done")
    page.get_by_test_id("setup-next-list").click()

    # In the list, with its brand; its row continues the set-up, where the credits given show.
    page.get_by_test_id("customer-search").fill("passo a passo")
    row = page.get_by_test_id("customer-row").filter(has_text="Passo a Passo Informações Ltda")
    expect(row).to_contain_text(CNPJ)
    expect(row).to_contain_text("White label")
    row.get_by_test_id("customer-edit").click()
    expect(page.get_by_test_id("brand-title")).to_have_value(re.compile("^passo a passo consultas$", re.IGNORECASE))
    expect(page.get_by_test_id("brand-primaryColor")).to_have_value("#0A5C36")
    expect(page.get_by_test_id("brand-preview")).to_contain_text("Passo A Passo Consultas")
    page.goto(f"{mail_server_url}/customer-list")
    page.get_by_test_id("customer-search").fill("passo a passo")
    row.get_by_test_id("customer-setup").click()
    expect(page.get_by_test_id("setup-permissions")).to_be_visible()
    expect(page.get_by_test_id("setup-customer-name")).to_have_text("Passo a Passo")
    expect(page.get_by_text("Saldo do cliente: 25")).to_be_visible()
    expect(page.get_by_test_id("customer-toggle-allowUploadingManualQueries")).to_be_checked()

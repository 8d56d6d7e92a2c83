"""End to end: the super-admin registers a company on the customer form and finds it in the list; the
company's owner, invited by e-mail, chooses a password and signs in, and the customer's row leads to its
users."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
from e2e_support import InFlight, Sessions, screenshot, sign_in
from playwright.sync_api import Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD


def open_the_form(page: Page, server_url: str) -> None:
    """The registration form once every request it made is answered and the screen is at rest: it grows as the
    query types and layouts it offers arrive, and a click sent while it grows lands beside its button (the first
    click of this test was once lost)."""
    in_flight = InFlight(page)
    page.goto(f"{server_url}/add-new-customer")
    in_flight.settle()


def test_register_a_company_and_find_it_in_the_list(page: Page, server_url: str, sessions: Sessions) -> None:
    sessions.resume(page)

    # The one-page registration form (the list's "New customer" opens the guided set-up: test_customer_setup).
    open_the_form(page, server_url)
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
    # No password to pass on: the owner was invited by e-mail to choose one.
    expect(page.get_by_test_id("customer-invited")).to_contain_text("joana@padariabemtevi.com.br")
    expect(page.get_by_test_id("customer-password")).to_have_count(0)

    page.get_by_role("link", name="Voltar à lista").click()
    row = page.get_by_test_id("customer-row").filter(has_text="Padaria Bem-te-vi Ltda")
    expect(row).to_contain_text("11.444.777/0001-61")  # CNPJ display rule
    expect(row).to_contain_text("Empresa")
    # The server is shared with other tests, which register a "Mercearia Bem-te-vi".
    page.get_by_test_id("customer-search").fill("padaria bem-te-vi")
    expect(page.get_by_test_id("customer-row")).to_have_count(1)
    screenshot(page, "customer-list")

    # The same CNPJ again: refused with the reason, in the reader's language.
    open_the_form(page, server_url)
    page.get_by_test_id("customer-cnpj").fill("11.444.777/0001-61")
    page.get_by_test_id("customer-company-name").fill("Outra Padaria Ltda")
    page.get_by_test_id("customer-trade-name").fill("Outra")
    page.get_by_test_id("customer-person").fill("Rui Costa")
    page.get_by_test_id("customer-phone").fill("(31) 97777-6666")
    page.get_by_test_id("customer-email").fill("rui@outrapadaria.com.br")
    page.get_by_test_id("customer-submit").click()
    expect(page.get_by_test_id("customer-error")).to_have_text("CNPJ já cadastrado")


def invitation_to(url: str, to: str) -> str:
    """The first-access mail to ``to``, from the super-admin's outbox (a bound on the wait for the mailer)."""
    token = httpx.post(f"{url}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}, timeout=30)
    headers = {"Authorization": f"Bearer {token.json()['token']}"}
    deadline = time.monotonic() + 60
    while True:
        answer = httpx.get(f"{url}/api/mail/outbox", headers=headers, params={"perPage": 100}, timeout=30)
        rows: list[dict[str, Any]] = answer.json()["data"]
        found = [r for r in rows if r["to"] == to and r["reason"] == "first-access"]
        if found:
            return str(found[0]["text"])
        assert time.monotonic() < deadline, f"no invitation for {to}"
        time.sleep(0.2)


def test_a_new_customers_owner_is_invited_and_its_row_leads_to_its_users(
    page: Page, server_url: str, sessions: Sessions
) -> None:
    sessions.resume(page)
    open_the_form(page, server_url)
    page.get_by_test_id("customer-cnpj").fill("27.865.757/0001-02")
    page.get_by_test_id("customer-company-name").fill("Ferragens Convite Ltda")
    page.get_by_test_id("customer-trade-name").fill("Ferragens Convite")
    page.get_by_test_id("customer-person").fill("Paulo Reis")
    page.get_by_test_id("customer-phone").fill("(62) 98111-2233")
    page.get_by_test_id("customer-email").fill("paulo@ferragensconvite.com.br")
    page.get_by_test_id("customer-submit").click()
    expect(page.get_by_test_id("customer-invited")).to_contain_text("paulo@ferragensconvite.com.br")
    screenshot(page, "customer-invited")
    # The next steps of the set-up: its brand and permissions (the edit form), then its users.
    next_edit = page.get_by_test_id("customer-next-edit")
    expect(next_edit).to_have_attribute("href", re.compile(r"/add-new-customer/[0-9a-f]+/[0-9a-f-]{36}$"))

    # From the registered customer straight to its users: the owner, waiting for the first access.
    page.get_by_test_id("customer-next-users").click()
    expect(page).to_have_url(re.compile(r"/users/[0-9a-f]+/[0-9a-f-]{36}$"))
    expect(page.get_by_text("paulo@ferragensconvite.com.br")).to_be_visible()
    # And from the customer's row in the list.
    page.goto(f"{server_url}/customer-list")
    row = page.get_by_test_id("customer-row").filter(has_text="Ferragens Convite Ltda")
    row.get_by_test_id("customer-users").click()
    expect(page.get_by_text("paulo@ferragensconvite.com.br")).to_be_visible()
    screenshot(page, "customer-users")

    # The owner follows the invitation's link, chooses a password and signs in with it.
    text = invitation_to(server_url, "paulo@ferragensconvite.com.br")
    link = re.search(r"https?://[^/\s]+(/verify-code/\d{6}/\w+/[\w-]+)", text)
    assert link, text
    owner = page.context.browser.new_context(viewport={"width": 375, "height": 800}, locale="pt-BR")  # type: ignore[union-attr]
    try:
        invited = owner.new_page()
        invited.goto(f"{server_url}{link.group(1)}")
        expect(invited).to_have_url(re.compile(r"/redefine-new-password$"))
        invited.get_by_test_id("recovery-password").fill("Minh4!senha")
        invited.get_by_test_id("recovery-confirmation").fill("Minh4!senha")
        invited.get_by_test_id("recovery-save").click()
        expect(invited).to_have_url(re.compile(r"/login$"))
        sign_in(invited, server_url, "paulo@ferragensconvite.com.br", "Minh4!senha")
    finally:
        owner.close()

"""End to end: a company's owner fills the advanced query's form, sees the list (free, no document shown), opens one
result on the unit lookup's result screen and sees the one advanced credit it was charged."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import httpx
import pytest
from e2e_support import follow_menu, screenshot, sign_in
from playwright.sync_api import Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD, KNOWN_CPF, accept_invitation

from bemtevi.domain.documents import cnpj_check_digits, format_cnpj

pytestmark = pytest.mark.e2e

OWNER_EMAIL = "ana@buscasdoparana.com.br"
OWNER_PASSWORD = "Busc@sPR2026"
CNPJ_BASE = "66778899" + "0001"


def _owner(server_url: str) -> None:
    token = httpx.post(
        f"{server_url}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}, timeout=30
    ).json()["token"]
    registered = httpx.post(
        f"{server_url}/api/customers",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "type": "company",
            "cnpj": format_cnpj(CNPJ_BASE + cnpj_check_digits(CNPJ_BASE)),
            "companyName": "Buscas do Paraná Ltda",
            "tradeName": "Buscas do Paraná",
            "personInCharge": "Ana Paraná",
            "phone": "(41) 97777-3311",
            "email": OWNER_EMAIL,
            "seller": None,
            "defaultQuery": True,
            "consultProtest": False,
            "quantities": {"unit": 0, "batch": 0, "advanced": 3, "api": 0},
            "enabledQueryTypes": ["cpf-complete", "cnpj-complete"],
            "panelAccess": True,
            "apiAccess": False,
        },
        timeout=30,
    )
    assert registered.status_code == 200, registered.text
    # The owner was invited by e-mail: they choose their password from the invitation's link.
    with httpx.Client(base_url=server_url, timeout=30) as api:
        accept_invitation(api, OWNER_EMAIL, OWNER_PASSWORD)


def test_owner_searches_opens_a_result_and_sees_the_charge(page: Page, server_url: str, dataset_path: Path) -> None:
    with duckdb.connect(str(dataset_path), read_only=True) as con:
        row = con.execute("SELECT name FROM people WHERE cpf = ?", [KNOWN_CPF]).fetchone()
    assert row is not None
    name = str(row[0])
    words = name.split()
    _owner(server_url)
    sign_in(page, server_url, OWNER_EMAIL, OWNER_PASSWORD)

    follow_menu(page, "queries", "advanced-query")
    expect(page).to_have_url(f"{server_url}/advanced-query")
    expect(page.get_by_test_id("advanced-banner")).to_be_attached()
    # An empty form is refused on the spot.
    page.get_by_test_id("advanced-submit").click()
    expect(page.get_by_test_id("advanced-fill-one")).to_contain_text("Preencha ao menos um campo")
    # Part of the name, without accents, in capitals.
    typed = f"{words[0]} {words[-1]}".upper().replace("É", "E").replace("Á", "A").replace("Í", "I")
    page.get_by_test_id("advanced-name").fill(typed)
    page.get_by_test_id("advanced-submit").click()
    expect(page).to_have_url(re.compile(r"/advanced-query-result-list/"))
    expect(page.get_by_test_id("advanced-cost")).to_contain_text("Abrir um resultado custa 1 crédito")
    expect(page.get_by_test_id("advanced-cost")).to_contain_text("Saldo de consulta avançada: 3")
    found = page.get_by_test_id("advanced-row").filter(has_text=name)
    expect(found).to_have_count(1)
    expect(page.get_by_test_id("advanced-list")).not_to_contain_text(KNOWN_CPF)
    screenshot(page, "advanced-query-results")

    found.get_by_test_id("advanced-open").click()
    expect(page.get_by_test_id("confirm-dialog")).to_contain_text("1 crédito de consulta avançada")
    page.get_by_test_id("confirm-yes").click()
    expect(page).to_have_url(re.compile(rf"/advanced-query-result/{KNOWN_CPF}/cpf/"))
    expect(page.get_by_test_id("advanced-charge")).to_contain_text("1 crédito de consulta avançada cobrado")
    expect(page.locator("main")).to_contain_text(name)
    screenshot(page, "advanced-query-result")

    # The balances screen shows it: 2 of the 3 advanced credits left.
    page.goto(f"{server_url}/balances")
    expect(page.get_by_test_id("balance-advanced").locator(".stat-value")).to_have_text("2")

"""End to end: what the screens say when a lookup finds nothing or the server refuses, in the
reader's language (the pages below are in pt-BR, the app's default)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from e2e_support import screenshot, server_identity, sign_in
from playwright.sync_api import Page, expect
from support import KNOWN_CPF

from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM

# A valid CPF (its check digits are right) that the demo dataset does not hold.
UNKNOWN_CPF = "000.000.001-91"
PASSWORD = "Strong!pass1"


def register_company_user(var_dir: Path, company: str, email: str, unit_credits: int) -> None:
    """A company of the root group with ``unit_credits`` and one user, appended to the running
    server's log from this process."""
    with server_identity(var_dir) as identity:
        group_id, _ = identity.register_group(
            SYSTEM,
            name=company,
            group_type=GroupType.COMPANY,
            parent_id=ROOT_GROUP_ID,
            unit_credit_limit=unit_credits,
        )
        identity.register_user(SYSTEM, group_id=group_id, name="Bia Souza", email=email, password=PASSWORD)


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


def test_not_enough_credits_is_said_in_portuguese(page: Page, server_url: str, server_var_dir: Path) -> None:
    register_company_user(server_var_dir, "Empresa Sem Saldo", "bia@semsaldo.com.br", unit_credits=0)
    sign_in(page, server_url, "bia@semsaldo.com.br", PASSWORD, lands_on=None)
    expect(page.get_by_test_id("logout")).to_be_visible()
    page.goto(f"{server_url}/normal-query")
    page.get_by_test_id("query-document").fill(KNOWN_CPF)
    page.get_by_test_id("query-submit").click()

    error = page.get_by_test_id("query-error")
    expect(error).to_contain_text("Créditos de consulta unitária insuficientes")
    expect(error).not_to_contain_text(re.compile("Not enough|credits", re.IGNORECASE))
    screenshot(page, "query-not-enough-credits")


def test_a_session_ended_elsewhere_is_warned_in_portuguese(page: Page, server_url: str) -> None:
    sign_in(page, server_url)
    token = page.evaluate("localStorage.getItem('authToken')")
    ended = httpx.post(
        f"{server_url}/api/auth/auth/logout", json={"token": token}, headers={"Authorization": f"Bearer {token}"}
    )
    assert ended.status_code == 200, ended.text

    page.goto(f"{server_url}/normal-query")
    dialog = page.get_by_test_id("warning-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Aviso")
    expect(dialog).to_contain_text("Não autorizado")
    expect(dialog).not_to_contain_text("Unauthorized")


def test_a_wrong_password_is_refused_in_portuguese(page: Page, server_url: str) -> None:
    page.goto(f"{server_url}/login")
    page.get_by_test_id("login-email").fill("admin@bemtevi.local")
    page.get_by_test_id("login-password").fill("Wrong!pass9")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_text("E-mail ou senha inválidos")).to_be_visible()
    expect(page.get_by_text("Invalid email or password")).to_have_count(0)

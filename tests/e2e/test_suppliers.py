"""End to end: the super-admin adds a supplier (the form's validation messages first), edits it with its
token left blank (kept), inactivates and activates it with confirmation; a lookup of a document the
local dataset does not know is answered by the vendor simulator and reopened from query-result; the
supplier screens at a phone's and a desktop's width in both languages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from e2e_support import Sessions, screenshot
from playwright.sync_api import Browser, Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD

from bemtevi.domain.documents import cpf_check_digits
from bemtevi.infra.suppliers.local import LocalDatasetSupplier
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer, person

TOKEN = "tok-e2e-Segredo"


@pytest.fixture
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(SimulatorConfig(expected_authorization=f"Bearer {TOKEN}")) as server:
        yield server


def unknown_cpf(dataset_path: Path) -> str:
    local = LocalDatasetSupplier(dataset_path)
    try:
        base = 987_654_000
        while True:
            base += 1
            number = f"{base:09d}" + cpf_check_digits(f"{base:09d}")
            if local.lookup("cpf", number) is None:
                return number
    finally:
        local.close()


def api_token(server_url: str) -> dict[str, str]:
    answer = httpx.post(
        f"{server_url}/api/auth/auth",
        json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "domain_url": "localhost"},
    )
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def fill_supplier(page: Page, port: int, name: str) -> None:
    page.get_by_test_id("supplier-name").fill(name)
    page.get_by_test_id("supplier-contact").fill("suporte@vendor.example")
    page.get_by_test_id("supplier-url").fill("http://vendor.example")
    page.get_by_test_id("supplier-server").fill("127.0.0.1")
    page.get_by_test_id("supplier-port").fill(str(port))
    page.get_by_test_id("supplier-route").fill("/v1/pessoas/{document}")
    page.get_by_test_id("supplier-token").fill(TOKEN)
    page.get_by_test_id("supplier-query-cpf-complete").check()


def test_add_edit_toggle_a_supplier_and_a_lookup_answered_by_it(
    page: Page, server_url: str, sessions: Sessions, simulator: SimulatorServer, dataset_path: Path
) -> None:
    sessions.resume(page)
    page.goto(f"{server_url}/supplier-list")
    page.get_by_test_id("supplier-add").click()
    expect(page).to_have_url(re.compile(r"/add-new-supplier$"))

    # The form's own rules, in the reader's language, before anything reaches the server.
    page.get_by_test_id("supplier-submit").click()
    expect(page.get_by_text("Campo obrigatório").first).to_be_visible()
    expect(page.get_by_text("Token bearer obrigatório")).to_be_visible()
    expect(page.get_by_text("Selecione ao menos uma consulta")).to_be_visible()
    page.get_by_test_id("supplier-method").select_option("POST")
    page.get_by_test_id("supplier-body").fill('{"documento": ')
    page.get_by_test_id("supplier-cache").fill("120")
    page.get_by_test_id("supplier-submit").click()
    expect(page.get_by_text("O corpo da requisição deve ser um JSON válido")).to_be_visible()
    expect(page.get_by_text("O cache não pode passar da validade")).to_be_visible()
    screenshot(page, "supplier-form-errors")

    page.get_by_test_id("supplier-method").select_option("GET")
    page.get_by_test_id("supplier-body").fill("")
    page.get_by_test_id("supplier-cache").fill("30")
    fill_supplier(page, simulator.port, "Vendor Simulado")
    page.get_by_test_id("supplier-submit").click()
    expect(page).to_have_url(re.compile(r"/supplier-list$"))
    row = page.get_by_test_id("supplier-row").filter(has_text="Vendor Simulado")
    expect(row).to_contain_text("Ativo")
    expect(row).to_contain_text("Token bearer")
    screenshot(page, "supplier-list")

    # Edit: the token is never shown; left blank it is kept.
    row.get_by_test_id("supplier-edit").click()
    expect(page.get_by_test_id("supplier-name")).to_have_value("Vendor Simulado")
    expect(page.get_by_test_id("supplier-token")).to_have_value("")
    expect(page.get_by_text("Definido — deixe em branco para manter")).to_be_visible()
    assert TOKEN not in page.content()
    page.get_by_test_id("supplier-name").fill("Vendor Simulado Sul")
    screenshot(page, "supplier-form-edit")
    page.get_by_test_id("supplier-submit").click()
    expect(page).to_have_url(re.compile(r"/supplier-list$"))
    row = page.get_by_test_id("supplier-row").filter(has_text="Vendor Simulado Sul")
    expect(row).to_be_visible()

    # Inactivate and activate, each with confirmation.
    row.get_by_test_id("supplier-status").click()
    expect(page.get_by_test_id("confirm-dialog")).to_contain_text("Vendor Simulado Sul")
    page.get_by_test_id("confirm-yes").click()
    expect(row).to_contain_text("Inativo")
    row.get_by_test_id("supplier-status").click()
    page.get_by_test_id("confirm-yes").click()
    expect(row).to_contain_text("Ativo")

    supplier_id = httpx.get(f"{server_url}/api/suppliers?search=Sul", headers=api_token(server_url)).json()["data"][0][
        "id"
    ]
    try:
        # A document the local dataset does not know: answered by the simulator, then reopened.
        cpf = unknown_cpf(dataset_path)
        page.goto(f"{server_url}/normal-query")
        page.get_by_test_id("query-document").fill(cpf)
        page.get_by_test_id("query-submit").click()
        expect(page.get_by_test_id("query-permalink")).to_be_visible()
        assert simulator.app.stats["ok"] == 1
        name = person(cpf)["nome"]
        expect(page.locator(".result-section").first).to_contain_text(name)
        page.get_by_test_id("query-permalink").click()
        expect(page).to_have_url(re.compile(r"/query-result/\d{11}/cpf/cpf-complete/-/[0-9a-f-]{36}/person$"))
        page.reload()  # from the server's kept result, not this tab's memory
        expect(page.locator(".result-section").first).to_contain_text(name)
        screenshot(page, "supplier-lookup-result")
        assert simulator.app.stats["ok"] == 1
    finally:
        # Other tests look up unknown documents: leave no supplier pointing at a simulator that stops.
        httpx.post(
            f"{server_url}/api/suppliers/{supplier_id}/status", json={"active": False}, headers=api_token(server_url)
        )


@pytest.mark.parametrize(("width", "language"), [(375, "pt-BR"), (375, "en-US"), (1440, "pt-BR"), (1440, "en-US")])
def test_supplier_screens_at_each_width_and_language(
    browser: Browser, server_url: str, sessions: Sessions, width: int, language: str
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    context.add_init_script(f"try {{ window.localStorage.setItem('locale', '{language}') }} catch {{}}")
    page = context.new_page()
    try:
        sessions.resume(page)
        page.goto(f"{server_url}/supplier-list")
        expect(page.get_by_role("heading", name="Fornecedores" if language == "pt-BR" else "Suppliers")).to_be_visible()
        screenshot(page, f"suppliers-list-{language}-{width}")
        page.get_by_test_id("supplier-add").click()
        page.get_by_test_id("supplier-auth").select_option("basic")
        page.get_by_test_id("supplier-submit").click()
        required = "Campo obrigatório" if language == "pt-BR" else "Required field"
        expect(page.get_by_text(required).first).to_be_visible()
        screenshot(page, f"suppliers-form-{language}-{width}")
    finally:
        context.close()

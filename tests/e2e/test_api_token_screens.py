"""An API token's life in Chromium: generated on the api-query screen, its secret copied, called with curl,
inactivated on the screen, and the next call refused."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from e2e_support import sign_in
from playwright.sync_api import Page, expect
from support import KNOWN_CPF


def _curl(url: str, token: str) -> tuple[int, dict[str, object]]:
    done = subprocess.run(
        [
            "curl", "-s", "-w", "\n%{http_code}", "-X", "POST", f"{url}/api/v1/lookups",
            "-H", f"Authorization: Bearer {token}", "-H", "Content-Type: application/json",
            "-d", json.dumps({"document": KNOWN_CPF}),
        ],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    body, _, status = done.stdout.rpartition("\n")
    return int(status), json.loads(body)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_create_copy_call_inactivate_then_refused(page: Page, server_url: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, server_url)
    page.goto(f"{server_url}/api-query")
    page.get_by_test_id("token-new").click()
    page.get_by_test_id("token-name").fill("Integração e2e")
    page.get_by_test_id("token-type-cpf-complete").check()
    page.get_by_test_id("token-generate").click()
    secret_field = page.get_by_test_id("token-secret-value")
    token = secret_field.input_value()
    assert token.startswith("bk_") and "." in token
    page.get_by_test_id("token-copy").click()
    expect(page.get_by_text("Copiado.")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == token
    page.get_by_test_id("token-secret-close").click()
    expect(page.get_by_test_id("token-secret")).to_be_hidden()
    row = page.get_by_test_id("token-row").filter(has_text="Integração e2e")
    expect(row.get_by_test_id("token-status")).to_have_text("Ativo")
    assert token.split(".", 1)[1] not in page.content()  # shown once, never again

    status, body = _curl(server_url, token)
    assert status == 200, body
    assert body["data"]["credits"] == 1  # type: ignore[index]

    row.get_by_test_id("token-toggle").click()
    page.get_by_test_id("confirm-yes").click()
    expect(row.get_by_test_id("token-status")).to_have_text("Inativo")
    status, body = _curl(server_url, token)
    assert (status, body["code"]) == (401, "api_token_inactive")


@pytest.mark.parametrize("language", ["pt-BR", "en-US"])
def test_the_api_screen_reads_in_the_users_language(page: Page, server_url: str, language: str) -> None:
    """The seeded query types (stored in Portuguese) and the public API's operations (an English schema) read
    in the screen's language: en-US never shows their Portuguese words, pt-BR never the schema's English."""
    english = language == "en-US"
    page.add_init_script(f"localStorage.setItem('locale', '{language}')")
    sign_in(page, server_url)
    page.goto(f"{server_url}/api-query")
    types = page.get_by_test_id("token-query-types")
    expect(types).to_contain_text("Complete person (CPF)" if english else "Pessoa física completa")
    expect(types).to_contain_text("Registration, addresses, phones" if english else "Cadastro, endereços, telefones")
    docs = page.get_by_test_id("api-docs")
    lookup = docs.get_by_role("row").filter(has_text="/api/v1/lookups").first
    expect(lookup).to_contain_text("Unit query" if english else "Consulta unitária")
    expect(lookup).to_contain_text("A query by CPF or CNPJ" if english else "Consulta por CPF ou CNPJ")
    if english:
        # The seeded types': a type another test's admin named in Portuguese reads as it was written.
        for code in ("cpf-complete", "cnpj-complete"):
            expect(types.get_by_role("listitem").filter(has_text=code)).not_to_contain_text("Cadastro")
        expect(docs).not_to_contain_text("Consulta")
    else:
        expect(docs).not_to_contain_text("Token info")
        expect(docs).not_to_contain_text("query")

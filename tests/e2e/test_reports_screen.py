"""The reports screen as a company's owner sees it after lookups by the company, by its customer below it
and by a company beside it: the breadcrumb, the chart and the table, grouping by result, adding the
customer below (never the company beside), and both exports downloaded with the specification's names.
Screenshots go to test-results/ (reports-<language>.png)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from e2e_support import screenshot, server_identity, sign_in
from playwright.sync_api import Page, expect
from support import KNOWN_CNPJ, KNOWN_CPF

from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role

pytestmark = pytest.mark.e2e

PASSWORD = "Relat@rio-2026"
OWNER = "dona@empresajacana.com.br"
NOT_FOUND_CPF = "00000000191"
# (group, parent, unit credits, owner's e-mail, documents its owner looks up)
TREE = [
    ("Empresa Jaçanã", None, 20, OWNER, [KNOWN_CPF, KNOWN_CNPJ, NOT_FOUND_CPF]),
    ("Filial Saracura", "Empresa Jaçanã", 5, "dono@filialsaracura.com.br", [KNOWN_CPF]),
    ("Vizinha Socó", None, 10, "dona@vizinhasoco.com.br", [KNOWN_CPF, KNOWN_CPF, KNOWN_CPF]),
]


@pytest.fixture(scope="module")
def lookups(server_var_dir: Path, server_url: str) -> None:
    ids: dict[str, object] = {}
    with server_identity(server_var_dir) as identity:
        for name, parent, credits, email, _ in TREE:
            group_id, _ = identity.register_group(
                SYSTEM,
                name=name,
                group_type=GroupType.COMPANY,
                parent_id=ids[parent] if parent else ROOT_GROUP_ID,
                unit_credit_limit=credits,
            )
            ids[name] = group_id
            identity.register_user(
                SYSTEM, group_id=group_id, name=f"Pessoa {name}", email=email, password=PASSWORD, role=Role.OWNER
            )
    for _, _, _, email, documents in TREE:
        # The server's read side picks the users up from the log.
        for _attempt in range(50):
            signed = httpx.post(f"{server_url}/api/auth/auth", json={"email": email, "password": PASSWORD}, timeout=30)
            if signed.status_code == 200:
                break
            httpx.get(f"{server_url}/api/health", timeout=30)
        assert signed.status_code == 200, signed.text
        headers = {"Authorization": f"Bearer {signed.json()['token']}"}
        for document in documents:
            looked = httpx.post(
                f"{server_url}/api/consultations", headers=headers, json={"document": document}, timeout=30
            )
            assert looked.status_code == 200, looked.text


def test_the_report_shows_groups_and_exports_the_owners_subtree(
    page: Page, server_url: str, lookups: None, tmp_path: Path
) -> None:
    sign_in(page, server_url, OWNER, PASSWORD)
    page.get_by_test_id("nav-reports").click()
    expect(page).to_have_url(re.compile(r"/reports$"))
    expect(page.get_by_text("Aqui está seu relatório").first).to_be_visible()
    totals = page.get_by_test_id("report-totals")
    expect(totals).to_contain_text("3 consultas · 2 encontradas · 1 não encontrada · 2 créditos")
    expect(page.get_by_test_id("report-chart")).to_be_visible()
    expect(page.get_by_test_id("report-row")).to_have_count(1)
    expect(page.get_by_test_id("report-row").first).to_contain_text("Unitária")

    page.get_by_test_id("report-group-by").select_option("found")
    rows = page.get_by_test_id("report-row")
    expect(rows).to_have_count(2)
    expect(page.get_by_test_id("report-table")).to_contain_text("Não encontrada")
    # The customer below adds its lookup; the company beside never shows.
    page.get_by_test_id("report-children").click()
    expect(totals).to_contain_text("4 consultas · 3 encontradas")
    screenshot(page, "reports-pt-BR")

    with page.expect_download() as caught:
        page.get_by_test_id("list-export").click()
    download = caught.value
    assert re.fullmatch(r"relatorio_\d{2}-\d{2}-\d{4}_\d{2}-\d{2}-\d{2}\.csv", download.suggested_filename)
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    lines = saved.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "Período;Resultado;Consultas;Encontradas;Não encontradas;Créditos"
    assert sorted(line.split(";")[1] for line in lines[1:]) == ["Encontrada", "Não encontrada"]
    assert sum(int(line.split(";")[2]) for line in lines[1:]) == 4

    with page.expect_download() as caught:
        page.get_by_test_id("export-xlsx").click()
    assert re.fullmatch(r"relatorio_[\d_-]+\.xlsx", caught.value.suggested_filename)
    assert caught.value.failure() is None

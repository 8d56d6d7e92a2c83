"""End to end: a parent grants credits on the balances screen and finance reads the movement."""

from __future__ import annotations

import re
from pathlib import Path

from e2e_support import Sessions, choose_language, screenshot, server_identity, settle
from playwright.sync_api import Page, expect

from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM


def register_child(var_dir: Path, name: str) -> None:
    """A customer of the root group, appended to the running server's log from this process."""
    with server_identity(var_dir) as identity:
        identity.register_group(SYSTEM, name=name, group_type=GroupType.RESELLER, parent_id=ROOT_GROUP_ID)


def test_grant_on_the_balances_screen_then_read_it_in_the_history(
    page: Page, server_url: str, sessions: Sessions, server_var_dir: Path, tmp_path: Path
) -> None:
    register_child(server_var_dir, "Revenda Aurora")
    sessions.resume(page)

    page.goto(f"{server_url}/balances")
    expect(page.get_by_test_id("balance-unit")).to_contain_text("Ilimitado")
    row = page.get_by_test_id("balance-child").filter(has_text="Revenda Aurora")
    expect(row).to_be_visible()  # the server's projector picks the new group up
    row.get_by_test_id("grant-open").click()
    form = page.get_by_test_id("grant-form")
    amount = form.get_by_role("spinbutton", name="Quantidade")
    amount.fill("0")
    form.get_by_test_id("grant-submit").click()
    # the refusal is the amount field's own error, read out with it by a screen reader
    expect(amount).to_have_attribute("aria-invalid", "true")
    expect(amount).to_have_accessible_description("Informe um número inteiro diferente de zero")
    amount.fill("25")
    form.get_by_test_id("grant-submit").click()
    expect(page.get_by_test_id("grant-form")).to_have_count(0)
    expect(row).to_contain_text("0 de 25")
    screenshot(page, "credits-balances")

    page.get_by_test_id("history-link").click()
    expect(page).to_have_url(re.compile(r"/balance-history$"))
    first = page.get_by_test_id("history-row").first
    expect(first).to_contain_text("Crédito recebido")
    expect(first).to_contain_text("Revenda Aurora")
    expect(first.get_by_test_id("history-balance")).to_have_text("25")
    granted = page.get_by_test_id("history-row").nth(1)
    expect(granted).to_contain_text("Crédito concedido")
    expect(granted.get_by_test_id("history-balance")).to_have_text("Ilimitado")
    screenshot(page, "credits-history")

    # The month's close over the root's customers lists the new reseller with what it received.
    child = page.get_by_test_id("monthly-close-card").get_by_test_id("monthly-close-child")
    aurora = child.filter(has_text="Revenda Aurora")
    expect(aurora).to_have_count(1)
    aurora.get_by_role("button").first.click()
    expect(aurora.get_by_test_id("statement-received")).to_contain_text("25")
    aurora.scroll_into_view_if_needed()
    screenshot(page, "credits-monthly-close")

    # The close as a file, from its card's buttons: the screen's figures, named as exports are.
    card = page.get_by_test_id("monthly-close-card")
    with page.expect_download() as close_info:
        card.get_by_test_id("monthly-close-csv").click()
    closed = close_info.value
    assert re.fullmatch(
        r"fechamento_mensal_\d{4}-\d{2}_\d{2}-\d{2}-\d{4}_\d{2}-\d{2}-\d{2}\.csv", closed.suggested_filename
    )
    close_file = tmp_path / closed.suggested_filename
    closed.save_as(close_file)
    close_lines = close_file.read_text(encoding="utf-8").splitlines()
    assert close_lines[0].startswith("Cliente;Categoria;Saldo inicial")
    assert any(line.startswith("Revenda Aurora;Consulta unitária;0;25;") for line in close_lines)
    with page.expect_download() as xlsx_info:
        card.get_by_test_id("monthly-close-xlsx").click()
    assert xlsx_info.value.suggested_filename.endswith(".xlsx")
    for language, tag in (("pt-BR", "pt"), ("en-US", "en")):
        page.set_viewport_size({"width": 1440, "height": 900})  # the language switch is in the wide top bar
        choose_language(page, language)
        expect(card.get_by_test_id("monthly-close-xlsx")).to_have_text(
            "Exportar XLSX" if tag == "pt" else "Export XLSX"
        )
        for width in (1440, 375):
            page.set_viewport_size({"width": width, "height": 900})
            settle(page)
            card.scroll_into_view_if_needed()
            screenshot(page, f"credits-monthly-close-{tag}-{width}")
    choose_language(page, "pt-BR")
    page.set_viewport_size({"width": 1440, "height": 900})

    with page.expect_download() as download_info:
        page.get_by_test_id("list-export").click()
    download = download_info.value
    assert re.fullmatch(r"historico_saldos_\d{2}-\d{2}-\d{4}_\d{2}-\d{2}-\d{2}\.csv", download.suggested_filename)
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    lines = saved.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("Data/hora;Grupo;Categoria;Movimento")
    assert any("Revenda Aurora;Consulta unitária;Crédito recebido;25;25" in line for line in lines)

"""The data-subject report screen as the data-protection officer uses it: a company's owner consulted a CPF, once
through the unit-query screen with a purpose typed in its form; the officer signs in, opens the report from the
menu, types the CPF (masked as typed), sees the company's rows with that purpose, and downloads the signed PDF, whose
signature (shown on the screen) the platform's public check accepts for that file and no other. Screenshots at 375
and 1440 px in both languages go to test-results/ (data-subject-<language>-<width>.png, and the owner's form as
unit-query-purpose-<language>-<width>.png)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from e2e_support import choose_language, screenshot, server_identity, settle, sign_in
from playwright.sync_api import Browser, expect
from support import KNOWN_CPF

from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role

pytestmark = pytest.mark.e2e

PASSWORD = "Titular@-2026"
OWNER = "dono@empresatie.com.br"
OFFICER = "encarregada@bemtevi.com.br"
COMPANY = "Empresa Tiê Ltda"


@pytest.fixture(scope="module")
def consulted(server_var_dir: Path, server_url: str) -> None:
    with server_identity(server_var_dir) as identity:
        group_id, _ = identity.register_group(
            SYSTEM, name=COMPANY, group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=5
        )
        identity.register_user(
            SYSTEM, group_id=group_id, name="Dono Tiê", email=OWNER, password=PASSWORD, role=Role.OWNER
        )
        identity.register_user(
            SYSTEM, group_id=ROOT_GROUP_ID, name="Encarregada Dados", email=OFFICER, password=PASSWORD, role=Role.DPO
        )
    # The server's read side picks the users up from the log.
    for _attempt in range(50):
        signed = httpx.post(f"{server_url}/api/auth/auth", json={"email": OWNER, "password": PASSWORD}, timeout=30)
        if signed.status_code == 200:
            break
        httpx.get(f"{server_url}/api/health", timeout=30)
    assert signed.status_code == 200, signed.text
    looked = httpx.post(
        f"{server_url}/api/consultations",
        json={"document": KNOWN_CPF},
        headers={"Authorization": f"Bearer {signed.json()['token']}"},
        timeout=30,
    )
    assert looked.status_code == 200, looked.text


@pytest.mark.parametrize("language", ["pt-BR", "en-US"])
def test_the_officer_finds_who_consulted_a_cpf(
    browser: Browser, server_url: str, consulted: None, language: str
) -> None:
    tag = "pt" if language == "pt-BR" else "en"
    purpose = f"Análise de crédito do contrato 4512-{tag}"
    # The owner looks the CPF up in the unit-query screen, saying what for.
    owner_context = browser.new_context(viewport={"width": 1440, "height": 900}, locale=language)
    owner = owner_context.new_page()
    try:
        sign_in(owner, server_url, OWNER, PASSWORD)
        choose_language(owner, language)
        owner.goto(f"{server_url}/normal-query")
        owner.get_by_test_id("query-document").fill(KNOWN_CPF)
        owner.get_by_test_id("query-purpose").fill(f"  {purpose}  ")
        for width in (1440, 375):
            owner.set_viewport_size({"width": width, "height": 900})
            settle(owner)
            assert owner.evaluate("document.documentElement.scrollWidth") <= width
            screenshot(owner, f"unit-query-purpose-{tag}-{width}")
        owner.get_by_test_id("query-submit").click()
        expect(owner.get_by_test_id("query-permalink")).to_be_visible()
    finally:
        owner_context.close()

    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale=language, accept_downloads=True)
    page = context.new_page()
    try:
        sign_in(page, server_url, OFFICER, PASSWORD)
        choose_language(page, language)
        page.get_by_test_id("nav-data-subject").click()
        expect(page).to_have_url(f"{server_url}/data-subject-report")

        field = page.get_by_test_id("data-subject-document")
        field.fill("529982247")  # a CPF cut short: the mask shows it, the check refuses it
        page.get_by_test_id("data-subject-search").click()
        expect(page.get_by_test_id("data-subject-document-error")).to_be_visible()
        field.fill(KNOWN_CPF)
        masked = f"{KNOWN_CPF[:3]}.{KNOWN_CPF[3:6]}.{KNOWN_CPF[6:9]}-{KNOWN_CPF[9:]}"
        expect(field).to_have_value(masked)
        page.get_by_test_id("data-subject-search").click()

        rows = page.get_by_test_id("data-subject-row").filter(has_text=COMPANY)
        expect(rows.first).to_be_visible()
        # The lookup made through the form shows the purpose typed there (its blanks trimmed).
        row = rows.filter(has_text=purpose)
        expect(row).to_have_count(1)
        expect(row).to_contain_text("Dono Tiê")
        expect(page.get_by_test_id("data-subject-summary")).to_contain_text(masked)
        title = "Relatório do titular (LGPD)" if language == "pt-BR" else "Data-subject report (LGPD)"
        expect(page.get_by_role("heading", name=title)).to_be_visible()

        with page.expect_download() as download:
            page.get_by_test_id("data-subject-pdf").click()
        name = download.value.suggested_filename
        assert re.fullmatch(r"(relatorio_titular|data_subject_report)_\d{11}_.+\.pdf", name), name
        # The saved file keeps no headers: the screen shows the signature, and the platform's public check
        # (no account needed) says it is this very file's.
        signature = page.get_by_test_id("data-subject-signature-value")
        expect(signature).not_to_be_empty()
        pdf = Path(download.value.path()).read_bytes()
        for content, valid in ((pdf, True), (pdf[:-1] + bytes([pdf[-1] ^ 1]), False)):
            checked = httpx.post(
                f"{server_url}/api/audit/data-subject/verify",
                params={"signature": signature.inner_text().strip()},
                content=content,
                headers={"Content-Type": "application/pdf"},
                timeout=30,
            )
            assert checked.status_code == 200 and checked.json()["valid"] is valid, checked.text

        for width in (1440, 375):
            page.set_viewport_size({"width": width, "height": 900})
            settle(page)
            # Nothing runs past the window's width: the grid scrolls inside its card.
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            screenshot(page, f"data-subject-{tag}-{width}")
    finally:
        context.close()

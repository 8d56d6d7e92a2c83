"""End to end: a white-label's owner opens their brand screen and the audit log from the menu
and finds there what was done for their company, each event said as a sentence in either language; a new
company's empty dashboard, layouts and batches each say what to do next."""

from __future__ import annotations

import re

import httpx
import pytest
from e2e_support import follow_menu, screenshot, settle, sign_in
from playwright.sync_api import Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD, accept_invitation

from bemtevi.domain.documents import cnpj_check_digits, format_cnpj

pytestmark = pytest.mark.e2e

OWNER_EMAIL = "teresa@docesdateresa.com.br"
OWNER_PASSWORD = "C0nfeit@ria"
CNPJ_BASE = "55667788" + "0001"


def test_owner_sees_their_brand_and_the_audit_log(page: Page, server_url: str) -> None:
    # The super-admin registers a white-label; its owner chooses a password and sets the brand.
    token = httpx.post(
        f"{server_url}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}, timeout=30
    ).json()["token"]
    registered = httpx.post(
        f"{server_url}/api/customers",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "type": "white-label",
            "cnpj": format_cnpj(CNPJ_BASE + cnpj_check_digits(CNPJ_BASE)),
            "companyName": "Doces da Teresa Consultas Ltda",
            "tradeName": "Doces da Teresa",
            "personInCharge": "Teresa Ramos",
            "phone": "(41) 98888-2211",
            "email": OWNER_EMAIL,
            "seller": None,
            "defaultQuery": True,
            "consultProtest": False,
            "quantities": {"unit": 0, "batch": 0, "advanced": 0, "api": 0},
            "enabledQueryTypes": ["cpf-complete"],
            "panelAccess": True,
            "apiAccess": False,
            "whiteLabelUrl": "consultas.docesdateresa.test",
        },
        timeout=30,
    )
    assert registered.status_code == 200, registered.text
    group_id = registered.json()["data"]["id"]
    # The owner was invited by e-mail: they choose their password from the invitation's link.
    with httpx.Client(base_url=server_url, timeout=30) as api:
        accept_invitation(api, OWNER_EMAIL, OWNER_PASSWORD)
    owner = httpx.post(
        f"{server_url}/api/auth/auth", json={"email": OWNER_EMAIL, "password": OWNER_PASSWORD}, timeout=30
    ).json()["token"]
    headers = {"Authorization": f"Bearer {owner}"}
    changed = httpx.put(
        f"{server_url}/api/group/{group_id}/brand",
        headers=headers,
        json={"appTitle": "Doces da Teresa", "primaryColor": "#7A3E12"},
        timeout=30,
    )
    assert changed.status_code == 200, changed.text
    # Both read models have the change before the browser asks.
    position = changed.json()["position"]
    brand = httpx.get(
        f"{server_url}/api/group/{group_id}/brand", headers=headers, params={"position": position}, timeout=30
    )
    assert brand.status_code == 200 and brand.json()["upToDate"] is True, brand.text
    audit = httpx.get(f"{server_url}/api/audit", headers=headers, params={"position": position}, timeout=30)
    assert audit.status_code == 200 and audit.json()["total"] > 0, audit.text

    sign_in(page, server_url, OWNER_EMAIL, OWNER_PASSWORD)

    # Their brand: the saved title and colour in the fields and in the preview.
    follow_menu(page, "register", "brand")
    expect(page).to_have_url(f"{server_url}/brand-settings")
    expect(page.get_by_role("heading", name="Minha marca")).to_be_visible()
    expect(page.get_by_test_id("brand-title")).to_have_value("Doces da Teresa")
    expect(page.get_by_test_id("brand-primaryColor")).to_have_value("#7A3E12")
    expect(page.get_by_test_id("brand-preview")).to_contain_text("Doces Da Teresa")
    screenshot(page, "owner-brand-settings")

    # The audit log: the brand change, by whom, with what; the sign-in too.
    follow_menu(page, "register", "audit-log")
    expect(page).to_have_url(f"{server_url}/audit-log")
    expect(page.get_by_role("heading", name="Registro de auditoria")).to_be_visible()
    rows = page.get_by_test_id("audit-row")
    # Translated event names, the actor by name, the target and the changed fields (never raw types).
    brand_row = rows.filter(has_text="Marca alterada")
    expect(brand_row).to_have_count(1)
    expect(brand_row).to_contain_text("Título do app: Doces da Teresa")
    expect(brand_row).to_contain_text("Teresa")
    expect(brand_row).to_contain_text("Empresa")
    expect(rows.filter(has_text="Entrou no sistema").first).to_be_visible()
    for text in rows.all_inner_texts():
        assert "BrandChanged" not in text and "Opened" not in text and "user_id=" not in text, text
    screenshot(page, "owner-audit-log")
    # Filtered by kind of event: only the company's own records are left.
    page.get_by_test_id("audit-type").select_option("Group")
    expect(rows.filter(has_text="Entrou no sistema")).to_have_count(0)
    expect(rows.filter(has_text="Marca alterada")).to_have_count(1)
    for text in rows.all_inner_texts():
        assert "Empresa" in text, text
    # Each event is a sentence: who did what to what, by name.
    sentence = page.get_by_test_id("audit-sentence").filter(has_text="alterou a marca de")
    expect(sentence).to_have_text(re.compile(r"^Teresa.* alterou a marca de Doces da Teresa Consultas Ltda$"))
    # One kind of event: only its rows are left.
    page.get_by_test_id("audit-type").select_option("Session.Opened")
    expect(rows.filter(has_text="alterou a marca de")).to_have_count(0)
    expect(page.get_by_test_id("audit-sentence").first).to_have_text(re.compile(r"^Teresa.* entrou no sistema$"))

    # At a phone's and a desktop's width, in both languages: sentences of the language, nothing sideways.
    for width in (375, 1440):
        for language in ("pt-BR", "en-US"):
            english = language == "en-US"
            page.set_viewport_size({"width": width, "height": 900})
            page.evaluate(f"window.localStorage.setItem('locale', '{language}')")
            page.reload()
            title = "Audit log" if english else "Registro de auditoria"
            expect(page.get_by_role("heading", level=1)).to_have_text(title)
            brand = page.get_by_test_id("audit-sentence").filter(
                has_text="changed the brand of" if english else "alterou a marca de"
            )
            expect(brand).to_have_count(1)
            texts = " ".join(page.get_by_test_id("audit-sentence").all_inner_texts())
            assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-", texts) and "{{" not in texts, texts
            settle(page)
            screenshot(page, f"owner-audit-sentences-{language}-{width}")
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"the audit log scrolls sideways by {overflow}px at {width}px"
            # A new company has consulted nothing, sent no batch and keeps no layout of its own: each screen
            # says what to do next, with the button that does it.
            page.goto(f"{server_url}/dashboard")
            expect(page.get_by_test_id("dashboard-empty-text")).to_contain_text(
                "Nothing here yet" if english else "Nada por aqui ainda"
            )
            expect(page.get_by_test_id("dashboard-first-query")).to_be_visible()
            expect(page.get_by_test_id("dashboard-first-batch")).to_be_visible()
            expect(page.get_by_test_id("dashboard-batches")).to_have_text("0 files" if english else "0 arquivos")
            settle(page)
            screenshot(page, f"owner-empty-dashboard-{language}-{width}")
            page.goto(f"{server_url}/layout-list")
            expect(page.get_by_test_id("layout-add-first")).to_be_visible()
            settle(page)
            screenshot(page, f"owner-empty-layouts-{language}-{width}")
            page.goto(f"{server_url}/batch-query")
            expect(page.get_by_test_id("list-empty-text")).to_contain_text(
                "No file sent yet" if english else "Nenhum arquivo enviado ainda"
            )
            send_first = page.get_by_test_id("batch-send-first")
            expect(send_first).to_be_visible()
            settle(page)
            screenshot(page, f"owner-empty-batches-{language}-{width}")
            send_first.click()
            expect(page.get_by_test_id("batch-upload").get_by_role("combobox").first).to_be_focused()
            page.goto(f"{server_url}/audit-log")
    # The dashboard's first query leads to the query screen.
    page.goto(f"{server_url}/dashboard")
    page.get_by_test_id("dashboard-first-query").click()
    expect(page).to_have_url(f"{server_url}/normal-query")

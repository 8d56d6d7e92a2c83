"""The dashboard's charts and the balance history's chart, as a reseller's owner sees them after a
few lookups by their company and by the customers below it: at a phone's and a desktop's width, in
both languages. Screenshots go to test-results/ (dashboard-<language>-<width>.png,
balance-history-<language>-<width>.png) for a person to look at; the test checks what would show a
broken screen: a chart missing or stuck loading, texts of the other language, the page scrolling
sideways, a customer beside the owner's tree among its top consumers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from e2e_support import screenshot, server_identity, settle, sign_in
from playwright.sync_api import Browser, Page, expect
from support import KNOWN_CNPJ, KNOWN_CPF

from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role

pytestmark = pytest.mark.e2e

PASSWORD = "Gr@fico-2026"
OWNER = "dona@revendaurutau.com.br"
# (group, parent, unit credits, owner's e-mail, documents its owner looks up)
TREE = [
    ("Revenda Urutau", None, 60, OWNER, [KNOWN_CPF, KNOWN_CNPJ]),
    ("Mercado Sabiá", "Revenda Urutau", 20, "dono@mercadosabia.com.br", [KNOWN_CPF, KNOWN_CNPJ, KNOWN_CPF, KNOWN_CPF]),
    ("Padaria Tico-tico", "Revenda Urutau", 10, "dona@padariaticotico.com.br", [KNOWN_CNPJ]),
    ("Vizinha Ltda", None, 10, "dona@vizinha.com.br", [KNOWN_CPF, KNOWN_CPF, KNOWN_CPF, KNOWN_CPF, KNOWN_CPF]),
]


@pytest.fixture(scope="module")
def lookups(server_var_dir: Path, server_url: str) -> None:
    """The reseller, two customers below it and a company beside it, each owner's lookups made."""
    ids: dict[str, object] = {}
    with server_identity(server_var_dir) as identity:
        for name, parent, credits, email, _ in TREE:
            group_id, _ = identity.register_group(
                SYSTEM,
                name=name,
                group_type=GroupType.RESELLER if parent is None and name.startswith("Revenda") else GroupType.COMPANY,
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


@pytest.fixture
def sized_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[tuple[Page, int, str]]:
    width, language = request.param
    # The charts honour reduced motion (MUI X skips their entrance animation): drawn whole at once, the
    # pictures wait on the screen at rest (`settle`) instead of on the animation's length.
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language, reduced_motion="reduce")
    context.add_init_script(f"try {{ window.localStorage.setItem('locale', '{language}') }} catch {{}}")
    page = context.new_page()
    yield page, width, language
    context.close()


VIEWS = [(375, "pt-BR"), (375, "en-US"), (1440, "pt-BR"), (1440, "en-US")]


def sideways(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


@pytest.mark.parametrize("sized_page", VIEWS, ids=[f"{w}-{lang}" for w, lang in VIEWS], indirect=True)
def test_the_owner_sees_the_dashboard_and_balance_history_charts(
    sized_page: tuple[Page, int, str], server_url: str, lookups: None
) -> None:
    page, width, language = sized_page
    english = language == "en-US"
    sign_in(page, server_url, OWNER, PASSWORD)
    # One more lookup from the panel, as the owner makes it.
    page.goto(f"{server_url}/normal-query")
    page.get_by_test_id("query-document").fill("529.982.247-25")
    page.get_by_test_id("query-submit").click()
    expect(page.get_by_test_id("query-result")).to_be_visible()

    page.goto(f"{server_url}/dashboard")
    expect(page.get_by_role("heading", name="Queries per day" if english else "Consultas por dia")).to_be_visible()
    for chart in ("chart-by-day", "chart-by-type", "chart-by-channel", "chart-balances", "top-consumers"):
        expect(page.get_by_test_id(chart)).to_have_attribute("data-state", "ready")
    by_day = page.get_by_test_id("chart-by-day")
    expect(by_day.locator("svg").first).to_be_visible()
    # The axes are labelled and the days are written the reader's way (dd/mm or mm/dd).
    expect(by_day).to_contain_text("Day" if english else "Dia")
    expect(page.get_by_test_id("by-type-chart")).to_contain_text(
        "Complete person (CPF)" if english else "Pessoa física completa"
    )
    expect(page.get_by_test_id("by-channel-chart")).to_contain_text("Web panel" if english else "Painel")
    expect(page.get_by_test_id("chart-balances")).to_contain_text("Available" if english else "Disponíveis")
    # The customers below, busiest first; never the company beside the reseller.
    ranked = page.get_by_test_id("top-consumer")
    expect(ranked).to_have_count(2)
    expect(ranked.first).to_contain_text("Mercado Sabiá")
    expect(page.get_by_test_id("top-consumers")).not_to_contain_text("Vizinha")
    settle(page)
    screenshot(page, f"dashboard-{language}-{width}")
    assert sideways(page) <= 0, f"the dashboard scrolls sideways at {width}px"

    # The whole subtree: the customers' lookups join the reseller's own.
    subtitle = by_day.locator("p").first
    own = subtitle.inner_text()
    page.get_by_test_id("scope-subtree").click()
    expect(subtitle).not_to_have_text(own)
    # A custom period asks for its dates (in the locale's order) before it asks the server.
    page.get_by_test_id("period-custom").click()
    expect(page.get_by_test_id("chart-by-day-empty")).to_contain_text(
        "Choose the start and end dates" if english else "Escolha as datas"
    )
    # Every chart of the period waits for the dates (none keeps the previous period's figures).
    for chart in ("chart-by-type", "chart-by-channel", "top-consumers"):
        expect(page.get_by_test_id(f"{chart}-empty")).to_contain_text(
            "Choose the start and end dates" if english else "Escolha as datas"
        )
    expect(subtitle).not_to_contain_text("·")
    field = page.get_by_test_id("period-from").locator(".MuiPickersSectionList-root")
    expect(field).to_contain_text("MM/DD/YYYY" if english else "DD/MM/AAAA")
    screenshot(page, f"dashboard-custom-{language}-{width}")
    assert sideways(page) <= 0

    page.goto(f"{server_url}/balance-history")
    card = page.get_by_test_id("consumption-card")
    expect(card).to_have_attribute("data-state", "ready")
    expect(card).to_contain_text(re.compile("credits consumed|créditos consumidos"))
    expect(card.locator("svg").first).to_be_visible()
    expect(card).to_contain_text("Credits" if english else "Créditos")
    settle(page)
    screenshot(page, f"balance-history-{language}-{width}")
    assert sideways(page) <= 0, f"the balance history scrolls sideways at {width}px"

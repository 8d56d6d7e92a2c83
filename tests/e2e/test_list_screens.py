"""Every list screen on the list-page pattern, at a phone's and a desktop's width, in both languages.

Each screen is screenshotted to test-results/ (lists-<screen>-<language>-<width>.png) for a person
to look at; the test checks what would show a broken layout: the page scrolling sideways, the
grid or its empty state missing, texts of the other language, the date filters' format.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import Sessions, screenshot, server_identity, settle
from playwright.sync_api import Browser, Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD, BASIC_QUERY_TYPE

from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM

pytestmark = pytest.mark.e2e

CHILD = "Revenda Sabiá Listas"

# (path, row test id, title in pt-BR, title in en-US)
SCREENS = [
    ("users", "user-row", "Usuários", "Users"),
    ("customer-list", "customer-row", "Clientes", "Customers"),
    ("balances", "balance-child", "Saldos", "Balances"),
    ("balance-history", "history-row", "Histórico", "history"),
    ("audit-log", "audit-row", "auditoria", "Audit"),
    ("mail-outbox", "outbox-row", "Caixa de saída", "outbox"),
]


@pytest.fixture(scope="module")
def customer(server_var_dir: Path) -> str:
    """A customer of the root group, so the customers and balances grids have a row."""
    with server_identity(server_var_dir) as identity:
        identity.register_group(SYSTEM, name=CHILD, group_type=GroupType.RESELLER, parent_id=ROOT_GROUP_ID)
    return CHILD


@pytest.fixture(scope="module")
def catalogue_changes(server_url: str) -> None:
    """A layout, a query type and a supplier added and changed, so the audit log shows their rows."""
    with httpx.Client(base_url=server_url, timeout=30) as api:
        signed = api.post(
            "/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "domain_url": "localhost"}
        )
        assert signed.status_code == 200, signed.text
        admin = {"Authorization": f"Bearer {signed.json()['token']}"}

        def ok(response: httpx.Response) -> dict[str, Any]:
            assert response.status_code == 200, response.text
            return dict(response.json())

        layout = {
            "fileName": "clientes_listas",
            "finalFileName": "clientes_listas_enriquecidos",
            "returnExtension": "csv",
            "acceptedExtension": "txt",
            "kind": "delimited",
            "delimiter": ";",
            "firstLine": True,
            "table": "pessoas",
            "rows": [
                {"name": "cpf", "type": "document", "order": 1, "format": "", "size": None, "direction": "entry"},
                {"name": "nome", "type": "text", "order": 1, "format": "", "size": None, "direction": "exit"},
            ],
        }
        layout_id = ok(api.post("/api/layouts", headers=admin, json=layout))["id"]
        ok(
            api.put(
                f"/api/layouts/{layout_id}",
                headers=admin,
                json={**layout, "kind": "fixed", "rows": [{**row, "size": 11} for row in layout["rows"]]},
            )
        )
        query_type = {**BASIC_QUERY_TYPE, "name": "Consulta Listas"}
        key = ok(api.post("/api/query-types", headers=admin, json=query_type))["id"]
        ok(api.put(f"/api/query-types/{key}", headers=admin, json={**query_type, "cacheDays": 3}))
        supplier = {
            "name": "Fornecedor Listas",
            "contact": "suporte@fornecedor.example",
            "url": "http://fornecedor.example",
            "server": "127.0.0.1",
            "port": 8900,
            "route": "/v1/consulta/{document}",
            "httpMethod": "GET",
            "authMethod": "bearer",
            "inputType": "both",
            "token": "tok-listas-segredo",
            "allowedQueryTypes": ["cpf-complete"],
            "allowedLayouts": [layout_id],
            "cacheDays": 30,
            "validityDays": 90,
        }
        supplier_id = ok(api.post("/api/suppliers", headers=admin, json=supplier))["id"]
        ok(api.post(f"/api/suppliers/{supplier_id}/status", headers=admin, json={"active": False}))


@pytest.fixture
def sized_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[tuple[Page, int, str]]:
    width, language = request.param
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    # The app's language choice, as the language switch stores it.
    context.add_init_script(f"try {{ window.localStorage.setItem('locale', '{language}') }} catch {{}}")
    page = context.new_page()
    yield page, width, language
    context.close()


VIEWS = [(375, "pt-BR"), (375, "en-US"), (1440, "pt-BR"), (1440, "en-US")]


@pytest.mark.parametrize("sized_page", VIEWS, ids=[f"{w}-{lang}" for w, lang in VIEWS], indirect=True)
def test_every_list_screen_fits_and_speaks_the_language(
    sized_page: tuple[Page, int, str], server_url: str, sessions: Sessions, customer: str, catalogue_changes: None
) -> None:
    page, width, language = sized_page
    english = language == "en-US"
    sessions.resume(page)

    for path, row, title_pt, title_en in SCREENS:
        page.goto(f"{server_url}/{path}")
        expect(page.get_by_role("heading", level=1)).to_contain_text(title_en if english else title_pt)
        if path in ("customer-list", "balances"):
            # the server's projector picks the new group up
            expect(page.get_by_test_id(row).filter(has_text=customer)).to_be_visible()
        # rows, or the empty state once the list has loaded
        expect(page.get_by_test_id(row).first.or_(page.get_by_test_id("list-empty"))).to_be_visible()
        if path == "users":
            # MUI's primary button wears the brand's primary colour (the default brand's #034507)
            # with the contrast text the CSS variables use (white on a dark colour)
            add = page.get_by_test_id("user-add")
            expect(add).to_have_css("background-color", "rgb(3, 69, 7)")
            expect(add).to_have_css("color", "rgb(255, 255, 255)")
        if path in ("users", "customer-list"):
            # the grid's own texts follow the language (MUI X locale)
            pager = page.locator(".MuiTablePagination-displayedRows").first
            expect(pager).to_contain_text(" of " if english else " de ")
        if path == "audit-log":
            # the catalogue's and suppliers' rows are named and translated, never ids or JSON
            changes = page.get_by_test_id("audit-table")
            expect(changes).to_contain_text("clientes_listas")
            expect(changes).to_contain_text("Layout edited" if english else "Layout editado")
            expect(changes).to_contain_text("Fornecedor Listas")
            assert '{"' not in changes.inner_text() and layout_id_free(changes.inner_text())
        if path in ("audit-log", "balance-history"):
            # the date pickers show the locale's order
            field = page.locator(".MuiPickersSectionList-root").first
            expect(field).to_contain_text("MM/DD/YYYY" if english else "DD/MM/AAAA")
        settle(page)  # the grid's column widths settled before the picture
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        screenshot(page, f"lists-{path}-{language}-{width}")
        assert overflow <= 0, f"/{path} scrolls sideways by {overflow}px at {width}px"


def layout_id_free(text: str) -> bool:
    """No uuid shows (layouts are named when read)."""
    return re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-", text) is None


def _overlaps(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    if a is None or b is None:
        return False
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


TOAST_VIEWS = [(375, "pt-BR"), (1440, "pt-BR")]


@pytest.mark.parametrize("sized_page", TOAST_VIEWS, ids=[f"{w}-{lang}" for w, lang in TOAST_VIEWS], indirect=True)
def test_a_toast_leaves_the_language_switch_and_sign_out_free(
    sized_page: tuple[Page, int, str], server_url: str, sessions: Sessions, customer: str
) -> None:
    page, width, _language = sized_page
    sessions.resume(page)
    # The page's timers on a clock the test can stop (it runs as usual until then).
    page.clock.install()
    page.goto(f"{server_url}/customer-list")
    row = page.get_by_test_id("customer-row").filter(has_text=customer)
    expect(row).to_be_visible()
    for _ in range(2):  # inactivate, then activate again: the customer ends as it began
        row.get_by_test_id("customer-status").click()
        confirm = page.get_by_test_id("confirm-yes")
        expect(confirm).to_be_visible()
        # The toast closes itself 5 s after it shows; the checks and the picture below can take longer on a
        # busy machine, so the page's clock stands still from before the toast until its own button has
        # closed it, and moves only as the test says (3 s ahead: past any round trip, before the toast is there).
        page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 3)  # Python takes seconds
        confirm.click()
        toast = page.get_by_test_id("notification-positive")
        expect(toast).to_be_visible()
        page.clock.run_for(1000)  # the confirm dialog's closing transition; far from the toast's 5 s
        for control in ("language-switch", "logout"):
            target = page.get_by_test_id(control)
            assert not _overlaps(toast.bounding_box(), target.bounding_box()), (
                f"the toast covers {control} at {width}px"
            )
        screenshot(page, f"lists-toast-{width}")
        toast.get_by_role("button").click()
        expect(toast).to_have_count(0)
        page.clock.resume()

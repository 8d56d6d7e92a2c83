"""Every signed-in screen of the route table, as the super-admin and as a customer's owner, with data on them
(a customer with credits, lookups, a batch, a user, an API token), at a phone's, a tablet's, a laptop's and a
wide screen's width (375, 768, 1440, 1920 px), in both languages.

The routes come from webapp/src/routes/routeTable.ts itself (those still drawn by NotAvailablePage are
left to the helpers building them), so a new screen is visited without touching this file; a few screens
are visited again with their parameters filled (a lookup's result, a customer's form, a search's list).
The app is loaded once per role and language: the first screen, and those it enters without refreshing the roles
first (ROUTES_WITHOUT_REFRESH: error-forbidden), by a deep link; the others through its router, as its links go.
At every width the page must not scroll sideways and the frame's Sign out and language switch stay on
screen; the visible text must hold no i18n key, "undefined", "NaN" or "Invalid date"; the browser's console
no error. With BEMTEVI_SCREENSHOTS set to a directory, each screen is pictured there at 375 and 1440 px
(`<who>-<route>-<language>-<width>.png`) for a person to look at.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
from e2e_support import SETTLE_LIMIT_MS, InFlight, Sessions, settle
from playwright.sync_api import Browser, ConsoleMessage, Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD, KNOWN_CNPJ, KNOWN_CPF, accept_invitation, cpf_layout, sign_in

from bemtevi.domain.documents import cnpj_check_digits, format_cnpj

pytestmark = pytest.mark.e2e

WEBAPP = Path(__file__).resolve().parents[2] / "webapp" / "src"
ROUTE_TABLE = WEBAPP / "routes" / "routeTable.ts"
OWNER_EMAIL = "dona@merceariabemtevi.com.br"
OWNER_PASSWORD = "Merc3ari@Dona"
CUSTOMER = "Mercearia Bem-te-vi Ltda"
CNPJ_BASE = "61728394" + "0001"
LAYOUT = "clientes_telas"


def signed_in_routes() -> list[tuple[str, str]]:
    """(name, path without its optional parameters) of every signed-in route with a built screen."""
    text = ROUTE_TABLE.read_text(encoding="utf-8")
    routes = []
    for entry in re.finditer(r"\{\s*name: '([^']+)',\s*path: ([`'])([^`']*)\2,(.*?)component: (\w+)", text, re.S):
        name, _, path, rest, component = entry.groups()
        if "layout: 'signed-in'" not in rest or component == "NotAvailablePage":
            continue
        bare = re.sub(r"/?:[^/]+\??", "", path.replace("${RESULT_PARAMS}", ""))
        routes.append((name, "/" + bare.strip("/")))
    return routes


ROUTES = signed_in_routes()
# The routes the app enters without asking the server for fresh roles first (no busy frame to wait through):
# entered by a full page load, a deep link, as the first screen is.
FRAME_REFRESH = (WEBAPP / "routes" / "frameRefresh.ts").read_text(encoding="utf-8")
NO_REFRESH = re.findall(r"'([^']+)'", FRAME_REFRESH.split("ROUTES_WITHOUT_REFRESH = [", 1)[1].split("]", 1)[0])


def i18n_namespaces() -> list[str]:
    """The top-level keys of the pt-BR texts (`menu`, `frame`, `customers`, ...): a raw key starts with one."""
    return re.findall(r"^  (\w+): ", (WEBAPP / "i18n" / "pt-BR.ts").read_text(encoding="utf-8"), re.M)


# A key shown instead of its text: `namespace.word[.word]`, a whole word (not inside an e-mail, a path or a host).
RAW_KEY = re.compile(r"(?<![\w@/.-])(?:" + "|".join(i18n_namespaces()) + r")(?:\.[A-Za-z][\w-]*)+(?![\w@/-])")
HOST_ENDINGS = (".com", ".br", ".test", ".local", ".example", ".org", ".net")
# What a value lost on its way to the screen prints as (and i18next's answer for a key naming an object).
BROKEN_VALUE = re.compile(r"\bundefined\b|\bNaN\b|Invalid [Dd]ate|returned an object instead of string")


def test_the_route_table_and_the_texts_are_read() -> None:
    names = [name for name, _ in ROUTES]
    assert {"dashboard", "users", "audit-log", "my-account", "balances"} <= set(names), names
    assert all(path.startswith("/") and ":" not in path for _, path in ROUTES), ROUTES
    assert text_problems("Abrir menu.users\nframe.crumbs.register NaN") == [
        "i18n key 'menu.users'",
        "i18n key 'frame.crumbs.register'",
        "'NaN'",
    ]
    assert not text_problems("dona@menu.test https://x/app.js app.bemtevi.com.br Menu. Usuários undefinedness")


def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.text
    return dict(response.json())


@dataclass(frozen=True)
class Seeded:
    """What the extra visits need: the paths of screens drawn for one item."""

    admin_paths: list[tuple[str, str]]
    owner_paths: list[tuple[str, str]]


@pytest.fixture(scope="module")
def seeded(server_url: str, dataset_path: Path) -> Seeded:
    """A company below the root with credits of every kind, a layout and API access; its owner (who chose a
    password from the invitation) looked up a CPF and a CNPJ, sent a batch, added a user and made an API token;
    the super-admin registered a supplier and looked up a CPF. The lists are not empty."""
    with duckdb.connect(str(dataset_path), read_only=True) as db:
        people = [str(c) for (c,) in db.execute("SELECT cpf FROM people ORDER BY cpf LIMIT 3").fetchall()]
        found = db.execute("SELECT name FROM people WHERE cpf = ?", [KNOWN_CPF]).fetchone()
    surname = str(found[0]).split()[-1] if found else "Silva"
    with httpx.Client(base_url=server_url, timeout=30) as api:
        admin = sign_in(api)
        layout_id = ok(
            api.post(
                "/api/layouts",
                headers=admin,
                json=cpf_layout(LAYOUT, "NOME"),
            )
        )["id"]
        registered = ok(
            api.post(
                "/api/customers",
                headers=admin,
                json={
                    "type": "company",
                    "cnpj": format_cnpj(CNPJ_BASE + cnpj_check_digits(CNPJ_BASE)),
                    "companyName": CUSTOMER,
                    "tradeName": "Mercearia Bem-te-vi",
                    "personInCharge": "Joana Bem-te-vi",
                    "phone": "(31) 98877-6655",
                    "email": OWNER_EMAIL,
                    "seller": "Vendedor Centro-Oeste",
                    "defaultQuery": True,
                    "consultProtest": False,
                    "quantities": {"unit": 20, "batch": 10, "advanced": 5, "api": 5},
                    "enabledQueryTypes": ["cpf-complete", "cnpj-complete"],
                    "enabledLayouts": [layout_id],
                    "panelAccess": True,
                    "apiAccess": True,
                },
            )
        )["data"]
        accept_invitation(api, OWNER_EMAIL, OWNER_PASSWORD)
        owner = sign_in(api, OWNER_EMAIL, OWNER_PASSWORD)
        looked = [
            ok(api.post("/api/consultations", headers=owner, json={"document": d}))["data"]
            for d in (KNOWN_CPF, KNOWN_CNPJ)
        ]
        shown = ok(
            api.post(
                "/api/batches/uploads",
                headers={**owner, "Content-Type": "application/octet-stream"},
                params={"layoutId": layout_id, "fileName": "clientes_da_mercearia.csv"},
                content=("CPF\n" + "".join(f"{d}\n" for d in people)).encode(),
            )
        )
        ok(api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}))
        ok(
            api.post(
                "/api/users",
                headers=owner,
                json={
                    "name": "Caio Atendente",
                    "email": "caio@merceariabemtevi.com.br",
                    "cpf": "111.444.777-35",
                    "phone": "(31) 97766-5544",
                    "functions": "Atendimento",
                    "role": "user",
                },
            )
        )
        ok(api.post("/api/api-tokens", headers=owner, json={"name": "ERP da loja", "queryTypes": ["cpf-complete"]}))
        supplier = ok(
            api.post(
                "/api/suppliers",
                headers=admin,
                json={
                    "name": "Fornecedor Telas",
                    "contact": "suporte@fornecedor.example",
                    "url": "http://fornecedor.example",
                    "server": "127.0.0.1",
                    "port": 8901,
                    "route": "/v1/consulta/{document}",
                    "httpMethod": "GET",
                    "authMethod": "bearer",
                    "inputType": "both",
                    "token": "tok-telas-segredo",
                    "allowedQueryTypes": ["cpf-complete"],
                    "allowedLayouts": [layout_id],
                    "cacheDays": 30,
                    "validityDays": 90,
                },
            )
        )
        # Listed but inactive: the browser tests after this one share the server, and an active supplier that
        # never answers would turn their not-found lookups into "the supplier did not answer".
        ok(api.post(f"/api/suppliers/{supplier['id']}/status", headers=admin, json={"active": False}))
        ok(api.post("/api/consultations", headers=admin, json={"document": KNOWN_CPF}))

    def result(c: dict[str, Any]) -> str:
        component = "person" if c["documentType"] == "cpf" else "company"
        return f"/query-result/{c['document']}/{c['documentType']}/{c['queryType']}/-/{c['id']}/{component}"

    customer_form = f"/add-new-customer/{registered['uniqueKey']}/{registered['id']}"
    return Seeded(
        admin_paths=[
            ("customer-edit", customer_form),
            ("customer-setup-edit", customer_form.replace("customer/", "customer/setup/", 1)),
        ],
        owner_paths=[
            ("query-result-cpf", result(looked[0])),
            ("query-result-cnpj", result(looked[1])),
            ("advanced-query-result-list-name", f"/advanced-query-result-list/{surname}"),
        ],
    )


@pytest.fixture
def page_in(browser: Browser, request: pytest.FixtureRequest) -> Iterator[tuple[Page, str, InFlight]]:
    language = request.param
    # The charts honour reduced motion (MUI X skips their entrance animation): pictured whole, not half grown.
    context = browser.new_context(
        viewport={"width": WIDTHS[0], "height": 900}, locale=language, reduced_motion="reduce"
    )
    context.add_init_script(f"try {{ window.localStorage.setItem('locale', '{language}') }} catch {{}}")
    page = context.new_page()
    yield page, language, InFlight(page)
    context.close()


# Each screen is drawn once and looked at in every width (the window resized, as a person would);
# its text checked and pictured at 375 and 1440 px, its width checked at all four.
WIDTHS = (375, 768, 1440, 1920)
PICTURED = (375, 1440)
SHOTS = os.environ.get("BEMTEVI_SCREENSHOTS")


# The tables of the screen wider than the box they scroll in: a column cut at the screen's edge, with nothing to
# say there is more (named by the nearest test id). A data grid may scroll sideways inside its card, but only
# saying so: the list's line over it ("swipe sideways ...") shows while its columns run past its box.
CUT_TABLES = """() => {
  const name = (el) => el.closest('[data-testid]')?.dataset.testid
    ?? el.closest('section, .MuiPaper-root')?.querySelector('h1, h2, h3')?.textContent ?? el.tagName
  const tables = [...document.querySelectorAll('main table')].filter((el) => {
    let box = el.parentElement
    while (box && !['auto', 'scroll', 'hidden'].includes(getComputedStyle(box).overflowX)) box = box.parentElement
    return box !== null && el.getBoundingClientRect().width > box.clientWidth + 1
  })
  const grids = [...document.querySelectorAll('main .MuiDataGrid-root')].filter((grid) => {
    const scroller = grid.querySelector('.MuiDataGrid-virtualScroller')
    const hint = grid.closest('.list-page')?.querySelector('[data-testid=list-scroll-hint]')
    const hinted = hint && hint.getBoundingClientRect().height > 0 && getComputedStyle(hint).visibility !== 'hidden'
    return scroller && scroller.scrollWidth > scroller.clientWidth + 1 && !hinted
  })
  return [...tables, ...grids].map((el) => name(el) + (el.tagName === 'TABLE' ? '' : ' (grid)'))
}"""


# Goes to `path` as the app's links do (react-router's BrowserRouter follows the history's popstate), the app
# already loaded, and resolves once the frame was busy and is no longer: the old screen stays while the roles are
# refetched, so what the frame holds after that is the new route's. Watched in the page, not polled from here.
FOLLOW = """async ([path, limitMs]) => {
  const main = document.querySelector('main.app-main')
  const refreshed = new Promise((resolve, reject) => {
    const seen = new MutationObserver((changes) => {
      if (changes.some((c) => c.oldValue === 'true') && main.getAttribute('aria-busy') !== 'true') {
        seen.disconnect()
        resolve()
      }
    })
    seen.observe(main, { attributes: true, attributeFilter: ['aria-busy'], attributeOldValue: true })
    setTimeout(() => reject(new Error('no refresh began and ended for ' + path)), limitMs)
  })
  const state = { usr: null, key: Math.random().toString(36).slice(2, 10), idx: (history.state?.idx ?? 0) + 1 }
  history.pushState(state, '', path)
  dispatchEvent(new PopStateEvent('popstate', { state }))
  await refreshed
}"""


def text_problems(text: str) -> list[str]:
    keys = [k for k in RAW_KEY.findall(text) if not k.endswith(HOST_ENDINGS)]
    return [f"i18n key {k!r}" for k in keys] + [f"{m!r}" for m in BROKEN_VALUE.findall(text)]


@pytest.mark.parametrize("who", ["admin", "owner"])
@pytest.mark.parametrize("page_in", ["pt-BR", "en-US"], indirect=True)
def test_every_signed_in_screen_fits_every_width_and_reads_well(
    page_in: tuple[Page, str, InFlight], server_url: str, sessions: Sessions, seeded: Seeded, who: str
) -> None:
    page, language, requests = page_in
    if who == "admin":
        sessions.resume(page, ADMIN_EMAIL, ADMIN_PASSWORD)
        extra = seeded.admin_paths
    else:
        sessions.resume(page, OWNER_EMAIL, OWNER_PASSWORD)
        extra = seeded.owner_paths
    problems: list[str] = []
    current = ["(start)"]

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            problems.append(f"{current[0]}: console error {message.text[:300]}")

    page.on("console", console)
    page.on("pageerror", lambda error: problems.append(f"{current[0]}: page error {error}"))
    for index, (name, path) in enumerate([*ROUTES, *extra]):
        current[0] = path
        # Widths up, then down for the next screen: each is drawn at the width the window has and resized thrice.
        widths = WIDTHS if index % 2 == 0 else WIDTHS[::-1]
        if index == 0 or path.strip("/").split("/")[0] in NO_REFRESH:
            page.set_viewport_size({"width": widths[0], "height": 900})
            page.goto(f"{server_url}{path}")
            expect(page.locator("main.app-main > *").first).to_be_visible()  # the app loaded, the frame drawn
        else:
            page.evaluate(FOLLOW, [path, SETTLE_LIMIT_MS])
        # The screen is drawn (or the owner is sent to error-forbidden), the refresh over, its data in.
        expect(page.locator("main.app-main")).not_to_have_attribute("aria-busy", "true")
        expect(page.locator("main.app-main > *").first).to_be_visible()
        requests.settle()
        # No placeholder left (the dashboard's charts: their chunk and their data in), then at rest again.
        if page.locator("main .MuiSkeleton-root").count():
            expect(page.locator("main .MuiSkeleton-root")).to_have_count(0)
            requests.settle()
        for width in widths:
            if width != widths[0]:
                page.set_viewport_size({"width": width, "height": 900})
                settle(page)  # the grid settles its column widths, charts their size, the drawer its place
            expect(page.get_by_test_id("logout")).to_be_in_viewport()
            expect(page.get_by_test_id("language-switch")).to_be_in_viewport()
            overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
            if overflow > 0:
                problems.append(f"{path} scrolls sideways at {width}px by {overflow}px")
            if width == WIDTHS[0]:
                problems += [f"{path} at {width}px cuts the columns of {cut}" for cut in page.evaluate(CUT_TABLES)]
            if width in PICTURED:
                problems += [f"{path} at {width}px shows {p}" for p in text_problems(page.inner_text("body"))]
                if SHOTS:
                    # a chart refetched on news from the server shows its placeholder meanwhile
                    expect(page.locator("main .MuiSkeleton-root")).to_have_count(0)
                    settle(page)
                    Path(SHOTS).mkdir(parents=True, exist_ok=True)
                    shot = Path(SHOTS) / f"{who}-{name}-{language}-{width}.png"
                    page.screenshot(path=str(shot), full_page=True, animations="disabled")
    assert not problems, "\n".join(problems)

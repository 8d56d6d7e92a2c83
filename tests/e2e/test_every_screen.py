"""Every signed-in screen of the route table, as the super-admin and as a white-label's owner, at a
phone's, a tablet's, a laptop's and a wide screen's width (375, 768, 1440, 1920 px).

The routes come from webapp/src/routes/routeTable.ts itself (those still drawn by NotAvailablePage are
left to the helpers building them), so a new screen is visited without touching this file. At every
width the page must not scroll sideways and the frame's Sign out and language switch stay on
screen; at 375 and 1440 px each screen is screenshotted in both languages to test-results/
(`every-<who>-<route>-<language>-<width>.png`) for a person to look at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import InFlight, Sessions, screenshot, server_identity, settle
from playwright.sync_api import Browser, Page, expect

from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role

pytestmark = pytest.mark.e2e

ROUTE_TABLE = Path(__file__).resolve().parents[2] / "webapp" / "src" / "routes" / "routeTable.ts"
OWNER_EMAIL = "dona@passaredo.test"
OWNER_PASSWORD = "Passar3d@Dona"


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


def test_the_route_table_is_read() -> None:
    names = [name for name, _ in ROUTES]
    assert {"dashboard", "users", "audit-log", "my-account", "balances"} <= set(names), names
    assert all(path.startswith("/") and ":" not in path for _, path in ROUTES), ROUTES


@pytest.fixture(scope="module")
def owner(server_var_dir: Path) -> str:
    """A white-label with its owner (active, a chosen password)."""
    with server_identity(server_var_dir) as identity:
        group_id, _ = identity.register_group(
            SYSTEM, name="Passaredo Consultas", group_type=GroupType.WHITE_LABEL, parent_id=ROOT_GROUP_ID
        )
        identity.register_user(
            SYSTEM,
            group_id=group_id,
            name="Dona Passaredo",
            email=OWNER_EMAIL,
            password=OWNER_PASSWORD,
            role=Role.OWNER,
        )
    return OWNER_EMAIL


@pytest.fixture
def page_in(browser: Browser, request: pytest.FixtureRequest) -> Iterator[tuple[Page, str, InFlight]]:
    language = request.param
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 900}, locale=language)
    context.add_init_script(f"try {{ window.localStorage.setItem('locale', '{language}') }} catch {{}}")
    page = context.new_page()
    yield page, language, InFlight(page)
    context.close()


# Each screen is drawn once and looked at in every width (the window resized, as a person would);
# pictured at 375 and 1440 px, checked at all four.
WIDTHS = (375, 768, 1440, 1920)
PICTURED = {375, 1440}


@pytest.mark.parametrize("who", ["admin", "owner"])
@pytest.mark.parametrize("page_in", ["pt-BR", "en-US"], indirect=True)
def test_every_signed_in_screen_fits_every_width(
    page_in: tuple[Page, str, InFlight], server_url: str, sessions: Sessions, owner: str, who: str
) -> None:
    page, language, requests = page_in
    if who == "admin":
        sessions.resume(page)
    else:
        sessions.resume(page, owner, OWNER_PASSWORD)
    wide_problems = []
    for name, path in ROUTES:
        page.set_viewport_size({"width": WIDTHS[0], "height": 900})
        page.goto(f"{server_url}{path}")
        # The screen is drawn (or the owner is sent to error-forbidden), the refresh over, its data in.
        expect(page.locator("main.app-main > *").first).to_be_visible()
        expect(page.locator("main.app-main")).not_to_have_attribute("aria-busy", "true")
        requests.settle()
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            settle(page)  # the grid settles its column widths, charts their size, the drawer its place
            expect(page.get_by_test_id("logout")).to_be_in_viewport()
            expect(page.get_by_test_id("language-switch")).to_be_in_viewport()
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if width in PICTURED:
                screenshot(page, f"every-{who}-{name}-{language}-{width}")
            if overflow > 0:
                wide_problems.append(f"{path} at {width}px by {overflow}px")
    assert not wide_problems, f"scrolls sideways: {wide_problems}"

"""Helpers for the end-to-end tests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, Request, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD

from bemtevi.bootstrap import attempt_log
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.group_commit import GroupCommit
from bemtevi.commands.identity import IdentityCommands
from bemtevi.commands.ledger import EmbeddedLedger
from bemtevi.commands.throttle import Throttle
from bemtevi.infra.passwords import PasswordHasher
from bemtevi.infra.settings import Settings
from bemtevi.infra.tokens import TokenIssuer

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-results"


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    # Transitions finished (MUI's floating labels move for 200 ms after a fill): the picture shows the screen at rest.
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True, animations="disabled")


# Resolves once the screen is at rest: no finite CSS animation or transition running (MUI's drawer, a collapse),
# no data grid still drawn for a narrower window (its rows narrower than its scroller: MUI X re-measures 60 ms
# after a resize), and the page's size, the grids' measured sizes and the charts' sizes unchanged for `quietMs`.
_SETTLED = """async ([quietMs, limitMs]) => {
  const started = performance.now()
  const grids = () => [...document.querySelectorAll('.MuiDataGrid-root')]
  const staleGrid = () => grids().some((grid) => {
    const rows = parseFloat(grid.style.getPropertyValue('--DataGrid-rowWidth'))
    const scroller = grid.querySelector('.MuiDataGrid-virtualScroller')
    return scroller !== null && !Number.isNaN(rows) && rows + 1 < scroller.clientWidth
  })
  const moving = () => document.getAnimations().some((a) =>
    a.playState === 'running' && a.effect?.getComputedTiming().endTime !== Infinity)
  const shape = () => JSON.stringify([
    document.documentElement.scrollWidth, document.documentElement.scrollHeight,
    grids().map((grid) => grid.style.cssText),
    [...document.querySelectorAll('svg.MuiChartsSurface-root, .MuiChartsSurface-root svg')].map(
      (svg) => svg.getBoundingClientRect().width),
  ])
  let last = shape()
  let since = performance.now()
  for (;;) {
    await new Promise((frame) => requestAnimationFrame(frame))
    const now = shape()
    if (now !== last || staleGrid() || moving()) {
      last = now
      since = performance.now()
    } else if (performance.now() - since >= quietMs) {
      return
    }
    if (performance.now() - started > limitMs) throw new Error('the screen did not come to rest')
  }
}"""


# A bound on waits for the screen, not a guess at how long it takes: a busy machine draws slowly.
SETTLE_LIMIT_MS = 30_000


def settle(page: Page, quiet_ms: int = 100) -> None:
    """Wait until the screen is at rest (see ``_SETTLED``): after a resize, before measuring or picturing it.
    What a fixed wait guessed at, waited on: 100 ms without a change covers MUI X's 60 ms resize throttle."""
    page.evaluate(_SETTLED, [quiet_ms, SETTLE_LIMIT_MS])


class InFlight:
    """The page's requests still unanswered (a live event stream, never finished, left out), followed from the
    page's creation: `wait_until_answered` waits on them, where `wait_for_load_state("networkidle")` would wait
    for 500 ms without any."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.open: set[Request] = set()
        page.on("request", self._sent)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _sent(self, request: Request) -> None:
        if request.headers.get("accept") != "text/event-stream":
            self.open.add(request)

    def _ended(self, request: Request) -> None:
        self.open.discard(request)

    def wait_until_answered(self, timeout_ms: int = SETTLE_LIMIT_MS) -> None:
        waited = 0
        while self.open:  # the events arrive while Playwright waits
            if waited > timeout_ms:
                raise AssertionError(f"unanswered after {timeout_ms} ms: {[r.url for r in self.open]}")
            self.page.wait_for_timeout(20)
            waited += 20

    def settle(self) -> None:
        """Every request answered and the screen at rest after them (what they drew included); again while a
        request the last answers led to is on its way."""
        self.wait_until_answered()
        settle(self.page)
        while self.open:
            self.wait_until_answered()
            settle(self.page)


def pick_option(page: Page, combobox: Locator, option: Locator) -> None:
    """Pick ``option`` of an MUI select (a combobox opening a listbox), then wait until the menu is gone: the next
    step's click is not sent while the menu still closes over the screen."""
    combobox.click()
    option.click()
    expect(page.get_by_role("listbox")).to_have_count(0)


def choose_language(page: Page, language: str) -> None:
    """Choose ``language`` ("pt-BR", "en-US") in the signed-in frame's switch, an MUI select (the public site and
    the sign-in pages keep a native select, driven by ``select_option``). Waits for the frame's switch itself, not
    the sign-in page's one a page just left, then until the page speaks the language."""
    pick_option(
        page,
        page.locator('[data-testid="language-switch"][role="combobox"]'),
        page.get_by_test_id(f"language-option-{language}"),
    )
    expect(page.locator("html")).to_have_attribute("lang", language)


def follow_menu(page: Page, section: str, link: str) -> None:
    """Follow a link of the sidebar's ``section``: open the drawer (under 1024 px) and unfold the
    section only when they are folded (the section holding the current screen starts unfolded). Each step
    waits on what the screen says (``aria-expanded``, the section's unfolding ended), never on time: a link
    clicked while the menu still loads or unfolds may be missed on a busy machine."""
    toggle = page.get_by_test_id("nav-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "true")
    button = page.get_by_test_id(f"nav-{section}")
    expect(button).to_be_visible()  # the menu comes from the server
    if button.get_attribute("aria-expanded") != "true":
        button.click()
        expect(button).to_have_attribute("aria-expanded", "true")
    expect(page.locator(f".MuiCollapse-entered #nav-sub-{section}")).to_be_attached()
    page.get_by_test_id(f"nav-{link}").click()


def sign_in(
    page: Page,
    url: str,
    email: str = ADMIN_EMAIL,
    password: str = ADMIN_PASSWORD,
    *,
    lands_on: str | None = "/dashboard",
) -> None:
    """Sign in through the login page; ``lands_on`` is the path expected after it (None: not checked)."""
    page.goto(f"{url}/login")
    page.get_by_test_id("login-email").fill(email)
    page.get_by_test_id("login-password").fill(password)
    page.get_by_test_id("login-submit").click()
    if lands_on is not None:
        expect(page).to_have_url(re.compile(re.escape(lands_on) + "$"))


class Sessions:
    """One sign-in through the login page per user for the whole run (the `sessions` fixture): a test whose
    subject is a screen, not signing in, takes the browser storage that sign-in left (the app's token and
    user) instead of a login page, a sign-in and a dashboard of its own (1-2 s each under load). The sessions
    stay open: no test signs the super-admin out everywhere (test_messages ends a session of its own)."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.browser = browser
        self.url = url
        self._storage: dict[str, list[dict[str, str]]] = {}

    def resume(self, page: Page, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> None:
        """``page`` signed in as ``email`` from its next navigation on (it stands on a static file of the app's
        origin meanwhile)."""
        if email not in self._storage:
            context = self.browser.new_context(viewport={"width": 1440, "height": 900}, locale="pt-BR")
            try:
                sign_in(context.new_page(), self.url, email, password)
                origins = context.storage_state()["origins"]
            finally:
                context.close()
            self._storage[email] = [
                {"name": item["name"], "value": item["value"]}
                for origin in origins
                if origin["origin"] == self.url
                for item in origin["localStorage"]
            ]
        page.goto(f"{self.url}/favicon.svg")
        page.evaluate(
            "items => { for (const { name, value } of items) localStorage.setItem(name, value) }",
            self._storage[email],
        )


@contextmanager
def server_identity(var_dir: Path) -> Iterator[IdentityCommands]:
    """Identity commands on the running server's event store, from this process (with a ledger of its
    own: the event store's version check keeps the two ledgers apart): what they append reaches the
    server as another process's writes would."""
    settings = Settings(var_dir=var_dir)
    app = BemteviApplication(env=settings.event_store_env())
    attempts = attempt_log(settings)
    writer = GroupCommit(app)
    try:
        yield IdentityCommands(
            app,
            PasswordHasher(1, 1024),
            TokenIssuer("e2e-key-" * 4),
            timedelta(hours=1),
            Throttle(attempts, 900),
            ledger=EmbeddedLedger(app, writer),
        )
    finally:
        writer.stop()
        attempts.close()
        app.close()

"""Helpers for the end-to-end tests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from playwright.sync_api import Page, expect
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


def follow_menu(page: Page, section: str, link: str) -> None:
    """Follow a link of the sidebar's ``section``: open the drawer (under 1024 px) and unfold the
    section only when they are folded (the section holding the current screen starts unfolded)."""
    toggle = page.get_by_test_id("nav-toggle")
    if toggle.is_visible() and not page.get_by_test_id(f"nav-{section}").is_visible():
        toggle.click()
    target = page.get_by_test_id(f"nav-{link}")
    if not target.is_visible():
        page.get_by_test_id(f"nav-{section}").click()
    target.click()


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

"""Helpers for the end-to-end tests."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-results"


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


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

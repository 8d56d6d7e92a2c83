"""Helpers for the end-to-end tests."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-results"


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

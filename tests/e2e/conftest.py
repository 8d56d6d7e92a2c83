"""The real server in a subprocess, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import Sessions
from playwright.sync_api import Browser, Page, expect, sync_playwright
from support import ADMIN_PASSWORD, SmtpSink, running_server

ROOT = Path(__file__).resolve().parents[2]
# Every expectation waits on what the screen does; on a machine busy with other work a screen can take
# longer than Playwright's 5 s to get there, so the bound is generous (as for actions, 30 s): a passing
# expectation returns as soon as it holds, only a failing one waits the bound out.
EXPECT_TIMEOUT_MS = 30_000
expect.set_options(timeout=EXPECT_TIMEOUT_MS)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_executable() -> str:
    """Debian's headless shell where installed (make test installs it): the same engine without the full
    browser's layers, about a quarter less CPU for the same tests; else Debian's Chromium."""
    return shutil.which("chromium-headless-shell") or shutil.which("chromium") or "/usr/bin/chromium"


def launch_resolving(browser: Browser, hosts: str) -> Browser:
    """A second Chromium (same Playwright) that resolves ``hosts`` (a host pattern: ``*.test``) to the loopback
    server: a customer's domain, seen as its visitors see it (no DNS involved)."""
    return browser.browser_type.launch(
        executable_path=chromium_executable(), args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {hosts} 127.0.0.1"]
    )


def server_env(var_dir: Path, dataset_path: Path) -> dict[str, str]:
    """The settings of a browser tests' server: its stores, the demo dataset, the super-admin's password."""
    return {
        "BEMTEVI_VAR_DIR": str(var_dir),
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ADMIN_PASSWORD": ADMIN_PASSWORD,
    }


@pytest.fixture(scope="session")
def server_var_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The e2e server's stores: tests may append events to its log as another process would."""
    return tmp_path_factory.mktemp("e2e-var")


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory, dataset_path: Path, server_var_dir: Path) -> Iterator[str]:
    if not (ROOT / "webapp" / "dist" / "index.html").exists():
        pytest.fail("webapp/dist is missing: build the web app first (make test does)")
    with running_server(
        server_env(server_var_dir, dataset_path), tmp_path_factory.mktemp("e2e-log") / "server.log"
    ) as url:
        yield url


@pytest.fixture(scope="session")
def smtp() -> Iterator[SmtpSink]:
    """A real SMTP server on loopback, for the screens whose mail a person reads (invitations, codes, recovery)."""
    with SmtpSink() as sink:
        yield sink


@pytest.fixture(scope="session")
def mail_server_url(tmp_path_factory: pytest.TempPathFactory, dataset_path: Path, smtp: SmtpSink) -> Iterator[str]:
    """A second real server whose mail goes to ``smtp`` (``server_url``'s names no SMTP server): the tests that
    read mail share it, each with e-mail addresses of its own."""
    env = server_env(tmp_path_factory.mktemp("e2e-mail-var"), dataset_path) | smtp.env()
    with running_server(env, tmp_path_factory.mktemp("e2e-mail-log") / "server.log") as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def sessions(browser: Browser, server_url: str) -> Sessions:
    return Sessions(browser, server_url)


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="pt-BR")
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def brand_browser(browser: Browser) -> Iterator[Browser]:
    """A browser that reaches the white-labels' own hosts (``*.test``) on the test server."""
    launched = launch_resolving(browser, "*.test")
    yield launched
    launched.close()

"""The real server in a subprocess, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from support import ADMIN_PASSWORD

ROOT = Path(__file__).resolve().parents[2]
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server_var_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The e2e server's stores: tests may append events to its log as another process would."""
    return tmp_path_factory.mktemp("e2e-var")


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory, dataset_path: Path, server_var_dir: Path) -> Iterator[str]:
    if not (ROOT / "webapp" / "dist" / "index.html").exists():
        pytest.fail("webapp/dist is missing: build the web app first (make test does)")
    port = _free_port()
    env = {
        **os.environ,
        "BEMTEVI_VAR_DIR": str(server_var_dir),
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "BEMTEVI_ARGON2_TIME_COST": "1",
        "BEMTEVI_ARGON2_MEMORY_COST": "1024",
        "PORT": str(port),
    }
    env.pop("BEMTEVI_DATABASE_URL", None)
    log = tmp_path_factory.mktemp("e2e-log") / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen([sys.executable, "-m", "bemtevi.cli", "serve"], env=env, stdout=out, stderr=out)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the server did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="pt-BR")
    page = context.new_page()
    yield page
    context.close()

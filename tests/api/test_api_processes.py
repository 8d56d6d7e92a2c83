"""Two API processes on one PostgreSQL event store: what one of them saves, the other obeys within a second."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from support import ADMIN_EMAIL, ADMIN_PASSWORD, running_server

# A real server in a subprocess: end to end, outside the fast inner loop.
pytestmark = pytest.mark.e2e


@pytest.fixture
def two_servers(postgres_database: str, dataset_path: Path, tmp_path: Path) -> Iterator[tuple[str, str]]:
    common = {
        "BEMTEVI_DATABASE_URL": postgres_database,
        "BEMTEVI_SECRET_KEY": "two-processes-share-this-signing-key-0123456789",
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ADMIN_PASSWORD": ADMIN_PASSWORD,
    }
    with ExitStack() as stack:
        # One after the other: the first start creates the super-admin, the second finds it.
        first = stack.enter_context(
            running_server({**common, "BEMTEVI_VAR_DIR": str(tmp_path / "a")}, tmp_path / "a.log")
        )
        second = stack.enter_context(
            running_server({**common, "BEMTEVI_VAR_DIR": str(tmp_path / "b")}, tmp_path / "b.log")
        )
        yield first, second


def _seconds_until_refused(url: str, headers: dict[str, str], limit: float = 5.0) -> float:
    began = time.monotonic()
    while time.monotonic() - began < limit:
        if httpx.get(f"{url}/api/me", headers=headers, timeout=5).status_code == 401:
            return time.monotonic() - began
        time.sleep(0.02)
    return float("inf")


def test_a_logout_on_one_process_stops_the_token_on_the_other_within_a_second(two_servers: tuple[str, str]) -> None:
    first, second = two_servers
    signed_in = httpx.post(
        f"{first}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "domain_url": "localhost"}
    )
    assert signed_in.status_code == 200, signed_in.text
    headers = {"Authorization": f"Bearer {signed_in.json()['token']}"}
    for _ in range(3):  # the second process has checked the token and remembers it
        assert httpx.get(f"{second}/api/me", headers=headers).status_code == 200
    assert httpx.post(f"{first}/api/auth/auth/logout", headers=headers, json={}).status_code == 200
    assert _seconds_until_refused(second, headers) <= 1.0

"""200 parallel lookups on an account with 100 credits, through the real HTTP server.

Exactly 100 succeed, 100 are refused with the specification's message, and the balance ends at
0 — on SQLite and on PostgreSQL, with real threads against a real server process.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support import KNOWN_CPF, make_settings, running_server, wait_until

from bemtevi.bootstrap import build_platform
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.query_types import Category

# A real server in a subprocess: end to end, outside the fast inner loop.
pytestmark = pytest.mark.e2e

PASSWORD = "Strong!pass1"
EMAIL = "financeiro@paralela.com.br"
CLIENTS = 200
CREDITS = 100


@pytest.fixture
def server(backend: str, tmp_path: Path, dataset_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    database_url = request.getfixturevalue("postgres_database") if backend == "postgres" else None
    settings = make_settings(tmp_path / "var", dataset_path, database_url)
    # The tenant is made before the server starts: the server is then the store's only writer.
    platform = build_platform(settings)
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Paralela", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=CREDITS
    )
    platform.identity.register_user(SYSTEM, group_id=group_id, name="Rita Paralela", email=EMAIL, password=PASSWORD)
    platform.close()
    env = {"BEMTEVI_VAR_DIR": str(settings.var_dir), "BEMTEVI_DATASET_PATH": str(dataset_path)}
    if database_url:
        env["BEMTEVI_DATABASE_URL"] = database_url
    with running_server(env, tmp_path / "server.log") as url:
        yield url
    # The store itself, read after the server stopped, agrees.
    platform = build_platform(settings, start_projector=False, bootstrap=False)
    try:
        account = platform.app.get(credit_account_id(group_id, Category.UNIT), CreditAccount)
        assert (account.used, account.reserved, account.available) == (CREDITS, 0, 0)
    finally:
        platform.close()


def test_200_parallel_lookups_on_100_credits(server: str) -> None:
    login = httpx.post(
        f"{server}/api/auth/auth", json={"email": EMAIL, "password": PASSWORD, "domain_url": "localhost"}
    )
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    start = threading.Barrier(CLIENTS)
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def lookup() -> None:
        with httpx.Client(base_url=server, headers=headers, timeout=60) as client:
            start.wait()
            response = client.post("/api/consultations", json={"document": KNOWN_CPF})
        with lock:
            answers.append(response)

    threads = [threading.Thread(target=lookup) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    statuses = Counter(r.status_code for r in answers)
    assert statuses == {200: CREDITS, 402: CLIENTS - CREDITS}
    refusals = {r.json()["message"] for r in answers if r.status_code == 402}
    assert refusals == {"Not enough manual query credits"}
    last = max(r.json()["position"] for r in answers if r.status_code == 200)
    dashboard = httpx.get(f"{server}/api/dashboard?position={last}", headers=headers).json()["data"]
    assert dashboard["upToDate"] and dashboard["consultationsTotal"] == CREDITS
    # Lookups that drew on a lease are charged when the lease goes back (docs/architecture.md, "Decisions
    # that hold": leases): a drawn-out lease is returned at the keeper's next tick, so the used figure
    # reaches the limit within a few seconds, and never passes it on the way.
    seen: list[dict[str, int]] = []

    def all_charged() -> bool:
        unit = httpx.get(f"{server}/api/dashboard", headers=headers).json()["data"]["credits"]["unit"]
        assert unit["limit"] == CREDITS and unit["used"] <= CREDITS
        seen.append(unit)
        return bool(unit["used"] == CREDITS)

    wait_until(all_charged, timeout=10, message="the used figure did not reach the limit")
    assert seen[-1] == {"used": CREDITS, "limit": CREDITS}

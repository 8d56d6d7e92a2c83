"""kill -9 during a burst of lookups, through the real server, on SQLite and PostgreSQL.

The embedded ledger runs in the server's process: what a killed server held reserved comes back within
seconds of its restart with no lookup made. Half the lookups are of documents the local dataset does not
know, answered by an HTTP supplier (the simulator on loopback, 20 ms): their credit is held while the
supplier is asked, so the kill finds reservations and a busy account's lease in flight (settled by the
next server from the consultations recorded under it); the other half are charged and
recorded in one request (the ledger workers of cluster mode have their own kill -9
test, tests/streams/test_ledger_worker.py). The ledger stays exact: every
consultation recorded as charged has exactly one settlement, and each lookup answered as charged
was recorded.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import httpx
import pytest
from support import (
    KNOWN_CPF,
    charged_in_store,
    make_settings,
    reserved_in_store,
    server_process,
    settlements_by_consultation,
    simulated_vendor,
    super_admin,
    unknown_cpfs,
    wait_until,
)

from bemtevi.bootstrap import build_platform
from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.query_types import Category
from bemtevi.infra.settings import Settings
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer

# A real server in a subprocess: end to end, outside the fast inner loop.
pytestmark = pytest.mark.e2e

PASSWORD = "Strong!pass1"
EMAIL = "consultas@queda.com.br"
CREDITS = 100_000
THREADS = 8
# Killed once this many lookups were answered, and not before this many seconds of them: the
# account is busy by then (its lookups draw from a lease, beside some reserving their own credit).
ANSWERED_BEFORE_THE_KILL = 150
BUSY_BEFORE_THE_KILL = 2.5
BACK_WITHIN = 10  # seconds


@dataclass
class Store:
    settings: Settings
    env: dict[str, str]
    group_id: UUID
    unknown_cpfs: list[str]  # documents only the HTTP supplier knows


@pytest.fixture
def vendor() -> Iterator[SimulatorServer]:
    with SimulatorServer(SimulatorConfig(latency_ms=20, expected_authorization="Bearer tok-123")) as server:
        yield server


@pytest.fixture
def store(
    backend: str, tmp_path: Path, dataset_path: Path, vendor: SimulatorServer, request: pytest.FixtureRequest
) -> Store:
    database_url = request.getfixturevalue("postgres_database") if backend == "postgres" else None
    settings = make_settings(tmp_path / "var", dataset_path, database_url)
    platform = build_platform(settings)
    try:
        group_id, _ = platform.identity.register_group(
            SYSTEM, name="Queda", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=CREDITS
        )
        platform.identity.register_user(SYSTEM, group_id=group_id, name="Rita Queda", email=EMAIL, password=PASSWORD)
        platform.vendors.register(super_admin(platform), simulated_vendor(vendor.port))
        # Never repeated: a repeat would be answered from the kept results.
        unknown = unknown_cpfs(platform.supplier, 20_000)
    finally:
        platform.close()
    env = {"BEMTEVI_VAR_DIR": str(settings.var_dir), "BEMTEVI_DATASET_PATH": str(dataset_path)}
    if database_url:
        env["BEMTEVI_DATABASE_URL"] = database_url
    return Store(settings, env, group_id, unknown)


@pytest.fixture
def event_store(store: Store) -> Iterator[BemteviApplication]:
    """The event store, read beside the servers (their read store is their own)."""
    app = BemteviApplication(env=store.settings.event_store_env())
    yield app
    app.close()


def lookups_until_killed(url: str, kill: threading.Event, unknown_cpfs: list[str]) -> list[str]:
    """Lookups from several threads until ``kill`` is set (once enough were answered) or the server
    stops answering; those in flight at that moment are cut short by the kill. Odd threads look up
    documents only the HTTP supplier knows. The ids of the lookups answered as charged."""
    unknown = iter(unknown_cpfs)
    login = httpx.post(f"{url}/api/auth/auth", json={"email": EMAIL, "password": PASSWORD, "domain_url": "localhost"})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    charged: list[str] = []
    lock = threading.Lock()
    busy_since = time.monotonic()

    def one_client(n: int) -> None:
        with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            while not kill.is_set():
                if n % 2:
                    with lock:
                        document = next(unknown)
                else:
                    document = KNOWN_CPF
                try:
                    answer = client.post("/api/consultations", json={"document": document})
                except httpx.TransportError:
                    return  # killed
                if answer.status_code != 200:
                    continue  # failed uncharged
                with lock:
                    if answer.json()["data"]["credits"] == 1:
                        charged.append(answer.json()["data"]["id"])
                    if (
                        len(charged) >= ANSWERED_BEFORE_THE_KILL
                        and time.monotonic() - busy_since > BUSY_BEFORE_THE_KILL
                    ):
                        kill.set()

    clients = [threading.Thread(target=one_client, args=(n,)) for n in range(THREADS)]
    for client in clients:
        client.start()
    for client in clients:
        client.join(120)
    return charged


def test_what_a_killed_server_held_comes_back_within_seconds_without_a_lookup(
    store: Store, event_store: BemteviApplication, tmp_path: Path
) -> None:
    """The embedded ledger runs in the server: kill -9 of the server, with lookups in flight and a busy
    account's lease open; the server started again releases, or settles from the log, what the dead one left."""
    env = store.env
    kill = threading.Event()
    answered: list[str] = []
    with server_process(env, tmp_path / "server.log") as (url, server):
        burst = threading.Thread(target=lambda: answered.extend(lookups_until_killed(url, kill, store.unknown_cpfs)))
        burst.start()
        assert kill.wait(120), "lookups answered"
        # Killed with lookups in flight and a busy account's lease open; no lookup is made after.
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
        assert reserved_in_store(event_store, store.group_id) > 0, "the killed server held reservations"
        burst.join(60)

    # Nothing was left running: the server started again releases what the dead one left.
    with server_process(env, tmp_path / "restarted.log"):
        wait_until(lambda: reserved_in_store(event_store, store.group_id) == 0, BACK_WITHIN, "reserved back")

    charged = charged_in_store(event_store, store.group_id)
    assert settlements_by_consultation(event_store, store.group_id) == charged
    assert set(answered) <= set(charged) and max(charged.values()) == 1
    account = event_store.get(credit_account_id(store.group_id, Category.UNIT), CreditAccount)
    assert (account.used, account.reserved, account.available) == (len(charged), 0, CREDITS - len(charged))

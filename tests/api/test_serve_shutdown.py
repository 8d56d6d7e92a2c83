"""`bemtevi serve` keeps idle connections for reuse and tells what its threads do on SIGUSR1.

Stopped by SIGTERM, it closes the platform: a busy account's lease goes back (settled: each
found lookup charged once, the rest released), the writer's last chores run, and the stores are closed
cleanly. The lookups are of documents only an HTTP supplier knows (the simulator on loopback): such lookups
hold their credit while it is asked, and a busy account's draw it from a lease of its units."""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from uuid import UUID

import httpx
import pytest
from support import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    make_settings,
    running_server,
    server_process,
    simulated_vendor,
    super_admin,
    unknown_cpfs,
)

from bemtevi.bootstrap import build_platform
from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.query_types import Category
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer

# A real server in a subprocess: end to end, outside the fast inner loop.
pytestmark = pytest.mark.e2e

PASSWORD = "Strong!pass1"


@pytest.fixture
def vendor() -> Iterator[SimulatorServer]:
    with SimulatorServer(SimulatorConfig(latency_ms=20, expected_authorization="Bearer tok-123")) as server:
        yield server


def test_a_stopped_server_leaves_no_credit_reserved(
    tmp_path: Path, dataset_path: Path, vendor: SimulatorServer
) -> None:
    var = tmp_path / "var"
    setup = build_platform(make_settings(var, dataset_path), start_projector=False)
    try:
        group_id, _ = setup.identity.register_group(
            SYSTEM, name="Empresa Ocupada", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=500
        )
        setup.identity.register_user(SYSTEM, group_id=group_id, name="Ana", email="ana@ocupada.com", password=PASSWORD)
        setup.vendors.register(super_admin(setup), simulated_vendor(vendor.port))
        documents = iter(unknown_cpfs(setup.supplier, 200))
    finally:
        setup.close()

    env = {
        "BEMTEVI_VAR_DIR": str(var),
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ADMIN_EMAIL": ADMIN_EMAIL,
        "BEMTEVI_ADMIN_PASSWORD": ADMIN_PASSWORD,
    }
    with running_server(env, tmp_path / "server.log") as url:
        token = httpx.post(
            f"{url}/api/auth/auth", json={"email": "ana@ocupada.com", "password": PASSWORD, "domain_url": "localhost"}
        ).json()["token"]

        def lookup(document: str) -> int:
            return httpx.post(
                f"{url}/api/consultations",
                json={"document": document},
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            ).status_code

        # Concurrent lookups make the account busy: they draw from a lease. Go on until a lease still
        # holds credits (read from the store, as another process may).
        answered = 0
        for _ in range(10):
            with ThreadPoolExecutor(8) as pool:
                assert set(pool.map(lookup, [next(documents) for _ in range(16)])) == {200}
            answered += 16
            if reserved(var, dataset_path, group_id) > 0:
                break
        assert reserved(var, dataset_path, group_id) > 0

    assert reserved(var, dataset_path, group_id) == 0
    after = build_platform(make_settings(var, dataset_path), start_projector=False, bootstrap=False)
    try:
        account = after.app.get(credit_account_id(group_id, Category.UNIT), CreditAccount)
        assert (account.used, account.reserved, account.available) == (answered, 0, 500 - answered)
        assert any(e.topic.endswith("CreditAccount.LeaseSettled") for e in after.app.recorder.select_events(account.id))
    finally:
        after.close()


def reserved(var: Path, dataset_path: Path, group_id: UUID) -> int:
    app = BemteviApplication(make_settings(var, dataset_path).event_store_env())
    try:
        return app.get(credit_account_id(group_id, Category.UNIT), CreditAccount).reserved
    finally:
        app.close()


def test_an_idle_connection_is_kept_for_reuse_and_sigusr1_logs_every_threads_stack(
    tmp_path: Path, dataset_path: Path
) -> None:
    """A client (or a proxy) reuses its idle connection: one the server closed after a few seconds made the request
    sent on it fail with "connection reset". An operator asks a server that stopped answering what it is doing."""
    env = {"BEMTEVI_VAR_DIR": str(tmp_path / "var"), "BEMTEVI_DATASET_PATH": str(dataset_path)}
    log = tmp_path / "server.log"
    with server_process(env, log) as (url, server):
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as connection:
            connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            assert connection.recv(65536).startswith(b"HTTP/1.1 200")
            time.sleep(7)  # idle past uvicorn's default of 5 s
            connection.setblocking(False)
            try:
                closed = connection.recv(1, socket.MSG_PEEK) == b""
            except BlockingIOError:
                closed = False  # nothing to read: still open
            assert not closed, "the server closed an idle connection after seconds"
            connection.setblocking(True)
            connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            assert connection.recv(65536).startswith(b"HTTP/1.1 200")

        server.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 30
        while "Thread 0x" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "Thread 0x" in log.read_text() and "File " in log.read_text(), log.read_text()
        assert httpx.get(f"{url}/api/health", timeout=30).status_code == 200  # and it goes on serving

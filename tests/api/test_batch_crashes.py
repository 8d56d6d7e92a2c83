"""kill -9 mid-batch, in both modes: the batch resumes, nothing is charged twice, one return file.

Embedded: `bemtevi serve` on SQLite in a subprocess runs the batch in its enrichment thread and is killed
with SIGKILL after the batch's first progress; started again, it resumes the batch from its chunk files.
Cluster: PostgreSQL, the Kafka broker, the relay, and `bemtevi worker enrichment` in a subprocess, killed
the same way and started again. Half of the records are documents the local dataset does not know, asked of
an HTTP supplier (the simulator on loopback, 20 ms): the batch takes a few seconds, long enough to be killed
in the middle. Also here: cancel mid-run (credits released, processing stops within about a second), the time
limit (short by its setting), the live progress route (events at once and ~1 s apart, closed after the end),
and the signed webhook against a receiver on loopback.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import duckdb
import httpx
import pytest
from support import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    make_settings,
    server_process,
    simulated_vendor,
    super_admin,
    unknown_cpfs,
    wait_until,
)

from bemtevi.bootstrap import build_platform
from bemtevi.bootstrap.workers import build_relay
from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.batches import TIME_LIMIT_MESSAGE, Batch, BatchStatus, reservation_id
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.layouts import LayoutRow, LayoutSpec
from bemtevi.domain.principals import ROOT_GROUP_ID
from bemtevi.domain.query_types import Category
from bemtevi.infra.settings import Settings
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer

pytestmark = pytest.mark.e2e

KNOWN = 1_000  # documents of the local dataset
UNKNOWN = 1_000  # documents only the HTTP supplier knows (20 ms each, 16 in flight: ~1.3 s)
CHUNK_ROWS = 250
CREDITS = 100_000


@dataclass
class Setup:
    settings: Settings
    env: dict[str, str]
    layout_id: str
    csv: bytes
    records: int


@pytest.fixture
def vendor() -> Iterator[SimulatorServer]:
    with SimulatorServer(SimulatorConfig(latency_ms=20, expected_authorization="Bearer tok-123")) as server:
        yield server


def layout_spec() -> LayoutSpec:
    rows = (
        LayoutRow("CPF", "document", 1, "", None, "entry"),
        LayoutRow("CPF", "document", 1, "", None, "exit"),
        LayoutRow("NOME", "text", 2, "", None, "exit"),
        LayoutRow("ENCONTRADO", "text", 3, "", None, "exit"),
    )
    return LayoutSpec("clientes", "retorno", "csv", "csv", "delimited", ";", True, "pessoas", rows)  # type: ignore[arg-type]


def prepare(settings: Settings, vendor: SimulatorServer, dataset_path: Path) -> tuple[str, bytes, int]:
    """The layout, the supplier and the root's batch credits, set up before any server runs; the CSV."""
    platform = build_platform(settings)
    try:
        admin = super_admin(platform)
        layout_id = platform.catalogue.add_layout(admin, layout_spec()).id
        platform.vendors.register(admin, simulated_vendor(vendor.port))
        unknown = unknown_cpfs(platform.supplier, UNKNOWN)
    finally:
        platform.close()
    with duckdb.connect(str(dataset_path), read_only=True) as con:
        known = [r[0] for r in con.execute(f"SELECT cpf FROM people ORDER BY cpf LIMIT {KNOWN}").fetchall()]
    documents = [d for pair in zip(known, unknown, strict=True) for d in pair]
    csv = ("CPF\n" + "\n".join(documents) + "\n").encode()
    return layout_id, csv, len(documents)


@pytest.fixture
def embedded(tmp_path: Path, dataset_path: Path, vendor: SimulatorServer) -> Setup:
    settings = make_settings(tmp_path / "var", dataset_path)
    layout_id, csv, records = prepare(settings, vendor, dataset_path)
    env = {
        "BEMTEVI_VAR_DIR": str(settings.var_dir),
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_BATCH_CHUNK_ROWS": str(CHUNK_ROWS),
    }
    return Setup(settings, env, layout_id, csv, records)


def headers(url: str) -> dict[str, str]:
    login = httpx.post(
        f"{url}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "domain_url": "localhost"}
    )
    assert login.status_code == 200, login.text
    return {"Authorization": f"Bearer {login.json()['token']}"}


def submit_batch(url: str, setup: Setup, **extra: Any) -> str:
    auth = headers(url)
    uploaded = httpx.post(
        f"{url}/api/batches/uploads",
        params={"layoutId": setup.layout_id, "fileName": "clientes.csv", "queryType": "cpf-complete"},
        content=setup.csv,
        headers={**auth, "Content-Type": "application/octet-stream"},
        timeout=60,
    )
    assert uploaded.status_code == 201, uploaded.text
    assert uploaded.json()["records"] == setup.records
    submitted = httpx.post(
        f"{url}/api/batches", json={"uploadId": uploaded.json()["uploadId"], **extra}, headers=auth, timeout=30
    )
    assert submitted.status_code == 201, submitted.text
    return str(submitted.json()["id"])


def batch(app: BemteviApplication, batch_id: str) -> Batch:
    found = app.repository.get(UUID(batch_id))
    assert isinstance(found, Batch)
    return found


def settlements(app: BemteviApplication, batch_id: str) -> list[int]:
    """The amounts settled on the root's batch account for this batch's reservation."""
    events = app.repository.event_store.get(credit_account_id(ROOT_GROUP_ID, Category.BATCH))
    reservation = str(reservation_id(UUID(batch_id)))
    return [int(e.amount) for e in events if isinstance(e, CreditAccount.Settled) and e.reservation_id == reservation]


def return_files(settings: Settings, batch_id: str) -> list[Path]:
    return sorted(p for p in (settings.var_dir / "batches" / batch_id).rglob("return.*") if ".partial" not in p.name)


def assert_exactly_once(app: BemteviApplication, settings: Settings, batch_id: str, records: int) -> None:
    done = batch(app, batch_id)
    assert done.status == BatchStatus.AVAILABLE
    assert done.attempts >= 2  # started, killed, resumed
    assert done.records == records and KNOWN <= done.found <= records
    assert settlements(app, batch_id) == [done.found]  # settled once, for the records found
    assert done.charged == done.found
    [returned] = return_files(settings, batch_id)
    lines = returned.read_text().splitlines()
    assert len(lines) == records + 1  # header + one line per record, none twice


def test_embedded_a_server_killed_mid_batch_resumes_it_and_charges_once(embedded: Setup) -> None:
    app = BemteviApplication(env=embedded.settings.event_store_env())
    try:
        log = embedded.settings.var_dir.parent / "server.log"
        with server_process(embedded.env, log) as (url, server):
            batch_id = submit_batch(url, embedded)
            wait_until(lambda: batch(app, batch_id).records_done > 0, timeout=30)
            server.send_signal(signal.SIGKILL)
            server.wait(10)
        killed_at = batch(app, batch_id)
        assert killed_at.status == BatchStatus.PROCESSING and killed_at.records_done < embedded.records
        with server_process(embedded.env, embedded.settings.var_dir.parent / "server-2.log"):
            wait_until(lambda: batch(app, batch_id).is_over, timeout=60)
        assert_exactly_once(app, embedded.settings, batch_id, embedded.records)
    finally:
        app.close()


# -- cluster mode ---------------------------------------------------------------------------------------


@pytest.fixture
def cluster(
    postgres_database: str, kafka_broker: str, tmp_path: Path, dataset_path: Path, vendor: SimulatorServer
) -> Setup:
    settings = make_settings(tmp_path / "var", dataset_path, postgres_database).model_copy(
        update={
            "kafka_bootstrap": kafka_broker,
            "kafka_events_topic": f"events-{uuid.uuid4().hex[:8]}",
            "kafka_batch_topic": f"batches-{uuid.uuid4().hex[:8]}",
            "kafka_mail_topic": f"mail-{uuid.uuid4().hex[:8]}",
            "kafka_events_partitions": 4,
            "enrichment": "worker",
            "batch_chunk_rows": CHUNK_ROWS,
        }
    )
    layout_id, csv, records = prepare(settings, vendor, dataset_path)
    env = {
        "BEMTEVI_DATABASE_URL": postgres_database,
        "BEMTEVI_KAFKA_BOOTSTRAP": kafka_broker,
        "BEMTEVI_KAFKA_EVENTS_TOPIC": settings.kafka_events_topic,
        "BEMTEVI_KAFKA_BATCH_TOPIC": settings.kafka_batch_topic,
        "BEMTEVI_KAFKA_MAIL_TOPIC": settings.kafka_mail_topic,
        "BEMTEVI_KAFKA_EVENTS_PARTITIONS": "4",
        "BEMTEVI_VAR_DIR": str(settings.var_dir),
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ENRICHMENT": "worker",
        "BEMTEVI_BATCH_CHUNK_ROWS": str(CHUNK_ROWS),
    }
    return Setup(settings, env, layout_id, csv, records)


@contextmanager
def enrichment_worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "bemtevi.cli", "worker", "enrichment"],
            env={**os.environ, **env},
            stdout=out,
            stderr=out,
        )
    try:
        yield worker
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(timeout=10)


def test_cluster_a_worker_killed_mid_batch_is_redelivered_the_batch_and_charges_once(cluster: Setup) -> None:
    app = BemteviApplication(env=cluster.settings.event_store_env())
    relay = build_relay(cluster.settings, app)
    relay.start()
    logs = cluster.settings.var_dir.parent
    try:
        with server_process(cluster.env, logs / "server.log") as (url, _):
            with enrichment_worker(cluster.env, logs / "worker-1.log") as worker:
                batch_id = submit_batch(url, cluster)
                wait_until(lambda: batch(app, batch_id).records_done > 0, timeout=60)
                worker.send_signal(signal.SIGKILL)
                worker.wait(10)
            killed_at = batch(app, batch_id)
            assert killed_at.status == BatchStatus.PROCESSING and killed_at.records_done < cluster.records
            with enrichment_worker(cluster.env, logs / "worker-2.log"):
                wait_until(lambda: batch(app, batch_id).is_over, timeout=90)
        assert_exactly_once(app, cluster.settings, batch_id, cluster.records)
        lines = [json.loads(x) for x in (logs / "worker-2.log").read_text().splitlines() if x.startswith("{")]
        assert lines  # the worker logs JSON lines
    finally:
        relay.stop()
        app.close()


# -- cancel, time limit, progress, webhook (embedded) ---------------------------------------------------


def test_cancel_mid_run_stops_within_a_second_and_releases_the_credits(embedded: Setup) -> None:
    app = BemteviApplication(env=embedded.settings.event_store_env())
    try:
        with server_process(embedded.env, embedded.settings.var_dir.parent / "server.log") as (url, _):
            batch_id = submit_batch(url, embedded)
            wait_until(lambda: batch(app, batch_id).records_done > 0, timeout=30)
            canceled = httpx.post(f"{url}/api/batches/{batch_id}/cancel", headers=headers(url), timeout=30)
            assert canceled.status_code == 200, canceled.text
            at_cancel = batch(app, batch_id).records_done
            time.sleep(1.5)
            after = batch(app, batch_id)
            assert after.status == BatchStatus.CANCELED
            assert not return_files(embedded.settings, batch_id)
            # Stopped within about a second: at most one more chunk's worth of records was looked at.
            chunks = sorted((embedded.settings.var_dir / "batches" / batch_id).rglob("chunk-*.arrow"))
            assert len(chunks) * CHUNK_ROWS <= at_cancel + 2 * CHUNK_ROWS + CHUNK_ROWS * 4
        account = app.repository.get(credit_account_id(ROOT_GROUP_ID, Category.BATCH))
        assert isinstance(account, CreditAccount)
        assert account.reserved == 0 and settlements(app, batch_id) == []
    finally:
        app.close()


def test_a_batch_past_its_time_limit_ends_with_the_specification_message(embedded: Setup) -> None:
    app = BemteviApplication(env=embedded.settings.event_store_env())
    try:
        env = {**embedded.env, "BEMTEVI_BATCH_TIME_LIMIT_SECONDS": "1"}
        with server_process(env, embedded.settings.var_dir.parent / "server.log") as (url, _):
            batch_id = submit_batch(url, embedded)
            wait_until(lambda: batch(app, batch_id).is_over, timeout=30)
        ended = batch(app, batch_id)
        assert ended.status == BatchStatus.ERROR and ended.message == TIME_LIMIT_MESSAGE
        account = app.repository.get(credit_account_id(ROOT_GROUP_ID, Category.BATCH))
        assert isinstance(account, CreditAccount) and account.reserved == 0
    finally:
        app.close()


def test_progress_is_streamed_about_every_second_and_closed_after_the_end(embedded: Setup) -> None:
    with server_process(embedded.env, embedded.settings.var_dir.parent / "server.log") as (url, _):
        batch_id = submit_batch(url, embedded)
        events: list[tuple[float, dict[str, Any]]] = []
        # How late a busy machine makes the server: the slowest health answer while the stream runs.
        slowest = [0.0]
        streaming = threading.Event()
        streaming.set()

        def ask_health() -> None:
            with httpx.Client(timeout=60) as client:
                while streaming.is_set():
                    asked = time.monotonic()
                    client.get(f"{url}/api/health")
                    slowest[0] = max(slowest[0], time.monotonic() - asked)
                    time.sleep(0.25)

        prober = threading.Thread(target=ask_health, daemon=True)
        with httpx.stream(
            "GET", f"{url}/api/batches/{batch_id}/progress", headers=headers(url), timeout=60
        ) as response:
            started = time.monotonic()  # the stream is open: its first event is due now, not a second later
            prober.start()
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            for line in response.iter_lines():
                if line.startswith("data: "):
                    events.append((time.monotonic() - started, json.loads(line[6:])))
        streaming.clear()
        prober.join()
        # The stream ended by itself after the terminal status.
        late = 2 * slowest[0]  # what the machine adds to a timer of the server's
        assert events[0][0] < 1.0 + late, (events[0][0], late)  # the first at once
        assert events[-1][1]["status"] == "available" and events[-1][1]["done"] == embedded.records
        assert events[-1][1]["etaSeconds"] == 0
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(events)]
        # About every second: never sooner (two events read late together may seem closer, never more of them
        # than the seconds allow), and a late one only as late as the machine makes the server.
        assert gaps and all(0.8 - late <= g <= 2.0 + late for g in gaps), (gaps, late)
        assert len(gaps) <= sum(gaps) / 0.8 + 1, gaps
        other = httpx.get(f"{url}/api/batches/{uuid.uuid4()}/progress", headers=headers(url), timeout=10)
        assert other.status_code == 404

"""A replica of the read models fed from the relay's Kafka topic (cluster mode), against the real broker.

What an operator relies on: a replica fed from Kafka holds exactly what one fed from the event store's log
holds, whatever the relay did (a page sent again, a relay killed hard), a replica killed hard while it
catches up resumes and folds each event once, and `?position=` read-your-writes holds across API processes.
The merge by the chain is a hypothesis property over interleavings, re-sends and restarts (no broker)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    KNOWN_CNPJ,
    KNOWN_CPF,
    examples,
    make_settings,
    new_tenant,
    run_lookups,
    server_process,
    wait_until,
)

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.batch_files import BatchFiles
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.consultations import Consultation
from bemtevi.domain.credits import CreditAccount
from bemtevi.domain.documents import cpf_check_digits
from bemtevi.domain.query_types import Category
from bemtevi.infra.slots import claim_slot
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.store import ReadStore
from bemtevi.streams.kafka_feed import Chained, ChainMerge, KafkaFeed
from bemtevi.streams.projector import Projector
from bemtevi.streams.relay import Relay, tracking_name

DOCUMENTS = [KNOWN_CPF, KNOWN_CNPJ, "00000000191"]


def new_topic() -> str:
    return f"events-{uuid.uuid4().hex[:8]}"


# -- the merge by the chain (no broker) ------------------------------------------------------------------


@st.composite
def relayed_topics(draw: st.DrawFn) -> tuple[list[int], dict[int, list[Chained]]]:
    """A log with gaps of ids spread over partitions, and what the relay leaves on each partition: it sends
    the log in order, chained, and any number of times starts again from an earlier stored position."""
    partitions = draw(st.integers(1, 4))
    ids: list[int] = []
    last = 0
    for _ in range(draw(st.integers(0, 40))):
        last += draw(st.sampled_from([1, 1, 1, 2, 5]))  # rolled-back appends leave gaps
        ids.append(last)
    placed = {i: draw(st.integers(0, partitions - 1)) for i in ids}
    topic: dict[int, list[Chained]] = {p: [] for p in range(partitions)}
    sent = stored = restarts = 0
    while sent < len(ids):
        upto = draw(st.integers(sent + 1, len(ids)))
        for index in range(sent, upto):
            previous = ids[index - 1] if index else 0
            records = topic[placed[ids[index]]]
            records.append(Chained(ids[index], previous, len(records), str(ids[index]).encode()))
        sent = upto
        if draw(st.booleans()):
            stored = draw(st.integers(stored, sent))
        if restarts < 6 and draw(st.booleans()):
            sent = stored  # a crash, a failed producer: the relay sends again from its stored position
            restarts += 1
    return ids, topic


@settings(max_examples=examples(100), deadline=None)
@given(relayed_topics(), st.data())
def test_the_merge_gives_the_log_in_order_once_whatever_the_interleaving_resends_and_restarts(
    case: tuple[list[int], dict[int, list[Chained]]], data: st.DataObject
) -> None:
    ids, topic = case
    merge = ChainMerge(0)
    fetched = dict.fromkeys(topic, 0)
    folded: list[int] = []
    committed: tuple[int, dict[int, int], int] = (0, {}, 0)  # position, offsets, how many folded
    for _ in range(10_000):
        behind = [p for p in topic if fetched[p] < len(topic[p])]
        step = data.draw(st.sampled_from(["fetch", "take", "crash"] if behind else ["take", "take", "crash"]))
        if step == "fetch":
            # Partitions arrive in any interleaving, in chunks of any size.
            partition = data.draw(st.sampled_from(behind))
            upto = data.draw(st.integers(fetched[partition] + 1, len(topic[partition])))
            merge.add(partition, topic[partition][fetched[partition] : upto])
            fetched[partition] = upto
        elif step == "take":
            taken = merge.take(data.draw(st.integers(1, 7)))
            folded.extend(r.notification_id for r in taken)
            assert merge.position == (folded[-1] if folded else 0)
            if data.draw(st.booleans()):  # a write: the position and the offsets in one transaction
                committed = (merge.position, merge.next_offsets(), len(folded))
            if not behind and not taken:
                break
        else:
            # Killed: what was folded after the last write is lost; reading starts again at the stored offsets.
            position, offsets, kept = committed
            del folded[kept:]
            merge = ChainMerge(position)
            for partition, offset in offsets.items():
                merge.seen(partition, offset)
            fetched = {p: offsets.get(p, 0) for p in topic}
    assert folded == ids


def test_the_merge_waits_for_an_event_behind_a_gap_of_ids() -> None:
    merge = ChainMerge(0)
    merge.add(1, [Chained(7, 4, 0, b"")])  # 7 came after 4, which is not here yet
    assert merge.take(10) == []
    merge.add(0, [Chained(1, 0, 0, b""), Chained(4, 1, 1, b"")])
    assert [r.notification_id for r in merge.take(10)] == [1, 4, 7]
    assert merge.next_offsets() == {0: 2, 1: 1}


# -- helpers: replicas and what their tables hold --------------------------------------------------------


# These logs hold lookups only: no batch's run for the data-subject index to read.
NO_BATCH_RUNS = BatchFiles(Path("no-batch-runs")).looked_up


def tables(store: ReadStore) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table but the feed's offsets and other followers' positions, in a stable order."""
    cur = store.cursor()
    names = [r[0] for r in cur.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
    rows = {}
    for name in names:
        if name == "projection_offsets":
            continue
        where = " WHERE name = 'read_models'" if name == "projection_tracking" else ""
        rows[name] = sorted(cur.execute(f'SELECT * FROM "{name}"{where}').fetchall(), key=repr)
    return rows


def rebuilt_from_the_log(app: BemteviApplication) -> dict[str, list[tuple[Any, ...]]]:
    store = ReadStore()
    try:
        Projector(app, store, all_read_models(NO_BATCH_RUNS)).catch_up()
        return tables(store)
    finally:
        store.close()


@contextmanager
def kafka_replica(
    app: BemteviApplication, path: Path, bootstrap: str, topic: str, max_buffered: int = 100_000
) -> Iterator[Projector]:
    store = ReadStore(path)
    feed = KafkaFeed(store, bootstrap, topic, max_buffered=max_buffered, fetch_records=50)
    projector = Projector(app, store, all_read_models(NO_BATCH_RUNS), source=feed)
    projector.start()
    try:
        yield projector
    finally:
        projector.stop()
        store.close()


def tracked(app: BemteviApplication, topic: str) -> int:
    return app.factory.tracking_recorder().max_tracking_id(tracking_name(topic)) or 0


def relay_process(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "bemtevi.cli", "relay"], env=env, stdout=out, stderr=out)


@pytest.fixture
def pg_platform(postgres_database: str, tmp_path: Path, dataset_path: Path) -> Iterator[Platform]:
    platform = build_platform(make_settings(tmp_path / "var", dataset_path, postgres_database), start_projector=False)
    yield platform
    platform.close()


# -- a replica fed from Kafka ----------------------------------------------------------------------------


def test_a_replica_fed_from_kafka_equals_one_fed_from_the_log_through_resends_and_a_relay_killed_hard(
    pg_platform: Platform, kafka_broker: str, postgres_database: str, tmp_path: Path
) -> None:
    app = pg_platform.app
    topic = new_topic()
    tenants = [new_tenant(pg_platform, name, limit) for name, limit in (("Alfa", 30), ("Beta", None), ("Gama", 4))]
    for tenant in tenants:
        run_lookups(pg_platform, tenant, DOCUMENTS * 3)
    # A replica follows the topic live, from its first record.
    with kafka_replica(app, tmp_path / "live.duckdb", kafka_broker, topic) as live:
        Relay(app, kafka_broker, topic, partitions=6, page_size=7).catch_up()
        first = app.max_position()
        # As if the relay had died after the brokers took these pages and before it stored its position.
        with psycopg.connect(postgres_database, autocommit=True) as con:
            con.execute(
                "UPDATE bemtevi_tracking SET notification_id = %s WHERE application_name = %s",
                (first // 2, tracking_name(topic)),
            )
        assert Relay(app, kafka_broker, topic, partitions=6, page_size=7).catch_up() == first - first // 2
        wait_until(lambda: live.position == first, timeout=20, message="the live replica did not reach the log")

        # Then a relay process, killed with SIGKILL while lookups are appended, and started again.
        env = {
            **os.environ,
            "BEMTEVI_DATABASE_URL": postgres_database,
            "BEMTEVI_KAFKA_BOOTSTRAP": kafka_broker,
            "BEMTEVI_KAFKA_EVENTS_TOPIC": topic,
            "BEMTEVI_RELAY_PAGE_SIZE": "5",
        }
        log = tmp_path / "relay.log"
        relay = relay_process(env, log)
        try:
            for round_ in range(40):
                run_lookups(pg_platform, tenants[round_ % 3], DOCUMENTS)
                if round_ == 15:
                    wait_until(lambda: tracked(app, topic) > first, timeout=20, message=log.read_text())
                    relay.send_signal(signal.SIGKILL)
                    relay.wait(timeout=10)
                    relay = relay_process(env, log)
            pg_platform.writer.stop()  # its last chores appended: the log is final
            last = app.max_position()
            wait_until(lambda: tracked(app, topic) == last, timeout=30, message=log.read_text())
        finally:
            relay.terminate()
            relay.wait(timeout=20)
        wait_until(lambda: live.position == last, timeout=20, message="the live replica did not catch up")
        assert live.error is None
    expected = rebuilt_from_the_log(app)
    assert expected["consultations"] and expected["credit_movements"]
    live_store = ReadStore(tmp_path / "live.duckdb")
    assert tables(live_store) == expected
    live_store.close()

    # A new replica builds everything from the topic's first record (re-sent records included), with room
    # for few records ahead: partitions with records waiting are paused, the others still fetched.
    with kafka_replica(app, tmp_path / "new.duckdb", kafka_broker, topic, max_buffered=30) as fresh:
        wait_until(lambda: fresh.position == last, timeout=30, message="the new replica did not catch up")
    store = ReadStore(tmp_path / "new.duckdb")
    assert tables(store) == expected
    # Its offsets are where a restart seeks to: every partition read to its end.
    assert sum(store.offsets_of(f"kafka:{topic}").values()) > last
    store.close()


def seed_lookups(app: BemteviApplication, lookups: int, groups: int = 20) -> None:
    """Lookup histories (reservation, settlement or release, consultation) appended in large transactions."""
    ids = [uuid4() for _ in range(groups)]
    accounts = {}
    pending: list[Any] = []
    for group_id in ids:
        with acting_as(Actor(None, group_id)):
            accounts[group_id] = CreditAccount.open(group_id, Category.UNIT, None)
        pending.extend(accounts[group_id].collect_events())
    for n in range(lookups):
        group_id = ids[n % groups]
        account = accounts[group_id]
        consultation_id = uuid4()
        found = n % 5 != 0
        with acting_as(Actor(group_id, group_id)):
            account.reserve(consultation_id, 1)
            if found:
                account.settle(consultation_id, 1)
            else:
                account.release(consultation_id)
            consultation = Consultation._create(
                Consultation.Recorded,
                id=consultation_id,
                group_id=group_id,
                user_id=group_id,
                document=KNOWN_CPF,
                document_type="cpf",
                query_type="cpf-complete",
                category="unit",
                supplier="local",
                status="done" if found else "not_found",
                credits=1 if found else 0,
                channel="panel",
                lease_id=None,
                purpose=None,
            )
        pending.extend(account.collect_events())
        pending.extend(consultation.collect_events())
        if len(pending) >= 5_000:
            app.recorder.insert_events([app.mapper.to_stored_event(e) for e in pending])
            pending = []
    app.recorder.insert_events([app.mapper.to_stored_event(e) for e in pending])


def test_a_server_killed_hard_while_its_replica_catches_up_resumes_and_folds_each_event_once(
    pg_platform: Platform, kafka_broker: str, postgres_database: str, dataset_path: Path, tmp_path: Path
) -> None:
    app = pg_platform.app
    topic = new_topic()
    seed_lookups(app, 12_000)
    Relay(app, kafka_broker, topic, partitions=12).catch_up()
    last = app.max_position()
    var = tmp_path / "server"
    env = {
        "BEMTEVI_DATABASE_URL": postgres_database,
        "BEMTEVI_VAR_DIR": str(var),
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "BEMTEVI_READ_FEED": "kafka",
        "BEMTEVI_KAFKA_BOOTSTRAP": kafka_broker,
        "BEMTEVI_KAFKA_EVENTS_TOPIC": topic,
        "BEMTEVI_LEDGER_PROCESS": "false",
    }
    replica = var / "read-models-0.duckdb"
    port_env = {**os.environ, **env, "BEMTEVI_ARGON2_TIME_COST": "1", "BEMTEVI_ARGON2_MEMORY_COST": "1024"}
    log = tmp_path / "killed.log"
    with log.open("w") as out:
        server = subprocess.Popen([sys.executable, "-m", "bemtevi.cli", "serve"], env=port_env, stdout=out, stderr=out)
    try:
        # Killed while its replica catches up: once it has written a batch (its file and log have grown).
        def written() -> int:
            return sum(p.stat().st_size for p in var.glob("read-models-0.duckdb*"))

        wait_until(lambda: written() > 2_000_000, timeout=60, message=f"no batch written:\n{log.read_text()}")
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
    finally:
        server.kill()
    killed = ReadStore(replica)
    killed_at = killed.tracked_position("read_models")
    killed.close()
    print(f"killed at position {killed_at} of {last}")
    assert 0 < killed_at < last, (killed_at, last)

    # Started again on the same folder: the same slot, from its stored position and offsets.
    with server_process(env, tmp_path / "again.log") as (url, _):
        assert httpx.get(f"{url}/api/health").status_code == 200
    assert f"from position {killed_at}" in (tmp_path / "again.log").read_text()
    store = ReadStore(replica)
    try:
        assert store.tracked_position("read_models") == app.max_position()
        rows = tables(store)
    finally:
        store.close()
    expected = rebuilt_from_the_log(app)
    assert len(expected["consultations"]) == 12_000
    assert rows == expected


# -- API processes, each with its own replica ------------------------------------------------------------


def test_two_api_processes_on_one_folder_take_two_replica_slots_and_read_their_writes_across(
    postgres_database: str, kafka_broker: str, dataset_path: Path, tmp_path: Path
) -> None:
    topic = new_topic()
    common = {
        "BEMTEVI_DATABASE_URL": postgres_database,
        "BEMTEVI_SECRET_KEY": "two-processes-share-this-signing-key-0123456789",
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "BEMTEVI_VAR_DIR": str(tmp_path / "var"),  # one folder for both
        "BEMTEVI_READ_FEED": "kafka",
        "BEMTEVI_KAFKA_BOOTSTRAP": kafka_broker,
        "BEMTEVI_KAFKA_EVENTS_TOPIC": topic,
        # Long, so that an answer well within it shows that nothing waited for it, however busy the machine.
        "BEMTEVI_PROJECTOR_COALESCE_SECONDS": "5",
    }
    relay_app = BemteviApplication(env={**make_settings(tmp_path, dataset_path, postgres_database).event_store_env()})
    relay = Relay(relay_app, kafka_broker, topic, partitions=12)
    relay.start()
    try:
        with ExitStack() as stack:
            first, _ = stack.enter_context(server_process(common, tmp_path / "a.log"))
            second, _ = stack.enter_context(server_process(common, tmp_path / "b.log"))
            assert sorted(p.name for p in (tmp_path / "var").glob("read-models-*.duckdb")) == [
                "read-models-0.duckdb",
                "read-models-1.duckdb",
            ]
            signed_in = httpx.post(
                f"{first}/api/auth/auth",
                json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "domain_url": "localhost"},
            )
            assert signed_in.status_code == 200, signed_in.text
            headers = {"Authorization": f"Bearer {signed_in.json()['token']}"}
            waits = []
            for n in range(5):
                base = f"{300 + n:09d}"
                body = {
                    "name": f"Pessoa Réplica {n}",
                    "email": f"replica{n}@empresa.com.br",
                    "cpf": base + cpf_check_digits(base),
                    "phone": "(11) 98765-4321",
                    "functions": "Analista",
                    "role": "user",
                }
                added = httpx.post(f"{first}/api/users", headers=headers, json=body, timeout=10)
                assert added.status_code == 200, added.text
                began = time.monotonic()
                listed = httpx.get(
                    f"{second}/api/users",
                    headers=headers,
                    params={"position": added.json()["position"], "search": f"Pessoa Réplica {n}"},
                    timeout=10,
                ).json()
                waits.append(time.monotonic() - began)
                assert listed["upToDate"] is True
                assert [u["email"] for u in listed["data"]] == [f"replica{n}@empresa.com.br"]
            # No coalescing window while a reader waits (5 s here): the answer comes when the event does.
            assert sorted(waits)[2] < 2.5, waits
    finally:
        relay.stop()
        relay_app.close()


@pytest.mark.process
def test_a_process_takes_the_first_slot_no_running_process_holds(tmp_path: Path) -> None:
    held = claim_slot(tmp_path, "read-models", ".duckdb")
    probe = (
        "import sys; from pathlib import Path; from bemtevi.infra.slots import claim_slot; "
        "print(claim_slot(Path(sys.argv[1]), 'read-models', '.duckdb').index)"
    )
    other = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True)
    assert (held.index, other.stdout.strip()) == (0, "1")
    held.release()  # as when the process ends, however it ends
    again = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True)
    assert again.stdout.strip() == "0"


def test_the_kafka_feed_needs_a_kafka_cluster_and_the_log_feed_keeps_the_one_read_store(
    tmp_path: Path, dataset_path: Path
) -> None:
    settings = make_settings(tmp_path / "var", dataset_path)
    assert settings.read_feed == "log"
    with pytest.raises(ValueError, match="BEMTEVI_KAFKA_BOOTSTRAP"):
        build_platform(settings.model_copy(update={"read_feed": "kafka", "kafka_bootstrap": None}))
    platform = build_platform(settings, start_projector=False)
    try:
        assert (Path(platform.store.path), platform.replica_slot) == (settings.read_model_path, None)
    finally:
        platform.close()

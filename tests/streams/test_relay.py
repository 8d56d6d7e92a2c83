"""The relay from the event store to Kafka, against the real broker and the real event stores.

What a consumer of the cluster sees: every event of the log on the topic, keyed by its aggregate
and in its aggregate's order; nothing lost when the relay is killed hard or the broker restarts;
duplicates (at least once) dropped by notification id.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from kafka.consumer.fetcher import ConsumerRecord
from support import KNOWN_CNPJ, KNOWN_CPF, make_settings, new_tenant, run_lookups, wait_until

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.bootstrap.workers import build_relay
from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.mail import Mail
from bemtevi.domain.principals import ROOT_GROUP_ID
from bemtevi.infra.kafka import topic_reader
from bemtevi.infra.local_services.kafka import KafkaBroker
from bemtevi.infra.settings import Settings
from bemtevi.streams.mailer import QUEUED_TOPIC
from bemtevi.streams.relay import (
    NOTIFICATION_ID_HEADER,
    PREVIOUS_ID_HEADER,
    TOPIC_HEADER,
    Deduplicator,
    Relay,
    RelayedEvent,
    notification_id_of,
    tracking_name,
)

DOCUMENTS = [KNOWN_CPF, KNOWN_CNPJ, "00000000191"]


def new_topic() -> str:
    return f"events-{uuid.uuid4().hex[:8]}"


def read_all(bootstrap: str, topic: str, up_to: int, timeout: float = 20.0) -> list[ConsumerRecord]:
    """Every record of ``topic`` (duplicates included) once the records hold each notification id up to ``up_to``."""
    reader = topic_reader(bootstrap, topic)
    records: list[ConsumerRecord] = []
    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    try:
        while len(seen) < up_to:
            assert time.monotonic() < deadline, f"{up_to - len(seen)} of {up_to} events never reached Kafka"
            for batch in reader.poll(timeout_ms=500).values():
                records.extend(batch)
                seen.update(notification_id_of(r) for r in batch)
        # Anything sent after the last new id (a page sent again) is part of what readers get.
        for batch in reader.poll(timeout_ms=500).values():
            records.extend(batch)
    finally:
        reader.close()
    return records


def deduplicated(records: list[ConsumerRecord]) -> list[RelayedEvent]:
    """What a reader handles: records in partition then offset order, each notification id once."""
    ordered = sorted(records, key=lambda r: (r.partition, r.offset))
    return list(Deduplicator().new_events(ordered))


def assert_the_whole_log_once_in_aggregate_order(app: BemteviApplication, records: list[ConsumerRecord]) -> None:
    log = app.recorder.select_notifications(0, 1_000_000)
    events = deduplicated(records)
    assert sorted(e.notification_id for e in events) == [n.id for n in log]  # each exactly once, none missing
    # The stored events themselves: topic, aggregate, version and the state byte for byte.
    assert {e.notification() for e in events} == set(log)
    # Keyed by aggregate, so one aggregate's events share a partition, in their order there.
    partitions: dict[bytes, set[int]] = {}
    versions: dict[bytes, list[int]] = {}
    ids = [n.id for n in log]
    before = dict(zip(ids, [0, *ids[:-1]], strict=True))
    for record in sorted(records, key=lambda r: (r.partition, r.offset)):
        event = RelayedEvent.decode(record.value)
        assert record.key == str(event.originator_id).encode()
        assert dict(record.headers) == {
            NOTIFICATION_ID_HEADER: str(event.notification_id).encode(),
            PREVIOUS_ID_HEADER: str(event.previous_id).encode(),
            TOPIC_HEADER: event.topic.encode(),
        }
        # Chained: the id of the event before it in the log, or the stored position a relay started from.
        assert before[event.notification_id] <= event.previous_id < event.notification_id
        partitions.setdefault(record.key, set()).add(record.partition)
    for event in events:
        versions.setdefault(str(event.originator_id).encode(), []).append(event.originator_version)
    assert all(len(p) == 1 for p in partitions.values())
    assert all(v == sorted(v) and len(set(v)) == len(v) for v in versions.values())
    assert len({p for ps in partitions.values() for p in ps}) > 1  # the aggregates spread over partitions


def tracked(app: BemteviApplication, topic: str) -> int:
    return app.factory.tracking_recorder().max_tracking_id(tracking_name(topic)) or 0


@contextmanager
def appending(platform: Platform) -> Iterator[threading.Event]:
    """Lookups (three events each, on many aggregates) run by commands in a thread until the block ends; then
    the writer stops, appending its last chores (block releases), so that the log is final."""
    principal = new_tenant(platform, "Fluxo", limit=None)
    stop = threading.Event()
    failures: list[BaseException] = []

    def run() -> None:
        try:
            while not stop.is_set():
                run_lookups(platform, principal, DOCUMENTS)
        except BaseException as e:
            failures.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield stop
    finally:
        stop.set()
        thread.join(timeout=30)
        platform.writer.stop()
    assert not failures, failures


@pytest.fixture
def pg_platform(postgres_database: str, tmp_path: Path, dataset_path: Path) -> Iterator[Platform]:
    platform = build_platform(make_settings(tmp_path / "var", dataset_path, postgres_database), start_projector=False)
    yield platform
    platform.close()


# -- the relay -----------------------------------------------------------------------------------------


def test_events_appended_by_commands_arrive_keyed_by_aggregate_in_their_order(
    platform: Platform, kafka_broker: str
) -> None:
    first = new_tenant(platform, "Primeira", limit=2)
    second = new_tenant(platform, "Segunda", limit=None)
    run_lookups(platform, first, [KNOWN_CPF, KNOWN_CNPJ, KNOWN_CPF])  # the third is refused: no credit left
    topic = new_topic()
    relay = build_relay(
        platform.settings.model_copy(update={"kafka_bootstrap": kafka_broker, "kafka_events_topic": topic}),
        platform.app,
    )
    relay.start()
    try:
        # What was logged before the relay started, then what is appended while it follows the log.
        run_lookups(platform, second, DOCUMENTS * 3)
        last = platform.app.max_position()
        wait_until(lambda: relay.position == last, timeout=20, message="the relay did not reach the end of the log")
    finally:
        relay.stop()
    assert relay.error is None
    assert tracked(platform.app, topic) == last  # the position is stored in the event store's database

    assert_the_whole_log_once_in_aggregate_order(platform.app, read_all(kafka_broker, topic, last))


def test_appends_made_while_the_relay_gathers_go_out_in_one_round(platform: Platform, kafka_broker: str) -> None:
    """The relay lets appends gather after one wakes it (``BEMTEVI_RELAY_GATHER_SECONDS``): a round costs the same
    read, produce requests, fetches and position write whatever it carries, so ten quick appends are one round,
    not ten, and each still reaches the topic once and in order."""
    tenant = new_tenant(platform, "Reunida", limit=None)
    topic = new_topic()
    settings = platform.settings.model_copy(
        update={"kafka_bootstrap": kafka_broker, "kafka_events_topic": topic, "relay_gather_seconds": 2.0}
    )
    relay = build_relay(settings, platform.app)
    relay.start()
    try:
        wait_until(lambda: relay.position == platform.app.max_position(), timeout=20, message="no first catch-up")
        rounds = relay.rounds
        run_lookups(platform, tenant, DOCUMENTS * 2)  # each lookup's append wakes the relay
        last = platform.app.max_position()
        wait_until(lambda: relay.position == last, timeout=20, message="the relay did not reach the end of the log")
    finally:
        relay.stop()
    assert relay.error is None
    assert relay.rounds - rounds == 1
    assert_the_whole_log_once_in_aggregate_order(platform.app, read_all(kafka_broker, topic, last))


def test_relayed_events_decode_to_the_domain_events_that_were_stored(platform: Platform, kafka_broker: str) -> None:
    new_tenant(platform, "Decodificada", limit=5)
    topic = new_topic()
    relay = Relay(platform.app, kafka_broker, topic, partitions=3)
    relay.catch_up()
    relay.stop()
    events = deduplicated(read_all(kafka_broker, topic, platform.app.max_position()))
    stored = {n.id: platform.app.mapper.to_domain_event(n) for n in platform.app.recorder.select_notifications(0, 1000)}
    assert {e.notification_id: platform.app.mapper.to_domain_event(e.notification()) for e in events} == stored


def test_queued_mails_also_reach_the_mail_topic_and_nothing_else_does(platform: Platform, kafka_broker: str) -> None:
    run_lookups(platform, new_tenant(platform, "Correio", limit=3), [KNOWN_CPF, KNOWN_CNPJ])
    with acting_as(Actor(user_id=None, tenant_id=ROOT_GROUP_ID)):
        platform.app.save(*(Mail.queue(to, "Assunto", "Olá", reason="test") for to in ("a@x.com.br", "b@x.com.br")))
    run_lookups(platform, new_tenant(platform, "Outra", limit=3), [KNOWN_CPF])
    events, mail = new_topic(), new_topic()
    settings = platform.settings.model_copy(
        update={"kafka_bootstrap": kafka_broker, "kafka_events_topic": events, "kafka_mail_topic": mail}
    )
    relay = build_relay(settings, platform.app)
    relay.catch_up()
    relay.stop()
    # (The embedded mailer goes on appending what it sends: what the relay had is the log up to its position.)
    logged = [n.id for n in platform.app.recorder.select_notifications(0, 10_000, stop=relay.position)]
    queued = [
        n.id for n in platform.app.recorder.select_notifications(0, 10_000, stop=relay.position, topics=[QUEUED_TOPIC])
    ]
    routed = deduplicated(read_all(kafka_broker, mail, len(queued)))
    assert sorted(e.notification_id for e in routed) == queued
    relayed = deduplicated(read_all(kafka_broker, events, len(logged)))
    assert sorted(e.notification_id for e in relayed) == logged  # the events topic keeps them all


def test_on_postgres_an_append_by_another_process_wakes_the_relay_without_polling(
    pg_platform: Platform, kafka_broker: str
) -> None:
    topic = new_topic()
    # The relay's own application, like `bemtevi relay`'s process: the platform's saves do not call it.
    relay_app = BemteviApplication(env=pg_platform.settings.event_store_env())
    relay = Relay(relay_app, kafka_broker, topic, partitions=3, poll_interval=60.0)
    try:
        relay.start()
        wait_until(lambda: relay.position == pg_platform.app.max_position(), timeout=20)
        new_tenant(pg_platform, "Acordada", limit=1)
        last = pg_platform.app.max_position()
        wait_until(lambda: relay.position == last, timeout=10, message="the append's NOTIFY did not wake the relay")
    finally:
        relay.stop()
        relay_app.close()


def test_a_page_sent_again_after_a_crash_before_its_position_was_stored_reaches_readers_once(
    pg_platform: Platform, kafka_broker: str, postgres_database: str
) -> None:
    run_lookups(pg_platform, new_tenant(pg_platform, "Repetida", limit=None), DOCUMENTS * 2)
    topic = new_topic()
    Relay(pg_platform.app, kafka_broker, topic, partitions=4, page_size=7).catch_up()
    last = pg_platform.app.max_position()
    # As if the relay had died after the brokers took these pages and before it stored its position.
    with psycopg.connect(postgres_database, autocommit=True) as con:
        con.execute(
            "UPDATE bemtevi_tracking SET notification_id = %s WHERE application_name = %s",
            (last // 2, tracking_name(topic)),
        )
    again = Relay(pg_platform.app, kafka_broker, topic, partitions=4, page_size=7)
    assert again.position == last // 2
    assert again.catch_up() == last - last // 2

    records = read_all(kafka_broker, topic, last)
    assert len(records) == last + (last - last // 2)  # the second half twice
    assert_the_whole_log_once_in_aggregate_order(pg_platform.app, records)


def relay_process(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "bemtevi.cli", "relay"], env=env, stdout=out, stderr=out)


def test_a_relay_killed_hard_mid_stream_resumes_from_its_stored_position_and_nothing_is_lost(
    pg_platform: Platform, kafka_broker: str, postgres_database: str, tmp_path: Path
) -> None:
    topic = new_topic()
    env = {
        **os.environ,
        "BEMTEVI_DATABASE_URL": postgres_database,
        "BEMTEVI_KAFKA_BOOTSTRAP": kafka_broker,
        "BEMTEVI_KAFKA_EVENTS_TOPIC": topic,
        "BEMTEVI_KAFKA_EVENTS_PARTITIONS": "6",
        "BEMTEVI_RELAY_PAGE_SIZE": "25",
    }
    log = tmp_path / "relay.log"
    app = pg_platform.app
    with appending(pg_platform):
        relay = relay_process(env, log)
        try:
            wait_until(lambda: tracked(app, topic) > 0, timeout=20, message=f"no page relayed:\n{log.read_text()}")
            relay.send_signal(signal.SIGKILL)
            relay.wait(timeout=10)
            killed_at = tracked(app, topic)
            assert killed_at < app.max_position()  # mid-stream: there was more to relay
        finally:
            relay.kill()
        relay = relay_process(env, log)
        wait_until(lambda: tracked(app, topic) > killed_at, timeout=20, message=f"no resume:\n{log.read_text()}")
    try:
        last = app.max_position()
        wait_until(lambda: tracked(app, topic) == last, timeout=20, message=f"not caught up:\n{log.read_text()}")
    finally:
        relay.send_signal(signal.SIGTERM)
        assert relay.wait(timeout=20) == 0, log.read_text()  # stops cleanly on SIGTERM
    assert f"after position {killed_at}" in log.read_text()  # the second relay said where it resumed

    records = read_all(kafka_broker, topic, last)
    assert len(records) >= last  # at least once
    assert_the_whole_log_once_in_aggregate_order(app, records)


@pytest.mark.kafka
@pytest.mark.skipif(bool(os.environ.get("BEMTEVI_KAFKA_BOOTSTRAP")), reason="an existing broker was named")
def test_the_relay_rides_out_a_broker_restart_and_nothing_is_lost(pg_platform: Platform) -> None:
    topic = new_topic()
    app = pg_platform.app
    with KafkaBroker() as broker:
        relay = Relay(app, broker.bootstrap, topic, partitions=4, page_size=50, poll_interval=0.1)
        relay.start()
        try:
            with appending(pg_platform):
                wait_until(lambda: relay.position > 0, timeout=20, message="no page relayed")
                broker.stop(keep_data=True)
                # While the broker is away the log grows, and the relay's position stays at what was acknowledged.
                away = relay.position
                wait_until(lambda: app.max_position() > away + 60, timeout=20, message="no appends meanwhile")
                time.sleep(0.5)
                assert relay.position == away == tracked(app, topic)
                broker.start()  # the same port, topics and records
                wait_until(lambda: relay.position > away, timeout=30, message="the relay did not resume")
            last = app.max_position()
            wait_until(lambda: relay.position == last, timeout=30, message="the relay did not catch up")
        finally:
            relay.stop()
        records = read_all(broker.bootstrap, topic, last)
    assert_the_whole_log_once_in_aggregate_order(app, records)


@pytest.mark.process
def test_the_relay_command_needs_a_kafka_cluster(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEMTEVI_")}
    env["BEMTEVI_VAR_DIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "bemtevi.cli", "relay"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "BEMTEVI_KAFKA_BOOTSTRAP" in done.stderr


def test_settings_name_the_kafka_cluster_topic_and_partitions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BEMTEVI_KAFKA_BOOTSTRAP", "kafka-1:9092,kafka-2:9092")
    monkeypatch.setenv("BEMTEVI_KAFKA_EVENTS_TOPIC", "prod.events")
    monkeypatch.setenv("BEMTEVI_KAFKA_EVENTS_PARTITIONS", "24")
    settings = Settings()
    assert (settings.kafka_bootstrap, settings.kafka_events_topic, settings.kafka_events_partitions) == (
        "kafka-1:9092,kafka-2:9092",
        "prod.events",
        24,
    )


# -- the readers' deduplication -------------------------------------------------------------------------


@st.composite
def deliveries(draw: st.DrawFn) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """A log spread over partitions, and what at-least-once delivery of it gives readers: the
    relay sends it in order and, any number of times, starts again from an earlier stored position."""
    partitions = draw(st.integers(1, 4))
    log = [(i, draw(st.integers(0, partitions - 1))) for i in range(1, draw(st.integers(0, 60)) + 1)]
    delivered: list[tuple[int, int]] = []
    sent = 0
    stored = 0
    restarts = 0
    while sent < len(log):
        upto = draw(st.integers(sent + 1, len(log)))
        delivered.extend(log[sent:upto])
        sent = upto
        if draw(st.booleans()):
            stored = draw(st.integers(stored, sent))  # the position stored last, at or after the previous
        if restarts < 8 and draw(st.booleans()):
            sent = stored  # a crash, a failed producer: sent again from the stored position
            restarts += 1
    return log, delivered


@given(deliveries())
def test_a_reader_keeps_each_event_once_however_often_pages_were_sent_again(
    case: tuple[list[tuple[int, int]], list[tuple[int, int]]],
) -> None:
    log, delivered = case
    dedup = Deduplicator()
    # Each partition is read in its own order; how the partitions interleave does not matter.
    kept = [(i, p) for i, p in sorted(delivered, key=lambda d: d[1]) if dedup.is_new(p, i)]
    assert sorted(kept) == log


@given(st.binary(max_size=300), st.integers(1, 2**53), st.integers(1, 10_000), st.text(max_size=40))
def test_a_relayed_event_carries_the_stored_event_byte_for_byte(
    state: bytes, notification_id: int, version: int, topic: str
) -> None:
    from eventsourcing.persistence import Notification

    stored = Notification(
        id=notification_id, originator_id=uuid.uuid4(), originator_version=version, topic=topic, state=state
    )
    assert RelayedEvent.decode(RelayedEvent.encode(stored)).notification() == stored


def test_a_record_without_the_relays_header_is_refused() -> None:
    record: Any = type("Record", (), {"partition": 0, "value": b"{}", "headers": [("other", b"1")]})()
    with pytest.raises(ValueError, match="notification_id"):
        notification_id_of(record)


def test_the_relay_creates_its_topic_with_unlimited_retention_and_warns_of_one_that_has_less(
    platform: Platform, kafka_broker: str, caplog: pytest.LogCaptureFixture
) -> None:
    from kafka import KafkaAdminClient
    from kafka.admin import ConfigResource, ConfigResourceType

    from bemtevi.infra.kafka import ensure_topic

    created, foreign = new_topic(), new_topic()
    Relay(platform.app, kafka_broker, created, partitions=2).catch_up()
    ensure_topic(kafka_broker, foreign, 2)  # as another tool would create it: the brokers' default retention
    with caplog.at_level("WARNING", logger="bemtevi.infra.kafka"):
        Relay(platform.app, kafka_broker, foreign, partitions=2).catch_up()
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker)
    try:
        configs = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, created)])["topic"][created]
    finally:
        admin.close()
    assert (configs["retention.ms"]["value"], configs["retention.bytes"]["value"]) == ("-1", "-1")
    assert f"topic {foreign} has retention.ms=the brokers' default, not -1" in caplog.text

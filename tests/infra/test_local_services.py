"""The servers the project starts for itself: a real Kafka broker and the project's own PostgreSQL cluster."""

from __future__ import annotations

import base64
import os
import uuid

import psycopg
import pytest
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic

from bemtevi.infra.local_services.kafka import KafkaBroker
from bemtevi.infra.local_services.postgres import ensure_postgres


def test_kafka_broker_carries_records_from_a_producer_to_a_consumer_group(kafka_broker: str) -> None:
    topic = f"records-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker)
    try:
        admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])
    finally:
        admin.close()
    producer = KafkaProducer(bootstrap_servers=kafka_broker, enable_idempotence=True, acks="all")
    sent = {f"account-{i}".encode(): f"event-{i}".encode() for i in range(60)}
    for key, value in sent.items():
        producer.send(topic, key=key, value=value)
    producer.flush()
    producer.close()

    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=kafka_broker,
        group_id=f"readers-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest",
        consumer_timeout_ms=15_000,
    )
    received: dict[bytes, bytes] = {}
    partitions: set[int] = set()
    try:
        for record in consumer:
            received[record.key] = record.value
            partitions.add(record.partition)
            if len(received) == len(sent):
                break
    finally:
        consumer.close()
    assert received == sent
    assert len(partitions) == 3  # keyed records spread over the topic's partitions


@pytest.mark.kafka
@pytest.mark.skipif(bool(os.environ.get("BEMTEVI_KAFKA_BOOTSTRAP")), reason="an existing broker was named")
def test_a_started_broker_stops_cleanly_and_leaves_no_data_behind() -> None:
    broker = KafkaBroker().start()
    directory = broker.directory
    assert directory is not None and directory.exists()
    process = broker.process
    assert process is not None
    broker.stop()
    # The JVM ran its shutdown hooks on SIGTERM (a kill after the stop timeout would read -9).
    assert process.returncode in (0, 143)
    assert not directory.exists()


@pytest.mark.postgres
@pytest.mark.skipif(bool(os.environ.get("BEMTEVI_TEST_POSTGRES_URL")), reason="an existing server was named")
def test_the_projects_postgres_starts_once_and_answers_again() -> None:
    first = ensure_postgres()
    second = ensure_postgres()  # already running: left as it is
    assert first == second
    with psycopg.connect(second) as con:
        row = con.execute("SELECT current_setting('listen_addresses')").fetchone()
    assert row == ("127.0.0.1",)


@pytest.mark.kafka
@pytest.mark.skipif(bool(os.environ.get("BEMTEVI_KAFKA_BOOTSTRAP")), reason="an existing broker was named")
def test_a_restarted_broker_answers_on_the_same_port_with_the_records_it_had() -> None:
    with KafkaBroker() as broker:
        topic = "kept"
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        try:
            admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])
        finally:
            admin.close()
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap, enable_idempotence=True, acks="all")
        producer.send(topic, key=b"a", value=b"before the restart")
        producer.flush()
        producer.close()
        bootstrap = broker.bootstrap

        broker.restart()

        assert broker.bootstrap == bootstrap
        consumer = KafkaConsumer(
            topic, bootstrap_servers=broker.bootstrap, auto_offset_reset="earliest", consumer_timeout_ms=15_000
        )
        try:
            record = next(iter(consumer))
        finally:
            consumer.close()
        assert record.value == b"before the restart"


@pytest.mark.kafka
@pytest.mark.skipif(bool(os.environ.get("BEMTEVI_KAFKA_BOOTSTRAP")), reason="an existing broker was named")
def test_a_broker_starts_whatever_its_generated_cluster_id_begins_with() -> None:
    # One generated id in 64 begins with "-" (URL-safe base64 of bytes from 0xF8): it once failed a test run.
    cluster_id = base64.urlsafe_b64encode(b"\xf8" + uuid.uuid4().bytes[1:]).decode().rstrip("=")
    assert cluster_id.startswith("-")
    with KafkaBroker(cluster_id=cluster_id) as broker:
        assert broker.process is not None and broker.process.poll() is None

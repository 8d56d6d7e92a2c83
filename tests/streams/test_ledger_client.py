"""KafkaLedgerClient's batches: the partition it computes for a request is the one Kafka gives its key.

The client sends one record per partition with the partition given explicitly, so a group's requests
reach the worker that owns the group only if that partition is the one a keyed record lands in.
"""

from __future__ import annotations

import uuid

from kafka import KafkaProducer

from bemtevi.infra.kafka import ensure_topic, topic_reader
from bemtevi.streams.ledger_client import partition_of


def test_a_request_goes_to_the_partition_kafka_gives_its_key(kafka_broker: str) -> None:
    topic = f"keys-{uuid.uuid4().hex[:8]}"
    ensure_topic(kafka_broker, topic, 12)
    keys = [uuid.uuid4().bytes for _ in range(200)]
    producer = KafkaProducer(bootstrap_servers=kafka_broker)  # kafka-python's default partitioner
    try:
        for key in keys:
            producer.send(topic, key=key, value=b"")
        producer.flush()
    finally:
        producer.close()
    reader = topic_reader(kafka_broker, topic, consumer_timeout_ms=2_000)
    try:
        landed = {record.key: record.partition for record in reader}
    finally:
        reader.close()
    assert landed == {key: partition_of(key, 12) for key in keys}
    assert len(set(landed.values())) == 12

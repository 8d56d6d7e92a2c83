"""Kafka adapters (kafka-python, with crc32c): topics created explicitly, the relay's producer, readers.

Topics are never auto-created (the project's broker refuses to, and an auto-created topic gets the
broker's default partition count): whoever publishes creates its topic with its partition count.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, NewTopic
from kafka.errors import TopicAlreadyExistsError
from kafka.partitioner import DefaultPartitioner, Partitioner
from kafka.partitioner.default import murmur2

log = logging.getLogger(__name__)

# No delivery deadline: a record is retried until the brokers take it, however long they are away.
# A record given up on while a later one of its partition is written would leave a gap that no
# resend could fill in order (see bemtevi.streams.relay); a relay that waits is only late.
NO_DELIVERY_DEADLINE_MS = 2**31 - 1


# A topic that keeps every record for ever: the event topic is the replicas' log (a new replica
# builds its read models from the topic's first record).
UNLIMITED_RETENTION = {"retention.ms": "-1", "retention.bytes": "-1"}


def ensure_topic(
    bootstrap: str,
    topic: str,
    partitions: int,
    replication_factor: int = 1,
    configs: dict[str, str] | None = None,
) -> bool:
    """Create ``topic`` with ``partitions`` (and topic ``configs``) unless it exists; True when it was created here.

    An existing topic is left as it is (a partition count or a config of ``configs`` that differs is
    logged: keys would map to other partitions than a reader expects, a finite retention would lose
    what a new replica needs, and changing either is an operator's decision)."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="bemtevi-admin")
    try:
        try:
            admin.create_topics(
                [
                    NewTopic(
                        topic,
                        num_partitions=partitions,
                        replication_factor=replication_factor,
                        topic_configs=dict(configs or {}),
                    )
                ]
            )
        except TopicAlreadyExistsError:
            described = admin.describe_topics([topic])
            existing = len(described[0]["partitions"]) if described else None
            if existing != partitions:
                log.warning("topic %s exists with %s partitions, not the %s configured", topic, existing, partitions)
            if configs:
                _warn_on_other_configs(admin, topic, configs)
            return False
        return True
    finally:
        admin.close()


def _warn_on_other_configs(admin: KafkaAdminClient, topic: str, configs: dict[str, str]) -> None:
    """Log each of ``configs`` that ``topic`` does not have (the brokers answer only what is set on the topic)."""
    described = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
    present = described.get("topic", {}).get(topic, {}) if isinstance(described, dict) else {}
    for name, wanted in configs.items():
        value = present.get(name, {}).get("value")
        if value != wanted:
            log.warning(
                "topic %s has %s=%s, not %s (%s)",
                topic,
                name,
                value if value is not None else "the brokers' default",
                wanted,
                "set it, e.g. with kafka-configs --alter; a replica built later would miss what the topic dropped",
            )


class KeyHashPartitioner(Partitioner):
    """The partition kafka-python's (and Java's) default partitioner gives a keyed record, murmur2 of the key
    modulo the partition count, with each key's hash remembered: murmur2 is pure Python in kafka-python, and the
    relay's keys repeat (a credit account's events, a group's, a user's). Records without a key: the default."""

    def __init__(self, remembered_keys: int = 65_536) -> None:
        self._hash = lru_cache(maxsize=remembered_keys)(lambda key: murmur2(key) & 0x7FFFFFFF)
        self._unkeyed = DefaultPartitioner()

    def partition(
        self, topic: str, key: Any, serialized_key: bytes | None, value: Any, serialized_value: Any, cluster: Any
    ) -> int:
        if serialized_key is None:
            return int(self._unkeyed.partition(topic, key, serialized_key, value, serialized_value, cluster))
        partitions = sorted(cluster.partitions_for_topic(topic))
        return int(partitions[self._hash(serialized_key) % len(partitions)])


def idempotent_producer(bootstrap: str, client_id: str, **config: Any) -> KafkaProducer:
    """A producer whose records each land once and in order per partition (idempotence, all replicas).

    Up to five requests in flight per broker keep that order (the broker checks each partition's
    sequence numbers); retries never stop (``NO_DELIVERY_DEADLINE_MS``); ``send`` blocks at most
    10 s for metadata or buffer space, so that a caller sees a broker that is away and can stop."""
    settings: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "client_id": client_id,
        "enable_idempotence": True,
        "acks": "all",
        "max_in_flight_requests_per_connection": 5,
        "delivery_timeout_ms": NO_DELIVERY_DEADLINE_MS,
        "max_block_ms": 10_000,
        "linger_ms": 5,
        "batch_size": 256 * 1024,
        "allow_auto_create_topics": False,
        "partitioner": KeyHashPartitioner(),
    }
    settings.update(config)
    return KafkaProducer(**settings)


def topic_reader(bootstrap: str, topic: str, **config: Any) -> KafkaConsumer:
    """A consumer of every partition of ``topic`` from its first record, outside any consumer group
    (nothing committed): what a test or a bench reads a topic with."""
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        **config,
    )
    partitions = consumer.partitions_for_topic(topic) or set()
    consumer.assign([TopicPartition(topic, p) for p in sorted(partitions)])
    consumer.seek_to_beginning()
    return consumer

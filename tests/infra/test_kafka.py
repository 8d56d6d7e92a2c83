"""Kafka adapters that need no broker: the relay's partitioner."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from kafka.partitioner import DefaultPartitioner

from bemtevi.infra.kafka import KeyHashPartitioner


class Metadata:
    """The part of kafka-python's cluster metadata a partitioner reads: one topic's partitions."""

    def __init__(self, partitions: int) -> None:
        self._partitions = set(range(partitions))

    def topics(self) -> set[str]:
        return {"t"}

    def partitions_for_topic(self, topic: str) -> set[int]:
        return self._partitions

    def available_partitions_for_topic(self, topic: str) -> set[int]:
        return self._partitions


@given(st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=20), st.integers(1, 64))
def test_a_keyed_record_goes_where_the_default_partitioner_sends_it_every_time(
    keys: list[bytes], partitions: int
) -> None:
    metadata = Metadata(partitions)
    cached, default = KeyHashPartitioner(remembered_keys=4), DefaultPartitioner()
    for key in keys + keys[::-1]:  # the second time from the remembered hash (or again once forgotten)
        assert cached.partition("t", key, key, b"v", b"v", metadata) == default.partition(
            "t", key, key, b"v", b"v", metadata
        )

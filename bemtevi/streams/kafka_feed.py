"""The read models' feed in cluster mode: the relay's Kafka topic, merged back into log order.

Every API process keeps its own DuckDB replica of the read models (docs/architecture.md, "Cluster mode:
read models"). Its projector folds the same ``Notification`` values the event store's log gives, but
takes them from the topic the relay publishes (``streams.relay``): every partition, by manual
assignment and outside any consumer group (every replica reads everything).

Order: the relay keys records by aggregate, so the log is spread over the partitions. ``ChainMerge``
puts it back in notification-id order: each record names the id of the event before it in the log
(``previous_id``), so a reader at position ``p`` knows the next event is the partition head whose
``previous_id`` is at most ``p`` (then nothing lies between them), and waits while no head says so
(the next event is still on its way) instead of guessing across a gap of ids. Records at or below the
position are duplicates (the relay sends again from its stored position after a crash) and dropped.

Exactly once: the offset of the next record to read on each partition is stored in the replica's
DuckDB in the same transaction as the rows and the tracking position (``mark`` and ``record``); a
restart (or a failed round, or a rebuild) seeks every partition to them, or to the topic's beginning
where none is stored, and drops what it reads again up to the position.

One thread per feed fetches from Kafka into the merge, up to ``max_buffered`` records ahead of the
projector (more only while the next event is not among them), and wakes the projector when records
arrive. The thread runs an asyncio loop of its own for aiokafka's consumer, used by that thread only:
at a replica's live rate (about 1,200 events a second, fetches gathered as below) it spent 31 µs of CPU
per record where kafka-python's spent 70, in every API process.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError
from eventsourcing.persistence import Notification

from bemtevi.projections.store import ReadStore
from bemtevi.streams.relay import NOTIFICATION_ID_HEADER, PREVIOUS_ID_HEADER, RelayedEvent

log = logging.getLogger(__name__)


def offsets_name(topic: str) -> str:
    """The replica's rows of ``projection_offsets`` for the relay's ``topic``."""
    return f"kafka:{topic}"


@dataclass(frozen=True, slots=True)
class Chained:
    """One record of the relay's topic as the merge needs it: ids from its headers, the value undecoded."""

    notification_id: int
    previous_id: int
    offset: int
    value: bytes


def chained(record: Any) -> Chained:
    """A Kafka consumer record of the relay's topic, read from its headers."""
    notification_id = previous_id = -1
    for name, value in record.headers:
        if name == NOTIFICATION_ID_HEADER:
            notification_id = int(value)
        elif name == PREVIOUS_ID_HEADER:
            previous_id = int(value)
    if notification_id < 0 or previous_id < 0:
        raise ValueError(f"not a chained record of the relay (offset {record.offset}): no notification_id/previous_id")
    return Chained(notification_id, previous_id, record.offset, record.value)


class ChainMerge:
    """Records of several partitions, each in the order the relay wrote it, merged into log order.

    ``add`` records as a partition gives them; ``take`` answers the next ones in notification-id order,
    as far as the chain is known, and moves ``position``; ``next_offsets`` is where each partition's
    reading would start again to give exactly what has not been taken.

    Why the smallest head decides: the relay writes each partition in increasing id order and repeats
    only by sending again from an earlier stored position, so before the first copy of the next event on
    its partition there are only smaller ids (duplicates, dropped). Every record's id is an id of the log,
    and no id of the log lies between the position and the next event, so the smallest head above the
    position is the next event as soon as it has arrived; its ``previous_id`` (at most the position) says
    it has. Otherwise the smallest head lies beyond a gap still on its way, and the merge waits."""

    def __init__(self, position: int = 0) -> None:
        self.position = position
        self._queues: dict[int, deque[Chained]] = {}
        self._fetched: dict[int, int] = {}  # the offset after the last record added, per partition
        self._heads: list[tuple[int, int]] = []  # (head id, partition) of every partition with records
        self.buffered = 0

    def add(self, partition: int, records: Iterable[Chained]) -> None:
        queue = self._queues.setdefault(partition, deque())
        was_empty = not queue
        for record in records:
            queue.append(record)
            self._fetched[partition] = record.offset + 1
            self.buffered += 1
        if was_empty and queue:
            heapq.heappush(self._heads, (queue[0].notification_id, partition))

    def seen(self, partition: int, next_offset: int) -> None:
        """Reading ``partition`` starts at ``next_offset`` (a seek): what ``next_offsets`` says until records come."""
        self._fetched[partition] = next_offset

    def take(self, limit: int) -> list[Chained]:
        """Up to ``limit`` records, the next ones of the log in order (none when the next has not arrived)."""
        taken: list[Chained] = []
        heads, queues = self._heads, self._queues
        while heads and len(taken) < limit:
            head_id, partition = heads[0]
            queue = queues[partition]
            if head_id > self.position:
                record = queue[0]
                if record.previous_id > self.position:
                    break  # the next event has not arrived: it is behind a gap of ids
                taken.append(record)
                self.position = head_id
            queue.popleft()  # taken, or a duplicate of what was
            self.buffered -= 1
            if queue:
                heapq.heapreplace(heads, (queue[0].notification_id, partition))
            else:
                heapq.heappop(heads)
        return taken

    def ready(self) -> bool:
        """Whether ``take`` would answer or drop something now (else the next event has not arrived)."""
        if not self._heads:
            return False
        head_id, partition = self._heads[0]
        return head_id <= self.position or self._queues[partition][0].previous_id <= self.position

    def next_offsets(self) -> dict[int, int]:
        """Per partition, the offset to read from again to get every record not taken yet."""
        offsets = dict(self._fetched)
        for partition, queue in self._queues.items():
            if queue:
                offsets[partition] = queue[0].offset
        return offsets


# Each fetch waits for 16 KB of events or 50 ms, whichever comes first: under lookups the broker otherwise
# answered every few events (the consumers' default asks for one byte), a fetch request and a wake of the
# fetcher thread per handful of events in every API process. It adds at most 50 ms to the projection lag.
FETCH_GATHERING: dict[str, Any] = {"fetch_min_bytes": 16 * 1024, "fetch_max_wait_ms": 50}


class KafkaFeed:
    """The projector's source in cluster mode: the relay's topic, read whole, merged by the chain.

    The projector calls ``read_after(position, limit)`` with its own position: the next events after
    it (possibly none yet). A position other than where the feed stands (the projector's first round,
    a failed round retried from the committed position, a rebuild from 0) restarts reading from the
    offsets the replica stored with that position."""

    def __init__(
        self,
        store: ReadStore,
        bootstrap: str,
        topic: str,
        *,
        max_buffered: int = 100_000,
        fetch_records: int = 5_000,
        consumer_config: dict[str, Any] | None = None,
    ) -> None:
        self._store = store
        self._bootstrap = bootstrap
        self.topic = topic
        self.name = offsets_name(topic)
        self._max_buffered = max_buffered
        self._fetch_records = fetch_records
        self._consumer_config = {**FETCH_GATHERING, **(consumer_config or {})}
        self._lock = threading.Condition()
        self._merge: ChainMerge | None = None  # None until the projector says where it stands
        self._seek: dict[int, int] | None = None  # offsets the fetcher seeks to before its next poll
        self._generation = 0
        self._listeners: list[Callable[[], None]] = []
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    # -- the projector's side -------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> None:
        """``listener`` is called (from the fetching thread) whenever records arrive."""
        self._listeners.append(listener)

    def read_after(self, position: int, limit: int) -> Sequence[Notification]:
        with self._lock:
            if self._merge is None or self._merge.position != position:
                self._restart(position)
                return []
            merge = self._merge
            taken = merge.take(limit)
            if merge.buffered < self._max_buffered:
                self._lock.notify_all()  # room again for the fetcher
        return [RelayedEvent.decode(record.value).notification() for record in taken]

    def mark(self) -> dict[int, int]:
        """Where each partition's reading starts again, for everything taken so far (stored by ``record``)."""
        with self._lock:
            return self._merge.next_offsets() if self._merge is not None else {}

    def record(self, cur: duckdb.DuckDBPyConnection, mark: dict[int, int]) -> None:
        """In the projector's write transaction: the offsets ``mark`` said, with the rows and the position."""
        ReadStore.record_offsets(cur, self.name, mark)

    def _restart(self, position: int) -> None:
        """Read again from the offsets stored with ``position`` (the beginning of partitions without)."""
        offsets = self._store.offsets_of(self.name) if position > 0 else {}
        log.info(
            "replica %s: reading %s from position %s at offsets %s", self._store.path, self.topic, position, offsets
        )
        self._merge = ChainMerge(position)
        for partition, offset in offsets.items():
            self._merge.seen(partition, offset)
        self._seek = offsets
        self._generation += 1
        self._lock.notify_all()

    # -- the fetching thread --------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="bemtevi-kafka-feed", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            self._lock.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self) -> None:
        asyncio.run(self._read_topic())

    async def _read_topic(self) -> None:
        consumer: AIOKafkaConsumer | None = None
        failures = 0
        while not self._stopping.is_set():
            try:
                if consumer is None:
                    consumer = await self._consumer()
                    if consumer is None:
                        await self._pause(0.5)  # the topic does not exist yet: the relay creates it
                        continue
                arrived = await self._fetch(consumer)
                failures = 0
                self.error = None
            except Exception as e:  # brokers away, or a record not of the chained relay: retried, never skipped
                failures += 1
                self.error = e
                if isinstance(e, KafkaError | OSError):
                    log.warning("reading %s failed (%s); trying again", self.topic, e)
                else:
                    log.exception("reading %s failed; trying again", self.topic)
                if consumer is not None:
                    await _close(consumer)
                    consumer = None
                    with self._lock:  # a new consumer starts where the replica stands
                        if self._merge is not None:
                            self._seek = self._merge.next_offsets()
                            self._generation += 1
                await self._pause(min(5.0, 0.1 * 2**failures))
                continue
            if arrived:
                for listener in self._listeners:
                    listener()
        if consumer is not None:
            await _close(consumer)

    async def _pause(self, seconds: float) -> None:
        """Sleep ``seconds``, or less when the feed is stopping."""
        deadline = asyncio.get_running_loop().time() + seconds
        while not self._stopping.is_set() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.1)

    async def _consumer(self) -> AIOKafkaConsumer | None:
        partitions = await self._partitions()
        if not partitions:
            return None
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self._bootstrap,
            client_id="bemtevi-replica",
            group_id=None,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            **self._consumer_config,
        )
        try:
            await consumer.start()
        except BaseException:
            await _close(consumer)
            raise
        consumer.assign([TopicPartition(self.topic, p) for p in partitions])
        with self._lock:
            if self._merge is not None:
                self._seek = self._merge.next_offsets()
                self._generation += 1
        return consumer

    async def _partitions(self) -> list[int]:
        """The topic's partitions (none while it does not exist). Asked of the brokers' metadata for the topic:
        an aiokafka consumer's own metadata names no topic until it is assigned one. Only a topic listed as
        existing is described: aiokafka's description of a topic asks brokers that create topics on demand to
        create it, with their default partition count (the relay creates it with its own)."""
        admin = AIOKafkaAdminClient(bootstrap_servers=self._bootstrap, client_id="bemtevi-replica")
        try:
            await admin.start()
            if self.topic not in await admin.list_topics():
                return []
            described = await admin.describe_topics([self.topic])
        finally:
            await admin.close()
        found = [t for t in described if t["topic"] == self.topic and t["error_code"] == 0]
        return sorted(p["partition"] for t in found for p in t["partitions"])

    async def _fetch(self, consumer: AIOKafkaConsumer) -> bool:
        """One poll into the merge (after any seek asked for); True when records arrived."""
        with self._lock:
            # Full: wait until the projector takes, unless the next event is not among what is buffered (it is
            # then on a partition not fetched that far yet, and only fetching more lets the projector go on).
            # The wait holds this thread's loop too: nothing else runs on it but this consumer's fetches.
            while not self._stopping.is_set() and (
                self._merge is None
                or (self._seek is None and self._merge.buffered >= self._max_buffered and self._merge.ready())
            ):
                self._lock.wait(0.5)
            if self._stopping.is_set() or self._merge is None:
                return False
            seek, self._seek = self._seek, None
            generation = self._generation
        if seek is not None:
            for tp in consumer.assignment():
                if tp.partition in seek:
                    consumer.seek(tp, seek[tp.partition])
                else:
                    await consumer.seek_to_beginning(tp)
        batches = await consumer.getmany(timeout_ms=200, max_records=self._fetch_records)
        if not batches:
            return False
        with self._lock:
            if generation != self._generation or self._merge is None:
                return False  # a restart meanwhile: these records are read again from its offsets
            for tp, records in batches.items():
                self._merge.add(tp.partition, [chained(r) for r in records])
        return True


async def _close(consumer: AIOKafkaConsumer) -> None:
    """Stop a consumer, whatever state it is in. aiokafka 0.14's ``stop`` right after ``start`` raises the
    ``CancelledError`` of a task of its own that had not run yet (nothing here is being cancelled: this
    thread's loop runs the feed alone)."""
    with contextlib.suppress(Exception, asyncio.CancelledError):
        await consumer.stop()

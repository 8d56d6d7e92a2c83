"""The relay: the event store's notification log, published to a Kafka topic (cluster mode).

Each event becomes one record of the topic (``bemtevi.events`` by default): key the aggregate's id
(its text, ASCII), so one aggregate's events share a partition and keep their order there; value
the stored event as JSON (``RelayedEvent``: notification id, the id of the event before it in the
log, topic, originator id and version, the state exactly as stored, in base64); headers
``notification_id``, ``previous_id`` and ``topic`` so that a reader can route, order or skip a
record without decoding it.

The chain: each record names the notification id of the event before it in the log (``previous_id``;
the first record the relay sends after a start names its stored position, 0 from the beginning).
Notification ids can have gaps, so without it a reader of several partitions could not tell an id
that is late from one that does not exist; with it, a reader at position ``p`` knows the next event
is the record whose ``previous_id`` is at most ``p`` (``streams.kafka_feed.ChainMerge``).

Position: the notification id of the last event the brokers acknowledged, stored in the event
store's own database (eventsourcing's tracking table, one row per relay topic) after every page:
the relay reads a page of the log, sends it (reading the next page meanwhile), flushes the
producer, checks every record was acknowledged, then stores the page's last id. A relay started
again resumes after the stored position.

Delivery: at least once, in log order per partition. A relay killed between a flush and the
store of its position sends that page again; so may one whose producer failed (it is replaced,
and the page sent again from the stored position). Within one producer the idempotent producer
writes each record once and in order per partition, without gaps, because it never gives a record
up (``infra.kafka.NO_DELIVERY_DEADLINE_MS``: a broker that is away is waited for). So on each
partition the notification ids only grow, except where a page is sent again from an earlier
position, and a reader drops duplicates by keeping the highest id it has handled per partition
(``Deduplicator``). A record the brokers refuse for good (too large, not authorised) is retried
until an operator acts: the relay never skips an event.

Routes: a worker that wants only a few kinds of event (the mailer: ``Mail.Queued``) should not read
every record of the log to pass over the rest. ``routes`` names, per event topic, a Kafka topic of its own
that those events are published to as well, with the same key, value and headers, in the same flush
(so at least once and in order per partition there too). The events topic keeps every event.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

import orjson
from eventsourcing.persistence import Notification, Tracking
from kafka import KafkaProducer
from kafka.errors import KafkaTimeoutError

from bemtevi.commands.application import BemteviApplication
from bemtevi.infra.kafka import UNLIMITED_RETENTION, ensure_topic, idempotent_producer
from bemtevi.streams.follower import LogFollower

log = logging.getLogger(__name__)

DEFAULT_TOPIC = "bemtevi.events"
NOTIFICATION_ID_HEADER = "notification_id"
PREVIOUS_ID_HEADER = "previous_id"
TOPIC_HEADER = "topic"


def tracking_name(topic: str) -> str:
    """The relay's row in the tracking table: one position per Kafka topic it publishes to."""
    return f"kafka-relay:{topic}"


@dataclass(frozen=True, slots=True)
class RelayedEvent:
    """One stored event as the relay publishes it, and as a reader gets it back."""

    notification_id: int
    topic: str
    originator_id: UUID
    originator_version: int
    state: bytes
    # The notification id of the event before this one in the log (0: none before it).
    previous_id: int = 0

    @staticmethod
    def encode(notification: Notification, previous_id: int = 0) -> bytes:
        """A record's value, straight from the log's notification and the id of the one before it."""
        return orjson.dumps(
            {
                "notification_id": notification.id,
                "previous_id": previous_id,
                "topic": notification.topic,
                "originator_id": str(notification.originator_id),
                "originator_version": notification.originator_version,
                "state": base64.b64encode(notification.state).decode("ascii"),
            }
        )

    @classmethod
    def decode(cls, value: bytes) -> RelayedEvent:
        data = orjson.loads(value)
        return cls(
            notification_id=data["notification_id"],
            topic=data["topic"],
            originator_id=UUID(data["originator_id"]),
            originator_version=data["originator_version"],
            state=base64.b64decode(data["state"]),
            previous_id=data.get("previous_id", 0),
        )

    def notification(self) -> Notification:
        """As the log had it: ``app.mapper.to_domain_event(event.notification())`` gives the domain event."""
        return Notification(
            id=self.notification_id,
            originator_id=self.originator_id,
            originator_version=self.originator_version,
            topic=self.topic,
            state=self.state,
        )


class Relay(LogFollower):
    """Follows the log from its stored position and publishes every event to ``topic``.

    ``listen`` (PostgreSQL) wakes it on every append of any process; on SQLite it polls every
    ``poll_interval``. The topic is created with ``partitions`` when missing."""

    thread_name = "bemtevi-relay"

    def __init__(
        self,
        app: BemteviApplication,
        bootstrap: str,
        topic: str = DEFAULT_TOPIC,
        *,
        partitions: int = 12,
        replication_factor: int = 1,
        page_size: int = 1000,
        poll_interval: float = 0.5,
        listen: bool = True,
        producer_config: dict[str, Any] | None = None,
        routes: dict[str, str] | None = None,
        gather_seconds: float = 0.0,
    ) -> None:
        # Appends gather ``gather_seconds`` after one wakes the relay: a round costs the same few messages
        # whatever it carries (the log's read, a produce request per partition and its fetch by every reader,
        # the position's write), and the ledger workers append many small batches a second (see
        # docs/architecture.md, "the whole deployment against embedded").
        super().__init__(app, poll_interval=poll_interval, listen=listen, gather_seconds=gather_seconds)
        self.rounds = 0
        self.routes = routes or {}
        self._bootstrap = bootstrap
        self.topic = topic
        self._partitions = partitions
        self._replication_factor = replication_factor
        self._page_size = page_size
        self._producer_config = producer_config or {}
        self._producer: KafkaProducer | None = None
        self._topic_ready = False
        self._tracking_name = tracking_name(topic)
        self._tracking = app.factory.tracking_recorder()
        self._position = self._tracking.max_tracking_id(self._tracking_name) or 0

    @property
    def app(self) -> BemteviApplication:
        return self._app

    @property
    def position(self) -> int:
        return self._position

    def catch_up(self) -> int:
        """Publish every event after the position, a page at a time; answers how many."""
        relayed = 0
        page = self._read_after(self._position)
        if page:
            self.rounds += 1
        while page:
            producer = self._ready_producer()
            futures = self._send(producer, page, after=self._position)
            # The next page is read while this one is on its way to the brokers.
            full = len(page) == self._page_size
            following = self._read_after(page[-1].id) if full and not self._stopping.is_set() else []
            self._await(producer, futures)
            self._tracking.insert_tracking(Tracking(self._tracking_name, page[-1].id))
            self._position = page[-1].id
            relayed += len(page)
            page = following
        return relayed

    def _read_after(self, position: int) -> Sequence[Notification]:
        return self._app.recorder.select_notifications(position, self._page_size, inclusive_of_start=False)

    def _ready_producer(self) -> KafkaProducer:
        if not self._topic_ready:
            # Unlimited retention: the topic is the log a new replica builds its read models from.
            # The routed topics too: a mail queued while its worker is away waits there as long as it takes.
            for topic in (self.topic, *sorted(set(self.routes.values()))):
                if ensure_topic(
                    self._bootstrap, topic, self._partitions, self._replication_factor, UNLIMITED_RETENTION
                ):
                    log.info("created topic %s with %s partitions", topic, self._partitions)
            self._topic_ready = True
        if self._producer is None:
            self._producer = idempotent_producer(self._bootstrap, "bemtevi-relay", **self._producer_config)
        return self._producer

    def _send(self, producer: KafkaProducer, page: Sequence[Notification], after: int) -> list[Any]:
        """Send ``page``, read from the log after ``after``: each record chained to the one before it."""
        send, topic, encode, routes = producer.send, self.topic, RelayedEvent.encode, self.routes
        futures = []
        previous = after
        for n in page:
            key = str(n.originator_id).encode("ascii")
            value = encode(n, previous)
            headers = [
                (NOTIFICATION_ID_HEADER, str(n.id).encode("ascii")),
                (PREVIOUS_ID_HEADER, str(previous).encode("ascii")),
                (TOPIC_HEADER, n.topic.encode()),
            ]
            futures.append(send(topic, key=key, value=value, headers=headers))
            routed = routes.get(n.topic)
            if routed is not None:
                futures.append(send(routed, key=key, value=value, headers=headers))
            previous = n.id
        return futures

    def _await(self, producer: KafkaProducer, futures: list[Any]) -> None:
        """Until the brokers acknowledged every record of the page (however long they are away,
        unless the relay stops); a record refused for good replaces the producer and fails the round."""
        while True:
            try:
                producer.flush(timeout=0.5)
                break
            except KafkaTimeoutError:
                if self._stopping.is_set():
                    raise
        failed = next((f for f in futures if f.failed()), None)
        if failed is not None:
            # The page is sent again from the stored position by a new producer: a producer
            # whose record failed must not go on writing the partitions after it.
            self._discard_producer()
            raise failed.exception

    def _discard_producer(self, timeout: float = 0.0) -> None:
        producer, self._producer = self._producer, None
        if producer is None:
            return
        try:
            producer.close(timeout=timeout)
        except KafkaTimeoutError:
            log.warning("the relay's producer closed with records not acknowledged (sent again on the next start)")

    def _close(self) -> None:
        self._discard_producer(timeout=5.0)


@dataclass
class Deduplicator:
    """Drops the records a reader of the relay's topic has already had, by notification id.

    The relay writes each partition in increasing notification id order and only ever repeats by
    sending again from an earlier position, so a record whose id is not above the highest one
    handled on its partition is a duplicate. A reader that keeps its own position should keep
    ``marks`` with it (and seed a new ``Deduplicator`` with them after a restart)."""

    marks: dict[int, int] = field(default_factory=dict)

    def is_new(self, partition: int, notification_id: int) -> bool:
        """True the first time ``notification_id`` is seen on ``partition`` (and remembers it)."""
        if self.is_duplicate(partition, notification_id):
            return False
        self.handled(partition, notification_id)
        return True

    def is_duplicate(self, partition: int, notification_id: int) -> bool:
        """Whether ``notification_id`` was handled on ``partition`` already (remembers nothing): for a
        reader that marks a record only once its side effect is done (``handled``)."""
        return notification_id <= self.marks.get(partition, 0)

    def handled(self, partition: int, notification_id: int) -> None:
        """``notification_id`` is done on ``partition``: it and every id below it are duplicates from now on."""
        if notification_id > self.marks.get(partition, 0):
            self.marks[partition] = notification_id

    def new_events(self, records: Iterable[_Record]) -> Iterator[RelayedEvent]:
        """The events of ``records`` (Kafka consumer records of the relay's topic) not had before."""
        for record in records:
            if self.is_new(record.partition, notification_id_of(record)):
                yield RelayedEvent.decode(record.value)


class _Record(Protocol):
    @property
    def partition(self) -> int: ...
    @property
    def value(self) -> bytes: ...
    @property
    def headers(self) -> Sequence[tuple[str, bytes]]: ...


def notification_id_of(record: _Record) -> int:
    """A record's notification id, from its header (the value is not decoded)."""
    for name, value in record.headers:
        if name == NOTIFICATION_ID_HEADER:
            return int(value)
    raise ValueError("not a record of the relay: no notification_id header")

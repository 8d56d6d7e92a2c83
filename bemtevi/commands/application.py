"""The event-sourced application: one event store, one notification log, many aggregates."""

from __future__ import annotations

import hashlib
import math
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, ClassVar, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.domain import BaseAggregate, DomainEvent, DomainEventProtocol
from eventsourcing.persistence import EventStore, IntegrityError, JSONTranscoder, Recording, Transcoding

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.credits import CreditAccount
from bemtevi.domain.groups import Group
from bemtevi.domain.snapshots import TypedSnapshot, TypedValue
from bemtevi.domain.users import User

T = TypeVar("T")
A = TypeVar("A", bound=AuditedAggregate)


class DateAsISO(Transcoding):
    type = date
    name = "date_iso"

    def encode(self, obj: date) -> str:
        return obj.isoformat()

    def decode(self, data: str) -> date:
        return date.fromisoformat(data)


class TypedValueAsDict(Transcoding):
    """A snapshot's value that keeps its type (``bemtevi.domain.snapshots``)."""

    type = TypedValue
    name = "typed"

    def encode(self, obj: TypedValue) -> dict[str, Any]:
        return {"topic": obj.topic, "data": obj.data}

    def decode(self, data: dict[str, Any]) -> TypedValue:
        return TypedValue(data["topic"], data["data"])


class TypedSnapshotStore(EventStore[UUID]):
    """The snapshot store, passing over snapshots taken before they kept their fields' types.

    Those (the library's own ``Snapshot`` class) give back an enum as its text; an aggregate
    whose newest snapshot is one is replayed from its events instead, until its next snapshot.
    """

    def get(
        self,
        originator_id: UUID,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Iterator[DomainEventProtocol[UUID]]:
        found = super().get(originator_id, gt=gt, lte=lte, desc=desc, limit=limit)
        return (s for s in found if isinstance(s, TypedSnapshot))


@dataclass(frozen=True, slots=True)
class EventStoreIdentity:
    """Which event store this is, for the read side that follows it.

    ``store_id`` is a digest of the log's first event (its notification id, aggregate, version,
    topic and stored bytes: a registration with a random key and a time to the microsecond), so
    it is the same wherever the store is reached from and differs between any two stores;
    ``None`` while the log is empty. ``description`` says where the store is, for people.
    """

    store_id: str | None
    description: str


class _ProcessingEvent(ProcessingEvent[UUID]):
    """The library's, without its two runtime-protocol ``isinstance`` checks per saved object.

    Those checks walk the protocols' attributes on every call (about 3% of a busy server's CPU,
    on the group commit's writer). The same decision is taken here once per class: an
    aggregate class's objects are collected as the library collects them, an event class's
    are taken as events; any other object (or an aggregate that carries an event's attributes
    of its own) goes through the library's checks.
    """

    def collect_events(self, *objs: Any, **kwargs: Any) -> None:
        events, aggregates = self.events, self.aggregates
        for obj in objs:
            kind = _kinds.get(type(obj)) or _kind(type(obj))
            if kind is _AGGREGATE and "originator_id" not in obj.__dict__:
                events.extend(obj.collect_events())
                aggregates[obj.id] = obj
            elif kind is _EVENT:
                events.append(obj)
            else:
                super().collect_events(obj)
        self.saved_kwargs.update(kwargs)


_AGGREGATE, _EVENT, _OTHER = "aggregate", "event", "other"
_kinds: dict[type, str] = {}


def _kind(cls: type) -> str:
    if issubclass(cls, DomainEvent):
        # Dataclasses whose objects always have the event protocol's attributes.
        kind = _EVENT
    elif (
        issubclass(cls, BaseAggregate)
        and callable(getattr(cls, "collect_events", None))
        and not hasattr(cls, "originator_id")
        and not hasattr(cls, "__getattr__")
    ):
        # Not an event unless an object has an ``originator_id`` of its own (checked per object).
        kind = _AGGREGATE
    else:
        kind = _OTHER
    _kinds[cls] = kind
    return kind


class BemteviApplication(Application[UUID]):
    name = "bemtevi"
    # Events are stored in the library's format, written and read with orjson
    # (bemtevi.infra.event_encoding); the library's transcoder remains a setting away.
    env: ClassVar[dict[str, str]] = {"TRANSCODER_TOPIC": "bemtevi.infra.event_encoding:FastJSONTranscoder"}
    is_snapshotting_enabled = True
    # Hot aggregates get snapshots so that a load never replays thousands of events.
    snapshotting_intervals: ClassVar[dict[type[Any], int]] = {CreditAccount: 200, Group: 50, User: 50}

    def __init__(self, env: dict[str, str] | None = None) -> None:
        super().__init__(env)
        self._listeners: list[Callable[[int], None]] = []
        self._saved_listeners: list[Callable[[Iterable[UUID]], None]] = []
        self._stale_listeners: list[Callable[[Iterable[UUID]], None]] = []
        self._listeners_lock = threading.Lock()
        # Read-only copies for hot checks (a session on every call); evicted on every save in
        # this process, so a logout or a change is seen at once, and within a poll of the log for
        # saves of other processes (streams/invalidator.py).
        self._read_cache: OrderedDict[UUID, AuditedAggregate] = OrderedDict()
        self._read_cache_size = 10_000

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        transcoder.register(DateAsISO())
        transcoder.register(TypedValueAsDict())

    def construct_snapshot_store(self) -> EventStore[UUID]:
        return TypedSnapshotStore(mapper=self.mapper, recorder=self.factory.aggregate_recorder(purpose="snapshots"))

    def on_recorded(self, listener: Callable[[int], None]) -> None:
        """Call ``listener(position)`` after every save in this process (wakes the projector)."""
        with self._listeners_lock:
            self._listeners.append(listener)

    def on_saved_elsewhere(self, listener: Callable[[Iterable[UUID]], None]) -> None:
        """Call ``listener(aggregate_ids)`` after every save in this process (keeps the group commit's
        in-memory aggregates coherent; the listener ignores the saves it made itself)."""
        with self._listeners_lock:
            self._saved_listeners.append(listener)

    def on_stale(self, listener: Callable[[Iterable[UUID]], None]) -> None:
        """Call ``listener(aggregate_ids)`` when copies of these aggregates that are only read (never saved
        from) went stale: after every save in this process, and for every process's saves, from the log
        (``streams.invalidator``). Writers need no such notice from other processes: a copy they decide on
        that another process saved meanwhile collides on its version, and is loaded again."""
        with self._listeners_lock:
            self._stale_listeners.append(listener)

    def _notify(self, recordings: list[Recording[UUID]]) -> None:
        super()._notify(recordings)
        if recordings:
            self._saved({r.domain_event.originator_id for r in recordings}, recordings[-1].notification.id)

    def _saved(self, ids: set[UUID], position: int) -> None:
        self.evict_stale(ids)
        for saved in list(self._saved_listeners):
            saved(ids)
        for listener in list(self._listeners):
            listener(position)

    def evict_stale(self, aggregate_ids: Iterable[UUID]) -> None:
        """Drop these aggregates from this process's read-only caches: the read cache and the ``on_stale``
        listeners'. Called for this process's saves, and by ``streams.invalidator`` for every process's."""
        ids = aggregate_ids if isinstance(aggregate_ids, set) else set(aggregate_ids)
        for aggregate_id in ids:
            self._read_cache.pop(aggregate_id, None)
        for stale in list(self._stale_listeners):
            stale(ids)

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        """Snapshot the saved aggregates as they are in memory, at the state just recorded.

        The library reloads each aggregate from the store to snapshot it; on a hot credit account
        that reload was a seventh of the group-commit writer's time. One snapshot per aggregate
        whose events in this save reached a multiple of its interval.
        """
        if not self.snapshots or not self.snapshotting_intervals:
            return
        due: dict[UUID, Any] = {}
        # A version that is a multiple of an interval is one of their greatest common divisor:
        # the others are passed over without hashing their aggregate's id (a UUID's hash is Python).
        step = math.gcd(*self.snapshotting_intervals.values())
        for event in processing_event.events:
            if event.originator_version % step:
                continue
            aggregate = processing_event.aggregates.get(event.originator_id)
            interval = self.snapshotting_intervals.get(type(aggregate)) if aggregate is not None else None
            if interval is not None and event.originator_version % interval == 0:
                due[event.originator_id] = aggregate
        if due:
            self.snapshots.put(
                [getattr(type(a), "Snapshot", self.snapshot_class).take(a) for a in due.values()]  # type: ignore[union-attr]
            )

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording[UUID]]:
        """The library's ``save``, collecting with ``_ProcessingEvent``."""
        processing_event = _ProcessingEvent()
        processing_event.collect_events(*objs, **kwargs)
        recordings = self._record(processing_event)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        self.notify(processing_event.events)  # deprecated hook, called as the library does
        return recordings

    def save_all(self, *aggregates: AuditedAggregate) -> int:
        """Save atomically; answer the position of the last event (for read-your-writes)."""
        recordings: Sequence[Recording[UUID]] = self.save(*aggregates)
        if not recordings:
            return self.recorder.max_notification_id() or 0
        return recordings[-1].notification.id

    def get(self, aggregate_id: UUID, kind: type[A]) -> A:
        aggregate: object = self.repository.get(aggregate_id)
        if not isinstance(aggregate, kind):
            raise AggregateNotFoundError(aggregate_id)
        return aggregate

    def find(self, aggregate_id: UUID, kind: type[A]) -> A | None:
        try:
            return self.get(aggregate_id, kind)
        except AggregateNotFoundError:
            return None

    def exists(self, aggregate_id: UUID) -> bool:
        """Whether the log holds any event of this aggregate (one indexed row read; nothing is replayed)."""
        return bool(self.recorder.select_events(aggregate_id, desc=True, limit=1))

    def find_readonly(self, aggregate_id: UUID, kind: type[A]) -> A | None:
        """Like ``find``, from a cache kept coherent with this process's saves. Do not mutate it."""
        cached = self._read_cache.get(aggregate_id)
        if cached is None:
            cached = self.find(aggregate_id, kind)
            if cached is None:
                return None
            self._read_cache[aggregate_id] = cached
            while len(self._read_cache) > self._read_cache_size:
                self._read_cache.popitem(last=False)
        return cached if isinstance(cached, kind) else None

    def max_position(self) -> int:
        return self.recorder.max_notification_id() or 0

    def store_identity(self) -> EventStoreIdentity:
        first = self.recorder.select_notifications(0, 1)
        store_id = None
        if first:
            n = first[0]
            digest = hashlib.sha256(f"{n.id}:{n.originator_id}:{n.originator_version}:{n.topic}:".encode())
            digest.update(n.state)
            store_id = digest.hexdigest()[:32]
        return EventStoreIdentity(store_id, self._store_description())

    def _store_description(self) -> str:
        module = self.env.get("PERSISTENCE_MODULE") or "eventsourcing.popo"
        if module == "eventsourcing.sqlite":
            return f"sqlite:{self.env.get('SQLITE_DBNAME')}"
        if module == "eventsourcing.postgres":
            host, port, name = (self.env.get(k) for k in ("POSTGRES_HOST", "POSTGRES_PORT", "POSTGRES_DBNAME"))
            return f"postgresql://{host}:{port}/{name}"
        return module


def retry_on_conflict(decide_and_save: Callable[[], T], attempts: int = 25) -> T:
    """Run load-decide-save again when another writer saved the same aggregate version first.

    The whole closure is re-run so the decision is always taken on the latest state.
    """
    for attempt in range(attempts):
        try:
            return decide_and_save()
        except IntegrityError:
            if attempt == attempts - 1:
                raise
            # Jittered, growing back-off keeps a hot account from live-locking.
            time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
    raise AssertionError("unreachable")

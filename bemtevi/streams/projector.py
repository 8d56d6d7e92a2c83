"""The projector: follows the event store's notification log into the DuckDB read models.

Exactly once: each page of events is folded and written in one DuckDB transaction together
with the tracking position, so a crash never applies an event twice or skips one. In the
embedded deployment it runs as a thread of the server process (``LogFollower``), woken by
every save made in the process and polling for saves made by others.

Where the notifications come from is its ``NotificationSource``: the event store's log
(``LogSource``, embedded) or, in cluster mode, the relay's Kafka topic merged back into log
order (``streams.kafka_feed.KafkaFeed``), which stores its offsets in the same transaction.
The folds see the same ``Notification`` values either way.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Protocol

import duckdb
from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from bemtevi.commands.application import BemteviApplication
from bemtevi.projections.base import PageFold, ReadModel
from bemtevi.projections.store import ReadStore
from bemtevi.streams.follower import LogFollower

log = logging.getLogger(__name__)

TRACKING_NAME = "read_models"


@contextmanager
def _cyclic_gc_paused(pause: bool) -> Iterator[None]:
    """Pause the cyclic garbage collector while a backlog is folded and written.

    A batch keeps tens of thousands of decoded events alive, and every generation-2 pass
    walks all of them: measured here, that cost a quarter of catch-up time. Events form no
    reference cycles, so reference counting still frees them; the pause lasts one catch-up.
    """
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class NotificationSource(Protocol):
    """Where a projector's notifications come from, in log order after its position."""

    def read_after(self, position: int, limit: int) -> Sequence[Notification]:
        """Up to ``limit`` notifications after ``position`` (fewer, or none, when no more are known yet)."""
        ...

    def mark(self) -> Any:
        """What must be stored with the position of the last notification read (None: nothing)."""
        ...

    def record(self, cur: duckdb.DuckDBPyConnection, mark: Any) -> None:
        """Store ``mark`` in the projector's write transaction."""
        ...

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` when notifications may have arrived (beyond the log's own wake-ups)."""
        ...

    def start(self) -> None: ...

    def stop(self) -> None: ...


class LogSource:
    """The event store's notification log itself (the embedded deployment)."""

    def __init__(self, app: BemteviApplication) -> None:
        self._select = app.recorder.select_notifications

    def read_after(self, position: int, limit: int) -> Sequence[Notification]:
        return self._select(position, limit, inclusive_of_start=False)

    def mark(self) -> None:
        return None

    def record(self, cur: duckdb.DuckDBPyConnection, mark: Any) -> None:
        pass

    def subscribe(self, listener: Callable[[], None]) -> None:
        pass  # the log's appends wake every LogFollower already

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class Projector(LogFollower):
    thread_name = "bemtevi-projector"

    def __init__(
        self,
        app: BemteviApplication,
        store: ReadStore,
        read_models: Sequence[ReadModel],
        page_size: int = 1000,
        batch_size: int = 20_000,
        poll_interval: float = 0.25,
        coalesce_window: float = 0.1,
        source: NotificationSource | None = None,
    ) -> None:
        super().__init__(app, poll_interval=poll_interval)
        self._feed: NotificationSource = source if source is not None else LogSource(app)
        self._feed.subscribe(self._wake.set)
        self._store = store
        self._read_models = list(read_models)
        self._page_size = page_size
        self._batch_size = max(batch_size, page_size)
        self._folds_by_topic = self._fold_indexes_by_topic()
        self._coalesce_window = coalesce_window
        # Set by a reader waiting for a position: catch up now, no coalescing window.
        self._urgent = threading.Event()
        self._progress = threading.Condition()
        # Readers waiting for a position not reached yet: no coalescing window while there are any
        # (fed from Kafka, a position can be known before its event has arrived).
        self._waiters = 0
        self._writer: ThreadPoolExecutor | None = None
        self._schema = ",".join(f"{m.name}:{m.version}" for m in self._read_models)
        built_for = store.schema_of(TRACKING_NAME)
        if built_for != self._schema:
            # A store this code's read models were recorded in has their tables (they are made before the
            # record); any other gets those it lacks, and is rebuilt below if it held other versions' rows.
            with store.transaction() as cur:
                for model in self._read_models:
                    model.create(cur)
        self._position = store.tracked_position(TRACKING_NAME)
        # The event store the read models follow, recorded with the first page written from it.
        self._source = store.source_of(TRACKING_NAME)
        self._source_to_record: tuple[str, str] | None = None
        other_store = self._built_from_another_store()
        if other_store:
            # Rows and positions (the mailer's too) of another log: drop them; this log rebuilds them.
            log.warning("%s: rebuilding them from it", other_store)
            self._reset(every_position=True)
        elif built_for != self._schema and (built_for is not None or self._position > 0):
            # Read models built by another version of the code: drop them; the log rebuilds them.
            log.warning("read models were built as %s, this version has %s: rebuilding", built_for, self._schema)
            self._reset()
        elif built_for is None:
            store.set_schema(TRACKING_NAME, self._schema)

    def _built_from_another_store(self) -> str | None:
        """Why the read store's rows are not this event store's (a message), or None when they are."""
        if self._source is None and self._position == 0:
            return None  # nothing built yet
        current = self._app.store_identity()
        where = f"the read models in {self._store.path}"
        if self._source is None:
            return (
                f"{where} do not say which event store they were built from (an older version built them); "
                f"this server uses {current.description}"
            )
        store_id, description = self._source
        if store_id != current.store_id:
            return (
                f"{where} were built from the event store {description} (id {store_id}); this server uses "
                f"{current.description} (id {current.store_id or 'none: its log is empty'})"
            )
        return None

    def _fold_indexes_by_topic(self) -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
        """Which read models' folds each event topic goes to: decoded, and raw (undecoded)."""
        decoded: dict[str, list[int]] = {}
        raw: dict[str, list[int]] = {}
        for index, model in enumerate(self._read_models):
            for event_type in model.event_types:
                decoded.setdefault(get_topic(event_type), []).append(index)
            for event_type in model.raw_event_types:
                raw.setdefault(get_topic(event_type), []).append(index)
        return {
            topic: (tuple(decoded.get(topic, ())), tuple(raw.get(topic, ()))) for topic in decoded.keys() | raw.keys()
        }

    @property
    def position(self) -> int:
        return self._position

    # -- processing ---------------------------------------------------------------------------

    def _read_after(self, position: int) -> Sequence[Notification]:
        return self._feed.read_after(position, self._page_size)

    def _fold(self, notifications: Sequence[Notification], folds: list[PageFold]) -> None:
        to_domain_event = self._app.mapper.to_domain_event
        folds_by_topic = self._folds_by_topic
        for notification in notifications:
            targets = folds_by_topic.get(notification.topic)
            # Events no read model handles are skipped without decoding them.
            if targets is None:
                continue
            decoded, raw = targets
            # Some folds take the stored JSON as it is and let DuckDB read its fields (in C++).
            for index in raw:
                folds[index].apply_raw(notification)
            if decoded:
                event: Any = to_domain_event(notification)
                for index in decoded:
                    folds[index].apply(event, notification.id)

    def _write(self, folds: list[PageFold], last: int, mark: Any = None) -> None:
        """One transaction: the batch's rows, the tracking position and the source's ``mark``, or nothing at all."""
        source = self._source_to_record
        with self._store.transaction() as cur:
            for fold in folds:
                fold.write(cur)
            ReadStore.record_position(cur, TRACKING_NAME, last)
            if mark is not None:
                self._feed.record(cur, mark)
            if source is not None:
                ReadStore.record_source(cur, TRACKING_NAME, *source)
        if source is not None:
            self._source, self._source_to_record = source, None
        with self._progress:
            self._position = last
            self._progress.notify_all()

    def catch_up(self) -> int:
        """Process the log until nothing is newer; returns events processed.

        Pages are read ``page_size`` at a time; while the log has a backlog, up to
        ``batch_size`` events are folded into one write transaction (each DuckDB transaction
        has a fixed cost of milliseconds). A short page means the log is drained, so what was
        folded is written at once and a live follower stays within milliseconds of the log.

        Over a backlog the writes are pipelined: a batch's DuckDB transaction runs in a helper
        thread (DuckDB works without the interpreter lock) while this thread reads and folds the
        next batch; the next write waits for the previous one, so positions still commit in
        order, each with its rows. Reading and writing in turn left one core idle half the time.
        """
        total = 0
        in_flight: Future[None] | None = None
        read_up_to = self._position
        page = self._read_after(read_up_to)
        mark = self._feed.mark()
        if page and self._source is None and self._source_to_record is None:
            identity = self._app.store_identity()
            if identity.store_id is not None:
                self._source_to_record = (identity.store_id, identity.description)
        # A full first page means a backlog: the cyclic GC stays paused until it is all written.
        backlog = len(page) == self._page_size
        with _cyclic_gc_paused(backlog), self._store.larger_checkpoints(backlog):
            try:
                while True:
                    folds = [model.fold() for model in self._read_models]
                    batched = 0
                    drained = False
                    while page:
                        self._fold(page, folds)
                        read_up_to = page[-1].id
                        batched += len(page)
                        drained = len(page) < self._page_size
                        if drained or batched >= self._batch_size:
                            break
                        page = self._read_after(read_up_to)
                        mark = self._feed.mark()
                    if in_flight is not None:
                        in_flight.result()
                        in_flight = None
                    if not batched:
                        return total
                    total += batched
                    if drained:
                        self._write(folds, read_up_to, mark)
                        # What arrived during the write waits for the next round (see _run).
                        return total
                    in_flight = self._write_pool().submit(self._write, folds, read_up_to, mark)
                    page = self._read_after(read_up_to)
                    mark = self._feed.mark()
            finally:
                if in_flight is not None:
                    in_flight.result()

    def _write_pool(self) -> ThreadPoolExecutor:
        if self._writer is None:
            self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bemtevi-projector-write")
        return self._writer

    def wait_for(self, position: int, timeout: float) -> bool:
        """Block until the read models include ``position`` (bounded); True when they do."""
        if position <= self._position:
            return True
        deadline = time.monotonic() + timeout
        with self._progress:
            self._waiters += 1
            self._urgent.set()
            self._wake.set()
            try:
                while self._position < position:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._progress.wait(remaining)
            finally:
                self._waiters -= 1
        return True

    def _reset(self, every_position: bool = False) -> None:
        """Empty read models at position 0; ``every_position``: every follower's position too
        (the mailer's, which is built after the projector), as when the event store changed."""
        with self._store.transaction() as cur:
            for model in self._read_models:
                model.drop(cur)
                model.create(cur)
            if every_position:
                cur.execute("DELETE FROM projection_tracking")
            else:
                cur.execute("DELETE FROM projection_tracking WHERE name = ?", [TRACKING_NAME])
            # A feed's offsets go with the position they were stored with: read again from the start.
            cur.execute("DELETE FROM projection_offsets")
            cur.execute("DELETE FROM projection_source WHERE name = ?", [TRACKING_NAME])
        self._store.set_schema(TRACKING_NAME, self._schema)
        self._source = self._source_to_record = None
        with self._progress:
            self._position = 0

    def rebuild(self) -> int:
        """Drop the read models and build them again from the whole log."""
        self._reset()
        return self.catch_up()

    # -- between rounds (the thread is LogFollower's) -----------------------------------------

    def _pause(self, processed: int) -> None:
        # Let concurrent commands gather into one write: each DuckDB transaction costs
        # milliseconds of CPU that the request threads share on a small machine (measured:
        # the projector busy 88% of the time when it wrote every few lookups on their own).
        # A reader waiting for a position ends the wait at once, and none starts while one waits.
        if self._waiters:
            if not processed:
                self._wake.wait(self._poll_interval)  # the awaited event has not arrived yet
            self._urgent.clear()
            return
        if not self._urgent.is_set():
            if not processed:
                self._wake.wait(self._poll_interval)
            if processed or self._wake.is_set():
                self._urgent.wait(self._coalesce_window)
        self._urgent.clear()

    def start(self) -> None:
        self._feed.start()
        super().start()

    def _interrupt(self) -> None:
        self._urgent.set()  # end a gathering wait at once

    def _close(self) -> None:
        self._feed.stop()
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None

"""Group commit: concurrent commands decided one after another, saved together in one append.

Why: one save per command is bounded by the store's commit rate (an fsync and, on PostgreSQL,
the library's table lock per save), and concurrent commands on one hot account collide on its
version and retry. Here callers hand their decision to one writer thread. The writer
keeps the aggregates it decides on in memory, runs every queued decision in turn against them
(so the 32 lookups of one busy client reserve from the same, always-latest account object, with
no conflict), and saves every aggregate with new events in one atomic append. Each caller gets
its own outcome: its return value, or the error its own decision raised. While one append is in
flight, the next commands queue up and form the next batch, so a lone command waits for no
window and a busy system commits in big batches.

A decision that raises is undone: the writer notes how many unsaved events each aggregate had
when the decision first touched it, and on error rebuilds any aggregate that gained events from
the store plus the events before the mark, so a refusal never leaves half a change behind. What a
decision changed outside aggregates (the ledger's list of lookups holding a reservation) it undoes
itself: it registers the inverse with ``Workspace.on_undo``, run when the decision raises and when its
batch's append is refused (before the batch is decided again), so that state always matches the
decisions that were saved plus those of the batch being decided.

Every caller is answered after its batch's append: a decision's value is only ever acted on (a
lookup asking its supplier, a lease's units drawn) once what it decided is in the store. Answering
earlier would be a promise the store may refuse: another process's append to the same aggregate
(a grant decided by the parent's ledger worker writes the child's account) makes the batch collide,
and the decision taken again on the new state may be a refusal.

Ready events: a decision may add events decided elsewhere (``Workspace.add_events``: a registration's
group, users and claims, built by the API process that took the request) to its batch's append, so that
they and what the decision itself changed (the new group's credit accounts, the parent's grants) are one
atomic append. They are saved before the batch's aggregates (a group precedes its accounts in the log);
their aggregates are never kept in memory here (dropped after each append: a copy loaded to check them,
a claim, is stale once they are saved).

Chores: a command module may register a decision the writer runs on its own every so often,
between batches (``add_chore``), and once more with ``final=True`` when it stops; the lookups'
block reservations are released that way when their account goes quiet.

Cache coherence: aggregates saved by anything else in this process are evicted from the
writer's cache (the application calls ``forget`` after such saves), between batches: an aggregate
dropped while a batch is decided would take that batch's decided events with it. A save by another
process, or one made while the batch was decided, makes the writer's next append collide on a
version, and the batch is evicted and decided again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import DomainEvent, DomainEventProtocol
from eventsourcing.persistence import IntegrityError

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.workspace import Workspace
from bemtevi.domain.audit import AuditedAggregate
from bemtevi.infra.blocking import blocking

log = logging.getLogger(__name__)

T = TypeVar("T")

_RETRIES = 10


class _Everything(tuple[UUID, ...]):
    """``forget_all``'s marker on the queue of ids to forget."""


_EVERYTHING = _Everything()


@dataclass
class _Request(Generic[T]):
    decide: Callable[[Workspace], T]
    # A caller waits on ``future`` (resolved on its own event loop: the API's, or a blocking caller's,
    # ``infra.blocking``); ``callback`` is called on the writer instead (a ledger worker answering over Kafka).
    future: asyncio.Future[None] | None = None
    callback: Callable[[_Request[Any]], None] | None = None
    result: Any = None
    error: BaseException | None = None
    position: int = 0
    attempts: int = 0
    workspace: Workspace | None = None  # of its last decision, while its batch is appended

    def answer(self) -> None:
        if self.callback is not None:
            self.callback(self)
        elif self.future is not None:
            # A loop closed meanwhile (its thread gave up waiting and ended) has nobody left to answer.
            with contextlib.suppress(RuntimeError):
                self.future.get_loop().call_soon_threadsafe(_resolve, self.future)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _chore_decision(chore: Callable[[Workspace, bool], Any], final: bool) -> Callable[[Workspace], Any]:
    """``chore(ws, final)`` as a request's decision, bound to this chore: a loop's lambda bound it with a
    ``chore=chore`` default, whose type mypy cannot infer."""
    return lambda ws: chore(ws, final)


class Outcome(Generic[T]):
    __slots__ = ("position", "value")

    def __init__(self, value: T, position: int) -> None:
        self.value = value
        self.position = position


class GroupCommit:
    def __init__(self, app: BemteviApplication, *, max_batch: int = 512, cache_size: int = 20_000) -> None:
        self._app = app
        self._max_batch = max_batch
        self._cache_size = cache_size
        self._cache: OrderedDict[UUID, AuditedAggregate] = OrderedDict()
        self._queue: queue.SimpleQueue[_Request[Any] | list[_Request[Any]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._lock = threading.Lock()
        # Ids saved by others in this process, forgotten by the writer before its next batch.
        self._forgotten: queue.SimpleQueue[Iterable[UUID]] = queue.SimpleQueue()
        self._batch_event_ids: set[UUID] = set()  # aggregates whose ready events the batch decided adds
        self._last_position = 0  # of the last append: what a caller with nothing to save reads after
        self.batches = 0
        self.commands = 0
        self._chores: list[Callable[[Workspace, bool], Any]] = []
        self._chore_interval = 0.25
        self._next_chores = 0.0
        app.on_saved_elsewhere(self._forget_saved_elsewhere)

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._stopping = False
                self._thread = threading.Thread(target=self._run, name="bemtevi-group-commit", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._stopping = True
            self._queue.put(None)
            thread.join(timeout=10)

    @property
    def is_writer_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def add_chore(self, chore: Callable[[Workspace, bool], Any]) -> None:
        """Run ``chore(workspace, final)`` on the writer every quarter second, and with final=True on stop."""
        self._chores.append(chore)

    def _do_chores(self, *, final: bool = False) -> None:
        self._next_chores = time.monotonic() + self._chore_interval
        for chore in self._chores:
            # Answered to nobody: a chore's refusal or a failed append is logged, not raised.
            request: _Request[Any] = _Request(_chore_decision(chore, final))
            self._process([request])
            if request.error is not None:
                log.error("writer chore failed: %r", request.error)

    # -- submitting -----------------------------------------------------------------------------

    async def submit_async(self, decide: Callable[[Workspace], T], *, timeout: float = 30) -> Outcome[T]:
        """Run ``decide`` on the writer; answer its value (and the append's position) or raise its error. The
        caller's event loop goes on serving while the writer works."""
        if self._thread is None:
            self.start()
        request: _Request[T] = _Request(decide, future=asyncio.get_running_loop().create_future())
        self._queue.put(request)
        assert request.future is not None
        # asyncio.timeout rather than wait_for: no wrapper task per lookup on the event loop.
        async with asyncio.timeout(timeout):
            await request.future
        if request.error is not None:
            raise request.error
        return Outcome(request.result, request.position)

    # A thread with no event loop (a test, a tool) waits on one of its own.
    submit = blocking(submit_async)

    def enqueue_batch(
        self, decisions: list[tuple[Callable[[Workspace], Any], Callable[[_Request[Any]], None]]]
    ) -> None:
        """Decide each ``(decide, callback)`` on the writer, all in one batch (one append, unless it
        exceeds ``max_batch``), and call ``callback(request)`` there with its ``result``, ``error`` and
        ``position`` (nobody waits): a ledger worker's batch of requests taken from Kafka."""
        if self._thread is None:
            self.start()
        self._queue.put([_Request(decide, callback=callback) for decide, callback in decisions])

    # -- the writer -------------------------------------------------------------------------------

    def _load(self, aggregate_id: UUID) -> AuditedAggregate | None:
        aggregate = self._cache.get(aggregate_id)
        if aggregate is not None:
            self._cache.move_to_end(aggregate_id)
            return aggregate
        try:
            loaded: object = self._app.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None
        assert isinstance(loaded, AuditedAggregate)
        self._remember(loaded)
        return loaded

    def _rebuild(self, aggregate: AuditedAggregate, mark: int) -> None:
        """The aggregate as saved, plus its first ``mark`` unsaved events."""
        kept = aggregate._pending_events[:mark]
        saved_version = aggregate.version - len(aggregate._pending_events)
        rebuilt: Any = self._app.repository.get(aggregate.id, version=saved_version) if saved_version else None
        for pending in kept:
            rebuilt = pending.mutate(rebuilt)
        if rebuilt is None:  # created by the failed decision itself
            self._cache.pop(aggregate.id, None)
            return
        rebuilt._pending_events = list(kept)
        self._cache[aggregate.id] = rebuilt

    def _remember(self, aggregate: AuditedAggregate) -> None:
        self._cache[aggregate.id] = aggregate
        self._cache.move_to_end(aggregate.id)
        while len(self._cache) > self._cache_size:
            oldest_id, oldest = next(iter(self._cache.items()))
            if oldest._pending_events:
                break  # never drop unsaved events; the next append clears them
            del self._cache[oldest_id]

    def _forget_saved_elsewhere(self, aggregate_ids: Iterable[UUID]) -> None:
        if not self.is_writer_thread:
            self.forget(aggregate_ids)

    def forget(self, aggregate_ids: Iterable[UUID]) -> None:
        """Drop these aggregates from memory before the next batch: they were saved by something
        else (reloaded when next needed). Never during a batch: the copy in memory may hold that
        batch's decided events, which would then not be saved."""
        self._forgotten.put(aggregate_ids)

    def forget_all(self) -> None:
        """Drop every aggregate from memory before the next batch (a ledger worker's partitions were
        reassigned: what it decides next starts from the event store)."""
        self._forgotten.put(_EVERYTHING)

    def note_position(self, position: int) -> None:
        """The position a caller with nothing to save reads after, until the first append (a worker
        that starts answers redelivered requests after everything already in the store)."""
        self._last_position = max(self._last_position, position)

    def _forget_now(self) -> None:
        """On the writer, between batches: drop what others saved since the last batch."""
        while True:
            try:
                aggregate_ids = self._forgotten.get_nowait()
            except queue.Empty:
                return
            if aggregate_ids is _EVERYTHING:
                self._cache.clear()
                continue
            for aggregate_id in aggregate_ids:
                self._cache.pop(aggregate_id, None)

    def _run(self) -> None:
        carried: list[_Request[Any]] = []
        while True:
            batch = carried
            carried = []
            if not batch:
                try:
                    first = self._queue.get(timeout=self._chore_interval if self._chores else None)
                except queue.Empty:
                    self._do_chores()
                    continue
                if first is None:
                    self._do_chores(final=True)
                    return
                batch = first if isinstance(first, list) else [first]
            while len(batch) < self._max_batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._stopping = True
                    break
                if isinstance(more, list):
                    batch.extend(more)
                else:
                    batch.append(more)
            carried = self._process(batch)
            if self._chores and time.monotonic() >= self._next_chores:
                self._do_chores()
            if self._stopping and not carried:
                self._do_chores(final=True)
                return

    def _process(self, batch: list[_Request[Any]]) -> list[_Request[Any]]:
        """Decide every request, append once, answer; return the requests to decide again."""
        self._forget_now()
        decided: list[_Request[Any]] = []
        # Ids in the order first touched (so a batch's events keep the order they were decided in),
        # not objects: a later refused decision may rebuild an aggregate into a new object.
        touched: dict[UUID, None] = {}
        added: dict[UUID, AuditedAggregate] = {}  # new aggregates: saved, not kept in memory unless asked
        kept: list[AuditedAggregate] = []
        events: list[DomainEventProtocol[UUID]] = []  # ready events: saved first, never kept in memory
        self._batch_event_ids.clear()
        for request in batch:
            workspace = Workspace(self)
            try:
                request.result = request.decide(workspace)
            except BaseException as e:
                workspace.undo()
                request.error = e
                request.answer()
                continue
            touched.update(dict.fromkeys(workspace.marks))
            for aggregate in workspace.added:
                added[aggregate.id] = aggregate
            kept.extend(workspace.kept)
            events.extend(workspace.events)
            self._batch_event_ids.update(e.originator_id for e in workspace.events)
            request.workspace = workspace
            decided.append(request)
        current = [a for a in (self._cache.get(i) for i in touched) if a is not None]
        to_save: list[Any] = [*events, *(a for a in current if a._pending_events), *added.values()]
        self.batches += 1
        self.commands += len(batch)
        if not to_save:
            self._answer(decided)
            return []
        try:
            recordings = self._app.save(*to_save)
        except IntegrityError:
            # Another process wrote one of these aggregates first: forget them and decide again.
            self._refused(decided, to_save)
            retry = []
            for request in decided:
                request.attempts += 1
                if request.attempts >= _RETRIES:
                    request.error = IntegrityError("too many concurrent writers on the same aggregate")
                    request.answer()
                else:
                    retry.append(request)
            return retry
        except BaseException as e:
            log.exception("group commit of %d aggregates failed", len(to_save))
            self._refused(decided, to_save)
            for request in decided:
                request.error = e
                request.answer()
            return []
        for aggregate in (*current, *kept):
            self._remember(aggregate)
        self._drop_evented()
        if recordings:
            self._last_position = recordings[-1].notification.id
        self._answer(decided)
        return []

    def _answer(self, decided: list[_Request[Any]]) -> None:
        for request in decided:
            request.workspace = None
            request.position = self._last_position
            request.answer()

    def _refused(self, decided: list[_Request[Any]], to_save: list[Any]) -> None:
        """The batch's append was refused: its decisions are undone (last first), its aggregates reloaded."""
        for request in reversed(decided):
            if request.workspace is not None:
                request.workspace.undo_outside()
                request.workspace = None
        for saved in to_save:
            self._cache.pop(saved.originator_id if isinstance(saved, DomainEvent) else saved.id, None)
        self._drop_evented()

    def _drop_evented(self) -> None:
        """Aggregates of the batch's ready events are not kept: a copy loaded to check them is stale."""
        for aggregate_id in self._batch_event_ids:
            self._cache.pop(aggregate_id, None)
        self._batch_event_ids.clear()

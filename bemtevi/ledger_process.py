"""The lookups' ledger in a process of its own, beside the server's.

Why: the server is one Python process, so its event loop (HTTP, sessions, the supplier, answers)
and its group-commit writer (decisions, event encoding, the append) take turns under one
interpreter lock, and a busy server's lookups were bounded by one core while the other idled.
Here the lookups' reservations, settlements and consultation records are decided and appended
by a ``WriterLookupLedger`` in a child process: the same decisions and block reservations as in
the server process, on a ``GroupCommit`` of that process's own.

Wire: one duplex pipe carrying pickled lists of messages, so that a burst of lookups costs one
write and one read per side, not one per lookup.

- server → ledger: ``("reserve" | "finish", request id, LookupRecord)``; ``("forget", ids)`` after
  every save the server makes itself (the ledger reloads those aggregates: a group deactivated, a
  limit changed); ``("give back", account id, block id, units)``; ``("release abandoned", account
  ids)`` (what a stopped ledger left reserved on them); ``("stop",)``.
- ledger → server: ``("answer", request id, value, error)``; ``("lease", account id, [(block id,
  units), ...])``; ``("saved", ids, position)`` after each of its appends (the server evicts its
  copies of those aggregates and wakes its projector); ``("stopped",)``.

Leases: a lookup that drew from a block (a busy account) makes the ledger lease the server every
free unit of that account's open blocks, once the block's append is done. The server's next
lookups on that account take a leased unit themselves (the group's checks made on the server's
own copy, kept current with its saves) and need one round trip, the settlement, instead of two.
A leased unit is drawn as far as the ledger is concerned until it is settled or given back; the
server gives back what an account did not draw for ``lease_idle_seconds``, and the block is then
released as any quiet account's is. A lease that turns out void (its block released by a new
ledger process after a crash) fails the lookup that drew it uncharged, and is dropped.

Coherence otherwise is the group commit's: a save of one process to an aggregate the other
holds makes the other's next append collide on the version, and it decides again.

It is a composition root (like ``bootstrap``): it builds the child's application and writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import pickle
import signal
import threading
import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from multiprocessing.connection import Connection
from typing import Any
from uuid import UUID

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.consultations import LookupRecord, WriterLookupLedger, query_type_here
from bemtevi.commands.group_commit import GroupCommit
from bemtevi.domain.errors import SearchFailed

log = logging.getLogger(__name__)

_STOP_SECONDS = 15
LEASE_IDLE_SECONDS = 0.5


class _Call:
    __slots__ = ("conn", "error", "event", "future", "value")

    def __init__(self, future: asyncio.Future[None] | None = None) -> None:
        self.future = future
        self.event = threading.Event() if future is None else None
        self.value: Any = None
        self.error: BaseException | None = None
        self.conn: Connection | None = None  # the pipe it was sent on (one per ledger process)


def _resolve_all(calls: list[_Call]) -> None:
    for call in calls:
        if call.future is not None and not call.future.done():
            call.future.set_result(None)


def _wake(calls: Iterable[_Call]) -> None:
    """Wake the callers of these answered calls: a thread at once, coroutines once per event loop."""
    by_loop: dict[asyncio.AbstractEventLoop, list[_Call]] = {}
    for call in calls:
        if call.future is not None:
            by_loop.setdefault(call.future.get_loop(), []).append(call)
        elif call.event is not None:
            call.event.set()
    for loop, waiting in by_loop.items():
        if not loop.is_closed():
            loop.call_soon_threadsafe(_resolve_all, waiting)


class ProcessLookupLedger:
    """The server's side: a ``LookupLedger`` whose decisions run in the ledger process.

    Started on the first lookup (a platform that never looks anything up never starts one), and
    again on the next lookup or sweep of abandoned reservations should it ever die (its lookups in
    flight fail uncharged or, had their append already committed, charged as recorded; what it held
    reserved is released by the new one: it names another owner).
    """

    def __init__(self, app: BemteviApplication, env: dict[str, str], max_batch: int) -> None:
        self._app = app
        self._env = env
        self._max_batch = max_batch
        self._lock = threading.Lock()
        self._process: Any = None
        self._conn: Connection | None = None
        self._reader: threading.Thread | None = None
        self._pending: dict[int, _Call] = {}
        self._ids = itertools.count()
        # Messages of coroutines, sent together once per turn of their event loop.
        self._outbox: list[tuple[Any, ...]] = []
        self._flush_scheduled = False
        self._stopped = threading.Event()
        self._closed = False
        self._relaying = threading.local()
        # Units the ledger leased us: account id -> block id -> units not drawn yet; and when each
        # account last drew one. Under ``_lease_lock`` (the event loop draws, the reader adds).
        self._lease_lock = threading.Lock()
        self._leases: dict[UUID, dict[str, int]] = {}
        self._lease_drawn_at: dict[UUID, float] = {}
        self.lease_idle_seconds = LEASE_IDLE_SECONDS
        app.on_saved_elsewhere(self._forward_saved)

    # -- lifecycle -------------------------------------------------------------------------------

    def _ensure_started(self) -> None:
        if self._conn is not None:
            return
        with self._lock:
            if self._closed:
                raise RuntimeError("the ledger process is stopped")
            if self._conn is None:
                context = multiprocessing.get_context("spawn")  # never fork a process with threads
                ours, theirs = context.Pipe(duplex=True)
                process = context.Process(
                    target=serve_ledger, args=(self._env, self._max_batch, theirs), name="bemtevi-ledger", daemon=True
                )
                process.start()
                theirs.close()
                self._process, self._stopped = process, threading.Event()
                self._reader = threading.Thread(
                    target=self._read, args=(ours, self._stopped), name="bemtevi-ledger-reader", daemon=True
                )
                self._reader.start()
                self._conn = ours

    def close(self) -> None:
        """Stop the ledger process: it releases what its blocks hold and answers what it decided."""
        with self._lock:
            self._closed = True
            conn, process = self._conn, self._process
        if conn is None or process is None:
            return
        with self._lock:
            self._send([("stop",)])  # a pipe already broken is logged there
        self._stopped.wait(_STOP_SECONDS)
        process.join(_STOP_SECONDS)
        if process.is_alive():
            log.error("the ledger process did not stop in time; terminating it")
            process.terminate()
            process.join(5)
        conn.close()

    # -- the LookupLedger ------------------------------------------------------------------------

    def try_draw(self, record: LookupRecord) -> bool:
        """Take a unit the ledger leased us for this account, if one is left; the group's checks
        are made here on this process's copy (the ledger's own checks ran when it opened the block)."""
        if not self._leases.get(record.account_id):
            return False
        query_type = query_type_here(self._app, record)
        if query_type is None:
            return False
        with self._lease_lock:
            leases = self._leases.get(record.account_id)
            if not leases:
                return False
            block_id, free = next(iter(leases.items()))
            if free > 1:
                leases[block_id] = free - 1
            else:
                del leases[block_id]
            self._lease_drawn_at[record.account_id] = time.monotonic()
        record.query_type, record.block_id, record.leased = query_type, block_id, True
        return True

    def reserve(self, record: LookupRecord) -> None:
        record.query_type, record.block_id = self._call("reserve", record)

    async def reserve_async(self, record: LookupRecord) -> None:
        record.query_type, record.block_id = await self._call_async("reserve", record)

    def finish(self, record: LookupRecord) -> tuple[datetime, int]:
        try:
            created_on, position = self._call("finish", record)
        except SearchFailed:
            self._void_lease(record)
            raise
        return created_on, position

    async def finish_async(self, record: LookupRecord) -> tuple[datetime, int]:
        try:
            created_on, position = await self._call_async("finish", record)
        except SearchFailed:
            self._void_lease(record)
            raise
        return created_on, position

    def release_abandoned(self, account_ids: Sequence[UUID]) -> None:
        """Have the ledger process release what other (stopped) owners hold on these accounts; it is
        started for that if it is not running (a dead one's reservations come back without a lookup)."""
        if not account_ids:
            return
        self._ensure_started()
        with self._lock:
            self._send([("release abandoned", tuple(account_ids))])

    # -- leases ----------------------------------------------------------------------------------

    def leased(self, account_id: UUID) -> int:
        """Units the ledger leased this server on the account and no lookup has drawn yet."""
        with self._lease_lock:
            return sum(self._leases.get(account_id, {}).values())

    def _void_lease(self, record: LookupRecord) -> None:
        """A leased unit's block was not there to settle from: the rest of that lease is void too."""
        if record.leased and record.block_id is not None:
            with self._lease_lock:
                self._leases.get(record.account_id, {}).pop(record.block_id, None)

    def _add_lease(self, account_id: UUID, units: list[tuple[str, int]]) -> None:
        with self._lease_lock:
            leases = self._leases.setdefault(account_id, {})
            for block_id, free in units:
                leases[block_id] = leases.get(block_id, 0) + free
            self._lease_drawn_at[account_id] = time.monotonic()  # a fresh lease is not idle

    def _give_back_idle(self, now: float) -> None:
        """Give the ledger back what quiet accounts' leases hold (on the reader thread)."""
        messages: list[tuple[Any, ...]] = []
        with self._lease_lock:
            for account_id, drawn_at in list(self._lease_drawn_at.items()):
                if now - drawn_at < self.lease_idle_seconds:
                    continue
                for block_id, free in self._leases.pop(account_id, {}).items():
                    messages.append(("give back", account_id, block_id, free))
                del self._lease_drawn_at[account_id]
        if messages:
            with self._lock:
                self._send(messages)

    def _drop_leases(self) -> None:
        with self._lease_lock:
            self._leases.clear()
            self._lease_drawn_at.clear()

    # -- calls -----------------------------------------------------------------------------------

    def _call(self, kind: str, record: LookupRecord, timeout: float = 30) -> Any:
        self._ensure_started()
        call = _Call()
        request_id = next(self._ids)
        self._pending[request_id] = call
        with self._lock:
            self._send([(kind, request_id, record)])
        assert call.event is not None
        if not call.event.wait(timeout):
            self._pending.pop(request_id, None)
            raise TimeoutError("the ledger did not answer in time")
        if call.error is not None:
            raise call.error
        return call.value

    async def _call_async(self, kind: str, record: LookupRecord, timeout: float = 30) -> Any:
        self._ensure_started()
        loop = asyncio.get_running_loop()
        call = _Call(loop.create_future())
        request_id = next(self._ids)
        self._pending[request_id] = call
        with self._lock:
            self._outbox.append((kind, request_id, record))
            if not self._flush_scheduled:
                self._flush_scheduled = True
                loop.call_soon(self._flush)
        assert call.future is not None
        try:
            async with asyncio.timeout(timeout):
                await call.future
        except TimeoutError:
            self._pending.pop(request_id, None)
            raise TimeoutError("the ledger did not answer in time") from None
        if call.error is not None:
            raise call.error
        return call.value

    def _flush(self) -> None:
        with self._lock:
            self._flush_scheduled = False
            messages, self._outbox = self._outbox, []
            if messages:
                self._send(messages)

    def _send(self, messages: list[tuple[Any, ...]]) -> None:
        """Under ``_lock``."""
        conn = self._conn
        if conn is None:
            self._fail([m[1] for m in messages if m[0] in ("reserve", "finish")])
            return
        for message in messages:
            if message[0] in ("reserve", "finish") and (call := self._pending.get(message[1])) is not None:
                call.conn = conn
        try:
            conn.send_bytes(pickle.dumps(messages, pickle.HIGHEST_PROTOCOL))
        except OSError:
            log.exception("the ledger process is gone")
            self._fail([m[1] for m in messages if m[0] in ("reserve", "finish")])

    def _forward_saved(self, aggregate_ids: Iterable[UUID]) -> None:
        """A save by this process: the ledger must not decide on its older copies."""
        if getattr(self._relaying, "active", False) or self._conn is None:
            return
        with self._lock:
            self._outbox.append(("forget", tuple(aggregate_ids)))
            # No event loop here necessarily: sent at once, with whatever else waits.
            messages, self._outbox = self._outbox, []
            self._send(messages)

    def _fail(self, request_ids: Iterable[int]) -> None:
        failed = [call for call in map(self._pending.pop, request_ids, itertools.repeat(None)) if call is not None]
        for call in failed:
            call.error = SearchFailed()
        _wake(failed)

    def _read(self, conn: Connection, stopped: threading.Event) -> None:
        next_give_back = time.monotonic() + self.lease_idle_seconds
        while True:
            try:
                # Woken at least every so often to give idle leases back.
                messages = pickle.loads(conn.recv_bytes()) if conn.poll(self.lease_idle_seconds / 2) else []
            except (EOFError, OSError):
                break
            now = time.monotonic()
            if now >= next_give_back:
                next_give_back = now + self.lease_idle_seconds / 2
                self._give_back_idle(now)
            answered: list[_Call] = []
            for message in messages:
                kind = message[0]
                if kind == "lease":
                    if self._conn is conn:  # not a lease of a ledger process already replaced
                        self._add_lease(message[1], message[2])
                elif kind == "answer":
                    _, request_id, value, error = message
                    call = self._pending.pop(request_id, None)
                    if call is None:
                        continue  # its caller gave up waiting
                    call.value, call.error = value, error
                    answered.append(call)
                elif kind == "saved":
                    _, aggregate_ids, position = message
                    self._relaying.active = True
                    try:
                        self._app.saved_by_another_process(aggregate_ids, position)
                    finally:
                        self._relaying.active = False
                elif kind == "stopped":
                    stopped.set()
            _wake(answered)
        # The ledger process is gone: what it did not answer fails, and the next lookup (or sweep) starts another.
        # Only what was sent to this process: a new one may already be answering others.
        with self._lock:
            if self._conn is conn:
                self._conn = None
                self._drop_leases()  # a new ledger process releases the blocks they were of
            self._fail([request_id for request_id, call in list(self._pending.items()) if call.conn is conn])
        stopped.set()
        if not self._closed:
            log.error("the ledger process stopped unexpectedly; the next lookup or sweep starts a new one")


def serve_ledger(env: dict[str, str], max_batch: int, conn: Connection) -> None:
    """The ledger process: decide and append lookups' ledger changes until told to stop."""
    # Ctrl-C reaches the whole process group: the server stops this process itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = BemteviApplication(env=env)
    writer = GroupCommit(app, max_batch=max_batch)
    ledger = WriterLookupLedger(app, writer)
    outbox: list[tuple[Any, ...]] = []
    saved_ids: list[UUID] = []

    # Both listeners run in the writer's save, on the writer thread, as do the answers and flush.
    def note_saved(aggregate_ids: Iterable[UUID]) -> None:
        saved_ids.extend(aggregate_ids)

    def note_position(position: int) -> None:
        outbox.append(("saved", tuple(saved_ids), position))
        saved_ids.clear()

    def flush() -> None:
        if outbox:
            data = pickle.dumps(outbox, pickle.HIGHEST_PROTOCOL)
            outbox.clear()
            # The server may be gone (killed): nobody to answer. The writer goes on to stop, and its
            # last chores release what this ledger holds (raising here would end the writer first).
            with contextlib.suppress(OSError):
                conn.send_bytes(data)

    leasing: set[UUID] = set()  # accounts with a lease decision queued

    def lease(account_id: UUID) -> Any:
        def given(request: Any) -> None:
            leasing.discard(account_id)
            if request.error is None and (units := ledger.lease(account_id)):
                outbox.append(("lease", account_id, units))

        return given

    def answer(request_id: int, kind: str, record: LookupRecord) -> Any:
        def given(request: Any) -> None:
            if request.error is not None:
                outbox.append(("answer", request_id, None, _portable(request.error)))
            elif kind == "finish":
                outbox.append(("answer", request_id, (request.result, request.position), None))
            else:
                outbox.append(("answer", request_id, request.result, None))
                account_id = record.account_id
                if request.result[1] is not None and account_id not in leasing:
                    # A busy account: lease the server what its blocks have free. Answered (so
                    # leased) after the append of a later batch than this one: a block the store
                    # refused is never leased.
                    leasing.add(account_id)
                    writer.enqueue(_after_append, lease(account_id))

        return given

    app.on_saved_elsewhere(note_saved)
    app.on_recorded(note_position)
    writer.after_answers = flush
    writer.start()
    try:
        while True:
            try:
                messages = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                break  # the server is gone
            if _dispatch(messages, writer, ledger, answer):
                break
    finally:
        writer.stop()  # its last chores release every block
        app.close()
        with contextlib.suppress(OSError):
            conn.send_bytes(pickle.dumps([("stopped",)]))
        conn.close()


def _dispatch(messages: list[tuple[Any, ...]], writer: GroupCommit, ledger: WriterLookupLedger, answer: Any) -> bool:
    """Hand each message to the writer; True when told to stop."""
    for message in messages:
        kind = message[0]
        if kind == "reserve":
            # Answered once appended: only then does the lookup hold its credit.
            writer.enqueue(ledger.reserve_decision(message[2]), answer(message[1], kind, message[2]))
        elif kind == "finish":
            writer.enqueue(ledger.finish_decision(message[2]), answer(message[1], kind, message[2]))
        elif kind == "give back":
            writer.enqueue(ledger.give_back_decision(*message[1:]), _ignore)
        elif kind == "release abandoned":
            writer.enqueue(ledger.release_abandoned_decision(message[1]), _ignore)
        elif kind == "forget":
            writer.forget(message[1])
        elif kind == "stop":
            return True
    return False


def _after_append(ws: Any) -> None:
    """A decision of nothing, for an answer given once the appends before it are done."""


def _ignore(request: Any) -> None:
    if request.error is not None:
        log.error("ledger decision failed: %r", request.error)


def _portable(error: BaseException) -> BaseException:
    """The error itself when it crosses the pipe intact (domain refusals do), else a search failure."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        log.error("ledger error %r", error)
        return SearchFailed()
    return error

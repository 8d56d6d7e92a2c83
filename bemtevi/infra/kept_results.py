"""Kept lookup results: personal data, kept only while the query type's validity needs them.

A lookup's result is reopened by ``query-result/...`` within its query type's validity days, and a
repeat of the same document and query type within its cache days is answered from it without asking
the vendor again. Results are personal data (LGPD): they are not events (the append-only log would
keep them forever); they live here, in an SQLite file beside the event store, each row with the time
it stops serving as a cache (``cache_until``) and the time it is deleted (``valid_until``). Rows past
``valid_until`` are never answered and are purged at start and every ``purge_every`` seconds.

Writes are behind the lookup: ``keep`` only hands the row to a writer thread (a dict insert and a
queue put), which writes whatever queued within ``gather_seconds`` of the first in one transaction;
reads look at what is still queued first, so a result is reopened at once. Each thread reads through its own connection.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson

_DDL = (
    """CREATE TABLE IF NOT EXISTS kept_results (
        consultation_id TEXT PRIMARY KEY,
        group_id TEXT NOT NULL,
        user_id TEXT,
        document TEXT NOT NULL,
        document_type TEXT NOT NULL,
        query_type TEXT NOT NULL,
        supplier TEXT NOT NULL,
        result BLOB NOT NULL,
        created_at REAL NOT NULL,
        cache_until REAL NOT NULL,
        valid_until REAL NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS kept_results_cache ON kept_results (document, query_type, cache_until)",
    "CREATE INDEX IF NOT EXISTS kept_results_valid ON kept_results (valid_until)",
)
_COLUMNS = (
    "consultation_id, group_id, user_id, document, document_type, query_type, supplier, result, "
    "created_at, cache_until, valid_until"
)
DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class KeptResult:
    consultation_id: UUID
    group_id: UUID
    user_id: UUID | None
    document: str
    document_type: str
    query_type: str
    supplier: str
    result: dict[str, Any]
    created_at: float  # seconds since the epoch
    cache_until: float
    valid_until: float

    def row(self) -> tuple[Any, ...]:
        return (
            str(self.consultation_id),
            str(self.group_id),
            str(self.user_id) if self.user_id else None,
            self.document,
            self.document_type,
            self.query_type,
            self.supplier,
            orjson.dumps(self.result),
            self.created_at,
            self.cache_until,
            self.valid_until,
        )


def _from_row(row: tuple[Any, ...]) -> KeptResult:
    return KeptResult(
        consultation_id=UUID(row[0]),
        group_id=UUID(row[1]),
        user_id=UUID(row[2]) if row[2] else None,
        document=row[3],
        document_type=row[4],
        query_type=row[5],
        supplier=row[6],
        result=orjson.loads(row[7]),
        created_at=row[8],
        cache_until=row[9],
        valid_until=row[10],
    )


class KeptResults:
    def __init__(self, path: Path, purge_every: float = 3600.0, gather_seconds: float = 0.05) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._purge_every = purge_every
        self._gather_seconds = gather_seconds
        writer = self._connect()
        for statement in _DDL:
            writer.execute(statement)
        self._local = threading.local()
        self._pending: dict[UUID, KeptResult] = {}
        # The newest queued result of each (document, query type): ``fresh`` looks there, not at every queued one.
        self._pending_newest: dict[tuple[str, str], KeptResult] = {}
        self._pending_lock = threading.Lock()
        self._queue: queue.Queue[KeptResult | None] = queue.Queue()
        self._idle = threading.Event()
        self._idle.set()
        self.purged = self.purge(writer)
        self._thread = threading.Thread(target=self._write_loop, args=(writer,), name="kept-results", daemon=True)
        self._thread.start()

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self._path, timeout=10, check_same_thread=False, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        return con

    def _reader(self) -> sqlite3.Connection:
        con: sqlite3.Connection | None = getattr(self._local, "con", None)
        if con is None:
            con = self._local.con = self._connect()
        return con

    # -- writes -------------------------------------------------------------------------------

    def keep(self, kept: KeptResult) -> None:
        with self._pending_lock:
            self._pending[kept.consultation_id] = kept
            key = (kept.document, kept.query_type)
            newest = self._pending_newest.get(key)
            if newest is None or kept.created_at >= newest.created_at:
                self._pending_newest[key] = kept
            self._idle.clear()
        self._queue.put(kept)

    def _write_loop(self, con: sqlite3.Connection) -> None:
        next_purge = time.monotonic() + self._purge_every
        while True:
            timeout = max(0.0, next_purge - time.monotonic())
            try:
                first = self._queue.get(timeout=timeout)
            except queue.Empty:
                self.purge(con)
                next_purge = time.monotonic() + self._purge_every
                continue
            if first is None:
                return
            # Let a moment's results gather: one transaction for them, and the lookups that keep them meanwhile
            # find the writer asleep rather than waiting on the queue (a put then wakes no thread).
            time.sleep(self._gather_seconds)
            batch = [first]
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    self._write(con, batch)
                    return
                batch.append(item)
            self._write(con, batch)

    def _write(self, con: sqlite3.Connection, batch: list[KeptResult]) -> None:
        con.execute("BEGIN")
        con.executemany(
            f"INSERT OR REPLACE INTO kept_results ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [k.row() for k in batch],
        )
        con.execute("COMMIT")
        with self._pending_lock:
            for k in batch:
                if self._pending.get(k.consultation_id) is k:
                    del self._pending[k.consultation_id]
                if self._pending_newest.get((k.document, k.query_type)) is k:
                    del self._pending_newest[(k.document, k.query_type)]
            if not self._pending:
                self._idle.set()

    def purge(self, con: sqlite3.Connection | None = None, now: float | None = None) -> int:
        """Delete every result past its validity; answers how many."""
        con = con or self._reader()
        cursor = con.execute("DELETE FROM kept_results WHERE valid_until <= ?", (now or time.time(),))
        return cursor.rowcount

    def flush(self, timeout: float = 10.0) -> bool:
        return self._idle.wait(timeout)

    def close(self) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout=10)

    # -- reads --------------------------------------------------------------------------------

    def get(self, consultation_id: UUID, now: float | None = None) -> KeptResult | None:
        """The result of a consultation while it is valid; None once past its validity (or never kept)."""
        now = now or time.time()
        with self._pending_lock:
            kept = self._pending.get(consultation_id)
        if kept is None:
            row = (
                self._reader()
                .execute(f"SELECT {_COLUMNS} FROM kept_results WHERE consultation_id = ?", (str(consultation_id),))
                .fetchone()
            )
            kept = _from_row(row) if row else None
        return kept if kept is not None and kept.valid_until > now else None

    def fresh(self, document: str, query_type: str, now: float | None = None) -> KeptResult | None:
        """The newest result of this document and query type still within its cache days."""
        now = now or time.time()
        if self._pending_newest:
            with self._pending_lock:
                queued = self._pending_newest.get((document, query_type))
            if queued is not None and queued.cache_until > now:
                return queued
        row = (
            self._reader()
            .execute(
                f"SELECT {_COLUMNS} FROM kept_results WHERE document = ? AND query_type = ? AND cache_until > ? "
                "ORDER BY created_at DESC LIMIT 1",
                (document, query_type, now),
            )
            .fetchone()
        )
        return _from_row(row) if row else None

    def held_for(self, document: str, now: float | None = None) -> dict[UUID, float]:
        """Which consultations of ``document`` still have a result held, and until when (seconds since the
        epoch): what the data-subject report tells a person is still kept about them."""
        now = now or time.time()
        held = {
            UUID(consultation_id): valid_until
            for consultation_id, valid_until in self._reader().execute(
                "SELECT consultation_id, valid_until FROM kept_results WHERE document = ? AND valid_until > ?",
                (document, now),
            )
        }
        with self._pending_lock:
            queued = [k for k in self._pending.values() if k.document == document and k.valid_until > now]
        held.update((k.consultation_id, k.valid_until) for k in queued)
        return held

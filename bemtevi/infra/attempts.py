"""When keys were tried: failed sign-ins and code tries, contact-form sends, kept where every process sees them.

Limits on attempts hold only if a second API process, and a restarted one, count the same attempts. So the
times live in the event store's own database (its own table on PostgreSQL; a file of its own beside the SQLite
event store), not in a process's memory. The rules (how many, in which window) are `commands.throttle`'s.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

# Attempts older than this are deleted as new ones arrive: no window is longer than a day.
HORIZON_SECONDS = 86_400.0
_PRUNE_EVERY = 500


class AttemptLog(Protocol):
    def add(self, keys: Sequence[str], at: float) -> None:
        """One attempt at ``at`` (seconds since the epoch) for each key."""

    def since(self, keys: Sequence[str], after: float) -> dict[str, list[float]]:
        """Each key's attempt times later than ``after``, oldest first (keys without any are absent)."""

    def clear(self, keys: Sequence[str]) -> None:
        """Forget every attempt of these keys."""

    def close(self) -> None: ...


class SqliteAttemptLog:
    """For the embedded deployment: one SQLite file that every process on the machine can open."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._con = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute("CREATE TABLE IF NOT EXISTS attempts (key TEXT NOT NULL, at REAL NOT NULL)")
        self._con.execute("CREATE INDEX IF NOT EXISTS attempts_key_at ON attempts (key, at)")
        self._lock = threading.Lock()
        self._adds = 0

    def add(self, keys: Sequence[str], at: float) -> None:
        with self._lock:
            self._con.executemany("INSERT INTO attempts (key, at) VALUES (?, ?)", [(key, at) for key in keys])
            self._adds += 1
            if self._adds % _PRUNE_EVERY == 0:
                self._con.execute("DELETE FROM attempts WHERE at < ?", (at - HORIZON_SECONDS,))

    def since(self, keys: Sequence[str], after: float) -> dict[str, list[float]]:
        marks = ",".join("?" * len(keys))
        with self._lock:
            rows = self._con.execute(
                f"SELECT key, at FROM attempts WHERE key IN ({marks}) AND at > ? ORDER BY at", (*keys, after)
            ).fetchall()
        return _grouped(rows)

    def clear(self, keys: Sequence[str]) -> None:
        with self._lock:
            self._con.executemany("DELETE FROM attempts WHERE key = ?", [(key,) for key in keys])

    def close(self) -> None:
        with self._lock:
            self._con.close()


class PostgresAttemptLog:
    """For PostgreSQL deployments: a table in the event store's database, shared by every API process."""

    def __init__(self, conninfo: str) -> None:
        from psycopg_pool import ConnectionPool

        # Attempts are rare next to lookups: a small pool of its own, opened on first use.
        self._pool = ConnectionPool(conninfo, min_size=0, max_size=4, open=True, kwargs={"autocommit": True})
        with self._pool.connection() as con:
            con.execute("CREATE TABLE IF NOT EXISTS bemtevi_attempts (key TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)")
            con.execute("CREATE INDEX IF NOT EXISTS bemtevi_attempts_key_at ON bemtevi_attempts (key, at)")
        self._adds = 0

    def add(self, keys: Sequence[str], at: float) -> None:
        with self._pool.connection() as con:
            con.execute("INSERT INTO bemtevi_attempts (key, at) SELECT unnest(%s::text[]), %s", (list(keys), at))
            self._adds += 1
            if self._adds % _PRUNE_EVERY == 0:
                con.execute("DELETE FROM bemtevi_attempts WHERE at < %s", (at - HORIZON_SECONDS,))

    def since(self, keys: Sequence[str], after: float) -> dict[str, list[float]]:
        with self._pool.connection() as con:
            rows = con.execute(
                "SELECT key, at FROM bemtevi_attempts WHERE key = ANY(%s) AND at > %s ORDER BY at",
                (list(keys), after),
            ).fetchall()
        return _grouped(rows)

    def clear(self, keys: Sequence[str]) -> None:
        with self._pool.connection() as con:
            con.execute("DELETE FROM bemtevi_attempts WHERE key = ANY(%s)", (list(keys),))

    def close(self) -> None:
        self._pool.close()


def _grouped(rows: Sequence[tuple[str, float]]) -> dict[str, list[float]]:
    grouped: dict[str, list[float]] = {}
    for key, at in rows:
        grouped.setdefault(key, []).append(float(at))
    return grouped

"""Counters of API requests per token and window (a second, a day), shared by every API process.

A process takes a share of a window's allowance at a time (``take``: at most ``want``, never beyond the
limit), so the limit holds across processes while the store is asked once per share, not once per request.
Beside the event store like the attempt log: a table in PostgreSQL, a file of its own beside SQLite.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Protocol

# Windows older than this are deleted now and then: no window is longer than a day.
_HORIZON_SECONDS = 2 * 86_400
_PRUNE_EVERY = 1000


class RateWindows(Protocol):
    def take(self, key: str, window: int, want: int, limit: int) -> tuple[int, int]:
        """Up to ``want`` of ``limit`` for ``key`` in ``window`` (its start, epoch seconds): what is granted, and
        how much of the window every process has taken since."""

    def close(self) -> None: ...


class SqliteRateWindows:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._con = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
        self._con.execute("PRAGMA journal_mode=WAL")
        # A take runs on the API's event loop: a commit that waits for the disk (FULL, in WAL mode) stalls every
        # request in flight for milliseconds. NORMAL can lose the last takes on a power loss (never on a crash of
        # a process): the token may then go past its limit by what they granted, in the windows then under way.
        self._con.execute("PRAGMA synchronous=NORMAL")
        self._con.execute(
            "CREATE TABLE IF NOT EXISTS rate_windows (key TEXT NOT NULL, window INTEGER NOT NULL, "
            "used INTEGER NOT NULL, PRIMARY KEY (key, window))"
        )
        self._lock = threading.Lock()
        self._takes = 0

    def take(self, key: str, window: int, want: int, limit: int) -> tuple[int, int]:
        with self._lock:
            self._con.execute("BEGIN IMMEDIATE")
            try:
                row = self._con.execute(
                    "SELECT used FROM rate_windows WHERE key = ? AND window = ?", (key, window)
                ).fetchone()
                used = row[0] if row else 0
                granted = max(0, min(want, limit - used))
                if granted:
                    self._con.execute(
                        "INSERT INTO rate_windows (key, window, used) VALUES (?, ?, ?) "
                        "ON CONFLICT (key, window) DO UPDATE SET used = used + excluded.used",
                        (key, window, granted),
                    )
                self._takes += 1
                if self._takes % _PRUNE_EVERY == 0:
                    self._con.execute("DELETE FROM rate_windows WHERE window < ?", (window - _HORIZON_SECONDS,))
                self._con.execute("COMMIT")
            except BaseException:
                self._con.execute("ROLLBACK")
                raise
        return granted, used + granted

    def close(self) -> None:
        with self._lock:
            self._con.close()


class PostgresRateWindows:
    def __init__(self, conninfo: str) -> None:
        from psycopg import Connection
        from psycopg_pool import ConnectionPool

        def configure(con: Connection) -> None:
            # A take runs on the API's event loop: a commit that waited for the WAL's flush stalled every request in
            # flight. Off, a crash of the server (never of an API process) can lose the last takes: the token may
            # then go past its limit by what they granted, in the windows then under way.
            con.execute("SET synchronous_commit = off")

        self._pool = ConnectionPool(
            conninfo, min_size=0, max_size=4, open=True, kwargs={"autocommit": True}, configure=configure
        )
        with self._pool.connection() as con:
            con.execute(
                "CREATE TABLE IF NOT EXISTS bemtevi_rate_windows (key TEXT NOT NULL, window_start BIGINT NOT NULL, "
                "used INTEGER NOT NULL, granted INTEGER NOT NULL, PRIMARY KEY (key, window_start))"
            )
        self._takes = 0

    def take(self, key: str, window: int, want: int, limit: int) -> tuple[int, int]:
        # One statement, one round trip: a new window's row, or its row updated, where the SET expressions all read
        # the row as it was, under the row's lock, so the grant and the new total are decided together whatever the
        # other processes do at the same moment.
        with self._pool.connection() as con:
            row = con.execute(
                "INSERT INTO bemtevi_rate_windows AS w (key, window_start, used, granted) "
                "VALUES (%(key)s, %(window)s, GREATEST(0, LEAST(%(want)s, %(limit)s)), "
                "GREATEST(0, LEAST(%(want)s, %(limit)s))) "
                "ON CONFLICT (key, window_start) DO UPDATE SET "
                "used = w.used + GREATEST(0, LEAST(%(want)s, %(limit)s - w.used)), "
                "granted = GREATEST(0, LEAST(%(want)s, %(limit)s - w.used)) "
                "RETURNING granted, used",
                {"key": key, "window": window, "want": want, "limit": limit},
            ).fetchone()
            self._takes += 1
            if self._takes % _PRUNE_EVERY == 0:
                con.execute("DELETE FROM bemtevi_rate_windows WHERE window_start < %s", (window - _HORIZON_SECONDS,))
        return (int(row[0]), int(row[1])) if row else (0, limit)

    def close(self) -> None:
        self._pool.close()

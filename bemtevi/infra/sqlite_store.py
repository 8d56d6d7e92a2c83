"""The event store's SQLite recorder, with one statement per append.

The library's recorder appends in an explicit transaction: ``BEGIN``, one ``INSERT`` per event, then
``COMMIT``. Python's ``sqlite3`` lets go of the interpreter lock around every one of those calls, and
the group commit's writer, which appends for every lookup of a busy server, then has to take the
lock back from the event loop each time: with the loop busy, each take-back waits for the loop's
next pause. Measured with 32 clients of vendor lookups (``bench/vendors.py``), a batch of about four
lookups spent 2.35 ms on the writer against 1.47 ms with the append below. While the host ran slow, the
server answered 1,029 against 1,165 lookups/s (two alternated runs each); when it ran faster, the two
measured alike (docs/architecture.md, issue 17's sixth pass).

Here the whole append is one multi-row ``INSERT`` in autocommit mode: SQLite runs a statement
outside an explicit transaction as a transaction of its own, so the rows are written, committed
and synced (``synchronous`` as the library leaves it: FULL) in one call, all or none; a version
already taken aborts the statement and raises the ``IntegrityError`` the library raises (the
optimistic-concurrency check), with nothing of the append stored. The notification ids are the
rows' ``rowid``, as the library reads them: one statement, under SQLite's write lock, gives its
rows consecutive ones after the greatest (a table without ``AUTOINCREMENT``), so they are the last
one's and the ``n - 1`` before it. An append of more rows than one statement takes (SQLite's limit
of bound values) goes the library's way. ``tests/infra/test_sqlite_store.py`` compares the two.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any
from uuid import UUID

from eventsourcing.persistence import (
    DatabaseError,
    DataError,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    PersistenceError,
    ProgrammingError,
    StoredEvent,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder

# Rows per statement: four values each, within SQLite's 32,766 bound values (3.32 and later).
MAX_ROWS = 4096

# sqlite3's errors as the library's transaction turns them into its own (most specific first).
_ERRORS: tuple[tuple[type[sqlite3.Error], type[PersistenceError]], ...] = (
    (sqlite3.InterfaceError, InterfaceError),
    (sqlite3.DataError, DataError),
    (sqlite3.OperationalError, OperationalError),
    (sqlite3.IntegrityError, IntegrityError),
    (sqlite3.InternalError, InternalError),
    (sqlite3.ProgrammingError, ProgrammingError),
    (sqlite3.NotSupportedError, NotSupportedError),
    (sqlite3.DatabaseError, DatabaseError),
    (sqlite3.Error, PersistenceError),
)


@contextmanager
def _as_library_errors() -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as e:
        raise next(ours for theirs, ours in _ERRORS if isinstance(e, theirs))(e) from e


@lru_cache(maxsize=64)
def _insert_statement(table: str, rows: int) -> str:
    return f"INSERT INTO {table} VALUES " + ",".join(("(?,?,?,?)",) * rows)


class OneStatementSQLiteApplicationRecorder(SQLiteApplicationRecorder):
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        count = len(stored_events)
        if count == 0 or count > MAX_ROWS:
            return super().insert_events(stored_events, **kwargs)
        values: list[Any] = []
        for s in stored_events:
            originator_id = s.originator_id
            values += (
                originator_id.hex if isinstance(originator_id, UUID) else originator_id,
                s.originator_version,
                s.topic,
                s.state,
            )
        statement = _insert_statement(self.events_table_name, count)
        with self.datastore.get_connection(commit=True) as connection, _as_library_errors():
            cursor = connection.cursor()
            cursor.execute(statement, values)
            last = cursor.sqlite_cursor.lastrowid
        assert last is not None
        return list(range(last - count + 1, last + 1))

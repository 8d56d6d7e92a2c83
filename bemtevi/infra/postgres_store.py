"""The event store's PostgreSQL recorder, with one statement per append.

The library's recorder appends in a pipelined transaction of five statements (lock timeout, table
lock, NOTIFY, INSERT of an array of a composite type, COMMIT) and dumps each event as a composite
value in Python. On the group commit's writer, which appends for every lookup of a busy server,
that conversion and its statements were most of the writer's time under the interpreter lock.

Here one server-side function does the same in one call: it takes four plain arrays (ids,
versions, topics, states; binary dumps psycopg does in C), locks the table in EXCLUSIVE mode so
that notification ids are issued in commit order (the reason the library locks, see its
``_lock_table``), notifies listeners and inserts. The call runs in autocommit, so the lock is
held exactly until the insert commits. A version already taken raises the same ``IntegrityError``
the library raises (the optimistic-concurrency check), through the library's connection wrapper.

The four arrays are sent in PostgreSQL's binary array format, packed here with C-level
iterators and ``struct`` rather than by psycopg's list dumper, which finds a dumper and calls it
and packs a length in Python for every element of every array (with the rows fetched as dicts,
about a third of the append's CPU in the client at 64 events, see bench/event_encoding.py); the
ids come back as one ``bigint[]`` (loaded in C), not as one row each; the statement is rendered
once, not on every call.
"""

from __future__ import annotations

import logging
import struct
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import chain, repeat
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.utils import retry
from psycopg import Connection, pq
from psycopg.adapt import Buffer, Dumper
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

_log = logging.getLogger(__name__)

# PostgreSQL's binary array of one dimension: the number of dimensions, a has-nulls flag, the
# element type, the length and lower bound of the dimension, then each element as a 32-bit
# length and its bytes.
_HEADER = "iiIii"
_header = struct.Struct(">" + _HEADER).pack
_length = struct.Struct(">i").pack
_UUID_LENGTH = _length(16)
_UUID_OID, _INT8_OID, _TEXT_OID, _BYTEA_OID = 2950, 20, 25, 17
# The advisory lock every process takes while it creates or replaces the event store's schema.
SCHEMA_LOCK = 0x62656D7465766901  # "bemtevi" and 1


def _array(element_oid: int, count: int, elements: Iterable[bytes]) -> bytes:
    return b"".join(chain((_header(1, 0, element_oid, count, 1),), elements))


def _uuid_array(ids: list[UUID | str]) -> bytes:
    # Each as 16 big-endian bytes (UUID.bytes), without a call of the property per id.
    ints = [i.int if type(i) is UUID else UUID(str(i)).int for i in ids]
    return _array(
        _UUID_OID, len(ids), chain.from_iterable(zip(repeat(_UUID_LENGTH), map(int.to_bytes, ints, repeat(16))))
    )


def _int8_array(values: list[int]) -> bytes:
    return _int8_array_format(len(values)).pack(
        1, 0, _INT8_OID, len(values), 1, *chain.from_iterable(zip(repeat(8), values))
    )


@lru_cache(maxsize=256)
def _int8_array_format(count: int) -> struct.Struct:
    """A whole bigint[] of ``count`` elements, each its length (8) and its value."""
    return struct.Struct(">" + _HEADER + "iq" * count)


def _bytea_array(values: list[bytes]) -> bytes:
    return _array(
        _BYTEA_OID, len(values), chain.from_iterable(zip(map(_length, map(len, values)), values, strict=True))
    )


class _Packed:
    """An array already in PostgreSQL's binary format (a subclass per array type)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


class _UUIDArray(_Packed):
    __slots__ = ()


class _Int8Array(_Packed):
    __slots__ = ()


class _TextArray(_Packed):
    __slots__ = ()


class _ByteaArray(_Packed):
    __slots__ = ()


class _PackedDumper(Dumper):
    format = pq.Format.BINARY

    def dump(self, obj: _Packed) -> Buffer:
        return obj.data


_DUMPERS: dict[type[_Packed], type[Dumper]] = {
    cls: type(f"{cls.__name__}Dumper", (_PackedDumper,), {"oid": oid})
    for cls, oid in ((_UUIDArray, 2951), (_Int8Array, 1016), (_TextArray, 1009), (_ByteaArray, 1001))
}


def under_schema_lock(datastore: PostgresDatastore, create: Callable[[], None]) -> None:
    """Run ``create`` (schema statements) holding the schema's advisory lock: one process at a time.

    The lock is held on a connection of its own (the statements run on others of the pool) and ends with
    its session if the process dies."""
    with datastore.get_connection() as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [SCHEMA_LOCK])
        try:
            create()
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [SCHEMA_LOCK])


class SchemaLockedPostgresTrackingRecorder(PostgresTrackingRecorder):
    """The library's tracking recorder (the relay's and the workers' positions), its table created under the
    schema lock too: two processes starting on a new database both ran ``CREATE TABLE IF NOT EXISTS``, and
    PostgreSQL refuses the second one while the first is uncommitted (a duplicate key in ``pg_type``), so one
    of them died at its start."""

    def create_table(self) -> None:
        under_schema_lock(self.datastore, super().create_table)


class OneCallPostgresApplicationRecorder(PostgresApplicationRecorder):
    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        function = Identifier(self.datastore.schema, f"{self.events_table_name}_append")
        table = Identifier(self.datastore.schema, self.events_table_name)
        self.sql_create_statements.append(
            SQL(
                "CREATE OR REPLACE FUNCTION {function}("
                "ids uuid[], versions bigint[], topics text[], states bytea[]) "
                "RETURNS SETOF bigint LANGUAGE plpgsql "
                "SET lock_timeout = {lock_timeout} AS $$ "
                "BEGIN "
                "LOCK TABLE {table} IN EXCLUSIVE MODE; "
                "NOTIFY {channel}; "
                "RETURN QUERY INSERT INTO {table} (originator_id, originator_version, topic, state) "
                "SELECT * FROM unnest(ids, versions, topics, states) RETURNING notification_id; "
                "END $$"
            ).format(
                function=function,
                table=table,
                channel=Identifier(self.channel_name),
                lock_timeout=f"{self.datastore.lock_timeout}s",
            )
        )
        # The ids as one array, in the order the function returns them (the order of the arrays).
        self._append_statement = SQL(
            "SELECT ARRAY(SELECT notification_id FROM {function}(%b, %b, %b, %b) AS appended(notification_id))"
        ).format(function=function)
        self._append_query: bytes | None = None  # the statement rendered, on the first append
        # Connections (of the pool) that have the dumpers of the packed arrays.
        self._adapted: weakref.WeakSet[Connection[Any]] = weakref.WeakSet()
        # Each topic as an element of a text[], by client encoding.
        self._topic_elements: dict[str, dict[str, bytes]] = {}

    def create_table(self) -> None:
        """The library's schema statements, one process at a time (a PostgreSQL advisory lock).

        Every process of a cluster (API processes, the relay, each worker) runs them when it starts, and they
        start together. ``CREATE OR REPLACE FUNCTION`` rewrites the function's catalog row even when it exists
        unchanged, and two transactions doing it at once fail with "tuple concurrently updated": a relay or
        worker died at its start, and the supervisor then stopped the whole cluster, resetting the
        connections its API processes were serving. The lock is held on a connection of its own (the
        library's statements run on others of the pool) and ends with its session if the process dies."""
        under_schema_lock(self.datastore, super().create_table)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        ids = _UUIDArray(_uuid_array([e.originator_id for e in stored_events]))
        versions = _Int8Array(_int8_array([e.originator_version for e in stored_events]))
        states = _ByteaArray(_bytea_array([e.state for e in stored_events]))
        topics = [e.topic for e in stored_events]
        with self.datastore.get_connection() as conn:
            if conn not in self._adapted:
                for cls, dumper in _DUMPERS.items():
                    conn.adapters.register_dumper(cls, dumper)
                self._adapted.add(conn)
            if self._append_query is None:
                self._append_query = self._append_statement.as_bytes(conn)
            params = (ids, versions, _TextArray(self._text_array(topics, conn.info.encoding)), states)
            with conn.cursor(binary=True, row_factory=tuple_row) as curs:
                curs.execute(self._append_query, params, prepare=True)
                row = curs.fetchone()
        assert row is not None
        notification_ids: list[int] = row[0]
        return notification_ids

    def _text_array(self, topics: list[str], encoding: str) -> bytes:
        """A text[] of the topics: each of the few topics is encoded once, then looked up."""
        elements = self._topic_elements.get(encoding)
        if elements is None:
            elements = self._topic_elements[encoding] = {}
        for topic in set(topics).difference(elements):
            encoded = topic.encode(encoding)
            elements[topic] = _length(len(encoded)) + encoded
        return _array(_TEXT_OID, len(topics), map(elements.__getitem__, topics))


class AppendListener:
    """Calls ``on_append()`` whenever any process appends to a PostgreSQL event store.

    The recorder NOTIFYs its channel in every append (the library's recorder and the one above);
    this LISTENs on that channel in a thread of its own, on a connection of the store's pool held
    while it runs, and calls ``on_append`` for each notification, and once after every
    (re)connection for what was appended while it was not listening. A lost connection (the
    server restarted) is opened again after a pause. A follower of the log in another process
    than the writers is so woken within milliseconds instead of polling.
    """

    def __init__(self, recorder: PostgresApplicationRecorder, on_append: Callable[[], None]) -> None:
        self._recorder = recorder
        self._on_append = on_append
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def for_recorder(cls, recorder: object, on_append: Callable[[], None]) -> AppendListener | None:
        """A listener for a PostgreSQL recorder; None for others (SQLite has no NOTIFY: followers poll)."""
        return cls(recorder, on_append) if isinstance(recorder, PostgresApplicationRecorder) else None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="bemtevi-append-listener", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        channel = SQL("LISTEN {0}").format(Identifier(self._recorder.channel_name))
        while not self._stopping.is_set():
            try:
                with self._recorder.datastore.get_connection() as conn:
                    conn.execute(channel)
                    try:
                        self._on_append()
                        while not self._stopping.is_set():
                            # At most 0.2 s per wait, so that a stop is seen.
                            for _ in conn.notifies(timeout=0.2, stop_after=1):
                                self._on_append()
                    finally:
                        if not conn.closed:
                            conn.execute("UNLISTEN *")
            except Exception as e:  # the connection was lost: listen again once it can be opened
                _log.warning("listening for appends failed (%s); trying again", e)
                self._stopping.wait(1.0)

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

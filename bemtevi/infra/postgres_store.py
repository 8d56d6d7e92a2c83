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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.sql import SQL, Identifier


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
        self._append_statement = SQL(
            "SELECT notification_id FROM {function}(%b, %b, %b, %b) AS appended(notification_id)"
        ).format(function=function)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        params = (
            [e.originator_id for e in stored_events],
            [e.originator_version for e in stored_events],
            [e.topic for e in stored_events],
            [e.state for e in stored_events],
        )
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._append_statement, params, prepare=True)
            return [row["notification_id"] for row in curs.fetchall()]

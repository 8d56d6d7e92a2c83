"""The read store: one DuckDB file owned by this process, plus the projector's tracking row.

Writes happen only in the projector's page transactions; API threads read through
per-thread cursors of the same connection (DuckDB connections are not shared across threads).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from bemtevi.projections.base import first_row

BACKLOG_CHECKPOINT = "128MB"

TRACKING_DDL = """
CREATE TABLE IF NOT EXISTS projection_tracking (
    name VARCHAR PRIMARY KEY,
    position BIGINT NOT NULL
)
"""

# Which read-model versions the tables were built by (kept apart from the tracking row, which
# the projector rewrites on every page).
SCHEMA_DDL = """
CREATE TABLE IF NOT EXISTS projection_schema (
    name VARCHAR PRIMARY KEY,
    schema VARCHAR NOT NULL
)
"""

# Which event store the read models and positions were built from (``EventStoreIdentity``).
SOURCE_DDL = """
CREATE TABLE IF NOT EXISTS projection_source (
    name VARCHAR PRIMARY KEY,
    store_id VARCHAR NOT NULL,
    description VARCHAR NOT NULL
)
"""

# Where a replica fed from Kafka stands on each partition of its topic: the offset of the next
# record to read, written in the same transaction as the rows and the tracking position.
OFFSETS_DDL = """
CREATE TABLE IF NOT EXISTS projection_offsets (
    name VARCHAR NOT NULL,
    "partition" INTEGER NOT NULL,
    next_offset BIGINT NOT NULL,
    PRIMARY KEY (name, "partition")
)
"""


class ReadStore:
    def __init__(self, path: Path | str = ":memory:", threads: int = 1) -> None:
        if isinstance(path, Path):
            path.parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        try:
            # One DuckDB thread by default: page writes are small, parallel scans only add overhead for them, and
            # the other core is busy reading and decoding the next page. Given at the connect, the instance starts
            # no pool of worker threads to stop again at once.
            self._con = duckdb.connect(self.path, config={"threads": int(threads)})
        except duckdb.IOException as e:
            raise RuntimeError(
                f"The read store {self.path} is in use by another process (is the server running?)"
            ) from e
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()
        self.write_lock = threading.Lock()
        self._con.execute("SET TimeZone = 'UTC'")
        # A stop leaves the write-ahead log (under DuckDB's checkpoint threshold) to the next start, which replays
        # it as after a crash: a checkpoint at every close rewrote each changed table's last row group, several
        # times the cost of that replay.
        self._con.execute("PRAGMA disable_checkpoint_on_shutdown")
        self._con.execute(TRACKING_DDL)
        self._con.execute(SCHEMA_DDL)
        self._con.execute(SOURCE_DDL)
        self._con.execute(OFFSETS_DDL)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cur: duckdb.DuckDBPyConnection | None = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self._con.cursor()
            cur.execute("SET TimeZone = 'UTC'")
            self._local.cursor = cur
            with self._cursors_lock:
                self._cursors.append(cur)
        return cur

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self.write_lock:
            cur = self.cursor()
            cur.execute("BEGIN TRANSACTION")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")

    @contextmanager
    def larger_checkpoints(self, enabled: bool = True) -> Iterator[None]:
        """While a backlog is written: DuckDB checkpoints when its write-ahead log passes ``BACKLOG_CHECKPOINT``,
        not its default 16 MB. Each checkpoint rewrites the tables' last, partly filled row groups, so over a
        backlog fewer, larger checkpoints write less; what is not checkpointed yet is held in memory (up to about
        the threshold more). Back to the default after it: a live follower's small writes keep the log short."""
        if not enabled:
            yield
            return
        self.cursor().execute(f"SET checkpoint_threshold = '{BACKLOG_CHECKPOINT}'")
        try:
            yield
        finally:
            self.cursor().execute("RESET checkpoint_threshold")

    @staticmethod
    def record_position(cur: duckdb.DuckDBPyConnection, name: str, position: int) -> None:
        """Store ``name``'s position in the transaction of ``cur``: an update of its row, which is there after the
        first time (an upsert, ``ON CONFLICT``, costs DuckDB about three times an update, and this is every
        projector page's)."""
        updated = first_row(cur.execute("UPDATE projection_tracking SET position = ? WHERE name = ?", [position, name]))
        if not updated[0]:
            cur.execute("INSERT INTO projection_tracking VALUES (?, ?)", [name, position])

    def tracked_position(self, name: str) -> int:
        row = first_row(self.cursor().execute("SELECT position FROM projection_tracking WHERE name = ?", [name]))
        return int(row[0]) if row else 0

    def schema_of(self, name: str) -> str | None:
        row = first_row(self.cursor().execute("SELECT schema FROM projection_schema WHERE name = ?", [name]))
        return str(row[0]) if row else None

    def set_schema(self, name: str, schema: str) -> None:
        with self.write_lock:
            self.cursor().execute(
                "INSERT INTO projection_schema VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET schema = excluded.schema",
                [name, schema],
            )

    def source_of(self, name: str) -> tuple[str, str] | None:
        """The id and description of the event store ``name`` was built from, if it recorded one."""
        row = first_row(
            self.cursor().execute("SELECT store_id, description FROM projection_source WHERE name = ?", [name])
        )
        return (str(row[0]), str(row[1])) if row else None

    @staticmethod
    def record_source(cur: duckdb.DuckDBPyConnection, name: str, store_id: str, description: str) -> None:
        cur.execute(
            "INSERT INTO projection_source VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE "
            "SET store_id = excluded.store_id, description = excluded.description",
            [name, store_id, description],
        )

    def offsets_of(self, name: str) -> dict[int, int]:
        """The stored next offset of each partition ``name`` (a Kafka topic's reader) has read."""
        rows = (
            self.cursor()
            .execute('SELECT "partition", next_offset FROM projection_offsets WHERE name = ?', [name])
            .fetchall()
        )
        return {int(partition): int(offset) for partition, offset in rows}

    @staticmethod
    def record_offsets(cur: duckdb.DuckDBPyConnection, name: str, offsets: dict[int, int]) -> None:
        if not offsets:
            return
        # One statement for every partition (an executemany runs one per row).
        rows = sorted(offsets.items())
        cur.execute(
            f"INSERT INTO projection_offsets VALUES {', '.join(['(?, ?, ?)'] * len(rows))} "
            'ON CONFLICT (name, "partition") DO UPDATE SET next_offset = excluded.next_offset',
            [value for partition, offset in rows for value in (name, partition, offset)],
        )

    def close(self) -> None:
        with self._cursors_lock:
            for cur in self._cursors:
                cur.close()
            self._cursors.clear()
        self._con.close()

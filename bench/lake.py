"""The read models in DuckLake on a PostgreSQL catalog, for the read-side bench (cluster mode's candidate (a)).

DuckLake keeps a table's rows in Parquet files under a data folder and its catalog (snapshots,
files, schema, small inlined commits) in PostgreSQL, so one process writes and any number of
processes on any machine read. It has no PRIMARY KEY, UNIQUE or ``ON CONFLICT``.

The product's read models are written for a DuckDB file: keyed tables and ``INSERT ... ON CONFLICT``
upserts. ``LakeReadStore`` runs them unchanged on DuckLake through ``LakeCursor``, which rewrites
exactly those two statement shapes as they are executed: a key constraint is left out of
``CREATE TABLE`` (the single writer keeps keys unique, as the folds already do within a page), and
``INSERT INTO t <rows> ON CONFLICT (k) DO UPDATE SET ... | DO NOTHING`` becomes
``MERGE INTO t USING (<rows>) AS excluded(<t's columns>) ON t.k = excluded.k WHEN MATCHED ...``,
whose ``SET`` clause is the original one word for word (``excluded`` names the new row in both).
For the product, the projector would need the same in its own statements: ``MERGE`` (which a DuckDB
file runs too) instead of ``ON CONFLICT``, and keys declared apart from the DDL.

The extensions are loaded from the pinned ``duckdb-ext-ducklake`` and ``duckdb-ext-postgres`` wheels
(the ``cluster`` extra): nothing is downloaded at run time.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import duckdb

from bemtevi.infra.duckdb_files import load_extension
from bemtevi.projections.store import SCHEMA_DDL, SOURCE_DDL, TRACKING_DDL, ReadStore

LAKE = "lake"
EXTENSIONS = ("postgres_scanner", "ducklake")


def catalog_dsn(postgres_url: str) -> str:
    """The libpq key/value string DuckLake's PostgreSQL catalog takes, from a postgresql:// URL."""
    url = urlparse(postgres_url)
    parts = {
        "dbname": url.path.lstrip("/") or "postgres",
        "host": url.hostname or "127.0.0.1",
        "port": str(url.port or 5432),
        "user": unquote(url.username or "postgres"),
    }
    if url.password:
        parts["password"] = unquote(url.password)
    return " ".join(f"{k}={v}" for k, v in parts.items())


def attach_lake(
    con: duckdb.DuckDBPyConnection, postgres_url: str, data_path: Path, *, read_only: bool, inlining_rows: int
) -> None:
    for name in EXTENSIONS:
        load_extension(con, name)
    options = [f"DATA_PATH '{data_path}'", f"DATA_INLINING_ROW_LIMIT {int(inlining_rows)}"]
    if read_only:
        options.append("READ_ONLY")
    con.execute(f"ATTACH 'ducklake:postgres:{catalog_dsn(postgres_url)}' AS {LAKE} ({', '.join(options)})")


_PRIMARY_KEY_CLAUSE = re.compile(r",\s*PRIMARY\s+KEY\s*\([^)]*\)", re.IGNORECASE)
_PRIMARY_KEY_COLUMN = re.compile(r"\s+PRIMARY\s+KEY\b", re.IGNORECASE)
_INDEX = re.compile(r"CREATE\s+INDEX[^;]*;?", re.IGNORECASE)  # a table's index, created with it: DuckLake has none
_UPSERT = re.compile(
    r"^\s*INSERT\s+INTO\s+(?P<table>\w+)\s+(?P<rows>.*?)\s+ON\s+CONFLICT\s*\((?P<keys>[^)]*)\)\s*"
    r"DO\s+(?:(?P<nothing>NOTHING)|UPDATE\s+SET\s+(?P<set>.*?))\s*$",
    re.IGNORECASE | re.DOTALL,
)


def lake_statement(sql: str, columns_of: Any) -> str:
    """``sql`` as DuckLake runs it: key constraints and indexes left out of CREATE TABLE, ON CONFLICT upserts as
    MERGE.

    ``columns_of(table)`` answers a table's column names in order (the new row's names in ``excluded``)."""
    if re.match(r"\s*CREATE\s+TABLE", sql, re.IGNORECASE):
        return _INDEX.sub("", _PRIMARY_KEY_COLUMN.sub("", _PRIMARY_KEY_CLAUSE.sub("", sql)))
    upsert = _UPSERT.match(sql)
    if upsert is None:
        return sql
    table = upsert["table"]
    columns = list(columns_of(table))
    keys = [k.strip() for k in upsert["keys"].split(",")]
    on = " AND ".join(f"{table}.{k} = excluded.{k}" for k in keys)
    merge = (
        f"MERGE INTO {table} USING ({upsert['rows']}) AS excluded({', '.join(columns)}) ON {on} "
        f"WHEN NOT MATCHED THEN INSERT VALUES ({', '.join(f'excluded.{c}' for c in columns)})"
    )
    if upsert["set"]:
        merge += f" WHEN MATCHED THEN UPDATE SET {upsert['set']}"
    return merge


class LakeCursor:
    """A DuckDB cursor on the lake that runs the read models' statements in their DuckLake form."""

    def __init__(self, cur: duckdb.DuckDBPyConnection, columns_of: Any) -> None:
        self._cur = cur
        self._columns_of = columns_of

    def execute(self, sql: str, parameters: Any = None) -> duckdb.DuckDBPyConnection:
        statement = lake_statement(sql, self._columns_of)
        if parameters is None:
            return self._cur.execute(statement)
        return self._cur.execute(statement, parameters)

    def __getattr__(self, name: str) -> Any:  # fetchall, register, unregister, close, ...
        return getattr(self._cur, name)


class LakeReadStore(ReadStore):
    """``ReadStore`` whose tables live in DuckLake: one writer process, readers in any process.

    The connection is in memory; the lake is attached to it and made every cursor's default catalog,
    so the read models' statements and queries run unchanged (through ``LakeCursor``)."""

    def __init__(
        self,
        postgres_url: str,
        data_path: Path,
        *,
        read_only: bool = False,
        threads: int = 1,
        inlining_rows: int = 0,
        target_file_size: str = "8MB",
        keep_snapshots: str = "10 seconds",
    ) -> None:
        data_path.mkdir(parents=True, exist_ok=True)
        self.path = f"ducklake:{data_path}"
        self._con = duckdb.connect(":memory:")
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()
        self.write_lock = threading.Lock()
        self._columns: dict[str, list[str]] = {}
        self._con.execute(f"SET threads = {int(threads)}")
        attach_lake(self._con, postgres_url, data_path, read_only=read_only, inlining_rows=inlining_rows)
        if not read_only:
            # What CHECKPOINT (``compact``) does: merge small files up to ``target_file_size`` only (larger
            # ones are not rewritten every time), and delete the files of snapshots older than
            # ``keep_snapshots`` (without it every merge keeps the old copies: the lake grew 10x in a run).
            for option, value in (
                ("target_file_size", target_file_size),
                ("expire_older_than", keep_snapshots),
                ("delete_older_than", keep_snapshots),
            ):
                self._con.execute(f"CALL {LAKE}.set_option('{option}', '{value}')")
            cur = self.cursor()
            for ddl in (TRACKING_DDL, SCHEMA_DDL, SOURCE_DDL):
                cur.execute(ddl)

    def _columns_of(self, table: str) -> list[str]:
        columns = self._columns.get(table)
        if columns is None:
            rows = self._con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND table_name = ? "
                "ORDER BY column_index",
                [LAKE, table],
            ).fetchall()
            columns = self._columns[table] = [r[0] for r in rows]
        return columns

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cur: Any = getattr(self._local, "cursor", None)
        if cur is None:
            raw = self._con.cursor()
            raw.execute("SET TimeZone = 'UTC'")
            raw.execute(f"USE {LAKE}")
            cur = LakeCursor(raw, self._columns_of)
            self._local.cursor = cur
            with self._cursors_lock:
                self._cursors.append(cur)
        return cur  # type: ignore[no-any-return]

    def compact(self) -> None:
        """The one writer's upkeep: small commits leave small files (each one a Parquet file, as data inlining
        is off), which slow every read until merged."""
        with self.write_lock:
            self.cursor().execute("CHECKPOINT")

    def disk_bytes(self) -> int:
        """What the lake's Parquet files take (its catalog is in PostgreSQL)."""
        root = Path(self.path.removeprefix("ducklake:"))
        return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())

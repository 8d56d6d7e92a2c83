"""What a read model is: tables, and a fold of one page of events into set-wise writes.

A page of events is folded in Python and written with a handful of statements, in the same
DuckDB transaction as the tracking position: per-event statements are ~100x too slow here.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import duckdb
import pyarrow as pa
from eventsourcing.persistence import Notification

from bemtevi.domain.errors import InvalidData

PRODUCT_TIME_ZONE = "America/Sao_Paulo"
SAO_PAULO = ZoneInfo(PRODUCT_TIME_ZONE)


def local_day(timestamp: datetime) -> date:
    """The product's calendar day of an event (America/Sao_Paulo)."""
    return timestamp.astimezone(SAO_PAULO).date()


def utc_wall_times(timestamps: list[datetime]) -> pa.Array:
    """Aware timestamps as a column of UTC wall times, converted by pyarrow in C (a Python
    ``astimezone`` per event cost a tenth of catch-up)."""
    return pa.array(timestamps, type=pa.timestamp("us", tz="UTC")).cast(pa.timestamp("us"))


def naive_utc(timestamp: datetime) -> datetime:
    return timestamp.astimezone(UTC).replace(tzinfo=None)


def stored_json(fields: str) -> str:
    """SQL reading a stored event's JSON (the column ``state``, bytes) once, into a struct of ``fields``
    (space-separated; ``name._data_`` for the library's encoded UUIDs and times), each as the text ``->>`` gives.
    ``->>`` parses the whole document again for each field it reads: a dozen fields cost several parses' time."""
    structure: dict[str, Any] = {}
    for field in fields.split():
        name, _, inner = field.partition(".")
        structure[name] = {inner: "VARCHAR"} if inner else "VARCHAR"
    return f"json_transform(decode(state), '{json.dumps(structure)}')"


def first_row(result: duckdb.DuckDBPyConnection) -> Any:
    """The first row of a result, reading the result to its end.

    A result left open (``fetchone()``) keeps its cursor's transaction open, and DuckDB then
    refuses the projector's next rewrite of a row that transaction saw ("write-write conflict on
    key"), which stops the read models. Every single-row read goes through here.
    """
    rows = result.fetchall()
    return rows[0] if rows else None


class PageFold(ABC):
    """Accumulates one page of events, then writes them set-wise."""

    @abstractmethod
    def apply(self, event: Any, position: int) -> None: ...

    def apply_raw(self, notification: Notification) -> None:
        """For the model's ``raw_event_types``: the stored event, not decoded."""
        raise NotImplementedError(f"{type(self).__name__} takes no raw events")

    @abstractmethod
    def write(self, cur: duckdb.DuckDBPyConnection) -> None: ...


def rewrite_rows(
    cur: duckdb.DuckDBPyConnection,
    table: str,
    key: str,
    columns: tuple[str, ...],
    rows: Mapping[str, dict[str, Any] | None],
    schema: pa.Schema | None = None,
) -> None:
    """Make the rows of ``table`` whose ``key`` is among ``rows``' keys ``rows``' values (a None value: the row is
    gone): one DELETE of the gone ones and one upsert of the others from an Arrow page of ``columns`` (typed by
    ``schema`` when given, for columns a page of Nones would not type).

    Upserted in place, never deleted and inserted again: DuckDB refuses a second delete-and-insert of one key
    while any reader holds a transaction begun before the first (a result left open on a cursor does),
    "write-write conflict on key" at every retry, and the projector would stop."""
    if not rows:
        return
    gone = [k for k, row in rows.items() if row is None]
    if gone:
        cur.execute(f"DELETE FROM {table} WHERE {key} IN ?", [gone])
    kept = [row for row in rows.values() if row is not None]
    if not kept:
        return
    page = pa.Table.from_pylist(kept, schema=schema) if schema is not None else pa.Table.from_pylist(kept)
    name = f"page_{table}"
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c != key)
    cur.register(name, page.select(list(columns)))
    try:
        cur.execute(
            f"INSERT INTO {table} SELECT {', '.join(columns)} FROM {name} ON CONFLICT ({key}) DO UPDATE SET {updates}"
        )
    finally:
        cur.unregister(name)


def load_rows(
    cur: duckdb.DuckDBPyConnection, table: str, columns: tuple[str, ...], events: list[Any]
) -> dict[str, dict[str, Any]]:
    """The rows of ``table`` (keyed by the first of ``columns``) that ``events`` are about, by originator id."""
    ids = sorted({str(e.originator_id) for e in events})
    if not ids:
        return {}
    found = cur.execute(f"SELECT {', '.join(columns)} FROM {table} WHERE {columns[0]} IN ?", [ids]).fetchall()
    return {str(r[0]): dict(zip(columns, r, strict=True)) for r in found}


class RowFold(PageFold):
    """A page of events that each change one row of ``table``, keyed by the event's originator id (the first
    of ``columns``): the rows the page touches are read in one query, every event changes its row in turn
    (``change``), and the rows are written back with ``rewrite_rows``."""

    table: ClassVar[str]
    columns: ClassVar[tuple[str, ...]]
    schema: ClassVar[pa.Schema | None] = None

    def __init__(self) -> None:
        self.events: list[Any] = []

    def apply(self, event: Any, position: int) -> None:
        self.events.append(event)

    @abstractmethod
    def change(self, row: dict[str, Any] | None, key: str, event: Any, at: datetime) -> dict[str, Any] | None:
        """The row after ``event`` (``row`` is None when there is none yet); None: there is no row (an event
        about a row never made is ignored), or it is gone. ``at`` is the event's time as naive UTC."""

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if not self.events:
            return
        rows: dict[str, dict[str, Any] | None] = dict(load_rows(cur, self.table, self.columns, self.events))
        for event in self.events:
            key = str(event.originator_id)
            changed = self.change(rows.get(key), key, event, naive_utc(event.timestamp))
            if changed is not None or key in rows:
                rows[key] = changed
        rewrite_rows(cur, self.table, self.columns[0], self.columns, rows, self.schema)


class ReadModel(ABC):
    name: str
    tables: tuple[str, ...]
    event_types: tuple[type[Any], ...]
    # Bump when the tables' shape or what is folded into them changes: a store built by another
    # version is dropped and rebuilt from the log at start (see Projector).
    version: int = 1
    # Events the fold reads straight from their stored JSON (hot, many, simple): decoding them
    # in Python and rebuilding columns was half of catch-up time.
    raw_event_types: tuple[type[Any], ...] = ()

    @abstractmethod
    def create(self, cur: duckdb.DuckDBPyConnection) -> None: ...

    def drop(self, cur: duckdb.DuckDBPyConnection) -> None:
        for table in self.tables:
            cur.execute(f"DROP TABLE IF EXISTS {table}")

    @abstractmethod
    def fold(self) -> PageFold: ...


def order_clause(order: str | None, allowed: Mapping[str, str], default: str) -> str:
    """``ORDER BY`` for ``order`` ('name' ascending, '-name' descending) from an allow-list.

    The client's text only chooses among ``allowed``'s keys; the SQL is ours. An unknown column
    is a 400 (``InvalidData`` on field ``order``). ``default`` ends every order, so pages are stable.
    """
    if not order:
        return f"ORDER BY {default}"
    descending = order.startswith("-")
    key = order[1:] if descending else order
    if key not in allowed:
        raise InvalidData("Invalid sort column", field="order")
    return f"ORDER BY {allowed[key]} {'DESC' if descending else 'ASC'} NULLS LAST, {default}"

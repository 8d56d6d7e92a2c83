"""Batches and manual enrichments: one row per batch (issue 18).

A batch has few events (submitted, started, progressed about once a second, finished / failed /
canceled, deleted), each carrying what its row needs, so a page is folded by loading the rows it
touches, changing them in Python and writing them back in two statements (as the catalogue does); a
replay from the log gives the same rows as following it. A deleted batch's row is removed. Names
(user, group, layout) are resolved when read, from the directory's and the catalogue's tables.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

from bemtevi.domain.batches import OPEN_STATUSES, Batch, BatchStatus, cancel_code
from bemtevi.projections.base import PageFold, ReadModel, RowFold, first_row, order_clause

BATCHES_DDL = """
CREATE TABLE IF NOT EXISTS batches (
    batch_id VARCHAR PRIMARY KEY,
    group_id VARCHAR NOT NULL,
    user_id VARCHAR,
    kind VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    layout_id VARCHAR NOT NULL,
    query_type VARCHAR,
    observation VARCHAR NOT NULL,
    file_name VARCHAR NOT NULL,
    extension VARCHAR NOT NULL,
    records BIGINT NOT NULL,
    done BIGINT NOT NULL,
    found BIGINT NOT NULL,
    invalid BIGINT NOT NULL,
    credits_reserved BIGINT NOT NULL,
    credits_charged BIGINT NOT NULL,
    return_file_name VARCHAR,
    message VARCHAR,
    message_code VARCHAR,
    canceled_by VARCHAR,
    canceled_by_role VARCHAR,
    active BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    started_at TIMESTAMP,
    finished_at TIMESTAMP,
    updated_at TIMESTAMP NOT NULL
)
"""

_COLUMNS = (
    "batch_id",
    "group_id",
    "user_id",
    "kind",
    "status",
    "layout_id",
    "query_type",
    "observation",
    "file_name",
    "extension",
    "records",
    "done",
    "found",
    "invalid",
    "credits_reserved",
    "credits_charged",
    "return_file_name",
    "message",
    "message_code",
    "canceled_by",
    "canceled_by_role",
    "active",
    "created_at",
    "started_at",
    "finished_at",
    "updated_at",
)
_SCHEMA = pa.schema(
    [
        (c, pa.int64())
        if c in ("records", "done", "found", "invalid", "credits_reserved", "credits_charged")
        else (c, pa.bool_())
        if c == "active"
        else (c, pa.timestamp("us"))
        if c.endswith("_at")
        else (c, pa.string())
        for c in _COLUMNS
    ]
)
_EVENTS = (
    Batch.Submitted,
    Batch.Started,
    Batch.Progressed,
    Batch.Finished,
    Batch.Failed,
    Batch.Canceled,
    Batch.Activated,
    Batch.Inactivated,
    Batch.Deleted,
)


class _Fold(RowFold):
    table, columns, schema = "batches", _COLUMNS, _SCHEMA

    def change(self, row: dict[str, Any] | None, key: str, event: Any, at: datetime) -> dict[str, Any] | None:
        if isinstance(event, Batch.Submitted):
            return {
                "batch_id": key,
                "group_id": str(event.group_id),
                "user_id": str(event.user_id) if event.user_id else None,
                "kind": event.kind,
                "status": BatchStatus.WAITING.value,
                "layout_id": event.layout_id,
                "query_type": event.query_type,
                "observation": event.observation,
                "file_name": event.file_name,
                "extension": event.extension,
                "records": event.records,
                "done": 0,
                "found": 0,
                "invalid": 0,
                "credits_reserved": event.credits_reserved,
                "credits_charged": 0,
                "return_file_name": None,
                "message": None,
                "message_code": None,
                "canceled_by": None,
                "canceled_by_role": None,
                "active": True,
                "created_at": at,
                "started_at": None,
                "finished_at": None,
                "updated_at": at,
            }
        if row is None:
            return None
        row["updated_at"] = at
        if isinstance(event, Batch.Deleted):
            return None
        if isinstance(event, Batch.Started):
            row["status"] = BatchStatus.PROCESSING.value
            row["started_at"] = row["started_at"] or at
        elif isinstance(event, Batch.Progressed):
            row["done"], row["found"], row["invalid"] = event.records_done, event.found, event.invalid
        elif isinstance(event, Batch.Finished):
            row["status"] = BatchStatus.AVAILABLE.value
            row["records"] = row["done"] = event.records
            row["found"], row["invalid"] = event.found, event.invalid
            row["credits_charged"] = event.charged
            row["return_file_name"] = event.return_file_name
            row["finished_at"] = at
        elif isinstance(event, Batch.Failed):
            row["status"] = BatchStatus.ERROR.value
            row["message"] = event.message
            row["message_code"] = event.code
            row["finished_at"] = at
        elif isinstance(event, (Batch.Activated, Batch.Inactivated)):
            row["active"] = isinstance(event, Batch.Activated)
        elif isinstance(event, Batch.Canceled):
            row["status"] = BatchStatus.CANCELED.value
            row["message"] = event.message
            row["message_code"] = cancel_code(event.message)
            # Who canceled is the event's actor (older events too); their role is known since version 2.
            row["canceled_by"] = str(event.actor_id) if event.actor_id else None
            row["canceled_by_role"] = event.role
            row["finished_at"] = at
        return row


class BatchesReadModel(ReadModel):
    name = "batches"
    tables = ("batches",)
    version = 4  # 2: message_code; 3: canceled_by, canceled_by_role; 4: active
    event_types = _EVENTS

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        # No index: the DuckLake read side (cluster mode) has none, and a group's batches are found by the
        # scan's zone maps like every other read model's rows.
        cur.execute(BATCHES_DDL)

    def fold(self) -> PageFold:
        return _Fold()


# -- queries ---------------------------------------------------------------------------------

# The columns the list may sort by (the grid's field -> SQL); anything else is refused.
BATCHES_ORDER = {
    "createdAt": "b.created_at",
    "status": "b.status",
    "kind": "b.kind",
    "fileName": "lower(b.file_name)",
    "records": "b.records",
    "found": "b.found",
    "creditsCharged": "b.credits_charged",
    "finishedAt": "b.finished_at",
    "userName": "lower(u.name)",
    "groupName": "lower(g.name)",
    "layoutName": "lower(l.file_name)",
}

_SELECT = f"""
    SELECT {", ".join("b." + c for c in _COLUMNS)}, u.name, g.name, l.file_name, cu.name
    FROM batches b
    LEFT JOIN users u ON u.user_id = b.user_id
    LEFT JOIN users cu ON cu.user_id = b.canceled_by
    LEFT JOIN groups g ON g.group_id = b.group_id
    LEFT JOIN layouts l ON l.layout_id = b.layout_id
"""


def _row(r: tuple[Any, ...]) -> dict[str, Any]:
    d = dict(zip(_COLUMNS, r[: len(_COLUMNS)], strict=True))
    user_name, group_name, layout_name, canceled_by_name = r[len(_COLUMNS) :]
    return {
        "id": d["batch_id"],
        "createdAt": d["created_at"],
        "kind": d["kind"],
        "status": d["status"],
        "userId": d["user_id"],
        "userName": user_name,
        "groupId": d["group_id"],
        "groupName": group_name,
        "layoutId": d["layout_id"],
        "layoutName": layout_name,
        "queryType": d["query_type"],
        "observation": d["observation"],
        "fileName": d["file_name"],
        "extension": d["extension"],
        "records": d["records"],
        "done": d["done"],
        "found": d["found"],
        "invalid": d["invalid"],
        "creditsReserved": d["credits_reserved"],
        "creditsCharged": d["credits_charged"],
        "returnFileName": d["return_file_name"],
        "message": d["message"],
        "messageCode": d["message_code"],
        "canceledById": d["canceled_by"],
        "canceledByName": canceled_by_name,
        "canceledByRole": d["canceled_by_role"],
        "active": d["active"],
        "startedAt": d["started_at"],
        "finishedAt": d["finished_at"],
    }


def batches_page(
    cur: duckdb.DuckDBPyConnection,
    group_ids: list[str],
    *,
    status: str | None = None,
    kind: str | None = None,
    order: str | None = None,
    offset: int = 0,
    limit: int = 20,
) -> tuple[list[dict[str, Any]], int]:
    """A page of the batches of ``group_ids`` (the caller's scope), newest first unless ``order``."""
    where = ["b.group_id IN ?"]
    args: list[object] = [group_ids]
    if status:
        where.append("b.status = ?")
        args.append(status)
    if kind:
        where.append("b.kind = ?")
        args.append(kind)
    condition = " AND ".join(where)
    total = first_row(cur.execute(f"SELECT count(*) FROM batches b WHERE {condition}", args))[0]
    rows = cur.execute(
        f"{_SELECT} WHERE {condition} {order_clause(order, BATCHES_ORDER, 'b.created_at DESC, b.batch_id')} "
        "LIMIT ? OFFSET ?",
        [*args, limit, offset],
    ).fetchall()
    return [_row(r) for r in rows], int(total)


def batch_row(cur: duckdb.DuckDBPyConnection, batch_id: str) -> dict[str, Any] | None:
    row = first_row(cur.execute(f"{_SELECT} WHERE b.batch_id = ?", [batch_id]))
    return _row(row) if row else None


def open_batches(cur: duckdb.DuckDBPyConnection, group_id: str | None = None) -> list[str]:
    """Batches waiting or processing (of one group, or all): the per-group limit, and what a runner resumes."""
    statuses = sorted(s.value for s in OPEN_STATUSES)
    if group_id is None:
        found = cur.execute(
            "SELECT batch_id FROM batches WHERE status IN ? ORDER BY created_at, batch_id", [statuses]
        ).fetchall()
    else:
        found = cur.execute(
            "SELECT batch_id FROM batches WHERE group_id = ? AND status IN ? ORDER BY created_at, batch_id",
            [group_id, statuses],
        ).fetchall()
    return [r[0] for r in found]


def batch_usage(cur: duckdb.DuckDBPyConnection, group_id: str) -> list[dict[str, Any]]:
    """The dashboard's batch figures of one group, per kind (batch, manual enrichment), both always listed:
    files sent, their records, the records enriched so far and the credits charged (a deleted batch is gone)."""
    found = {
        r[0]: r[1:]
        for r in cur.execute(
            """
            SELECT kind, count(*), coalesce(sum(records), 0), coalesce(sum(done), 0), coalesce(sum(credits_charged), 0)
            FROM batches WHERE group_id = ? GROUP BY kind
            """,
            [group_id],
        ).fetchall()
    }
    usage = []
    for kind in ("batch", "manual"):
        batches, records, done, credits = (int(n) for n in found.get(kind, (0, 0, 0, 0)))
        usage.append({"kind": kind, "batches": batches, "records": records, "done": done, "credits": credits})
    return usage

"""The reports screen's read model: what a finished batch counted, beside the consultations' own rows.

A panel or API lookup already has its row in ``consultations`` (one per lookup: time, group, user,
category, query type, supplier, channel, status); that table stays the one record of them, and the
report reads it. A batch's records are not events of their own: only ``Batch.Finished`` says how many
were found (charged) and how many not, so each finished batch is one row here, split in two when read.
Failed and canceled batches release what they held and count for nothing.

The fold takes the batch events the batches read model already decodes, so a lookup (the hot event)
costs this model nothing. Submitted is kept until Finished arrives (a batch's events may be far apart).
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

from bemtevi.domain.batches import Batch
from bemtevi.projections.base import PageFold, ReadModel, naive_utc, rewrite_rows

REPORT_BATCHES_DDL = """
CREATE TABLE IF NOT EXISTS report_batches (
    batch_id VARCHAR PRIMARY KEY,
    group_id VARCHAR NOT NULL,
    user_id VARCHAR,
    query_type VARCHAR NOT NULL,
    finished_at TIMESTAMP,
    found BIGINT NOT NULL,
    not_found BIGINT NOT NULL,
    credits BIGINT NOT NULL
)
"""

_COLUMNS = ("batch_id", "group_id", "user_id", "query_type", "finished_at", "found", "not_found", "credits")
_SCHEMA = pa.schema(
    [
        ("batch_id", pa.string()),
        ("group_id", pa.string()),
        ("user_id", pa.string()),
        ("query_type", pa.string()),
        ("finished_at", pa.timestamp("us")),
        ("found", pa.int64()),
        ("not_found", pa.int64()),
        ("credits", pa.int64()),
    ]
)


class _Fold(PageFold):
    def __init__(self) -> None:
        self.events: list[Any] = []

    def apply(self, event: Any, position: int) -> None:
        self.events.append(event)

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if not self.events:
            return
        ids = sorted({str(e.originator_id) for e in self.events})
        rows: dict[str, dict[str, Any] | None] = {
            str(r[0]): dict(zip(_COLUMNS, r, strict=True))
            for r in cur.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM report_batches WHERE batch_id IN ?", [ids]
            ).fetchall()
        }
        for event in self.events:
            batch_id = str(event.originator_id)
            if isinstance(event, Batch.Submitted):
                rows[batch_id] = {
                    "batch_id": batch_id,
                    "group_id": str(event.group_id),
                    "user_id": str(event.user_id) if event.user_id else None,
                    # A batch by layout alone names no query type: the report shows it as none ('').
                    "query_type": event.query_type or "",
                    "finished_at": None,
                    "found": 0,
                    "not_found": 0,
                    "credits": 0,
                }
                continue
            row = rows.get(batch_id)
            if row is None:
                continue
            # Only Finished reaches here (see event_types). Invalid documents were never looked up.
            row["finished_at"] = naive_utc(event.timestamp)
            row["found"] = event.found
            row["not_found"] = max(event.records - event.found - event.invalid, 0)
            row["credits"] = event.charged
        rewrite_rows(cur, "report_batches", "batch_id", _COLUMNS, rows, _SCHEMA)


class ReportsReadModel(ReadModel):
    name = "reports"
    tables = ("report_batches",)
    event_types = (Batch.Submitted, Batch.Finished)

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(REPORT_BATCHES_DDL)

    def fold(self) -> PageFold:
        return _Fold()

"""Consultations read model (one row per lookup) and usage per group, day and category."""

from __future__ import annotations

from datetime import date
from typing import Any

import duckdb
import pyarrow as pa
from eventsourcing.persistence import Notification

from bemtevi.domain.consultations import Consultation
from bemtevi.projections.base import PRODUCT_TIME_ZONE, PageFold, ReadModel, first_row, stored_json

CONSULTATIONS_DDL = """
CREATE TABLE IF NOT EXISTS consultations (
    -- No key index: the tracking position already makes each row unique, and an ART index
    -- made page inserts several times slower.
    position BIGINT NOT NULL,
    consultation_id VARCHAR NOT NULL,
    group_id VARCHAR NOT NULL,
    user_id VARCHAR,
    document VARCHAR NOT NULL,
    document_type VARCHAR NOT NULL,
    query_type VARCHAR NOT NULL,
    category VARCHAR NOT NULL,
    supplier VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    credits INTEGER NOT NULL,
    channel VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    purpose VARCHAR,  -- what its user said it was for; NULL when nothing was said (and for older events)
    document_key BIGINT  -- document_key(document): the data-subject report reads one document's rows by it
);
-- The data-subject report reads one document's consultations through it, not by a scan of them all (an integer
-- key: its index is cheaper to write than the text's).
CREATE INDEX IF NOT EXISTS consultations_document ON consultations (document_key);
"""


def document_key(document: str) -> int:
    """A document's digits as an integer key, after a leading 1 so that a CNPJ's leading zeros never make it a
    CPF's number (``consultations.document_key``, ``subject_batch_documents.document``)."""
    return int("1" + document)


USAGE_DDL = """
CREATE TABLE IF NOT EXISTS usage_daily (
    group_id VARCHAR NOT NULL,
    day DATE NOT NULL,
    category VARCHAR NOT NULL,
    query_type VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    channel VARCHAR NOT NULL,
    consultations BIGINT NOT NULL,
    credits BIGINT NOT NULL,
    PRIMARY KEY (group_id, day, category, query_type, status, channel)
)
"""

# The stored JSON of Consultation.Recorded, read by DuckDB (see projections/credits.py for the
# library's encoding of UUIDs and times).
_RECORDED_JSON = stored_json(
    "group_id._data_ user_id._data_ document document_type query_type category supplier status credits channel "
    "timestamp._data_ purpose"
)
_RECORDED_COLUMNS = """
    position,
    consultation_id,
    s.group_id._data_::UUID::VARCHAR,
    s.user_id._data_::UUID::VARCHAR,
    s.document,
    s.document_type,
    s.query_type,
    s.category,
    s.supplier,
    s.status,
    s.credits::INTEGER,
    s.channel,
    s."timestamp"._data_::TIMESTAMPTZ::TIMESTAMP,
    s.purpose,
    TRY_CAST('1' || s.document AS BIGINT)  -- NULL for no digits: no report's document is such
"""


class _ConsultationsFold(PageFold):
    """Keeps the page's stored events; DuckDB reads their fields at write time."""

    def __init__(self) -> None:
        self.positions: list[int] = []
        self.ids: list[str] = []
        self.states: list[bytes] = []

    def apply(self, event: Any, position: int) -> None:
        raise NotImplementedError("consultations are projected from their stored JSON")

    def apply_raw(self, notification: Notification) -> None:
        self.positions.append(notification.id)
        self.ids.append(str(notification.originator_id))
        self.states.append(notification.state)

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if not self.positions:
            return
        page = pa.table(
            {
                "position": pa.array(self.positions, type=pa.int64()),
                "consultation_id": self.ids,
                "state": pa.array(self.states, type=pa.binary()),
            }
        )
        cur.register("page_consultations", page)
        try:
            cur.execute(
                f"""
                INSERT INTO consultations
                SELECT {_RECORDED_COLUMNS}
                FROM (SELECT position, consultation_id, {_RECORDED_JSON} AS s FROM page_consultations)
                """
            )
        finally:
            cur.unregister("page_consultations")
        # The product's calendar day is São Paulo's. Its offsets are whole hours, so the day
        # is computed once per distinct UTC hour rather than once per row.
        cur.execute(
            f"""
            INSERT INTO usage_daily
            WITH hourly AS (
                SELECT group_id, date_trunc('hour', created_at) AS hour, category, query_type, status, channel,
                       count(*) AS consultations, sum(credits) AS credits
                FROM consultations WHERE position BETWEEN ? AND ? GROUP BY ALL
            )
            SELECT group_id, timezone('{PRODUCT_TIME_ZONE}', timezone('UTC', hour))::DATE AS day,
                   category, query_type, status, channel, sum(consultations), sum(credits)
            FROM hourly GROUP BY ALL
            ON CONFLICT (group_id, day, category, query_type, status, channel) DO UPDATE SET
                consultations = usage_daily.consultations + excluded.consultations,
                credits = usage_daily.credits + excluded.credits
            """,
            [self.positions[0], self.positions[-1]],
        )


class ConsultationsReadModel(ReadModel):
    name = "consultations"
    # 2: usage per day also by channel (the dashboard's charts); 3: each consultation's purpose; 4: document_key
    version = 4
    tables = ("consultations", "usage_daily")
    event_types = ()
    raw_event_types = (Consultation.Recorded,)

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(CONSULTATIONS_DDL)
        cur.execute(USAGE_DDL)

    def fold(self) -> PageFold:
        return _ConsultationsFold()


# -- queries ---------------------------------------------------------------------------------


def usage_summary(cur: duckdb.DuckDBPyConnection, group_id: str, today: date, days: int = 30) -> dict[str, Any]:
    total, today_count = first_row(
        cur.execute(
            """
        SELECT coalesce(sum(consultations), 0), coalesce(sum(consultations) FILTER (WHERE day = ?), 0)
        FROM usage_daily WHERE group_id = ?
        """,
            [today, group_id],
        )
    ) or (0, 0)
    by_day = cur.execute(
        """
        SELECT day, sum(consultations)::BIGINT FROM usage_daily
        WHERE group_id = ? AND day > ? - CAST(? AS INTEGER)
        GROUP BY day ORDER BY day
        """,
        [group_id, today, days],
    ).fetchall()
    return {
        "consultationsTotal": int(total),
        "consultationsToday": int(today_count),
        "byDay": [{"day": d.isoformat(), "count": int(c)} for d, c in by_day],
    }


def recent_consultations(cur: duckdb.DuckDBPyConnection, group_id: str, limit: int = 10) -> list[dict[str, Any]]:
    rows = cur.execute(
        """
        SELECT consultation_id, document, document_type, query_type, status, credits, created_at
        FROM consultations WHERE group_id = ? ORDER BY position DESC LIMIT ?
        """,
        [group_id, limit],
    ).fetchall()
    return [
        {
            "id": r[0],
            "document": r[1],
            "documentType": r[2],
            "queryType": r[3],
            "status": r[4],
            "credits": r[5],
            "createdAt": r[6],
        }
        for r in rows
    ]


def consultation_of_group(cur: duckdb.DuckDBPyConnection, group_id: str, consultation_id: str) -> dict[str, Any] | None:
    """One consultation of ``group_id`` (reopening a result), or None."""
    row = first_row(
        cur.execute(
            """
            SELECT document, document_type, query_type, supplier, status, credits, created_at
            FROM consultations WHERE group_id = ? AND consultation_id = ?
            """,
            [group_id, consultation_id],
        )
    )
    if row is None:
        return None
    keys = ("document", "document_type", "query_type", "supplier", "status", "credits", "created_at")
    return dict(zip(keys, row, strict=True))


def usage_in_period(cur: duckdb.DuckDBPyConnection, group_ids: list[str], first: date, last: date) -> dict[str, Any]:
    """Consultations and credits of the groups over São Paulo days [first, last]: per day (every day of
    the period, zero included), per query type and per channel, in one pass over ``usage_daily``: its
    rows summed per day, type and channel first (at most a few thousand), the four totals from those
    (20% faster than grouping sets over the raw rows on the root's tree, ``bench/dashboard.py``)."""
    rows = cur.execute(
        """
        WITH used AS MATERIALIZED (
            SELECT day, query_type, channel, sum(consultations) AS consultations, sum(credits) AS credits
            FROM usage_daily
            WHERE group_id IN (SELECT unnest(?::VARCHAR[])) AND day BETWEEN ? AND ?
            GROUP BY ALL
        ),
        sets AS MATERIALIZED (
            SELECT day, query_type, channel, sum(consultations)::BIGINT AS consultations,
                   sum(credits)::BIGINT AS credits
            FROM used
            GROUP BY GROUPING SETS ((day), (query_type), (channel), ())
        ),
        days AS (SELECT d::DATE AS day FROM generate_series(?::DATE, ?::DATE, INTERVAL 1 DAY) t(d))
        SELECT * FROM (
        SELECT 'day' AS dimension, strftime(days.day, '%Y-%m-%d') AS key,
               coalesce(s.consultations, 0) AS consultations, coalesce(s.credits, 0) AS credits
        FROM days LEFT JOIN sets s ON s.day = days.day
        UNION ALL
        SELECT 'queryType', query_type, consultations, credits FROM sets WHERE query_type IS NOT NULL
        UNION ALL
        SELECT 'channel', channel, consultations, credits FROM sets WHERE channel IS NOT NULL
        UNION ALL
        SELECT 'total', '', coalesce(consultations, 0), coalesce(credits, 0) FROM sets
        WHERE day IS NULL AND query_type IS NULL AND channel IS NULL
        )
        -- Days in calendar order; query types and channels busiest first.
        ORDER BY dimension, CASE WHEN dimension = 'day' THEN 0 ELSE -consultations END, key
        """,
        [group_ids, first, last, first, last],
    ).fetchall()
    by: dict[str, list[dict[str, Any]]] = {"day": [], "queryType": [], "channel": [], "total": []}
    for dimension, key, consultations, credits in rows:
        by[dimension].append({"key": key, "consultations": int(consultations), "credits": int(credits)})
    # No usage at all: the grand-total set has no row.
    total = by["total"][0] if by["total"] else {"consultations": 0, "credits": 0}
    return {
        "consultations": total["consultations"],
        "credits": total["credits"],
        "byDay": [{"day": d["key"], "consultations": d["consultations"], "credits": d["credits"]} for d in by["day"]],
        "byQueryType": by["queryType"],
        "byChannel": by["channel"],
    }


def top_consumers(
    cur: duckdb.DuckDBPyConnection, group_id: str, first: date, last: date, limit: int
) -> list[dict[str, Any]]:
    """The groups below ``group_id`` (never itself, its parents or its siblings) that consulted most
    over São Paulo days [first, last], each counted for its own lookups; ties by credits, then name.

    The period's usage is summed per group before the subtree is joined: a hash probe of the subtree
    per ``usage_daily`` row made the root's year four times slower (``bench/dashboard.py``)."""
    rows = cur.execute(
        """
        WITH RECURSIVE below(group_id) AS (
            SELECT group_id FROM groups WHERE parent_id = ?
            UNION
            SELECT g.group_id FROM groups g JOIN below b ON g.parent_id = b.group_id
        ),
        used AS (
            SELECT group_id, sum(consultations)::BIGINT AS consultations, sum(credits)::BIGINT AS credits
            FROM usage_daily
            WHERE day BETWEEN ? AND ?
            GROUP BY group_id
        )
        SELECT u.group_id, g.name, g.group_type, p.name, u.consultations, u.credits
        FROM used u
        SEMI JOIN below b ON b.group_id = u.group_id
        JOIN groups g ON g.group_id = u.group_id
        LEFT JOIN groups p ON p.group_id = g.parent_id
        ORDER BY u.consultations DESC, u.credits DESC, lower(g.name), u.group_id
        LIMIT ?
        """,
        [group_id, first, last, limit],
    ).fetchall()
    keys = ("groupId", "name", "type", "parentName", "consultations", "credits")
    return [dict(zip(keys, row, strict=True)) for row in rows]

"""Consultations read model (one row per lookup) and usage per group, day and category."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import duckdb
import pyarrow as pa

from bemtevi.domain.consultations import Consultation
from bemtevi.projections.base import PRODUCT_TIME_ZONE, PageFold, ReadModel, naive_utc

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
    created_at TIMESTAMP NOT NULL
)
"""

USAGE_DDL = """
CREATE TABLE IF NOT EXISTS usage_daily (
    group_id VARCHAR NOT NULL,
    day DATE NOT NULL,
    category VARCHAR NOT NULL,
    query_type VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    consultations BIGINT NOT NULL,
    credits BIGINT NOT NULL,
    PRIMARY KEY (group_id, day, category, query_type, status)
)
"""

_COLUMNS = (
    "position",
    "consultation_id",
    "group_id",
    "user_id",
    "document",
    "document_type",
    "query_type",
    "category",
    "supplier",
    "status",
    "credits",
    "channel",
    "created_at",
)


class _ConsultationsFold(PageFold):
    """Keeps the page's events; columns are built at write time, in the writer thread."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.positions: list[int] = []

    def apply(self, event: Any, position: int) -> None:
        self.events.append(event)
        self.positions.append(position)

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        events = self.events
        if not events:
            return
        page = pa.table(
            {
                "position": self.positions,
                "consultation_id": [str(e.originator_id) for e in events],
                "group_id": [str(e.group_id) for e in events],
                "user_id": [str(e.user_id) if e.user_id else None for e in events],
                "document": [e.document for e in events],
                "document_type": [e.document_type for e in events],
                "query_type": [e.query_type for e in events],
                "category": [e.category for e in events],
                "supplier": [e.supplier for e in events],
                "status": [e.status for e in events],
                "credits": [e.credits for e in events],
                "channel": [e.channel for e in events],
                # Event timestamps are UTC; kept as UTC wall time.
                "created_at": [naive_utc(e.timestamp) for e in events],
            }
        )
        cur.register("page_consultations", page)
        try:
            cur.execute(f"INSERT INTO consultations SELECT {', '.join(_COLUMNS)} FROM page_consultations")
            # The product's calendar day is São Paulo's. Its offsets are whole hours, so the day
            # is computed once per distinct UTC hour rather than once per row.
            cur.execute(
                f"""
                INSERT INTO usage_daily
                WITH hourly AS (
                    SELECT group_id, date_trunc('hour', created_at) AS hour, category, query_type, status,
                           count(*) AS consultations, sum(credits) AS credits
                    FROM page_consultations GROUP BY ALL
                )
                SELECT group_id, timezone('{PRODUCT_TIME_ZONE}', timezone('UTC', hour))::DATE AS day,
                       category, query_type, status, sum(consultations), sum(credits)
                FROM hourly GROUP BY ALL
                ON CONFLICT (group_id, day, category, query_type, status) DO UPDATE SET
                    consultations = usage_daily.consultations + excluded.consultations,
                    credits = usage_daily.credits + excluded.credits
                """
            )
        finally:
            cur.unregister("page_consultations")


class ConsultationsReadModel(ReadModel):
    name = "consultations"
    tables = ("consultations", "usage_daily")
    event_types = (Consultation.Recorded,)

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(CONSULTATIONS_DDL)
        cur.execute(USAGE_DDL)

    def fold(self) -> PageFold:
        return _ConsultationsFold()


# -- queries ---------------------------------------------------------------------------------


def usage_summary(cur: duckdb.DuckDBPyConnection, group_id: str, today: date, days: int = 30) -> dict[str, Any]:
    total, today_count = cur.execute(
        """
        SELECT coalesce(sum(consultations), 0), coalesce(sum(consultations) FILTER (WHERE day = ?), 0)
        FROM usage_daily WHERE group_id = ?
        """,
        [today, group_id],
    ).fetchone() or (0, 0)
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
            "createdAt": _utc_text(r[6]),
        }
        for r in rows
    ]


def _utc_text(value: datetime) -> str:
    """The specification's wire format: 'YYYY-MM-DD HH:MM:SS', in UTC."""
    return value.strftime("%Y-%m-%d %H:%M:%S")

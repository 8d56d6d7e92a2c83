"""Consultations read model (one row per lookup) and usage per group, day and category."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime
from typing import Any

import duckdb
import pyarrow as pa

from bemtevi.domain.consultations import Consultation
from bemtevi.projections.base import PageFold, ReadModel, local_day, naive_utc

CONSULTATIONS_DDL = """
CREATE TABLE IF NOT EXISTS consultations (
    position BIGINT PRIMARY KEY,
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
    def __init__(self) -> None:
        self.rows: dict[str, list[Any]] = {c: [] for c in _COLUMNS}
        self.usage: dict[tuple[str, date, str, str, str], list[int]] = defaultdict(lambda: [0, 0])

    def apply(self, event: Any, position: int) -> None:
        if not isinstance(event, Consultation.Recorded):
            return
        group_id = str(event.group_id)
        rows = self.rows
        rows["position"].append(position)
        rows["consultation_id"].append(str(event.originator_id))
        rows["group_id"].append(group_id)
        rows["user_id"].append(str(event.user_id) if event.user_id else None)
        rows["document"].append(event.document)
        rows["document_type"].append(event.document_type)
        rows["query_type"].append(event.query_type)
        rows["category"].append(event.category)
        rows["supplier"].append(event.supplier)
        rows["status"].append(event.status)
        rows["credits"].append(event.credits)
        rows["channel"].append(event.channel)
        rows["created_at"].append(naive_utc(event.timestamp))
        counter = self.usage[(group_id, local_day(event.timestamp), event.category, event.query_type, event.status)]
        counter[0] += 1
        counter[1] += event.credits

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if not self.rows["position"]:
            return
        page = pa.table(self.rows)
        cur.register("page_consultations", page)
        try:
            cur.execute(f"INSERT INTO consultations SELECT {', '.join(_COLUMNS)} FROM page_consultations")
        finally:
            cur.unregister("page_consultations")
        keys = list(self.usage)
        usage = pa.table(
            {
                "group_id": [k[0] for k in keys],
                "day": [k[1] for k in keys],
                "category": [k[2] for k in keys],
                "query_type": [k[3] for k in keys],
                "status": [k[4] for k in keys],
                "consultations": [self.usage[k][0] for k in keys],
                "credits": [self.usage[k][1] for k in keys],
            }
        )
        cur.register("page_usage", usage)
        try:
            cur.execute(
                """
                INSERT INTO usage_daily SELECT * FROM page_usage
                ON CONFLICT (group_id, day, category, query_type, status) DO UPDATE SET
                    consultations = usage_daily.consultations + excluded.consultations,
                    credits = usage_daily.credits + excluded.credits
                """
            )
        finally:
            cur.unregister("page_usage")


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

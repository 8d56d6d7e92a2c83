"""API tokens for the api-query and playground screens: one row per token (never its secret or hash), and
each token's use read in place from ``consultations`` (an API lookup records the token as its user)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import duckdb
import orjson

from bemtevi.domain.api_tokens import ApiToken
from bemtevi.projections.base import SAO_PAULO, PageFold, ReadModel, RowFold, naive_utc

API_TOKENS_DDL = """
CREATE TABLE IF NOT EXISTS api_tokens (
    token_id VARCHAR PRIMARY KEY,
    group_id VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    access_key VARCHAR NOT NULL,
    active BOOLEAN NOT NULL,
    query_types VARCHAR NOT NULL,
    per_second INTEGER,
    per_day INTEGER,
    created_by VARCHAR,
    created_at TIMESTAMP NOT NULL,
    regenerated_at TIMESTAMP,
    updated_at TIMESTAMP NOT NULL
)
"""
_COLUMNS = (
    "token_id",
    "group_id",
    "name",
    "access_key",
    "active",
    "query_types",
    "per_second",
    "per_day",
    "created_by",
    "created_at",
    "regenerated_at",
    "updated_at",
)


class _TokensFold(RowFold):
    table, columns = "api_tokens", _COLUMNS

    def change(self, row: dict[str, Any] | None, key: str, event: Any, at: datetime) -> dict[str, Any] | None:
        if isinstance(event, ApiToken.Generated):
            return {
                "token_id": key,
                "group_id": str(event.group_id),
                "name": event.name,
                "access_key": event.access_key,
                "active": True,
                "query_types": orjson.dumps(event.query_types).decode(),
                "per_second": event.per_second,
                "per_day": event.per_day,
                "created_by": str(event.created_by) if event.created_by else None,
                "created_at": at,
                "regenerated_at": None,
                "updated_at": at,
            }
        if row is None:
            return None
        row["updated_at"] = at
        if isinstance(event, ApiToken.Regenerated):
            row["regenerated_at"] = at
        elif isinstance(event, ApiToken.Edited):
            row.update(
                name=event.name,
                query_types=orjson.dumps(event.query_types).decode(),
                per_second=event.per_second,
                per_day=event.per_day,
            )
        elif isinstance(event, ApiToken.Activated):
            row["active"] = True
        elif isinstance(event, ApiToken.Inactivated):
            row["active"] = False
        return row


class ApiTokensReadModel(ReadModel):
    name = "api_tokens"
    tables = ("api_tokens",)
    event_types = (
        ApiToken.Generated,
        ApiToken.Regenerated,
        ApiToken.Edited,
        ApiToken.Activated,
        ApiToken.Inactivated,
    )

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(API_TOKENS_DDL)

    def fold(self) -> PageFold:
        return _TokensFold()


# -- queries ---------------------------------------------------------------------------------------


def tokens_of_group(cur: duckdb.DuckDBPyConnection, group_id: str, today: date) -> list[dict[str, Any]]:
    """A group's tokens, newest first, each with who created it and its use: lookups today and in the last
    30 days (São Paulo days), credits charged, and when it was last used."""
    start_30 = _utc_midnight(today - timedelta(days=29))
    start_today = _utc_midnight(today)
    rows = cur.execute(
        f"""
        WITH used AS (
            SELECT user_id,
                   count(*) FILTER (WHERE created_at >= ?) AS today,
                   count(*) AS days30,
                   sum(credits) AS credits30,
                   max(created_at) AS last_used
            FROM consultations
            WHERE group_id = ? AND channel = 'api' AND created_at >= ?
            GROUP BY user_id
        ), ever AS (
            SELECT user_id, max(created_at) AS last_used FROM consultations
            WHERE group_id = ? AND channel = 'api' GROUP BY user_id
        )
        SELECT {", ".join("t." + c for c in _COLUMNS)}, u.name,
               coalesce(used.today, 0), coalesce(used.days30, 0), coalesce(used.credits30, 0), ever.last_used
        FROM api_tokens t
        LEFT JOIN users u ON u.user_id = t.created_by
        LEFT JOIN used ON used.user_id = t.token_id
        LEFT JOIN ever ON ever.user_id = t.token_id
        WHERE t.group_id = ?
        ORDER BY t.created_at DESC, t.token_id
        """,
        [start_today, group_id, start_30, group_id, group_id],
    ).fetchall()
    found = []
    for r in rows:
        row = dict(zip(_COLUMNS, r[: len(_COLUMNS)], strict=True))
        row["query_types"] = orjson.loads(row["query_types"])
        creator, today_count, days30, credits30, last_used = r[len(_COLUMNS) :]
        row.update(
            created_by_name=creator,
            used_today=int(today_count),
            used_30_days=int(days30),
            credits_30_days=int(credits30),
            last_used_at=last_used,
        )
        found.append(row)
    return found


def _utc_midnight(day: date) -> datetime:
    """São Paulo's midnight of ``day`` as a naive UTC time (the tables' times)."""
    return naive_utc(datetime(day.year, day.month, day.day, tzinfo=SAO_PAULO))

"""The consultation report: charged and not-found consultations of some groups over São Paulo days,
counted per day, week or month and per one dimension (category, query type, supplier, user, channel,
found or not).

Panel and API lookups come from ``consultations`` (failed ones were never charged nor answered, and are
left out); batch records from ``report_batches``. Rows are first summed per UTC hour and key (an integer
truncation per row); the São Paulo day is computed once per distinct hour, as ``usage_daily`` does (the
zone's offsets are whole hours).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

import duckdb

from bemtevi.projections.base import PRODUCT_TIME_ZONE, SAO_PAULO, naive_utc

INTERVALS = ("day", "week", "month")
# Each dimension's key: in a consultation row, and in a finished batch's (found, not found) rows.
DIMENSIONS: dict[str, tuple[str, str]] = {
    "category": ("category", "'batch'"),
    "queryType": ("query_type", "query_type"),
    # A batch's records are asked of each query type's suppliers in turn: none is named for the batch.
    "supplier": ("supplier", "''"),
    "user": ("coalesce(user_id, '')", "coalesce(user_id, '')"),
    "channel": ("channel", "'batch'"),
    "found": (
        "CASE WHEN status = 'done' THEN 'found' ELSE 'not_found' END",
        "CASE WHEN found THEN 'found' ELSE 'not_found' END",
    ),
}


def utc_bounds(first: date, last: date) -> tuple[datetime, datetime]:
    """São Paulo days [first, last] as UTC wall times [start, end)."""
    start = datetime.combine(first, time(), SAO_PAULO)
    end = datetime.combine(last + timedelta(days=1), time(), SAO_PAULO)
    return naive_utc(start), naive_utc(end)


def consultation_report(
    cur: duckdb.DuckDBPyConnection,
    group_ids: list[str],
    first: date,
    last: date,
    interval: str,
    dimension: str,
) -> dict[str, Any]:
    """``series``: one row per period (the period's first day) and key with its consultations, found and
    credits, periods in order and keys busiest first; ``keys``: each key's totals; ``totals``."""
    if interval not in INTERVALS or dimension not in DIMENSIONS:
        raise ValueError(f"unknown interval or dimension: {interval}, {dimension}")
    key, batch_key = DIMENSIONS[dimension]
    start, end = utc_bounds(first, last)
    rows = cur.execute(
        f"""
        WITH chosen AS (SELECT unnest(?::VARCHAR[]) AS group_id),
        hourly AS (
            SELECT date_trunc('hour', created_at) AS hour, {key} AS key, count(*) AS consultations,
                   count(*) FILTER (WHERE status = 'done') AS found, sum(credits) AS credits
            FROM consultations
            WHERE created_at >= ? AND created_at < ? AND status IN ('done', 'not_found')
              AND group_id IN (SELECT group_id FROM chosen)
            GROUP BY ALL
            UNION ALL
            SELECT date_trunc('hour', finished_at), {batch_key}, n, CASE WHEN found THEN n ELSE 0 END,
                   CASE WHEN found THEN credits ELSE 0 END
            FROM (
                SELECT finished_at, user_id, query_type, true AS found, found AS n, credits FROM report_batches
                WHERE finished_at >= ? AND finished_at < ? AND group_id IN (SELECT group_id FROM chosen)
                UNION ALL
                SELECT finished_at, user_id, query_type, false, not_found, 0 FROM report_batches
                WHERE finished_at >= ? AND finished_at < ? AND group_id IN (SELECT group_id FROM chosen)
            ) WHERE n > 0
        ),
        hours AS (
            SELECT hour, key, sum(consultations) AS consultations, sum(found) AS found, sum(credits) AS credits
            FROM hourly GROUP BY ALL
        )
        SELECT date_trunc('{interval}', timezone('{PRODUCT_TIME_ZONE}', timezone('UTC', hour))::DATE)::DATE AS period,
               key, sum(consultations)::BIGINT, sum(found)::BIGINT, sum(credits)::BIGINT
        FROM hours GROUP BY ALL
        """,
        [group_ids, start, end, start, end, start, end],
    ).fetchall()
    keys: dict[str, dict[str, int]] = {}
    series = []
    for period, k, consultations, found, credits in rows:
        figures = keys.setdefault(k, {"consultations": 0, "found": 0, "credits": 0})
        figures["consultations"] += consultations
        figures["found"] += found
        figures["credits"] += credits
        series.append({"period": period, "key": k, "consultations": consultations, "found": found, "credits": credits})
    order = sorted(keys, key=lambda k: (-keys[k]["consultations"], k))
    rank = {k: i for i, k in enumerate(order)}
    series.sort(key=lambda r: (r["period"], rank[r["key"]]))
    totals = {name: sum(figures[name] for figures in keys.values()) for name in ("consultations", "found", "credits")}
    return {
        "series": series,
        "keys": [{"key": k, **keys[k]} for k in order],
        "totals": totals,
        "labels": _labels(cur, dimension, order),
    }


def _labels(cur: duckdb.DuckDBPyConnection, dimension: str, keys: list[str]) -> dict[str, str]:
    """Names for keys that are ids (users) or catalogue keys (query types); other keys are their own label."""
    wanted = [k for k in keys if k]
    if dimension == "user" and wanted:
        return dict(cur.execute("SELECT user_id, name FROM users WHERE user_id IN ?", [wanted]).fetchall())
    if dimension == "queryType" and wanted:
        return dict(cur.execute("SELECT key, name FROM query_types WHERE key IN ?", [wanted]).fetchall())
    return {}

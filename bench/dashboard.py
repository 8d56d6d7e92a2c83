"""The dashboard's chart queries on a large usage history.

    python bench/dashboard.py [--groups 1000] [--days 365] [--repeat 20]

Fills a DuckDB database (one thread, as the server's ``ReadStore``) with the read models' own tables:
``groups`` (a root, white-labels, resellers below them and companies below those) and
``usage_daily`` with a row for every group, day, query type, channel and status (the densest the
projector can write: every group consults every day through every channel), then times the
dashboard's queries (median and slowest of ``--repeat`` runs):

- ``usage_in_period`` for one company over 30 days, for a reseller's subtree over 90 days and for
  the root's whole tree over the longest period (366 days);
- ``top_consumers`` below a reseller and below the root, over the same periods.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import duckdb

from bemtevi.projections.consultations import USAGE_DDL, top_consumers, usage_in_period
from bemtevi.projections.credit_queries import subtree_ids
from bemtevi.projections.directory import GROUPS_DDL

WHITE_LABELS = 10
RESELLERS_PER_WHITE_LABEL = 10


def fill(cur: duckdb.DuckDBPyConnection, groups: int, days: int, last: date) -> None:
    cur.execute(GROUPS_DDL)
    cur.execute(USAGE_DDL)
    resellers = WHITE_LABELS * RESELLERS_PER_WHITE_LABEL
    # g0 the root; g1..g10 white-labels; g11..g110 resellers; the rest companies below the resellers.
    cur.execute(
        """
        INSERT INTO groups (group_id, unique_key, name, group_type, parent_id, brand, enabled_query_types,
                            active, created_at, profile)
        SELECT 'g' || i, 'k' || i, 'Grupo ' || i,
               CASE WHEN i = 0 THEN 'root' WHEN i <= $1 THEN 'white_label' WHEN i <= $1 + $2 THEN 'reseller'
                    ELSE 'company' END,
               CASE WHEN i = 0 THEN NULL WHEN i <= $1 THEN 'g0' WHEN i <= $1 + $2 THEN 'g' || (1 + (i - $1 - 1) % $1)
                    ELSE 'g' || ($1 + 1 + (i - $1 - $2 - 1) % $2) END,
               '{}', [], true, now()::TIMESTAMP, '{}'
        FROM range($3) t(i)
        """,
        [WHITE_LABELS, resellers, groups],
    )
    cur.execute(
        """
        INSERT INTO usage_daily
        SELECT 'g' || g, ?::DATE - d::INTEGER, 'unit', q, s, c, 1 + (g + d) % 7,
               CASE WHEN s = 'success' THEN 1 + (g + d) % 7 ELSE 0 END
        FROM range(?) a(g), range(?) b(d), (VALUES ('person_complete'), ('company_complete')) q(q),
             (VALUES ('panel'), ('api'), ('batch')) c(c), (VALUES ('success'), ('not_found')) s(s)
        """,
        [last, groups, days],
    )


def timed(run: Callable[[], Any], repeat: int) -> tuple[float, float]:
    took = []
    for _ in range(repeat):
        began = time.perf_counter()
        run()
        took.append((time.perf_counter() - began) * 1000)
    return statistics.median(took), max(took)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if args.groups <= 1 + WHITE_LABELS + WHITE_LABELS * RESELLERS_PER_WHITE_LABEL:
        parser.error("--groups must leave room for companies below the resellers (more than 111)")
    last = date(2026, 11, 24)
    cur = duckdb.connect(config={"threads": 1})
    began = time.perf_counter()
    fill(cur, args.groups, args.days, last)
    rows = cur.execute("SELECT count(*) FROM usage_daily").fetchone()
    print(
        f"usage_daily: {rows[0] if rows else 0:,} rows ({args.groups} groups, {args.days} days), "
        f"filled in {time.perf_counter() - began:.1f} s"
    )
    company, reseller, root = f"g{args.groups - 1}", f"g{1 + WHITE_LABELS}", "g0"
    reseller_tree = subtree_ids(cur, reseller)
    root_tree = subtree_ids(cur, root)
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("usage, one company, 30 days", lambda: usage_in_period(cur, [company], last - timedelta(days=29), last)),
        (
            f"usage, a reseller's subtree ({len(reseller_tree)} groups), 90 days",
            lambda: usage_in_period(cur, subtree_ids(cur, reseller), last - timedelta(days=89), last),
        ),
        (
            f"usage, the root's tree ({len(root_tree)} groups), 366 days",
            lambda: usage_in_period(cur, subtree_ids(cur, root), last - timedelta(days=365), last),
        ),
        (
            "top consumers below a reseller, 90 days",
            lambda: top_consumers(cur, reseller, last - timedelta(days=89), last, 10),
        ),
        (
            "top consumers below the root, 366 days",
            lambda: top_consumers(cur, root, last - timedelta(days=365), last, 10),
        ),
    ]
    for name, run in cases:
        median, slowest = timed(run, args.repeat)
        print(f"{name}: median {median:.1f} ms, slowest {slowest:.1f} ms")


if __name__ == "__main__":
    main()

"""The consultation report on a large history.

    python bench/reports.py [--consultations 2000000] [--groups 2000] [--days 365] [--repeat 30]

Fills a DuckDB database (one thread, as the server's ``ReadStore``) with the read models' own tables, written
set-wise as the projector writes a page (one INSERT ... SELECT per table, here from generated columns):
``groups`` as a five-level reseller tree (the root, 10 white-labels, 50 resellers, 200 sub-resellers and
companies below them), ``consultations`` spread over every group and ``--days`` days (panel and API lookups,
about one in five not found, time-ordered as the log writes them) and ``report_batches`` (one finished batch per
company every ten days). Then times ``consultation_report`` over a sub-reseller's and a reseller's subtree, 90
days, by day and category (the screen's default), and the reseller's by month and user: p50 and p99 of
``--repeat`` runs. The issue's target scale is ``--consultations 10000000 --groups 2000``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any

import duckdb

from bemtevi.infra.process_tuning import mark_absent_modules
from bemtevi.projections.consultations import CONSULTATIONS_DDL
from bemtevi.projections.credit_queries import subtree_ids
from bemtevi.projections.directory import GROUPS_DDL, USERS_DDL
from bemtevi.projections.report_queries import consultation_report
from bemtevi.projections.reports import REPORT_BATCHES_DDL

# Levels 1-3 of the tree (level 0 the root, level 4 the companies).
LEVELS = (10, 50, 200)


def fill(cur: duckdb.DuckDBPyConnection, groups: int, consultations: int, days: int, last: date) -> None:
    cur.execute(GROUPS_DDL)
    cur.execute(CONSULTATIONS_DDL)
    cur.execute(REPORT_BATCHES_DDL)
    cur.execute(USERS_DDL)
    w, r, s = LEVELS
    # g0 the root; then white-labels under it, resellers under those, sub-resellers, companies.
    cur.execute(
        """
        INSERT INTO groups (group_id, unique_key, name, group_type, parent_id, brand, enabled_query_types,
                            active, created_at, profile)
        SELECT 'g' || i, 'k' || i, 'Grupo ' || i,
               CASE WHEN i = 0 THEN 'root' WHEN i <= $1 THEN 'white_label' WHEN i <= $1 + $2 + $3 THEN 'reseller'
                    ELSE 'company' END,
               CASE WHEN i = 0 THEN NULL
                    WHEN i <= $1 THEN 'g0'
                    WHEN i <= $1 + $2 THEN 'g' || (1 + (i - $1 - 1) % $1)
                    WHEN i <= $1 + $2 + $3 THEN 'g' || ($1 + 1 + (i - $1 - $2 - 1) % $2)
                    ELSE 'g' || ($1 + $2 + 1 + (i - $1 - $2 - $3 - 1) % $3) END,
               '{}', [], true, now()::TIMESTAMP, '{}'
        FROM range($4) t(i)
        """,
        [w, r, s, groups],
    )
    start = datetime.combine(last - timedelta(days=days - 1), datetime.min.time()) + timedelta(hours=3)
    step_us = days * 86_400_000_000 // consultations
    cur.execute(
        """
        INSERT INTO consultations
        SELECT i, 'c' || i, 'g' || (1 + hash(i) % ($2 - 1)), 'u' || (hash(i) % ($2 * 3)), '52998224725', 'cpf',
               CASE WHEN i % 3 = 0 THEN 'cnpj-complete' ELSE 'cpf-complete' END,
               CASE WHEN i % 4 = 0 THEN 'api' ELSE 'unit' END,
               CASE WHEN i % 5 = 0 THEN 'vendor-a' ELSE 'local' END,
               CASE WHEN i % 5 = 1 THEN 'not_found' ELSE 'done' END,
               CASE WHEN i % 5 = 1 THEN 0 ELSE 1 END,
               CASE WHEN i % 4 = 0 THEN 'api' ELSE 'panel' END,
               $3::TIMESTAMP + to_microseconds(i * $4), NULL
        FROM range($1) t(i)
        """,
        [consultations, groups, start, step_us],
    )
    cur.execute(
        "INSERT INTO users SELECT 'u' || i, 'g' || (i % $1), 'k' || i, 'Pessoa ' || i, 'p' || i || '@x.com', 'user', "
        "'active', now()::TIMESTAMP FROM range($1 * 3) t(i)",
        [groups],
    )
    first_company = 1 + w + r + s
    cur.execute(
        """
        INSERT INTO report_batches
        SELECT 'b' || g || '-' || d, 'g' || g, 'u' || g, 'cpf-complete',
               $1::TIMESTAMP + to_days(d) + INTERVAL 14 HOUR, 50 + g % 50, 10 + g % 10, 50 + g % 50
        FROM range($2, $3) a(g), range(0, $4, 10) b(d)
        """,
        [start, first_company, groups, days],
    )


def timed(run: Callable[[], Any], repeat: int) -> tuple[float, float]:
    took = []
    for _ in range(repeat):
        began = time.perf_counter()
        run()
        took.append((time.perf_counter() - began) * 1000)
    took.sort()
    return statistics.median(took), took[min(len(took) - 1, round(0.99 * (len(took) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--consultations", type=int, default=2_000_000)
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    if args.groups <= 1 + sum(LEVELS):
        parser.error(f"--groups must leave room for companies below the sub-resellers (more than {1 + sum(LEVELS)})")
    # As the server does (cli): DuckDB otherwise tries to import pandas for each value of a bound list.
    mark_absent_modules()
    last = date(2026, 11, 24)
    cur = duckdb.connect(config={"threads": 1})
    began = time.perf_counter()
    fill(cur, args.groups, args.consultations, args.days, last)
    print(
        f"consultations: {args.consultations:,} over {args.groups} groups and {args.days} days, "
        f"filled in {time.perf_counter() - began:.1f} s"
    )
    sub_reseller, reseller = f"g{1 + LEVELS[0] + LEVELS[1]}", f"g{1 + LEVELS[0]}"
    first = last - timedelta(days=89)
    cases: list[tuple[str, Callable[[], Any]]] = []
    for name, group, interval, dimension in (
        ("a sub-reseller's subtree", sub_reseller, "day", "category"),
        ("a reseller's subtree", reseller, "day", "category"),
        ("a reseller's subtree", reseller, "month", "user"),
    ):
        size = len(subtree_ids(cur, group))

        def run(group: str = group, interval: str = interval, dimension: str = dimension) -> Any:
            return consultation_report(cur, subtree_ids(cur, group), first, last, interval, dimension)

        counted = run()["totals"]["consultations"]
        cases.append((f"{name} ({size} groups, {counted:,} consultations), 90 days by {interval} and {dimension}", run))
    for label, job in cases:
        p50, p99 = timed(job, args.repeat)
        print(f"{label}: p50 {p50:.1f} ms, p99 {p99:.1f} ms")


if __name__ == "__main__":
    main()

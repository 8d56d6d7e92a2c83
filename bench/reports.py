"""The consultation report and the data-subject report on a large history.

    python bench/reports.py [--consultations 2000000] [--groups 2000] [--days 365] [--repeat 30]
                            [--batches 2000] [--batch-documents 1000] [--statement-lines 1000000]
                            [--cases all|report|subject|statement]

Fills a DuckDB database (one thread, as the server's ``ReadStore``) with the read models' own tables, written
set-wise as the projector writes a page (one INSERT ... SELECT per table, here from generated columns):
``groups`` as a five-level reseller tree (the root, 10 white-labels, 50 resellers, 200 sub-resellers and
companies below them), ``consultations`` spread over every group and ``--days`` days (panel and API lookups,
about one in five not found, time-ordered as the log writes them) and ``report_batches`` (one finished batch per
company every ten days). Then times ``consultation_report`` over a sub-reseller's and a reseller's subtree, 90
days, by day and category (the screen's default), and the reseller's by month and user: p50 and p99 of
``--repeat`` runs. The issue's target scale is ``--consultations 10000000 --groups 2000``.

The data-subject report (every consultation of one document, ``--cases subject``): the consultations name about
one document in four, and ``--batches`` batches that are over ran ``--batch-documents`` documents each (their run's
chunk file in a temporary batches folder, one in 50 holding the report's document), two more still running.
The read models' rows are written as the projector writes them at each batch's end (``subject_batch_documents``
from the batch's files). Times both parts of the report both ways, alternated in one run: the unit lookups by a
scan of every consultation (as before ``consultations.document_key``) and by the document's index; the batch part
by a search of every started batch's files (as before ``subject_batch_documents``) and by the index with the
running batches' files.

The finance statement (``--cases statement``): ``credit_movements`` holds a balance history line for every
consultation over every group (mostly charges; one in five a reservation, one in fifty a release) and a
grant received every 997 lines, with ``--statement-lines`` of them the history of one company (the issue's target:
1,000,000); times ``statement`` of that company for its last month and its whole year, and of a company of
ordinary size.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import duckdb
import pyarrow as pa
from _common import temp_dir

from bemtevi.commands.batch_files import BatchFiles
from bemtevi.infra.batches.looked_up import batches_that_looked_up
from bemtevi.infra.process_tuning import mark_absent_modules
from bemtevi.projections.consultations import CONSULTATIONS_DDL
from bemtevi.projections.credit_queries import subtree_ids
from bemtevi.projections.credits import BALANCES_DDL, MOVEMENTS_DDL
from bemtevi.projections.data_subject import (
    SUBJECT_BATCHES_DDL,
    SUBJECT_DOCUMENTS_DDL,
    batch_consultations_of_document,
    batches_of_document,
    consultations_of_document,
    index_looked_up,
)
from bemtevi.projections.directory import GROUPS_DDL, USERS_DDL
from bemtevi.projections.report_queries import consultation_report
from bemtevi.projections.reports import REPORT_BATCHES_DDL
from bemtevi.projections.statements import ADD_LINES_TO_DAYS, DAYS_DDL, reconciles, statement

# Levels 1-3 of the tree (level 0 the root, level 4 the companies).
LEVELS = (10, 50, 200)


def fill(cur: duckdb.DuckDBPyConnection, groups: int, consultations: int, days: int, last: date) -> None:
    cur.execute(GROUPS_DDL)
    cur.execute(CONSULTATIONS_DDL)
    cur.execute("DROP INDEX consultations_document")  # built once filled: faster than row by row
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
    # About one document in four consultations (11 digits, as a CPF's), the same function for the batches'.
    cur.execute("CREATE MACRO document(i, n) AS lpad((hash(i) % greatest(n // 4, 1))::VARCHAR, 11, '0')")
    cur.execute(
        """
        INSERT INTO consultations
        SELECT i, 'c' || i, 'g' || (1 + hash(i) % ($2 - 1)), 'u' || (hash(i) % ($2 * 3)), document(i, $1), 'cpf',
               CASE WHEN i % 3 = 0 THEN 'cnpj-complete' ELSE 'cpf-complete' END,
               CASE WHEN i % 4 = 0 THEN 'api' ELSE 'unit' END,
               CASE WHEN i % 5 = 0 THEN 'vendor-a' ELSE 'local' END,
               CASE WHEN i % 5 = 1 THEN 'not_found' ELSE 'done' END,
               CASE WHEN i % 5 = 1 THEN 0 ELSE 1 END,
               CASE WHEN i % 4 = 0 THEN 'api' ELSE 'panel' END,
               $3::TIMESTAMP + to_microseconds(i * $4), NULL, ('1' || document(i, $1))::BIGINT
        FROM range($1) t(i)
        """,
        [consultations, groups, start, step_us],
    )
    cur.execute("CREATE INDEX consultations_document ON consultations (document_key)")
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


def fill_movements(cur: duckdb.DuckDBPyConnection, groups: int, lines: int, heavy: int, days: int, last: date) -> None:
    """``lines`` balance history lines over the companies and ``days`` days, ``heavy`` of them company ``g1999``'s
    (the last one), each account's running balance as the projector writes it (a grant received every 997 lines)."""
    cur.execute(BALANCES_DDL)
    cur.execute(MOVEMENTS_DDL)
    first_company = 1 + sum(LEVELS)
    start = datetime.combine(last - timedelta(days=days - 1), datetime.min.time()) + timedelta(hours=3)
    step_us = days * 86_400_000_000 // lines
    # Line i belongs to the heavy company when i falls in its share (spread over the whole period), else to one of
    # the others; kinds: mostly charges, one in five a reservation, one in fifty a release, a grant every 997 lines.
    cur.execute(
        f"""
        INSERT INTO credit_movements
        WITH lines AS (
            SELECT i, $3::TIMESTAMP + to_microseconds(i * $4) AS created_at,
                   CASE WHEN i % ($1 // $2) = 0 THEN 'g' || ({groups} - 1)
                        ELSE 'g' || ({first_company} + hash(i) % ({groups} - 1 - {first_company})) END AS group_id,
                   CASE WHEN i % 997 = 0 THEN 'grant_received' WHEN i % 50 = 1 THEN 'release'
                        WHEN i % 5 = 2 THEN 'reservation' ELSE 'settlement' END AS kind
            FROM range($1) t(i)
        ), moved AS (
            SELECT *, CASE kind WHEN 'grant_received' THEN 5000 WHEN 'release' THEN 1 ELSE -1 END AS change
            FROM lines
        )
        SELECT i, group_id || '-unit', group_id, 'unit', kind, abs(change), 'c' || i, 'consultation', NULL, 'u1',
               created_at, 5000 * count(*) FILTER (kind = 'grant_received') OVER running, 0, 0, 0,
               sum(change) OVER running,
               0, change
        FROM moved
        WINDOW running AS (PARTITION BY group_id ORDER BY i ROWS UNBOUNDED PRECEDING)
        ORDER BY i
        """,
        [lines, heavy, start, step_us],
    )
    cur.execute(
        "INSERT INTO credit_balances SELECT DISTINCT ON (account_id) account_id, group_id, category, credit_limit, "
        "used, reserved, granted, created_at FROM credit_movements ORDER BY account_id, position DESC"
    )
    # The statement's days, as the projector adds each page's lines (here all of them at once).
    cur.execute(DAYS_DDL)
    cur.execute(ADD_LINES_TO_DAYS, [0, lines])


def statement_cases(cur: duckdb.DuckDBPyConnection, groups: int, repeat: int, last: date) -> None:
    heavy, ordinary = f"g{groups - 1}", f"g{groups - 2}"
    for label, group, days in (
        ("the heavy company, its last month", heavy, 30),
        ("the heavy company, its whole year", heavy, 365),
        ("a company of ordinary size, its last month", ordinary, 30),
    ):
        first = last - timedelta(days=days - 1)
        lines = sum(c["lines"] for c in statement(cur, group, first, last))
        assert all(reconciles(c) for c in statement(cur, group, first, last)), "the statement must reconcile"
        p50, p99 = timed(lambda group=group, first=first: statement(cur, group, first, last), repeat)
        print(f"statement of {label} ({lines:,} lines in the period): p50 {p50:.1f} ms, p99 {p99:.1f} ms")


SUBJECT_EVERY = 50  # one batch in SUBJECT_EVERY holds the report's document
RUNNING = 2  # batches still running, besides ``--batches`` over


def fill_batches(cur: duckdb.DuckDBPyConnection, files: BatchFiles, batches: int, size: int, subject: str) -> None:
    """``batches`` batches over and ``RUNNING`` running, each a chunk file of ``size`` records (valid, one in five
    not found) as the pipeline writes it, their ``subject_batches`` rows, and the index of the ones over."""
    cur.execute(SUBJECT_BATCHES_DDL)
    cur.execute(SUBJECT_DOCUMENTS_DDL)
    consultations = cur.execute("SELECT count(*) FROM consultations").fetchall()[0][0]
    began = datetime(2026, 1, 1)
    for b in range(batches + RUNNING):
        batch_id = str(UUID(int=b + 1))
        records = cur.execute(
            "SELECT i + 1 AS __row, CASE WHEN i = 0 AND $3 THEN $4 ELSE document(hash(i, $1), $2) END AS __doc, "
            "true AS __valid, i % 5 <> 1 AS __found, 'NOME' AS x0 FROM range($5) t(i)",
            [b, consultations, b % SUBJECT_EVERY == 0, subject, size],
        ).fetch_arrow_table()
        work = files.work_dir(UUID(batch_id))
        work.mkdir(parents=True)
        with pa.OSFile(str(work / "chunk-000000.arrow"), "wb") as sink, pa.ipc.new_file(sink, records.schema) as w:
            w.write_table(records)
        ended = began + timedelta(hours=b, minutes=30) if b < batches else None
        cur.execute(
            "INSERT INTO subject_batches VALUES (?, 'g' || ?, 'u' || ?, 'batch', 'cpf-complete', 'clientes.csv', "
            "NULL, ?, ?, ?)",
            [batch_id, 300 + b % 1000, b, began + timedelta(hours=b), began + timedelta(hours=b, minutes=1), ended],
        )
        if ended is not None:  # as the projector at the batch's end
            index_looked_up(cur, batch_id, files.looked_up)


def subject_cases(
    cur: duckdb.DuckDBPyConnection, files: BatchFiles, subject: str
) -> list[tuple[str, Callable[[], Any]]]:
    def unit() -> Any:
        return consultations_of_document(cur, subject)

    def unit_scanned() -> Any:  # the report's unit lookups before consultations.document_key
        return cur.execute(
            """
            SELECT c.created_at, c.consultation_id, c.group_id, g.name, c.user_id, u.name, u.email, c.channel,
                   c.query_type, c.status, c.purpose
            FROM consultations c
            LEFT JOIN groups g ON g.group_id = c.group_id
            LEFT JOIN users u ON u.user_id = c.user_id
            WHERE c.document = ?
            ORDER BY c.position DESC
            """,
            [subject],
        ).fetchall()

    def searched() -> Any:  # the report before the index: every started batch's files, at each run
        started = [
            str(r[0]) for r in cur.execute("SELECT batch_id FROM subject_batches WHERE started_at NOT NULL").fetchall()
        ]
        folders = ((b, files.work_dir(UUID(b)), files.looked_up_file(UUID(b))) for b in started)
        return batch_consultations_of_document(cur, subject, batches_that_looked_up(folders, subject))

    def indexed() -> Any:
        looked_up, running = batches_of_document(cur, subject)
        folders = ((b, files.work_dir(UUID(b)), files.looked_up_file(UUID(b))) for b in running)
        looked_up |= batches_that_looked_up(folders, subject)
        return batch_consultations_of_document(cur, subject, looked_up)

    assert searched() == indexed(), "the index must answer as the files"
    assert len(unit_scanned()) == len(unit()), "the index must answer as the scan"
    return [
        (f"unit lookups, every consultation scanned ({len(unit_scanned())} consultations)", unit_scanned),
        (f"unit lookups, by the document's index ({len(unit())} consultations)", unit),
        (f"batch part, every batch's files searched ({len(searched())} batches)", searched),
        (f"batch part, index and the running batches' files ({len(indexed())} batches)", indexed),
    ]


def timed(run: Callable[[], Any], repeat: int) -> tuple[float, float]:
    took = []
    for _ in range(repeat):
        began = time.perf_counter()
        run()
        took.append((time.perf_counter() - began) * 1000)
    took.sort()
    return statistics.median(took), took[min(len(took) - 1, round(0.99 * (len(took) - 1)))]


def alternated(cases: list[tuple[str, Callable[[], Any]]], repeat: int) -> None:
    """Each case ``repeat`` times, in turn (load that comes and goes weighs on all alike): p50 and p99."""
    took: dict[str, list[float]] = {label: [] for label, _ in cases}
    for _ in range(repeat):
        for label, run in cases:
            began = time.perf_counter()
            run()
            took[label].append((time.perf_counter() - began) * 1000)
    for label, times in took.items():
        times.sort()
        p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
        print(f"{label}: p50 {statistics.median(times):.1f} ms, p99 {p99:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--consultations", type=int, default=2_000_000)
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--batches", type=int, default=2000, help="batches over (the data-subject report)")
    parser.add_argument("--batch-documents", type=int, default=1000, help="records of each batch")
    parser.add_argument("--statement-lines", type=int, default=1_000_000, help="the heavy company's history lines")
    parser.add_argument("--cases", choices=("all", "report", "subject", "statement"), default="all")
    args = parser.parse_args()
    if args.groups <= 1 + sum(LEVELS):
        parser.error(f"--groups must leave room for companies below the sub-resellers (more than {1 + sum(LEVELS)})")
    # As the server does (cli): DuckDB otherwise tries to import pandas for each value of a bound list.
    mark_absent_modules()
    last = date(2026, 11, 24)
    cur = duckdb.connect(config={"threads": 1})
    if args.cases != "statement":
        began = time.perf_counter()
        fill(cur, args.groups, args.consultations, args.days, last)
        print(
            f"consultations: {args.consultations:,} over {args.groups} groups and {args.days} days, "
            f"filled in {time.perf_counter() - began:.1f} s"
        )
    if args.cases in ("all", "report"):
        report_cases(cur, args.repeat, last)
    if args.cases in ("all", "statement"):
        lines = max(args.consultations, args.statement_lines * 2)
        began = time.perf_counter()
        fill_movements(cur, args.groups, lines, args.statement_lines, args.days, last)
        print(
            f"balance history: {lines:,} lines, {args.statement_lines:,} of them one company's, "
            f"filled in {time.perf_counter() - began:.1f} s"
        )
        statement_cases(cur, args.groups, args.repeat, last)
    if args.cases in ("all", "subject"):
        folder = Path(temp_dir())
        try:
            files = BatchFiles(folder)
            subject = cur.execute("SELECT document FROM consultations WHERE position = 0").fetchall()[0][0]
            began = time.perf_counter()
            fill_batches(cur, files, args.batches, args.batch_documents, subject)
            print(
                f"batches: {args.batches:,} over of {args.batch_documents:,} records and {RUNNING} running, "
                f"written and indexed in {time.perf_counter() - began:.1f} s"
            )
            alternated(subject_cases(cur, files, subject), args.repeat)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def report_cases(cur: duckdb.DuckDBPyConnection, repeat: int, last: date) -> None:
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
        p50, p99 = timed(job, repeat)
        print(f"{label}: p50 {p50:.1f} ms, p99 {p99:.1f} ms")


if __name__ == "__main__":
    main()

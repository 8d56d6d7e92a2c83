"""Batch enrichment, one run: a 1,000,000-record CSV against a 5,000,000-person dataset.

Three ways, each in its own process (its peak RSS read from ``wait4``):

* ``pipeline``: the product's path, ``check_upload`` + ``run_batch`` from the uploaded file to the
  return file (streamed reader, one DuckDB join, chunk files written atomically, return assembled);
* ``oneshot``: the same SQL as one DuckDB statement, ``COPY (read_csv → normalise → validate →
  LEFT JOIN → ORDER BY record) TO`` the same ';' CSV (the floor a resumable pipeline is held to);
* ``loop``: a per-row Python loop (``csv`` reader, ``Document.parse``, a primary-key read of the
  record's JSON in the dataset, ``exit_value`` for each field, ``format_line``) on a sample,
  scaled to the whole file;
* ``dictloop``: the per-row loop DESIGN measured (45.7 s, 4 GB there): the dataset's documents first
  read into a Python dict, then every record of the file looked up in it (the whole file, load
  included; the load is also printed on its own). The faster of the two loops is the one the
  target is held against.

    PYTHONPATH=. .venv/bin/python bench/batch.py [--records 1000000] [--people 5000000]

The dataset and the input file are generated once into var/bench-cache (minutes the first time).
Targets: pipeline ≤ 1.3 × oneshot, ≥ 10 × the loop, peak RSS ≤ 1 GB.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import orjson

from bemtevi.domain.documents import Document
from bemtevi.domain.enrichment_fields import exit_field, exit_value
from bemtevi.domain.errors import DomainError
from bemtevi.domain.layouts import LayoutRow, LayoutSpec, format_line, header_line
from bemtevi.infra.batches.files import check_upload
from bemtevi.infra.batches.pipeline import MEMORY_LIMIT, exit_plan, joined_sql, preview, run_batch

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "var" / "bench-cache"
EXITS = ("CODIGO", "CPF", "NOME", "NASCIMENTO", "IDADE", "TELEFONE1", "CIDADE", "UF", "RENDA", "ENCONTRADO")
TODAY = dt.date(2026, 1, 15)
LOOP_SAMPLE = 5_000


def layout() -> LayoutSpec:
    rows = [LayoutRow("CPF", "document", 1, "", None, "entry"), LayoutRow("CODIGO", "text", 2, "", None, "entry")]
    rows += [LayoutRow(name, "text", i + 1, "", None, "exit") for i, name in enumerate(EXITS)]
    return LayoutSpec("in", "out", "csv", "csv", "delimited", ";", True, "people", tuple(rows)).validated()


def dataset(people: int) -> Path:
    from bemtevi.infra.demo_data import generate_demo_dataset

    path = (
        CACHE / f"dataset-{people // 1_000_000}m.duckdb" if people >= 1_000_000 else CACHE / f"dataset-{people}.duckdb"
    )
    if not path.exists():
        summary = generate_demo_dataset(path, people=people, companies=max(1, people // 50), seed=20111)
        print(f"generated the {people:,}-person dataset in {summary.seconds:.0f} s", flush=True)
    return path


def input_file(data: Path, records: int) -> Path:
    """~70 % CPFs of the dataset (a third of them punctuated), ~20 % random 11-digit numbers (about one
    in a hundred has the right check digits, then mostly not in the dataset), ~10 % not a document at all."""
    path = CACHE / f"batch-{records}.csv"
    if path.exists():
        return path
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{data}' AS ds (READ_ONLY)")
        partial = path.with_name(path.name + ".partial")
        con.execute(f"""
            COPY (
              WITH known AS (
                SELECT cpf, row_number() OVER () AS k FROM ds.people USING SAMPLE {int(records * 0.7)} ROWS
              ),
              r AS (SELECT range AS i, hash(range) % 10 AS bucket FROM range({records}))
              SELECT CASE
                       WHEN r.bucket < 7 THEN
                         CASE WHEN r.i % 3 = 0 THEN
                           substr(k.cpf, 1, 3) || '.' || substr(k.cpf, 4, 3) || '.' || substr(k.cpf, 7, 3)
                           || '-' || substr(k.cpf, 10, 2)
                         ELSE k.cpf END
                       WHEN r.bucket < 9 THEN lpad(CAST(hash(r.i, 'x') % 100000000000 AS VARCHAR), 11, '0')
                       ELSE 'x' || CAST(r.i AS VARCHAR)
                     END AS CPF,
                     'C' || CAST(r.i AS VARCHAR) AS CODIGO
              FROM r LEFT JOIN known k ON k.k = r.i % {int(records * 0.7)} + 1
              ORDER BY r.i
            ) TO '{partial}' (FORMAT csv, DELIMITER ';', HEADER, QUOTE '')
        """)
        os.replace(partial, path)
    finally:
        con.close()
    return path


# -- the three ways (each run in a child process) --------------------------------------------------


def run_pipeline(data: Path, source: Path, out: Path) -> None:
    spec = layout()
    started = time.perf_counter()
    check = check_upload(source, "CSV")
    checked = time.perf_counter()
    outcome = run_batch(
        source, check, spec, data, out, on_progress=lambda p: None, should_stop=lambda: False, today=TODAY
    )
    done = time.perf_counter()
    print(
        f"check_upload {checked - started:.2f} s, run_batch {done - checked:.2f} s; records {outcome.records:,}, "
        f"valid {outcome.valid:,}, found {outcome.found:,}"
    )
    print(f"RESULT {done - started:.3f}")


def run_preview(data: Path, source: Path) -> None:
    started = time.perf_counter()
    check = check_upload(source, "CSV")
    got = preview(source, check, layout(), data)
    print(f"records {got.records:,}, valid {got.valid_documents:,}, found {got.found_in_dataset:,}")
    print(f"RESULT {time.perf_counter() - started:.3f}")


def run_oneshot(data: Path, source: Path, out: Path) -> None:
    spec = layout()
    plan = exit_plan(spec)
    started = time.perf_counter()
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT})
    con.execute(f"ATTACH '{data}' AS ds (READ_ONLY)")
    src = (
        f"(SELECT row_number() OVER () AS __row, * FROM read_csv('{source}', delim=';', header=true, "
        "all_varchar=true, quote='\"'))"
    )
    names = ", ".join(f'x{i} AS "{r.name}"' for i, r in enumerate(plan.rows))
    con.execute(
        f"COPY (SELECT {names} FROM ({joined_sql(spec, plan, src, TODAY)})) TO '{out / 'return.csv'}' "
        "(FORMAT csv, DELIMITER ';', HEADER)"
    )
    con.close()
    print(f"RESULT {time.perf_counter() - started:.3f}")


def run_loop(data: Path, source: Path, out: Path) -> None:
    spec = layout()
    plan = exit_plan(spec)
    fields = [exit_field(r.name) if e is None else None for r, e in zip(plan.rows, plan.entries, strict=True)]
    con = duckdb.connect(str(data), read_only=True)
    started = time.perf_counter()
    rows = 0
    with source.open(newline="") as f, (out / "return.csv").open("w") as sink:
        reader = csv.reader(f, delimiter=";")
        header = [h.upper() for h in next(reader)]
        sink.write(header_line(spec) + "\n")
        for fields_in in reader:
            entry = dict(zip(header, fields_in, strict=False))
            number = ""
            record = None
            try:
                document = Document.parse(entry["CPF"])
                number = document.number
                hit = con.execute("SELECT doc FROM people_docs WHERE cpf = ?", [number]).fetchone()
                record = orjson.loads(hit[0]) if hit else None
            except DomainError:
                number = "".join(c for c in entry["CPF"] if c.isdigit())
            values = {
                r.name: entry.get(e, "") if e is not None else exit_value(fl, record, number, TODAY) if fl else ""
                for r, e, fl in zip(plan.rows, plan.entries, fields, strict=True)
            }
            sink.write(format_line(spec, values) + "\n")
            rows += 1
            if rows == LOOP_SAMPLE:
                break
    seconds = time.perf_counter() - started
    print(f"{rows:,} rows in {seconds:.2f} s")
    print(f"RESULT {seconds:.3f} {rows}")


def run_dictloop(data: Path, source: Path, out: Path) -> None:
    spec = layout()
    plan = exit_plan(spec)
    fields = [exit_field(r.name) if e is None else None for r, e in zip(plan.rows, plan.entries, strict=True)]
    started = time.perf_counter()
    con = duckdb.connect(str(data), read_only=True)
    people: dict[str, str] = {}
    reader = con.execute("SELECT cpf, doc FROM people_docs").fetch_record_batch(100_000)
    for batch in reader:
        people.update(zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True))
    con.close()
    loaded = time.perf_counter()
    rows = 0
    with source.open(newline="") as f, (out / "return.csv").open("w") as sink:
        reader_in = csv.reader(f, delimiter=";")
        header = [h.upper() for h in next(reader_in)]
        sink.write(header_line(spec) + "\n")
        for fields_in in reader_in:
            entry = dict(zip(header, fields_in, strict=False))
            record = None
            try:
                number = Document.parse(entry["CPF"]).number
                hit = people.get(number)
                record = orjson.loads(hit) if hit is not None else None
            except DomainError:
                number = "".join(c for c in entry["CPF"] if c.isdigit())
            values = {
                r.name: entry.get(e, "") if e is not None else exit_value(fl, record, number, TODAY) if fl else ""
                for r, e, fl in zip(plan.rows, plan.entries, fields, strict=True)
            }
            sink.write(format_line(spec, values) + "\n")
            rows += 1
    done = time.perf_counter()
    print(f"dict of {len(people):,} people loaded in {loaded - started:.2f} s, {rows:,} rows in {done - loaded:.2f} s")
    print(f"RESULT {done - started:.3f}")


# -- the parent -------------------------------------------------------------------------------------


def child(way: str, data: Path, source: Path) -> tuple[str, float]:
    """Run one way in a child process; its output and peak RSS (MB)."""
    out = Path(tempfile.mkdtemp(prefix="batch-bench-", dir=CACHE))
    try:
        command = [
            sys.executable,
            __file__,
            "--child",
            way,
            "--data",
            str(data),
            "--source",
            str(source),
            "--out",
            str(out),
        ]
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
        )
        assert process.stdout is not None
        text = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            raise SystemExit(f"{way} failed:\n{text}")
        return text, usage.ru_maxrss / 1024
    finally:
        shutil.rmtree(out, ignore_errors=True)


def result(text: str) -> list[float]:
    line = next(line for line in text.splitlines() if line.startswith("RESULT "))
    return [float(v) for v in line.split()[1:]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--people", type=int, default=5_000_000)
    parser.add_argument("--child")
    parser.add_argument("--data", type=Path)
    parser.add_argument("--source", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.child:
        if args.child == "pipeline":
            run_pipeline(args.data, args.source, args.out)
        elif args.child == "preview":
            run_preview(args.data, args.source)
        elif args.child == "oneshot":
            run_oneshot(args.data, args.source, args.out)
        elif args.child == "dictloop":
            run_dictloop(args.data, args.source, args.out)
        else:
            run_loop(args.data, args.source, args.out)
        return

    CACHE.mkdir(parents=True, exist_ok=True)
    data = dataset(args.people)
    source = input_file(data, args.records)
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores shared); input {source.stat().st_size / 1e6:.1f} MB")
    figures: dict[str, tuple[float, float]] = {}
    for way in ("oneshot", "pipeline", "preview", "loop", "dictloop"):
        text, rss = child(way, data, source)
        values = result(text)
        seconds = values[0] * args.records / values[1] if way == "loop" else values[0]
        figures[way] = (seconds, rss)
        detail = " ".join(line for line in text.splitlines() if not line.startswith("RESULT"))
        print(f"{way:9s} {seconds:7.2f} s  peak RSS {rss:6.0f} MB  {detail}", flush=True)
    pipeline, oneshot = figures["pipeline"][0], figures["oneshot"][0]
    loop = min(figures["loop"][0], figures["dictloop"][0])
    print(
        f"pipeline / oneshot {pipeline / oneshot:.2f}x (target <= 1.3), faster loop / pipeline {loop / pipeline:.1f}x "
        f"(target >= 10), pipeline peak {figures['pipeline'][1]:.0f} MB (target <= 1024); "
        f"load average {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()

"""Batch enrichment, one run: a 1,000,000-record CSV against a 5,000,000-person dataset.

Several ways, each in its own process (its peak RSS read from ``wait4``; the ``api`` way's is the server's):

* ``pipeline``: the product's path without HTTP, ``check_upload`` + ``preview`` (which runs the join and stages
  its result) + ``run_batch`` (which takes its chunks from the staged join: chunk files written
  atomically, return assembled), from the uploaded file to the return file;
* ``api``: the product as a customer meets it, the issue's "upload to return file": the real server
  (``bemtevi serve``, embedded mode, SQLite, the bench's dataset as its local dataset) started on
  loopback, a customer with the bench's layout, batch querying and the credits set up through the
  API (not timed), then timed: the HTTP upload and the free preview it answers, the submit (credits
  reserved in the ledger), until the batch reads ``available`` (the detail route polled every
  0.1 s; the server's enrichment thread runs it), the download of the return file. Its bytes must
  be the ``pipeline`` way's (SHA-256 compared); the server's peak RSS is read from ``/proc``;
* ``preview``: ``check_upload`` + ``preview`` alone (the counts an upload answers);
* ``oneshot``: the same SQL as one DuckDB statement, ``COPY (read_csv → normalise → validate →
  LEFT JOIN → ORDER BY record) TO`` the same ';' CSV (the floor a resumable pipeline is held to);
* ``loop``: a per-row Python loop (``csv`` reader, ``Document.parse``, a primary-key read of the
  record's JSON in the dataset, ``exit_value`` for each field, ``format_line``) on a sample,
  scaled to the whole file;
* ``dictloop``: the per-row loop DESIGN measured (45.7 s, 4 GB there): the dataset's documents first
  read into a Python dict, then every record of the file looked up in it (the whole file, load
  included; the load is also printed on its own). The faster of the two loops is the one the
  target is held against;
* ``returns``: the return file alone from the pipeline's chunks, as CSV then as XLSX (XLSX at most 2 x CSV).

    PYTHONPATH=. .venv/bin/python bench/batch.py [--records 1000000] [--people 5000000]
        [--cache DIR] [--ways oneshot,pipeline,api,preview,loop,dictloop,returns] [--rounds 1]

The dataset and the input file are generated once into ``--cache`` (default var/bench-cache; minutes
the first time); each way's output goes to a temporary folder. Targets: pipeline and api ≤ 1.3 ×
oneshot, ≥ 10 × the loop, peak RSS ≤ 1 GB.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime as dt
import hashlib
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
import httpx
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import peak_rss_mb, server_process

from bemtevi.domain.documents import Document, cnpj_check_digits, format_cnpj
from bemtevi.domain.enrichment_fields import exit_field, exit_value
from bemtevi.domain.errors import DomainError
from bemtevi.domain.layouts import LayoutRow, LayoutSpec, format_line, header_line
from bemtevi.infra.batches.join_sql import exit_plan, joined_sql
from bemtevi.infra.batches.pipeline import MEMORY_LIMIT, _exit_columns, _read_chunk, preview, run_batch
from bemtevi.infra.batches.returns import write_return_file
from bemtevi.infra.batches.upload_checks import check_upload
from bemtevi.infra.duckdb_files import path_literal

ROOT = Path(__file__).resolve().parents[1]
EXITS = ("CODIGO", "CPF", "NOME", "NASCIMENTO", "IDADE", "TELEFONE1", "CIDADE", "UF", "RENDA", "ENCONTRADO")
# Ages are counted on the day of the run, as the server's runner counts them, so that the ``api`` way's return
# file can be compared byte for byte with the ``pipeline`` way's.
TODAY = dt.date.today()
LOOP_SAMPLE = 5_000
WAYS = ("oneshot", "pipeline", "api", "preview", "loop", "dictloop", "returns")
PASSWORD = "Bench!pass1"
OWNER_PASSWORD = "N0va!Senha"


def layout() -> LayoutSpec:
    rows = [LayoutRow("CPF", "document", 1, "", None, "entry"), LayoutRow("CODIGO", "text", 2, "", None, "entry")]
    rows += [LayoutRow(name, "text", i + 1, "", None, "exit") for i, name in enumerate(EXITS)]
    return LayoutSpec("in", "out", "csv", "csv", "delimited", ";", True, "people", tuple(rows)).validated()


def dataset(cache: Path, people: int) -> Path:
    from bemtevi.infra.demo_data import generate_demo_dataset

    path = (
        cache / f"dataset-{people // 1_000_000}m.duckdb" if people >= 1_000_000 else cache / f"dataset-{people}.duckdb"
    )
    if not path.exists():
        summary = generate_demo_dataset(path, people=people, companies=max(1, people // 50), seed=20111)
        print(f"generated the {people:,}-person dataset in {summary.seconds:.0f} s", flush=True)
    return path


def input_file(cache: Path, data: Path, records: int) -> Path:
    """~70 % CPFs of the dataset (a third of them punctuated), ~20 % random 11-digit numbers (about one
    in a hundred has the right check digits, then mostly not in the dataset), ~10 % not a document at all."""
    path = cache / f"batch-{records}.csv"
    if path.exists():
        return path
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {path_literal(data)} AS ds (READ_ONLY)")
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


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


# -- the ways run in a child process ----------------------------------------------------------------


def _uploaded(source: Path, out: Path) -> Path:
    """The input as an upload of its own in ``out`` (a link): the preview stages its records beside it."""
    link = out / "sent" / source.name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(source)
    return link


def run_pipeline(data: Path, source: Path, out: Path) -> None:
    """The product's path from the uploaded file: check, the free preview (which stages the records
    read), then the run (which joins the staged records)."""
    spec = layout()
    source = _uploaded(source, out)
    started = time.perf_counter()
    check = check_upload(source, "CSV")
    checked = time.perf_counter()
    preview(source, check, spec, data, today=TODAY)
    previewed = time.perf_counter()
    outcome = run_batch(
        source, check, spec, data, out / "work", on_progress=lambda p: None, should_stop=lambda: False, today=TODAY
    )
    done = time.perf_counter()
    print(
        f"check_upload {checked - started:.2f} s, preview {previewed - checked:.2f} s, "
        f"run_batch {done - previewed:.2f} s; records {outcome.records:,}, "
        f"valid {outcome.valid:,}, found {outcome.found:,}"
    )
    print(f"SHA256 {sha256_of(outcome.return_file)}")
    print(f"RESULT {done - started:.3f}")


def run_returns(data: Path, source: Path, out: Path) -> None:
    """The return file alone, CSV then XLSX, from the same chunks (the pipeline's, not timed): what a
    customer who picks an XLSX return waits for against one who picks CSV (issue 32: at most twice)."""
    spec = layout()
    source = _uploaded(source, out)
    check = check_upload(source, "CSV")
    work = out / "work"
    run_batch(source, check, spec, data, work, on_progress=lambda p: None, should_stop=lambda: False, today=TODAY)
    chunks = sorted(work.glob("chunk-*.arrow"))
    plan = exit_plan(spec)
    seconds = []
    for extension in ("csv", "xlsx"):
        target_spec = dataclasses.replace(spec, return_extension=extension)
        started = time.perf_counter()
        target = write_return_file(
            target_spec, out / f"return.{extension}", (_exit_columns(_read_chunk(c), plan) for c in chunks)
        )
        seconds.append(time.perf_counter() - started)
        print(f"{extension} {seconds[-1]:.2f} s ({target.stat().st_size / 1e6:.1f} MB)")
    print(f"RESULT {seconds[1]:.3f} {seconds[0]:.3f}")


def run_preview(data: Path, source: Path, out: Path) -> None:
    source = _uploaded(source, out)
    started = time.perf_counter()
    check = check_upload(source, "CSV")
    got = preview(source, check, layout(), data, today=TODAY)
    print(f"records {got.records:,}, valid {got.valid_documents:,}, found {got.found_in_dataset:,}")
    print(f"RESULT {time.perf_counter() - started:.3f}")


def run_oneshot(data: Path, source: Path, out: Path) -> None:
    spec = layout()
    plan = exit_plan(spec)
    started = time.perf_counter()
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT})
    con.execute(f"ATTACH {path_literal(data)} AS ds (READ_ONLY)")
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


# -- the api way: the real server in a subprocess, this process its HTTP client ---------------------


def layout_body() -> dict[str, object]:
    """``layout()`` as the layout routes take it."""
    spec = layout()
    return {
        "fileName": spec.file_name,
        "finalFileName": spec.final_file_name,
        "returnExtension": spec.return_extension,
        "acceptedExtension": spec.accepted_extension,
        "kind": spec.kind,
        "delimiter": spec.delimiter,
        "firstLine": spec.first_line,
        "table": spec.table,
        "rows": [row.as_dict() for row in spec.rows],
    }


def answer(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    if response.status_code != status:
        raise SystemExit(
            f"{response.request.method} {response.request.url.path}: {response.status_code} {response.text}"
        )
    return dict(response.json())


def sign_in(client: httpx.Client, email: str, password: str) -> dict[str, str]:
    token = answer(client.post("/api/auth/auth", json={"email": email, "password": password}))["token"]
    return {"Authorization": f"Bearer {token}"}


def customer_with_layout(client: httpx.Client, credits: int) -> tuple[str, dict[str, str]]:
    """As the tests set one up: the super-admin adds the layout and registers a customer given it, batch
    querying (on by default) and ``credits`` batch credits; its owner chooses a password from the invitation."""
    admin = sign_in(client, "admin@bemtevi.local", PASSWORD)
    layout_id = str(answer(client.post("/api/layouts", headers=admin, json=layout_body()))["id"])
    base = "112223330001"
    body = {
        "type": "company",
        "cnpj": format_cnpj(base + cnpj_check_digits(base)),
        "companyName": "Bancada de Lotes Ltda",
        "tradeName": "Bancada",
        "personInCharge": "Responsável",
        "phone": "(11) 91234-5678",
        "email": "dono@bancada.com.br",
        "seller": "Vendedor Sul",
        "defaultQuery": True,
        "consultProtest": False,
        "quantities": {"unit": 0, "batch": credits, "advanced": 0, "api": 0},
        "enabledQueryTypes": ["cpf-complete", "cnpj-complete"],
        "enabledLayouts": [layout_id],
        "panelAccess": True,
        "apiAccess": False,
    }
    registered = answer(client.post("/api/customers", headers=admin, json=body))["data"]
    assert isinstance(registered, dict)
    # The owner was invited by e-mail: the invitation's link (from the outbox) is where they choose a password.
    deadline = time.monotonic() + 60
    while True:
        mails = answer(client.get("/api/mail/outbox", headers=admin, params={"perPage": 100}))["data"]
        found = [m for m in mails if m["to"] == registered["ownerEmail"] and m["reason"] == "first-access"]
        if found or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    link = re.search(r"/verify-code/(\d{6})/(\w+)/([\w-]+)", found[0]["text"]) if found else None
    assert found and link, "no invitation for the owner"
    code, key, invitation_id = link.groups()
    chosen = {"code": code, "uniqueKey": key, "id": invitation_id}
    chosen |= {"password": OWNER_PASSWORD, "confirmation": OWNER_PASSWORD}
    answer(client.post("/api/auth/redefine-password", json=chosen))
    return layout_id, sign_in(client, registered["ownerEmail"], OWNER_PASSWORD)


def run_api(data: Path, source: Path, records: int) -> tuple[dict[str, float], str, str]:
    """The timed steps (seconds), the return file's SHA-256, and the server's memory and detail lines."""
    var = Path(tempfile.mkdtemp(prefix="batch-bench-api-"))
    try:
        # The server's local dataset is the bench's file (a link, not a copy). Its supplier keeps an SQLite
        # copy of the dataset's documents for unit lookups (some 7.7 GB and minutes for 5M people); a batch
        # never reads it (the pipeline joins the DuckDB file), so the server is given it empty.
        local = var / "dataset" / data.name
        local.parent.mkdir()
        local.symlink_to(data.resolve())
        lookup = sqlite3.connect(local.with_name(local.name + ".lookup.sqlite"))
        lookup.execute("CREATE TABLE people_docs (cpf TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID")
        lookup.execute("CREATE TABLE company_docs (cnpj TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID")
        lookup.commit()
        lookup.close()
        env = {
            "BEMTEVI_VAR_DIR": str(var / "var"),
            "BEMTEVI_DATASET_PATH": str(local),
            "BEMTEVI_ADMIN_PASSWORD": PASSWORD,
            "BEMTEVI_ENRICHMENT": "embedded",
            "BEMTEVI_BATCH_MAX_BYTES": str(max(10 << 20, source.stat().st_size * 2)),
        }
        with server_process(env) as (base, server), httpx.Client(base_url=base, timeout=None) as client:
            layout_id, owner = customer_with_layout(client, records)
            at_setup = peak_rss_mb(server.pid)
            steps: dict[str, float] = {}
            started = time.perf_counter()
            with source.open("rb") as body:
                shown = answer(
                    client.post(
                        "/api/batches/uploads",
                        headers={**owner, "Content-Type": "application/octet-stream"},
                        params={"layoutId": layout_id, "fileName": source.name},
                        content=body,
                    ),
                    201,
                )
            uploaded = time.perf_counter()
            steps["upload + preview"] = uploaded - started
            made = answer(client.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 201)
            submitted = time.perf_counter()
            steps["submit"] = submitted - uploaded
            # The return route answers the file as soon as the batch is finished on the write side (the list
            # and the progress stream read the read model, which follows within its coalescing window).
            digest = hashlib.sha256()
            while True:
                with client.stream("GET", f"/api/batches/{made['id']}/return", headers=owner) as returned:
                    if returned.status_code == 200:
                        ready = time.perf_counter()
                        for block in returned.iter_bytes(1 << 20):
                            digest.update(block)
                        break
                    body = returned.read()
                    if returned.status_code != 404 or b"return_not_ready" not in body:
                        raise SystemExit(f"return: {returned.status_code} {body!r}")
                time.sleep(0.05)
            done = time.perf_counter()
            steps["submit → return ready"] = ready - submitted
            steps["download"] = done - ready
            steps["total"] = done - started
            while True:  # not timed: the read model's row, for the counts and when the list says available
                row = answer(client.get(f"/api/batches/{made['id']}", headers=owner))
                detail = row["data"]
                assert isinstance(detail, dict)
                if detail["status"] in ("available", "error", "canceled"):
                    break
                time.sleep(0.05)
            listed = time.perf_counter() - submitted
            if detail["status"] != "available":
                raise SystemExit(f"the batch ended {detail['status']}: {detail.get('message')}")
            peaks = peak_rss_mb(server.pid)
        memory = ", ".join(
            f"{name} {mb:,.0f} MB (after setup {at_setup.get(pid, ('', 0.0))[1]:,.0f})"
            for pid, (name, mb) in peaks.items()
        )
        lines = (
            f"preview: records {shown['records']:,}, valid {shown['validDocuments']:,}, found "
            f"{shown['foundInDataset']:,}, credits needed {shown['creditsNeeded']:,}; finished: records "
            f"{detail['records']:,}, found {detail['found']:,}, charged {detail['creditsCharged']:,}; the list said "
            f"available {listed:.2f} s after the submit; "
            f"server peak RSS: {memory}"
        )
        return steps, digest.hexdigest(), lines
    finally:
        shutil.rmtree(var, ignore_errors=True)


# -- the parent -------------------------------------------------------------------------------------


def child(way: str, data: Path, source: Path) -> tuple[str, float]:
    """Run one way in a child process; its output and peak RSS (MB)."""
    out = Path(tempfile.mkdtemp(prefix="batch-bench-"))
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
    parser.add_argument("--cache", type=Path, default=ROOT / "var" / "bench-cache", help="dataset and input folder")
    parser.add_argument("--ways", default=",".join(WAYS), help="comma-separated, of " + ", ".join(WAYS))
    parser.add_argument("--rounds", type=int, default=1, help="run the ways this many times, alternated (medians)")
    parser.add_argument("--child")
    parser.add_argument("--data", type=Path)
    parser.add_argument("--source", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.child:
        if args.child == "pipeline":
            run_pipeline(args.data, args.source, args.out)
        elif args.child == "returns":
            run_returns(args.data, args.source, args.out)
        elif args.child == "preview":
            run_preview(args.data, args.source, args.out)
        elif args.child == "oneshot":
            run_oneshot(args.data, args.source, args.out)
        elif args.child == "dictloop":
            run_dictloop(args.data, args.source, args.out)
        else:
            run_loop(args.data, args.source, args.out)
        return

    ways = [w for w in args.ways.split(",") if w]
    if unknown := set(ways) - set(WAYS):
        raise SystemExit(f"unknown ways: {', '.join(sorted(unknown))}")
    args.cache.mkdir(parents=True, exist_ok=True)
    data = dataset(args.cache, args.people)
    source = input_file(args.cache, data, args.records)
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores shared); input {source.stat().st_size / 1e6:.1f} MB")
    rounds: dict[str, list[tuple[float, float]]] = {}
    summary_returns: list[float] = []
    hashes: dict[str, str] = {}
    for number in range(1, args.rounds + 1):
        if args.rounds > 1:
            print(f"round {number} (load average {os.getloadavg()[0]:.2f})")
        for way in (w for w in WAYS if w in ways):
            if way == "api":
                steps, digest, lines = run_api(data, source, args.records)
                if hashes.setdefault("api", digest) != digest:
                    raise SystemExit("the api way's return file changed between rounds")
                rounds.setdefault("api", []).append((steps["total"], 0.0))
                print("api       " + ", ".join(f"{step} {seconds:.2f} s" for step, seconds in steps.items()))
                print(f"          {lines}", flush=True)
                continue
            text, rss = child(way, data, source)
            values = result(text)
            seconds = values[0] * args.records / values[1] if way == "loop" else values[0]
            if way == "returns":
                summary_returns.append(values[0] / values[1])
            rounds.setdefault(way, []).append((seconds, rss))
            for line in text.splitlines():
                if line.startswith("SHA256 "):
                    hashes[way] = line.split()[1]
            detail = " ".join(line for line in text.splitlines() if not line.startswith(("RESULT", "SHA256")))
            print(f"{way:9s} {seconds:7.2f} s  peak RSS {rss:6.0f} MB  {detail}", flush=True)
    figures = {way: (statistics.median(t for t, _ in got), max(rss for _, rss in got)) for way, got in rounds.items()}
    if args.rounds > 1:
        print("medians: " + ", ".join(f"{way} {seconds:.2f} s" for way, (seconds, _) in figures.items()))
    summary = []
    oneshot = figures["oneshot"][0] if "oneshot" in figures else None
    for way in ("pipeline", "api"):
        if way in figures and oneshot:
            summary.append(f"{way} / oneshot {figures[way][0] / oneshot:.2f}x (target <= 1.3)")
    if "loop" in figures and "dictloop" in figures:
        loop = min(figures["loop"][0], figures["dictloop"][0])
        for way in ("pipeline", "api"):
            if way in figures:
                summary.append(f"faster loop / {way} {loop / figures[way][0]:.1f}x (target >= 10)")
    if summary_returns:
        summary.append(f"xlsx return / csv return {statistics.median(summary_returns):.2f}x (target <= 2)")
    if "pipeline" in figures:
        summary.append(f"pipeline peak {figures['pipeline'][1]:.0f} MB (target <= 1024)")
    if "api" in hashes and "pipeline" in hashes:
        same = hashes["api"] == hashes["pipeline"]
        summary.append(f"api return file {'==' if same else '!='} pipeline's (sha256 {hashes['api'][:16]}…)")
    print("; ".join([*summary, f"load average {os.getloadavg()[0]:.2f}"]))
    if "api" in hashes and "pipeline" in hashes and hashes["api"] != hashes["pipeline"]:
        raise SystemExit("the api way's return file differs from the pipeline way's")


if __name__ == "__main__":
    main()

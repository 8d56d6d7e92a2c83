"""Point-lookup latency of the local dataset supplier.

    .venv/bin/python bench/lookup_supplier.py                 # generate 100k/20k in a temp folder
    .venv/bin/python bench/lookup_supplier.py --path FILE     # reuse FILE (generated if missing)
    .venv/bin/python bench/lookup_supplier.py --people 2000000 --companies 400000

Prints the generation time and file size, then p50/p99 latency and lookups/s for people and
companies (hits drawn at random from the dataset, twice: the first pass reads blocks from the file,
the second finds them in DuckDB's buffer pool; plus a run of misses), from one thread and from
several threads sharing one supplier.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bemtevi.infra.demo_data import generate_demo_dataset
from bemtevi.infra.suppliers.local import LocalDatasetSupplier


def _sample(path: Path, table: str, column: str, n: int) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = con.execute(f"SELECT {column} FROM {table} USING SAMPLE {n} ROWS (reservoir, 7)").fetchall()
    finally:
        con.close()
    return [r[0] for r in rows]


def _measure(fn: Callable[[str], Any], keys: list[str], warmup: int = 200) -> tuple[float, float, float]:
    for key in keys[:warmup]:
        fn(key)
    times: list[float] = []
    started = time.perf_counter()
    for key in keys:
        t0 = time.perf_counter()
        fn(key)
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - started
    times.sort()
    return times[len(times) // 2] * 1e3, times[int(len(times) * 0.99)] * 1e3, len(keys) / total


def _threaded(fn: Callable[[str], Any], keys: list[str], threads: int) -> float:
    chunks = [keys[i::threads] for i in range(threads)]
    workers = [threading.Thread(target=lambda c=c: [fn(k) for k in c]) for c in chunks]
    started = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return len(keys) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", type=Path, help="dataset file to reuse (generated if missing)")
    parser.add_argument("--people", type=int, default=100_000)
    parser.add_argument("--companies", type=int, default=20_000)
    parser.add_argument("--lookups", type=int, default=5_000)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path: Path = args.path or Path(tmp) / "demo.duckdb"
        if path.exists():
            print(f"dataset: reusing {path.name} ({path.stat().st_size / 1e6:.1f} MB)")
        else:
            summary = generate_demo_dataset(path, people=args.people, companies=args.companies)
            print(
                f"generation: {summary.people:,} people + {summary.companies:,} companies in "
                f"{summary.seconds:.2f} s, file {path.stat().st_size / 1e6:.1f} MB"
            )

        cpfs = _sample(path, "people", "cpf", args.lookups)
        cnpjs = _sample(path, "companies", "cnpj", args.lookups)
        rng = np.random.default_rng(1)
        missing = [f"{x:011d}" for x in rng.integers(0, 10**11, args.lookups)]

        supplier = LocalDatasetSupplier(path)
        try:
            for label, fn, keys in (
                ("person  (hit, 1st pass)", supplier.lookup_person, cpfs),
                ("person  (hit, 2nd pass)", supplier.lookup_person, cpfs),
                ("company (hit, 1st pass)", supplier.lookup_company, cnpjs),
                ("company (hit, 2nd pass)", supplier.lookup_company, cnpjs),
                ("person  (miss)         ", supplier.lookup_person, missing),
            ):
                p50, p99, rate = _measure(fn, keys)
                print(f"{label}: p50 {p50:.3f} ms  p99 {p99:.3f} ms  {rate:,.0f} lookups/s (1 thread)")
            for label, fn, keys in (
                ("person ", supplier.lookup_person, cpfs),
                ("company", supplier.lookup_company, cnpjs),
            ):
                rate = _threaded(fn, keys, args.threads)
                print(f"{label} : {rate:,.0f} lookups/s ({args.threads} threads, one supplier)")
        finally:
            supplier.close()

        # For comparison: the same row read from the nested columns instead of the JSON doc.
        con = duckdb.connect(str(path), read_only=True)
        try:
            cur = con.cursor()
            times = []
            for cpf in cpfs[:2000]:
                t0 = time.perf_counter()
                cur.execute("SELECT * FROM people WHERE cpf = ?", [cpf]).fetchone()
                times.append(time.perf_counter() - t0)
            print(
                f"reference: SELECT * (nested columns) by cpf, parameterised: "
                f"p50 {statistics.median(times) * 1e3:.3f} ms"
            )
        finally:
            con.close()


if __name__ == "__main__":
    main()

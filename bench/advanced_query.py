"""The advanced query's search (issue 36: 5,000,000 people, p50 <= 50 ms, p99 <= 200 ms): p50/p99 of a name, a name
and city, and a phone search over N people, on the product's indexes (SQLite FTS5, words with a prefix index,
embedded; PostgreSQL full-text prefix terms in cluster mode: --backends, their searches alternated one by one so
that both see the same machine) and, for the choice, on a DuckDB scan of the same folded texts and (--trigram) on FTS5's
trigram tokenizer (names and cities only). DuckDB's fts extension is not in its wheel (it downloads), so it is
not a candidate.

    .venv/bin/python bench/advanced_query.py --people 300000 --queries 200 [--backends sqlite,postgres] [--trigram]

The dataset and the indexes are built in a temporary folder and database (or --cache DIR and a database named
after the size, both kept for the next run). PostgreSQL is BEMTEVI_TEST_POSTGRES_URL's, else the project's own.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import duckdb
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import postgres_database, warn_if_busy

from bemtevi.domain.advanced_query import MAX_MATCHES, AdvancedCriteria, fold
from bemtevi.infra.demo_data import generate_demo_dataset
from bemtevi.infra.duckdb_files import path_literal
from bemtevi.infra.local_services.postgres import ensure_postgres
from bemtevi.infra.suppliers.search_index import SearchIndex, SqliteSearchIndex, build_index_file, index_file_for
from bemtevi.infra.suppliers.search_index_postgres import PostgresSearchIndex, build_index

KINDS = ("cpf", "cnpj")
_TRIGRAM_SQL = "SELECT rowid FROM s WHERE s MATCH ? LIMIT 1001"


def _samples(dataset: Path, n: int, seed: int) -> list[tuple[str, str, str]]:
    """(name, city, phone) of n people picked at random: what a customer would search for."""
    with duckdb.connect(str(dataset), read_only=True) as con:
        rows = con.execute(
            f"SELECT name, addresses[1].city, phones[1].number FROM people"
            f" USING SAMPLE reservoir({int(n)} ROWS) REPEATABLE ({int(seed)})",
        ).fetchall()
    return [(str(name), str(city or ""), str(phone or "")) for name, city, phone in rows if phone]


def _partial(name: str) -> str:
    """First and last name, upper case, as typed: a partial name."""
    words = name.split()
    return f"{words[0]} {words[-1]}".upper()


def _percentiles(times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered) * 1000:7.2f} ms  p99 {p99 * 1000:7.2f} ms"


def _timed(run: Callable[[], object], queries: int) -> list[float]:
    times = []
    for _ in range(queries):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


@contextmanager
def _database(kept: str | None) -> Iterator[str]:
    """A database for the PostgreSQL index: ``kept`` (made when missing, left for the next run) or a temporary one."""
    if kept is None:
        with postgres_database() as url:
            yield url
        return
    server = os.environ.get("BEMTEVI_TEST_POSTGRES_URL") or ensure_postgres()
    with psycopg.connect(server, autocommit=True) as con:
        if con.execute("SELECT 1 FROM pg_database WHERE datname = %s", [kept]).fetchone() is None:
            con.execute(f'CREATE DATABASE "{kept}"')
    yield urlunparse(urlparse(server)._replace(path=f"/{kept}"))


def _pg_size(url: str) -> float:
    with psycopg.connect(url) as con:
        row = con.execute(
            "SELECT sum(pg_total_relation_size(oid)) FROM pg_class WHERE relname IN"
            " ('bemtevi_search_entries', 'bemtevi_search_phones')"
        ).fetchone()
    return float(row[0] if row and row[0] else 0) / 2**20


def _duckdb_table(dataset: Path, cache: Path) -> duckdb.DuckDBPyConnection:
    """The same folded texts as a DuckDB table, scanned with contains() (the alternative measured)."""
    path = cache / "scan.duckdb"
    con = duckdb.connect(str(path))
    if not con.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = 'folded'").fetchall():
        con.execute(f"ATTACH {path_literal(dataset)} AS ds (READ_ONLY)")
        con.execute(
            "CREATE TABLE folded AS SELECT cpf, strip_accents(lower(name)) AS f_name,"
            " strip_accents(lower(array_to_string(list_transform(addresses, a -> a.city), ' | '))) AS f_city,"
            " list_transform(phones, p -> p.number) AS numbers FROM ds.people"
        )
        con.execute("DETACH ds")
    return con


def _trigram(dataset: Path, folder: Path, picked: list[tuple[str, str, str]]) -> None:
    """Names and cities in an FTS5 table with the trigram tokenizer (any substring of 3+ characters)."""
    path = folder / "trigram.sqlite"
    if not path.exists():
        start = time.perf_counter()
        db = sqlite3.connect(path)
        db.execute("CREATE VIRTUAL TABLE s USING fts5(f_name, f_city, content='', tokenize='trigram')")
        with duckdb.connect(str(dataset), read_only=True) as src:
            cursor = src.execute(
                "SELECT row_number() OVER (), strip_accents(lower(name)),"
                " strip_accents(lower(array_to_string(list_transform(addresses, a -> a.city), ' | '))) FROM people"
            )
            while rows := cursor.fetchmany(50_000):
                db.executemany("INSERT INTO s (rowid, f_name, f_city) VALUES (?, ?, ?)", rows)
        db.execute("INSERT INTO s (s) VALUES ('optimize')")
        db.commit()
        db.close()
        print(f"trigram table (names, cities) built in {time.perf_counter() - start:.1f} s")
    db = sqlite3.connect(path)
    for kind in ("name", "name+city"):
        expressions = []
        for name, city, _ in picked:
            words = [f'f_name : "{w}"' for w in fold(_partial(name)).split()]
            if kind == "name+city":
                words.append(f'f_city : "{fold(city)}"')
            expressions.append(" AND ".join(words))
        it = iter(expressions)
        times = _timed(lambda it=it: db.execute(_TRIGRAM_SQL, (next(it),)).fetchall(), len(expressions))  # type: ignore[misc]
        print(f"  FTS5 trigram  {kind:<10} {_percentiles(times)}")


def _searches(dataset: Path, people: int, queries: int, indexes: dict[str, SearchIndex]) -> list[tuple[str, str, str]]:
    """Each kind of search on every index, alternated search by search; answers the people searched for."""
    picked = _samples(dataset, queries, 5)
    rng = random.Random(3)
    searches = {
        "name": [AdvancedCriteria.parse({"name": _partial(n)}) for n, _, _ in picked],
        "name+city": [AdvancedCriteria.parse({"name": _partial(n), "city": c}) for n, c, _ in picked],
        "phone": [AdvancedCriteria.parse({"telephone": f"({p[:2]}) {p[2:-4]}-{p[-4:]}"}) for _, _, p in picked],
    }
    print(f"{len(picked)} searches of each kind over {people:,} people (lists capped at {MAX_MATCHES:,})")
    for kind, criteria in searches.items():
        order = list(criteria)
        rng.shuffle(order)
        times: dict[str, list[float]] = {name: [] for name in indexes}
        for index in indexes.values():
            index.search(order[-1], KINDS)  # the connection opened, the pages warm
        for one in order:
            for name, index in indexes.items():
                start = time.perf_counter()
                index.search(one, KINDS)
                times[name].append(time.perf_counter() - start)
        for name, taken in times.items():
            print(f"  {name:<13} {kind:<10} {_percentiles(taken)}")
    return picked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=300_000)
    parser.add_argument("--queries", type=int, default=200, help="searches of each kind")
    parser.add_argument("--cache", type=Path, help="keep the dataset and indexes here (and PostgreSQL's database)")
    parser.add_argument("--backends", default="sqlite", help="the product's indexes: sqlite, postgres or both")
    parser.add_argument("--no-duckdb", action="store_true", help="measure only the product's index")
    parser.add_argument("--trigram", action="store_true", help="also FTS5's trigram tokenizer (slow to build)")
    args = parser.parse_args()
    warn_if_busy()
    folder = args.cache or Path(tempfile.mkdtemp(prefix="bench-advq-"))
    folder.mkdir(parents=True, exist_ok=True)
    dataset = folder / f"dataset-{args.people}.duckdb"
    if not dataset.exists():
        start = time.perf_counter()
        generate_demo_dataset(dataset, people=args.people, companies=max(args.people // 10, 100), seed=11)
        print(f"dataset of {args.people:,} people: {time.perf_counter() - start:.1f} s")
    backends = [b for b in args.backends.split(",") if b]
    with _database(f"bemtevi_bench_advq_{args.people}" if args.cache else None) as url:
        indexes: dict[str, SearchIndex] = {}
        if "sqlite" in backends:
            if not index_file_for(dataset).exists():
                start = time.perf_counter()
                build_index_file(dataset)
                size = index_file_for(dataset).stat().st_size / 2**20
                print(f"FTS5 index (every field) built in {time.perf_counter() - start:.1f} s, {size:.0f} MB")
            indexes["FTS5 prefix"] = SqliteSearchIndex(dataset)
        if "postgres" in backends:
            start = time.perf_counter()
            if build_index(url, dataset):
                took = time.perf_counter() - start
                print(f"PostgreSQL full-text index (every field) built in {took:.1f} s, {_pg_size(url):.0f} MB")
            indexes["PG full-text"] = PostgresSearchIndex(url, dataset)
        try:
            picked = _searches(dataset, args.people, args.queries, indexes)
        finally:
            for index in indexes.values():
                index.close()
    if args.trigram:
        _trigram(dataset, folder, picked)
    if args.no_duckdb:
        return
    con = _duckdb_table(dataset, folder)
    statements = {
        "name": ("SELECT cpf FROM folded WHERE contains(f_name, ?) AND contains(f_name, ?) LIMIT 1001", 2),
        "name+city": (
            "SELECT cpf FROM folded WHERE contains(f_name, ?) AND contains(f_name, ?) AND contains(f_city, ?)"
            " LIMIT 1001",
            3,
        ),
        "phone": ("SELECT cpf FROM folded WHERE list_contains(numbers, ?) LIMIT 1001", 1),
    }
    for kind, (sql, _) in statements.items():
        params = []
        for name, city, phone in picked:
            first, last = fold(_partial(name)).split()
            params.append({"name": [first, last], "name+city": [first, last, fold(city)], "phone": [phone]}[kind])
        it2 = iter(params * 2)
        con.execute(sql, params[0]).fetchall()
        times = _timed(lambda it2=it2, sql=sql: con.execute(sql, next(it2)).fetchall(), len(params))  # type: ignore[misc]
        print(f"  DuckDB scan   {kind:<10} {_percentiles(times)}")


if __name__ == "__main__":
    main()

"""The advanced query's search (issue 36: 5,000,000 people, p50 <= 50 ms, p99 <= 200 ms): p50/p99 of a name, a name
and city, and a phone search over N people, on the product's index (SQLite FTS5, words with a prefix index) and,
for the choice, on a DuckDB scan of the same folded texts and (--trigram) on FTS5's trigram tokenizer (names and
cities only). DuckDB's fts extension is not in its wheel (it downloads), so it is not a candidate.

    .venv/bin/python bench/advanced_query.py --people 300000 --queries 200 [--trigram]

The dataset and both indexes are built in a temporary folder (or --cache DIR, kept for the next run).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import warn_if_busy

from bemtevi.domain.advanced_query import MAX_MATCHES, AdvancedCriteria, fold
from bemtevi.infra.demo_data import generate_demo_dataset
from bemtevi.infra.suppliers.search_index import SqliteSearchIndex, build_index_file, index_file_for

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


def _duckdb_table(dataset: Path, cache: Path) -> duckdb.DuckDBPyConnection:
    """The same folded texts as a DuckDB table, scanned with contains() (the alternative measured)."""
    path = cache / "scan.duckdb"
    con = duckdb.connect(str(path))
    if not con.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = 'folded'").fetchall():
        con.execute(f"ATTACH '{dataset}' AS ds (READ_ONLY)")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=300_000)
    parser.add_argument("--queries", type=int, default=200, help="searches of each kind")
    parser.add_argument("--cache", type=Path, help="keep the dataset and indexes here")
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
    if not index_file_for(dataset).exists():
        start = time.perf_counter()
        build_index_file(dataset)
        size = index_file_for(dataset).stat().st_size / 2**20
        print(f"FTS5 index (every field) built in {time.perf_counter() - start:.1f} s, {size:.0f} MB")
    index = SqliteSearchIndex(dataset)
    picked = _samples(dataset, args.queries, 5)
    rng = random.Random(3)
    searches = {
        "name": [AdvancedCriteria.parse({"name": _partial(n)}) for n, _, _ in picked],
        "name+city": [AdvancedCriteria.parse({"name": _partial(n), "city": c}) for n, c, _ in picked],
        "phone": [AdvancedCriteria.parse({"telephone": f"({p[:2]}) {p[2:-4]}-{p[-4:]}"}) for _, _, p in picked],
    }
    print(f"{len(picked)} searches of each kind over {args.people:,} people (lists capped at {MAX_MATCHES:,})")
    for kind, criteria in searches.items():
        order = list(criteria)
        rng.shuffle(order)
        it = iter(order * 2)
        index.search(order[0], KINDS)  # the connection opened, the pages warm
        times = _timed(lambda it=it: index.search(next(it), KINDS), len(order))  # type: ignore[misc]
        print(f"  FTS5 prefix   {kind:<10} {_percentiles(times)}")
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

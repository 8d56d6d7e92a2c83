"""The read-side bench's DuckLake path (``bench/lake.py``, ``bench/read_side.py``), which issue 15's choice of
cluster read models rests on: the product's projector writes the read models into DuckLake in one process and
the product's queries read them from another, with the answers a DuckDB file gives."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from _common import postgres_database  # noqa: E402
from lake import lake_statement  # noqa: E402
from read_side import Child, History, Setup, stop_all  # noqa: E402
from support import examples  # noqa: E402

from bemtevi.commands.application import BemteviApplication  # noqa: E402
from bemtevi.infra.settings import Settings  # noqa: E402

# -- the statements DuckLake cannot run, rewritten -------------------------------------------

TABLE = """
CREATE TABLE IF NOT EXISTS counts (
    tenant VARCHAR NOT NULL,
    day INTEGER NOT NULL,
    label VARCHAR,
    hits BIGINT NOT NULL,
    PRIMARY KEY (tenant, day)
)
"""
# The shapes the read models use: rows from a registered page with a CTE, adding to the row found;
# VALUES replacing it; VALUES ignored when the key is taken.
UPSERTS = (
    "INSERT INTO counts WITH p AS (SELECT * FROM page) SELECT tenant, day, max(label), sum(hits) FROM p "
    "GROUP BY tenant, day "
    "ON CONFLICT (tenant, day) DO UPDATE SET hits = counts.hits + excluded.hits, label = excluded.label",
    "INSERT INTO counts VALUES (?, ?, ?, ?) ON CONFLICT (tenant, day) DO UPDATE SET hits = excluded.hits",
    "INSERT INTO counts VALUES (?, ?, ?, ?) ON CONFLICT (tenant, day) DO NOTHING",
)

rows = st.lists(
    st.tuples(st.sampled_from("ab"), st.integers(0, 3), st.none() | st.text(max_size=3), st.integers(-5, 5)),
    max_size=12,
)


def _apply(con: duckdb.DuckDBPyConnection, statement: Any, pages: list[list[tuple[Any, ...]]], shape: int) -> None:
    for page in pages:
        if shape == 0:
            con.execute("CREATE OR REPLACE TEMP TABLE page (tenant VARCHAR, day INTEGER, label VARCHAR, hits BIGINT)")
            if page:
                con.executemany("INSERT INTO page VALUES (?, ?, ?, ?)", page)
            con.execute(statement(UPSERTS[0]))
        else:
            # One statement per key, as the folds write (ON CONFLICT refuses one key twice in a statement).
            for row in {(t, d): (t, d, label, h) for t, d, label, h in page}.values():
                con.execute(statement(UPSERTS[shape]), list(row))


@settings(max_examples=examples(30), deadline=None)
@given(pages=st.lists(rows, max_size=4), shape=st.integers(0, 2))
def test_an_upsert_rewritten_for_ducklake_leaves_the_rows_the_original_leaves(
    pages: list[list[tuple[Any, ...]]], shape: int
) -> None:
    """DuckLake has no keys and no ON CONFLICT: the bench runs the read models' upserts as MERGE on a table
    without its key. On any pages of rows, both leave the same table (MERGE runs on a DuckDB file too)."""
    original = duckdb.connect()
    rewritten = duckdb.connect()
    original.execute(TABLE)
    columns = ["tenant", "day", "label", "hits"]
    rewritten.execute(lake_statement(TABLE, lambda table: columns))
    assert "PRIMARY KEY" not in lake_statement(TABLE, lambda table: columns)
    _apply(original, lambda sql: sql, pages, shape)
    _apply(rewritten, lambda sql: lake_statement(sql, lambda table: columns), pages, shape)
    query = "SELECT * FROM counts ORDER BY ALL"
    assert rewritten.execute(query).fetchall() == original.execute(query).fetchall()


# -- one writer, readers in other processes ----------------------------------------------------


def test_the_projector_writes_ducklake_in_one_process_and_another_reads_what_a_file_replica_reads(
    postgres_server: str, tmp_path: Path
) -> None:
    with postgres_database(postgres_server) as events_url, postgres_database(postgres_server) as lake_url:
        app = BemteviApplication(env=Settings(database_url=events_url).event_store_env())
        children: list[Child] = []
        try:
            history = History(app, tenants=14, rng=random.Random(3), users_per_white_label=3, users_per_group=2)
            targets = history.tree()
            history.lookups(40)
            history.append()
            setup = Setup(events_url, lake_url, tmp_path / "lake", tmp_path, targets, 90, 0.0, 0.0)
            writer = Child("lake-writer", setup)
            children.append(writer)
            events, _ = writer.call("catch_up")
            assert events == app.max_position()
            writer.call("follow")
            reader = Child("lake-reader", setup)
            replica = Child("replica", setup)
            children += [reader, replica]
            replica.call("catch_up")
            replica.call("follow")
            before = reader.call("query", "dashboard")["consultationsTotal"]

            # Written by the lake's writer after the reader opened the lake: the reader sees it.
            history.lookups(5, group=targets.company)
            position = max(history.append())
            reader.call("wait_visible", position)
            replica.call("wait_visible", position)
            assert reader.call("query", "dashboard")["consultationsTotal"] == before + 5
            for name in reader.call("query_names"):
                assert reader.call("query", name) == replica.call("query", name), name
        finally:
            stop_all(children)
            app.close()

"""The report's sums: for any consultations and finished batches, any interval and any dimension, the rows of
a period add up to the raw count of charged and not-found consultations of the chosen groups in it."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.commands.batch_files import BatchFiles
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.report_queries import DIMENSIONS, INTERVALS, consultation_report, utc_bounds
from bemtevi.projections.store import ReadStore

GROUPS = ["g1", "g2", "g3"]
START = datetime(2026, 3, 1)

consultation = st.tuples(
    st.sampled_from(GROUPS),
    st.integers(min_value=0, max_value=60 * 24 * 70),  # minutes after START
    st.sampled_from(["unit", "api"]),
    st.sampled_from(["cpf-complete", "cnpj-complete"]),
    st.sampled_from(["local", "vendor-a"]),
    st.sampled_from(["done", "not_found", "failed"]),
    st.sampled_from(["u1", "u2", None]),
)
batch = st.tuples(
    st.sampled_from(GROUPS),
    st.integers(min_value=0, max_value=60 * 24 * 70),
    st.integers(min_value=0, max_value=5),
    st.integers(min_value=0, max_value=5),
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ReadStore:
    folder = Path(tmp_path_factory.mktemp("report"))
    store = ReadStore(folder / "r.duckdb")
    cur = store.cursor()
    for model in all_read_models(BatchFiles(folder / "batches").looked_up):
        model.create(cur)
    return store


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    consultations=st.lists(consultation, max_size=40),
    batches=st.lists(batch, max_size=5),
    chosen=st.lists(st.sampled_from(GROUPS), min_size=1, unique=True),
    first_day=st.integers(min_value=0, max_value=60),
    days=st.integers(min_value=1, max_value=40),
)
def test_every_grouping_sums_to_the_raw_count(
    store: ReadStore,
    consultations: list[tuple],
    batches: list[tuple],
    chosen: list[str],
    first_day: int,
    days: int,
) -> None:
    cur = store.cursor()
    cur.execute("DELETE FROM consultations")
    cur.execute("DELETE FROM report_batches")
    for position, (group, minute, channel, query_type, supplier, status, user) in enumerate(consultations):
        cur.execute(
            "INSERT INTO consultations VALUES (?, ?, ?, ?, '52998224725', 'cpf', ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
            [position, f"c{position}", group, user, query_type, channel, supplier, status,
             int(status == "done"), "api" if channel == "api" else "panel", START + timedelta(minutes=minute)],
        )  # fmt: skip
    for n, (group, minute, found, not_found) in enumerate(batches):
        cur.execute(
            "INSERT INTO report_batches VALUES (?, ?, 'u1', '', ?, ?, ?, ?)",
            [f"b{n}", group, START + timedelta(minutes=minute), found, not_found, found],
        )
    first = date(2026, 3, 1) + timedelta(days=first_day)
    last = first + timedelta(days=days - 1)
    start, end = utc_bounds(first, last)
    raw = [c for c in consultations if c[0] in chosen and c[5] != "failed"
           and start <= START + timedelta(minutes=c[1]) < end]  # fmt: skip
    in_batches = [b for b in batches if b[0] in chosen and start <= START + timedelta(minutes=b[1]) < end]
    expected = len(raw) + sum(b[2] + b[3] for b in in_batches)
    expected_found = sum(c[5] == "done" for c in raw) + sum(b[2] for b in in_batches)
    for interval in INTERVALS:
        for dimension in DIMENSIONS:
            report = consultation_report(cur, chosen, first, last, interval, dimension)
            assert sum(r["consultations"] for r in report["series"]) == report["totals"]["consultations"] == expected
            assert sum(r["found"] for r in report["series"]) == report["totals"]["found"] == expected_found
            assert sum(k["consultations"] for k in report["keys"]) == expected
            assert all(first - timedelta(days=31) < r["period"] <= last for r in report["series"])

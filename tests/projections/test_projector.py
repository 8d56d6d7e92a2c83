"""The projector on SQLite and PostgreSQL: replay equals incremental, exactly once, bounded waits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import KNOWN_CNPJ, KNOWN_CPF, new_tenant, run_lookups

from bemtevi.bootstrap import Platform
from bemtevi.projections.base import PageFold
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.store import ReadStore
from bemtevi.streams.projector import TRACKING_NAME, Projector

TABLES = {
    "groups": "group_id",
    "users": "user_id",
    "consultations": "position",
    "usage_daily": "group_id, day, category, query_type, status",
    "credit_balances": "account_id",
    "credit_movements": "position",
}


def snapshot(store: ReadStore) -> dict[str, list[tuple[Any, ...]]]:
    cur = store.cursor()
    return {table: cur.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall() for table, order in TABLES.items()}


def fresh_projector(
    platform: Platform, path: Path, page_size: int, batch_size: int = 20_000
) -> tuple[ReadStore, Projector]:
    store = ReadStore(path)
    return store, Projector(platform.app, store, all_read_models(), page_size=page_size, batch_size=batch_size)


def test_rebuild_gives_the_same_read_models_as_incremental(platform: Platform, tmp_path: Path) -> None:
    first = new_tenant(platform, "Primeira", limit=3)
    second = new_tenant(platform, "Segunda", limit=None)
    run_lookups(platform, first, [KNOWN_CPF, KNOWN_CNPJ, "00000000191", KNOWN_CPF, KNOWN_CPF])
    run_lookups(platform, second, [KNOWN_CPF, KNOWN_CNPJ])
    assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
    incremental = snapshot(platform.store)
    assert len(incremental["consultations"]) == 6  # the fifth lookup of the first tenant was refused

    store, projector = fresh_projector(platform, tmp_path / "replay.duckdb", page_size=3)
    try:
        projector.catch_up()
        assert snapshot(store) == incremental
        projector.rebuild()
        assert snapshot(store) == incremental
    finally:
        store.close()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lookups=st.lists(st.sampled_from([KNOWN_CPF, KNOWN_CNPJ, "00000000191"]), min_size=1, max_size=6),
    limit=st.one_of(st.none(), st.integers(min_value=0, max_value=4)),
    page_size=st.integers(min_value=1, max_value=7),
    batch_size=st.integers(min_value=1, max_value=12),
)
def test_any_history_replays_to_the_incremental_result(
    sqlite_platform: Platform,
    tmp_path_factory: pytest.TempPathFactory,
    lookups: list[str],
    limit: int | None,
    page_size: int,
    batch_size: int,
) -> None:
    """Whatever the page and batch sizes (small batches pipeline their writes), replay equals
    the read models the server built incrementally."""
    platform = sqlite_platform
    principal = new_tenant(platform, "Hipótese", limit)
    run_lookups(platform, principal, lookups)
    assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
    store, projector = fresh_projector(platform, tmp_path_factory.mktemp("replay") / "r.duckdb", page_size, batch_size)
    try:
        projector.catch_up()
        assert snapshot(store) == snapshot(platform.store)
    finally:
        store.close()


class ExplodingFold(PageFold):
    def apply(self, event: Any, position: int) -> None:
        pass

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        raise RuntimeError("disk full")


@pytest.mark.parametrize("page_size", [1000, 1], ids=["one-batch", "pipelined-batches"])
def test_a_failed_page_applies_nothing_and_is_retried_whole(platform: Platform, tmp_path: Path, page_size: int) -> None:
    principal = new_tenant(platform, "Falha", limit=None)
    run_lookups(platform, principal, [KNOWN_CPF, KNOWN_CPF])
    store = ReadStore(tmp_path / "crash.duckdb")
    try:
        models = all_read_models()
        broken = models[-1]
        original_fold = broken.fold
        broken.fold = ExplodingFold  # type: ignore[method-assign]
        # With one-event pages and batches, the failing write runs in the pipeline's helper thread.
        crashing = Projector(platform.app, store, models, page_size=page_size, batch_size=page_size)
        with pytest.raises(RuntimeError):
            crashing.catch_up()
        assert store.tracked_position(TRACKING_NAME) == 0
        assert store.cursor().execute("SELECT count(*) FROM consultations").fetchone() == (0,)
        broken.fold = original_fold  # type: ignore[method-assign]
        Projector(platform.app, store, models, page_size=1000).catch_up()
        assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
        assert snapshot(store) == snapshot(platform.store)
    finally:
        store.close()


def test_restart_resumes_from_the_tracked_position(platform: Platform, tmp_path: Path) -> None:
    principal = new_tenant(platform, "Reinício", limit=None)
    run_lookups(platform, principal, [KNOWN_CPF])
    path = tmp_path / "resume.duckdb"
    store, projector = fresh_projector(platform, path, page_size=2)
    projector.catch_up()
    store.close()
    run_lookups(platform, principal, [KNOWN_CNPJ])
    store, projector = fresh_projector(platform, path, page_size=2)
    try:
        assert projector.position > 0
        projector.catch_up()
        assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
        assert snapshot(store) == snapshot(platform.store)
    finally:
        store.close()


def test_wait_for_is_bounded(platform: Platform) -> None:
    assert platform.projector.wait_for(platform.app.max_position(), timeout=5)
    assert not platform.projector.wait_for(platform.app.max_position() + 1_000, timeout=0.2)


def test_read_models_built_by_an_older_version_are_rebuilt_at_start(platform: Platform, tmp_path: Path) -> None:
    principal = new_tenant(platform, "Antiga", limit=5)
    run_lookups(platform, principal, [KNOWN_CPF, KNOWN_CNPJ])
    assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
    expected = snapshot(platform.store)

    path = tmp_path / "older.duckdb"
    store, projector = fresh_projector(platform, path, page_size=100)
    projector.catch_up()
    # As an older version left it: another table shape, and its own version mark.
    with store.transaction() as cur:
        cur.execute("ALTER TABLE credit_balances DROP COLUMN granted")
    store.set_schema(TRACKING_NAME, "directory:1,consultations:1,credits:1")
    store.close()

    store, projector = fresh_projector(platform, path, page_size=100)
    try:
        assert projector.position == 0  # dropped, to be rebuilt from the log
        projector.catch_up()
        assert snapshot(store) == expected
        assert store.schema_of(TRACKING_NAME) != "directory:1,consultations:1,credits:1"
    finally:
        store.close()

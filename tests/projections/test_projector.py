"""The projector on SQLite and PostgreSQL: replay equals incremental, exactly once, bounded waits."""

from __future__ import annotations

import contextlib
import logging
import threading
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pytest
from api_client import ApiClient
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import (
    KNOWN_CNPJ,
    KNOWN_CPF,
    examples,
    make_settings,
    new_tenant,
    run_lookups,
    sign_in,
    simulated_vendor,
    super_admin,
)

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform, build_platform
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.infra.settings import Settings
from bemtevi.projections.base import PageFold
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.statements import group_name, statement
from bemtevi.projections.store import ReadStore
from bemtevi.streams.projector import TRACKING_NAME, Projector

TABLES = {
    "groups": "group_id",
    "users": "user_id",
    "consultations": "position",
    "usage_daily": "group_id, day, category, query_type, status, channel",
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
    return store, Projector(
        platform.app,
        store,
        all_read_models(platform.batches.files.looked_up),
        page_size=page_size,
        batch_size=batch_size,
    )


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


@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
        models = all_read_models(platform.batches.files.looked_up)
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


# -- the read store follows one event store --------------------------------------------------------------------


def _listed_emails(api: TestClient, headers: dict[str, str]) -> set[str]:
    response = api.get("/api/users", headers=headers, params={"perPage": 100})
    assert response.status_code == 200, response.text
    return {row["email"] for row in response.json()["data"]}


def _start(settings: Settings) -> tuple[Platform, TestClient]:
    platform = build_platform(settings)
    return platform, ApiClient(create_app(platform))


def test_a_read_store_is_rebuilt_from_the_event_store_it_is_started_with(
    tmp_path: Path, dataset_path: Path, postgres_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Same var/ (so the same DuckDB file), first on SQLite, then on PostgreSQL, then on SQLite again."""
    on_sqlite = make_settings(tmp_path / "var", dataset_path)
    on_postgres = make_settings(tmp_path / "var", dataset_path, postgres_database)

    platform, api = _start(on_sqlite)
    with contextlib.closing(platform), api:
        admin = sign_in(api)
        for n in range(5):  # the SQLite log runs well past where the PostgreSQL one will be
            platform.identity.register_user(
                SYSTEM,
                group_id=ROOT_GROUP_ID,
                name=f"Só SQLite {n}",
                email=f"sqlite{n}@empresa.com",
                password="Strong!pass1",
            )
        assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
        assert "sqlite0@empresa.com" in _listed_emails(api, admin)

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="bemtevi.streams.projector"):
        platform, api = _start(on_postgres)
    with contextlib.closing(platform), api:
        admin = sign_in(api)
        me = api.get("/api/me", headers=admin)
        assert me.status_code == 200, me.text  # was 404 "not found": the read side was SQLite's
        rebuilt = [r.getMessage() for r in caplog.records if "rebuilding" in r.getMessage()]
        assert rebuilt and "postgresql" in rebuilt[0], caplog.text
        platform.identity.register_user(
            SYSTEM, group_id=ROOT_GROUP_ID, name="Só PostgreSQL", email="postgres@empresa.com", password="Strong!pass1"
        )
        assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
        listed = _listed_emails(api, admin)
        assert "postgres@empresa.com" in listed and not any(e.startswith("sqlite") for e in listed)
        assert platform.mailer.position <= platform.app.max_position()

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="bemtevi.streams.projector"):
        platform, api = _start(on_sqlite)
    with contextlib.closing(platform), api:
        assert any("rebuilding" in r.getMessage() for r in caplog.records), caplog.text
        listed = _listed_emails(api, sign_in(api))
        assert "sqlite0@empresa.com" in listed and "postgres@empresa.com" not in listed

    # Started again on the store it follows: nothing is rebuilt.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="bemtevi.streams.projector"):
        platform, api = _start(on_sqlite)
    with contextlib.closing(platform), api:
        assert not caplog.records, caplog.text
        assert "sqlite0@empresa.com" in _listed_emails(api, sign_in(api))


def test_read_models_that_do_not_say_which_event_store_they_follow_are_rebuilt(
    platform: Platform, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A read store built before it recorded its event store may follow another one: it is rebuilt."""
    new_tenant(platform, "Sem origem", limit=None)
    path = tmp_path / "unknown-source.duckdb"
    store, projector = fresh_projector(platform, path, page_size=100)
    projector.catch_up()
    expected = snapshot(store)
    with store.transaction() as cur:  # as a read store of the previous version left it
        cur.execute("DROP TABLE IF EXISTS projection_source")
        cur.execute("UPDATE projection_tracking SET position = position + 1000")
    store.close()

    with caplog.at_level(logging.WARNING, logger="bemtevi.streams.projector"):
        store, projector = fresh_projector(platform, path, page_size=100)
    try:
        assert projector.position == 0 and "rebuilding" in caplog.text
        projector.catch_up()
        assert snapshot(store) == expected
    finally:
        store.close()


def test_a_statement_read_on_an_idle_thread_never_stops_the_read_models(platform: Platform) -> None:
    """An API thread that read a finance statement and then sat idle must not hold a transaction open: DuckDB
    then refuses the second rewrite of any row (here a supplier's, switched off and on) with "write-write
    conflict" on every retry, and every read model stops (new groups and users unseen) until that thread runs
    another query."""
    principal = new_tenant(platform, "Extrato", limit=5)
    run_lookups(platform, principal, [KNOWN_CPF])
    admin = super_admin(platform)
    vendor_id = platform.vendors.register(admin, simulated_vendor(9)).vendor_id
    assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
    read, release = threading.Event(), threading.Event()

    def statement_then_idle() -> None:
        statement(platform.store.cursor(), str(principal.group_id), date(2000, 1, 1), date(2100, 1, 1))
        group_name(platform.store.cursor(), str(principal.group_id))
        read.set()
        release.wait(30)  # an idle pool thread: its cursor is used again only by its next request

    reader = threading.Thread(target=statement_then_idle)
    reader.start()
    try:
        assert read.wait(10)
        for active in (False, True):
            platform.vendors.set_active(admin, vendor_id, active)
            assert platform.projector.wait_for(platform.app.max_position(), timeout=10), platform.projector.error
        row = platform.store.cursor().execute("SELECT active FROM suppliers WHERE supplier_id = ?", [str(vendor_id)])
        assert row.fetchall() == [(True,)]
    finally:
        release.set()
        reader.join()

"""The one-call PostgreSQL recorder keeps the library's guarantees: optimistic concurrency,
notification ids in commit order, and every event read back as written."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import pytest
from eventsourcing.postgres import PostgresApplicationRecorder
from hypothesis import HealthCheck, given, settings
from recorder_checks import (
    APPENDS,
    append_to_both,
    check_a_version_already_taken_is_refused_whole,
    check_an_append_answers_its_ids_and_reads_back,
    check_concurrent_appends_get_contiguous_runs,
    check_rows_read_back_as_written,
    notifications_after,
)
from support import examples

from bemtevi.commands.application import BemteviApplication
from bemtevi.infra.postgres_store import OneCallPostgresApplicationRecorder
from bemtevi.infra.settings import Settings


@pytest.fixture
def recorder(postgres_database: str, tmp_path: Path) -> Iterator[OneCallPostgresApplicationRecorder]:
    app = BemteviApplication(Settings(var_dir=tmp_path, database_url=postgres_database).event_store_env())
    assert isinstance(app.recorder, OneCallPostgresApplicationRecorder)
    yield app.recorder
    app.close()


def test_an_append_returns_its_notification_ids_and_reads_back(recorder: OneCallPostgresApplicationRecorder) -> None:
    check_an_append_answers_its_ids_and_reads_back(recorder)


def test_a_version_already_taken_is_refused_and_nothing_of_the_append_is_kept(
    recorder: OneCallPostgresApplicationRecorder,
) -> None:
    check_a_version_already_taken_is_refused_whole(recorder)


def test_concurrent_appends_each_get_a_contiguous_run_of_ids(recorder: OneCallPostgresApplicationRecorder) -> None:
    # The table lock keeps each append's ids together.
    check_concurrent_appends_get_contiguous_runs(recorder)


def test_the_packed_arrays_read_back_as_written(recorder: OneCallPostgresApplicationRecorder) -> None:
    check_rows_read_back_as_written(recorder)


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(appends=APPENDS)
def test_appends_answer_and_read_back_as_the_librarys_recorder(
    recorder: OneCallPostgresApplicationRecorder, appends: list[list[tuple[int, bytes, str]]]
) -> None:
    """The same appends (versions taken again included) on the library's own recorder, in a table of its
    own beside ours: the same refusals, the same runs of ids and the same notifications read back."""
    library = PostgresApplicationRecorder(recorder.datastore, events_table_name=f"library_{uuid4().hex[:12]}")
    library.create_table()
    ours_start = recorder.max_notification_id() or 0
    for ours, theirs in append_to_both(recorder, library, appends):
        # A refused append may take ids of the sequence: compare how many there are and that they run on.
        assert runs(ours) == runs(theirs)
    ours_read = notifications_after(recorder, ours_start)
    assert [n[1:] for n in ours_read] == [n[1:] for n in notifications_after(library, 0)]


def runs(answer: tuple[str, list[int]]) -> tuple[str, int, bool]:
    kind, ids = answer
    return kind, len(ids), ids == list(range(ids[0], ids[0] + len(ids))) if ids else True


def test_processes_starting_together_each_create_the_schema_without_failing(postgres_database: str) -> None:
    """Every process of a cluster (API processes, relay, workers) creates or replaces the event store's schema
    when it starts, and they start together: ``CREATE OR REPLACE FUNCTION`` by two sessions at once failed
    with "tuple concurrently updated" (a relay died at its start, and the supervisor stopped the cluster)."""
    env = Settings(database_url=postgres_database).event_store_env()
    starters = 8
    apps = [BemteviApplication(env) for _ in range(starters)]  # one per process, each with its own sessions
    barrier = threading.Barrier(starters)
    failures: list[BaseException] = []

    def start(app: BemteviApplication) -> None:
        for _ in range(5):
            barrier.wait()
            try:
                app.recorder.create_table()
            except Exception as e:  # every failure is the finding
                failures.append(e)

    threads = [threading.Thread(target=start, args=(app,)) for app in apps]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        for app in apps:
            app.close()
    assert failures == []


_TRACKING_STARTER = """
import sys, time
from bemtevi.commands.application import BemteviApplication
from bemtevi.infra.settings import Settings

app = BemteviApplication(Settings(database_url=sys.argv[1]).event_store_env())
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))  # every process imported and connected: all at once
try:
    app.factory.tracking_recorder()  # what the relay and the workers do when they start
finally:
    app.close()
"""


@pytest.mark.process
def test_processes_starting_together_each_create_the_tracking_table_without_failing(postgres_database: str) -> None:
    """The relay and the workers each create the tracking table (their positions) when they start, and a cluster
    starts them together on a new database: two ``CREATE TABLE IF NOT EXISTS`` at once made PostgreSQL refuse
    one (a duplicate key in ``pg_type``) and that process died, unless the table is created under the schema
    lock as the events table is."""
    env = Settings(database_url=postgres_database).event_store_env()
    app = BemteviApplication(env)  # the events table exists, as after the supervisor's preparation
    table = app.factory.tracking_recorder().tracking_table_name
    starters, rounds = 6, 3
    try:
        for _ in range(rounds):
            with app.recorder.datastore.get_connection() as conn:  # type: ignore[attr-defined]
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            start_at = time.time() + 4.0
            processes = [
                subprocess.Popen(
                    [sys.executable, "-c", _TRACKING_STARTER, postgres_database, str(start_at)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                )
                for _ in range(starters)
            ]
            outputs = [p.communicate(timeout=60)[0].decode(errors="replace") for p in processes]
            failed = [out[-600:] for p, out in zip(processes, outputs, strict=True) if p.returncode != 0]
            assert failed == []
    finally:
        app.close()

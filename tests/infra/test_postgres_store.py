"""The one-call PostgreSQL recorder keeps the library's guarantees: optimistic concurrency,
notification ids in commit order, and every event read back as written."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
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


def event(originator: UUID, version: int, state: bytes = b"{}") -> StoredEvent:
    return StoredEvent(originator_id=originator, originator_version=version, topic="test:Event", state=state)


def test_an_append_returns_its_notification_ids_and_reads_back(recorder: OneCallPostgresApplicationRecorder) -> None:
    a, b = uuid4(), uuid4()
    ids = recorder.insert_events([event(a, 1, b'{"n":1}'), event(b, 1, b"\x00\xff"), event(a, 2)])
    assert ids is not None and len(ids) == 3 and ids == sorted(ids)
    notes = recorder.select_notifications(ids[0], 10)
    assert [(n.id, n.originator_id, n.originator_version, n.state) for n in notes] == [
        (ids[0], a, 1, b'{"n":1}'),
        (ids[1], b, 1, b"\x00\xff"),
        (ids[2], a, 2, b"{}"),
    ]
    assert recorder.insert_events([]) == []


def test_a_version_already_taken_is_refused_and_nothing_of_the_append_is_kept(
    recorder: OneCallPostgresApplicationRecorder,
) -> None:
    a, b = uuid4(), uuid4()
    recorder.insert_events([event(a, 1)])
    with pytest.raises(IntegrityError):
        recorder.insert_events([event(b, 1), event(a, 1)])
    assert recorder.select_events(b) == []
    assert len(recorder.select_events(a)) == 1


def test_concurrent_appends_each_get_a_contiguous_run_of_ids(recorder: OneCallPostgresApplicationRecorder) -> None:
    returned: list[list[int]] = []

    def append() -> None:
        for _ in range(30):
            ids = recorder.insert_events([event(uuid4(), 1), event(uuid4(), 1), event(uuid4(), 1)])
            assert ids is not None
            returned.append(list(ids))

    threads = [threading.Thread(target=append) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # The table lock: no append's ids interleave with another's, and none is lost.
    assert all(ids == list(range(ids[0], ids[0] + 3)) for ids in returned)
    assert sorted(i for ids in returned for i in ids) == [n.id for n in recorder.select_notifications(1, 1000)]


def test_the_packed_arrays_read_back_as_written(recorder: OneCallPostgresApplicationRecorder) -> None:
    a, b = uuid4(), UUID(int=0)
    events = [
        StoredEvent(originator_id=a, originator_version=v, topic="tést:Évent ☃", state=bytes([v % 256]) * (v % 7))
        for v in range(1, 301)
    ]
    events += [
        StoredEvent(originator_id=b, originator_version=2**62, topic="test:Event", state=b"\x00" * 100_000),
        StoredEvent(originator_id=UUID(int=2**128 - 1), originator_version=0, topic="", state=b""),
    ]
    ids = recorder.insert_events(events)
    assert ids is not None and ids == list(range(ids[0], ids[0] + len(events)))
    notes = recorder.select_notifications(ids[0], len(events))
    assert [(n.id, n.originator_id, n.originator_version, n.topic, n.state) for n in notes] == [
        (i, e.originator_id, e.originator_version, e.topic, e.state) for i, e in zip(ids, events, strict=True)
    ]


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    appends=st.lists(
        st.lists(
            st.tuples(st.integers(0, 3), st.binary(max_size=40), st.sampled_from(["a:E", "tést:É ☃", "b:Long" * 20])),
            max_size=6,
        ),
        min_size=1,
        max_size=8,
    )
)
def test_appends_answer_and_read_back_as_the_librarys_recorder(
    recorder: OneCallPostgresApplicationRecorder, appends: list[list[tuple[int, bytes, str]]]
) -> None:
    """The same appends (versions taken again included) on the library's own recorder, in a table of its
    own beside ours: the same refusals, the same runs of ids and the same notifications read back."""
    library = PostgresApplicationRecorder(recorder.datastore, events_table_name=f"library_{uuid4().hex[:12]}")
    library.create_table()
    aggregates = [uuid4() for _ in range(4)]
    versions = dict.fromkeys(aggregates, 0)
    ours_start = recorder.max_notification_id() or 0
    for append in appends:
        events = []
        for which, state, topic in append:
            aggregate = aggregates[which]
            # A repeated aggregate in one append, or one whose version is reused, collides.
            versions[aggregate] += 1 if state[:1] != b"\x00" else 0
            events.append(StoredEvent(aggregate, max(1, versions[aggregate]), topic, state))
        answers = []
        for each in (recorder, library):
            try:
                ids = each.insert_events(events)
                answers.append(("ids", len(ids or []), ids == list(range(ids[0], ids[0] + len(ids))) if ids else True))
            except IntegrityError:
                answers.append(("refused", 0, True))
        assert answers[0] == answers[1]
    library_start = 0
    ours = recorder.select_notifications(ours_start + 1, 10_000)
    theirs = library.select_notifications(library_start + 1, 10_000)
    assert [(n.originator_id, n.originator_version, n.topic, n.state) for n in ours] == [
        (n.originator_id, n.originator_version, n.topic, n.state) for n in theirs
    ]


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

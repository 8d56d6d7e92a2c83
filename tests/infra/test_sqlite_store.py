"""The event store's one-statement SQLite append keeps the library's guarantees: optimistic concurrency,
atomic appends, notification ids in append order, and every event read back as written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import pytest
from eventsourcing.sqlite import SQLiteApplicationRecorder
from hypothesis import HealthCheck, given, settings
from recorder_checks import (
    APPENDS,
    append_to_both,
    check_a_version_already_taken_is_refused_whole,
    check_an_append_answers_its_ids_and_reads_back,
    check_concurrent_appends_get_contiguous_runs,
    check_rows_read_back_as_written,
    event,
    notifications_after,
)
from support import examples

from bemtevi.commands.application import BemteviApplication
from bemtevi.infra.settings import Settings
from bemtevi.infra.sqlite_store import MAX_ROWS, OneStatementSQLiteApplicationRecorder


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[OneStatementSQLiteApplicationRecorder]:
    app = BemteviApplication(Settings(var_dir=tmp_path).event_store_env())
    assert isinstance(app.recorder, OneStatementSQLiteApplicationRecorder)
    yield app.recorder
    app.close()


def test_an_append_returns_its_notification_ids_and_reads_back(recorder: OneStatementSQLiteApplicationRecorder) -> None:
    ids = check_an_append_answers_its_ids_and_reads_back(recorder)
    assert recorder.max_notification_id() == ids[-1]


def test_a_version_already_taken_is_refused_and_nothing_of_the_append_is_kept(
    recorder: OneStatementSQLiteApplicationRecorder,
) -> None:
    b, first = check_a_version_already_taken_is_refused_whole(recorder)
    # The refused append took no ids: the next one follows the last kept.
    assert recorder.insert_events([event(b, 1)]) == [first[0] + 1]


def test_concurrent_appends_each_get_a_contiguous_run_of_ids(recorder: OneStatementSQLiteApplicationRecorder) -> None:
    # One statement under SQLite's write lock gives its rows consecutive ids.
    check_concurrent_appends_get_contiguous_runs(recorder)


def test_an_append_beyond_one_statement_goes_the_librarys_way(recorder: OneStatementSQLiteApplicationRecorder) -> None:
    a = uuid4()
    events = [event(a, v, bytes([v % 256])) for v in range(1, MAX_ROWS + 3)]
    ids = recorder.insert_events(events)
    assert ids is not None and ids == list(range(1, len(events) + 1))
    assert [(n.originator_version, n.state) for n in recorder.select_notifications(1, len(events))] == [
        (e.originator_version, e.state) for e in events
    ]
    assert recorder.insert_events([event(a, MAX_ROWS + 3)]) == [len(events) + 1]


def test_the_rows_read_back_as_written(recorder: OneStatementSQLiteApplicationRecorder) -> None:
    check_rows_read_back_as_written(recorder)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(appends=APPENDS)
def test_appends_answer_and_read_back_as_the_librarys_recorder(
    recorder: OneStatementSQLiteApplicationRecorder, appends: list[list[tuple[int, bytes, str]]]
) -> None:
    """The same appends (versions taken again included) on the library's own recorder, in a table of its
    own beside ours: the same refusals, the same ids and the same notifications read back."""
    library = SQLiteApplicationRecorder(recorder.datastore, events_table_name=f"library_{uuid4().hex[:12]}")
    library.create_table()
    ours_start = recorder.max_notification_id() or 0
    for ours, theirs in append_to_both(recorder, library, appends):
        assert (ours[0], [i - ours_start for i in ours[1]]) == theirs
    assert notifications_after(recorder, ours_start) == notifications_after(library, 0)

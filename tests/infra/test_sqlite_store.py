"""The event store's one-statement SQLite append against the library's recorder."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
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


def event(originator: UUID, version: int, state: bytes = b"{}") -> StoredEvent:
    return StoredEvent(originator_id=originator, originator_version=version, topic="test:Event", state=state)


def test_an_append_returns_its_notification_ids_and_reads_back(recorder: OneStatementSQLiteApplicationRecorder) -> None:
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
    assert recorder.max_notification_id() == ids[-1]


def test_a_version_already_taken_is_refused_and_nothing_of_the_append_is_kept(
    recorder: OneStatementSQLiteApplicationRecorder,
) -> None:
    a, b = uuid4(), uuid4()
    first = recorder.insert_events([event(a, 1)])
    with pytest.raises(IntegrityError):
        recorder.insert_events([event(b, 1), event(a, 1)])
    assert recorder.select_events(b) == []
    assert len(recorder.select_events(a)) == 1
    # The refused append took no ids: the next one follows the last kept.
    assert first is not None and recorder.insert_events([event(b, 1)]) == [first[0] + 1]


def test_concurrent_appends_each_get_a_contiguous_run_of_ids(recorder: OneStatementSQLiteApplicationRecorder) -> None:
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
    # Each answers the ids its rows were given: none interleaves with another's, and none is lost.
    assert all(ids == list(range(ids[0], ids[0] + 3)) for ids in returned)
    assert sorted(i for ids in returned for i in ids) == [n.id for n in recorder.select_notifications(1, 1000)]
    for ids in returned:
        assert len({n.originator_id for n in recorder.select_notifications(ids[0], 3)}) == 3


def test_an_append_beyond_one_statement_goes_the_librarys_way(recorder: OneStatementSQLiteApplicationRecorder) -> None:
    a = uuid4()
    events = [event(a, v, bytes([v % 256])) for v in range(1, MAX_ROWS + 3)]
    ids = recorder.insert_events(events)
    assert ids is not None and ids == list(range(1, len(events) + 1))
    assert [(n.originator_version, n.state) for n in recorder.select_notifications(1, len(events))] == [
        (e.originator_version, e.state) for e in events
    ]
    ids = recorder.insert_events([event(a, MAX_ROWS + 3)])
    assert ids == [len(events) + 1]


def test_the_rows_read_back_as_written(recorder: OneStatementSQLiteApplicationRecorder) -> None:
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


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
    recorder: OneStatementSQLiteApplicationRecorder, appends: list[list[tuple[int, bytes, str]]]
) -> None:
    """The same appends (versions taken again included) on the library's own recorder, in a table of its
    own beside ours: the same refusals, the same ids and the same notifications read back."""
    library = SQLiteApplicationRecorder(recorder.datastore, events_table_name=f"library_{uuid4().hex[:12]}")
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
        for each, start in ((recorder, ours_start), (library, 0)):
            try:
                ids = each.insert_events(events)
                answers.append(("ids", [i - start for i in ids or []]))
            except IntegrityError:
                answers.append(("refused", []))
        assert answers[0] == answers[1]
    ours = recorder.select_notifications(ours_start + 1, 10_000)
    theirs = library.select_notifications(1, 10_000)
    assert [(n.id - ours_start, n.originator_id, n.originator_version, n.topic, n.state) for n in ours] == [
        (n.id, n.originator_id, n.originator_version, n.topic, n.state) for n in theirs
    ]

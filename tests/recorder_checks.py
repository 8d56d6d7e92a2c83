"""Checks shared by the tests of the event store's own recorders (``infra.postgres_store``, ``infra.sqlite_store``)
against the library's: the same appends on both, and what comes back."""

from __future__ import annotations

import threading
from uuid import UUID, uuid4

from eventsourcing.persistence import ApplicationRecorder, IntegrityError, StoredEvent
from hypothesis import strategies as st

# Appends of up to six events over four aggregates; a state starting with a zero byte reuses its aggregate's
# version (so some appends collide), the topics include non-ASCII and long ones.
APPENDS = st.lists(
    st.lists(
        st.tuples(st.integers(0, 3), st.binary(max_size=40), st.sampled_from(["a:E", "tést:É ☃", "b:Long" * 20])),
        max_size=6,
    ),
    min_size=1,
    max_size=8,
)

Answer = tuple[str, list[int]]  # ("ids", the append's notification ids) or ("refused", [])


def event(originator: UUID, version: int, state: bytes = b"{}") -> StoredEvent:
    return StoredEvent(originator_id=originator, originator_version=version, topic="test:Event", state=state)


def append_to_both(
    ours: ApplicationRecorder, library: ApplicationRecorder, appends: list[list[tuple[int, bytes, str]]]
) -> list[tuple[Answer, Answer]]:
    """The same appends on both recorders (each into a table of its own): what each answered to each."""
    aggregates = [uuid4() for _ in range(4)]
    versions = dict.fromkeys(aggregates, 0)
    answered = []
    for append in appends:
        events = []
        for which, state, topic in append:
            aggregate = aggregates[which]
            # A repeated aggregate in one append, or one whose version is reused, collides.
            versions[aggregate] += 1 if state[:1] != b"\x00" else 0
            events.append(StoredEvent(aggregate, max(1, versions[aggregate]), topic, state))
        answers: list[Answer] = []
        for each in (ours, library):
            try:
                answers.append(("ids", list(each.insert_events(events) or [])))
            except IntegrityError:
                answers.append(("refused", []))
        answered.append((answers[0], answers[1]))
    return answered


def notifications_after(recorder: ApplicationRecorder, start: int) -> list[tuple[int, UUID, int, str, bytes]]:
    """Every notification after ``start``: its id counted from there, aggregate, version, topic and state."""
    return [
        (n.id - start, n.originator_id, n.originator_version, n.topic, n.state)
        for n in recorder.select_notifications(start + 1, 10_000)
    ]


def check_rows_read_back_as_written(recorder: ApplicationRecorder) -> None:
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


def check_concurrent_appends_get_contiguous_runs(recorder: ApplicationRecorder) -> None:
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
    # No append's ids interleave with another's, each names its own rows, and none is lost.
    assert all(ids == list(range(ids[0], ids[0] + 3)) for ids in returned)
    assert sorted(i for ids in returned for i in ids) == [n.id for n in recorder.select_notifications(1, 1000)]
    for ids in returned:
        assert len({n.originator_id for n in recorder.select_notifications(ids[0], 3)}) == 3


def check_an_append_answers_its_ids_and_reads_back(recorder: ApplicationRecorder) -> list[int]:
    a, b = uuid4(), uuid4()
    ids = recorder.insert_events([event(a, 1, b'{"n":1}'), event(b, 1, b"\x00\xff"), event(a, 2)])
    assert ids is not None and len(ids) == 3 and list(ids) == sorted(ids)
    notes = recorder.select_notifications(ids[0], 10)
    assert [(n.id, n.originator_id, n.originator_version, n.state) for n in notes] == [
        (ids[0], a, 1, b'{"n":1}'),
        (ids[1], b, 1, b"\x00\xff"),
        (ids[2], a, 2, b"{}"),
    ]
    assert recorder.insert_events([]) == []
    return list(ids)


def check_a_version_already_taken_is_refused_whole(recorder: ApplicationRecorder) -> tuple[UUID, list[int]]:
    """An append with one event on a version already taken stores none of its events; answers the other
    aggregate (left without events) and the ids of the append kept before."""
    a, b = uuid4(), uuid4()
    first = recorder.insert_events([event(a, 1)])
    try:
        recorder.insert_events([event(b, 1), event(a, 1)])
    except IntegrityError:
        pass
    else:
        raise AssertionError("a version already taken was appended")
    assert recorder.select_events(b) == []
    assert len(recorder.select_events(a)) == 1
    return b, list(first or [])

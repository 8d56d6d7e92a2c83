"""The library internals BemteviApplication re-implements behave as the library's own.

``save`` (collecting with ``_ProcessingEvent``: tests/commands/test_collect_events.py) and
``_take_snapshots`` (snapshots taken from the aggregates in memory instead of reloading them) are
faster copies of eventsourcing's ``Application.save`` and ``Application._take_snapshots``. Here the
same saves go to an application that keeps the library's two methods: the stored events and the
recordings' positions must match, and the snapshots differ only as documented: where the library
snapshots an aggregate at each multiple of its interval inside a save (reloading it at that
version), ours snapshots it once, at the version the save left it in, with the state the library's
aggregate has at that version.
"""

from __future__ import annotations

import copy
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.application import Application
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.credits import CreditAccount
from bemtevi.domain.query_types import Category

ACTOR = Actor(user_id=uuid4(), tenant_id=uuid4())


class LibrarySaving(BemteviApplication):
    """Bemtevi's application with the library's own ``save`` and ``_take_snapshots``."""

    save = Application.save  # type: ignore[assignment]
    _take_snapshots = Application._take_snapshots  # type: ignore[assignment]


def _stored(app: BemteviApplication, ids: list[UUID]) -> list[tuple[Any, ...]]:
    return [
        (n.originator_id, n.originator_version, n.topic, n.state)
        for n in app.recorder.select_notifications(0, 1_000_000)
        if n.originator_id in ids
    ]


def _snapshots(app: BemteviApplication, aggregate_id: UUID) -> dict[int, dict[str, Any]]:
    """Version -> state of every snapshot of the aggregate."""
    assert app.snapshots is not None
    return {s.originator_version: s.state for s in app.snapshots.get(aggregate_id)}


@settings(max_examples=examples(30), deadline=None)
@given(
    saves=st.lists(
        st.lists(st.tuples(st.integers(0, 2), st.integers(1, 150)), min_size=1, max_size=3),
        min_size=1,
        max_size=8,
    )
)
@example(saves=[[(0, 99)], [(0, 1), (1, 120)], [(1, 130), (2, 3)], [(0, 150), (2, 150)], [(2, 150)]])
def test_saves_and_snapshots_match_the_librarys(saves: list[list[tuple[int, int]]]) -> None:
    """Saves of uneven sizes over three credit accounts, each a list of (account, movements): an
    interval multiple falls inside a save, at its end, or in a save of several accounts. The same
    events, positions and snapshots."""
    ours, library = BemteviApplication(), LibrarySaving()
    with acting_as(ACTOR):
        accounts = [CreditAccount.open(uuid4(), Category.UNIT, None) for _ in range(3)]
    ids = [a.id for a in accounts]
    twins = copy.deepcopy(accounts)
    assert ours.save(*accounts) and library.save(*twins)
    # Per account: the version each save left it in, and the snapshots the library took in that save.
    expected: dict[UUID, set[int]] = {i: set() for i in ids}
    for save in saves:
        touched: dict[int, None] = {}
        with acting_as(ACTOR):
            for which, movements in save:
                account = accounts[which]
                for n in range(movements):
                    reservation = uuid4()
                    account.reserve(reservation, 1)
                    if n % 3:
                        account.settle(reservation, 1)
                    else:
                        account.release(reservation)
                touched[which] = None
        chosen = [accounts[i] for i in touched]
        twins = copy.deepcopy(chosen)  # the same pending events, for the library's application
        before = {a.id: len(_snapshots(library, a.id)) for a in chosen}
        ours_recorded = ours.save(*chosen)
        library_recorded = library.save(*twins)
        assert [r.notification.id for r in ours_recorded] == [r.notification.id for r in library_recorded]
        for account in chosen:
            if len(_snapshots(library, account.id)) > before[account.id]:
                expected[account.id].add(account.version)
    assert _stored(ours, ids) == _stored(library, ids)
    for aggregate_id in ids:
        snapshots = _snapshots(ours, aggregate_id)
        assert set(snapshots) == expected[aggregate_id]
        for version, state in snapshots.items():
            at_version = library.repository.get(aggregate_id, version=version)
            assert state == CreditAccount.Snapshot.take(at_version).state
    if any(m >= 100 for save in saves for _, m in save):
        assert any(expected.values()), "a save that crosses an interval multiple snapshots"

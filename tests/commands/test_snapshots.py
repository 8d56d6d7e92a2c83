"""Snapshots of hot aggregates, taken from memory at save time, restore exactly the replayed state."""

from __future__ import annotations

from uuid import uuid4

from bemtevi.bootstrap import Platform
from bemtevi.commands.identity import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.audit import acting_as
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.groups import GroupType
from bemtevi.domain.query_types import Category


def test_a_snapshot_loads_the_same_account_as_replaying_every_event(platform: Platform) -> None:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=1_000
    )
    account_id = credit_account_id(group_id, Category.UNIT)
    interval = platform.app.snapshotting_intervals[CreditAccount]
    # Movements in saves of uneven sizes, so that interval multiples fall inside a save.
    for size in (7, 1, 60, 3, 150, 19, 2, 240):
        account = platform.app.get(account_id, CreditAccount)
        with acting_as(SYSTEM):
            for n in range(size):
                reservation = uuid4()
                account.reserve(reservation, 1)
                if n % 3:
                    account.settle(reservation, 1)
                else:
                    account.release(reservation)
        platform.app.save_all(account)
    assert platform.app.snapshots is not None
    snapshots = list(platform.app.snapshots.get(account_id))
    assert snapshots, "a hot account gets snapshots"
    assert all(s.originator_version >= interval for s in snapshots)

    latest = _loaded_afresh(platform, account_id)  # from the newest snapshot, then later events
    replayed = None
    for event in platform.app.events.get(account_id):  # every stored event from the start
        replayed = event.mutate(replayed)
    assert replayed is not None
    assert vars(latest) == vars(replayed)
    assert latest.version == replayed.version == 1 + sum((7, 1, 60, 3, 150, 19, 2, 240)) * 2


def test_snapshots_taken_through_the_group_commit_restore_the_replayed_state(platform: Platform) -> None:
    """The writer keeps accounts in memory between saves; what it snapshots must be only their state."""
    import threading

    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=10_000
    )
    account_id = credit_account_id(group_id, Category.UNIT)

    def work(count: int) -> None:
        for _ in range(count):
            reservation = uuid4()
            platform.credits.reserve(SYSTEM, group_id, Category.UNIT, reservation, 2)
            platform.credits.settle(SYSTEM, group_id, Category.UNIT, reservation, 1)

    threads = [threading.Thread(target=work, args=(60,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert platform.app.snapshots is not None
    assert list(platform.app.snapshots.get(account_id)), "the writer's saves took snapshots"
    latest = _loaded_afresh(platform, account_id)
    replayed = None
    for event in platform.app.events.get(account_id):
        replayed = event.mutate(replayed)
    assert replayed is not None
    assert vars(latest) == vars(replayed)
    assert latest.used == 240


def _loaded_afresh(platform: Platform, account_id):  # type: ignore[no-untyped-def]
    """The account as another process would load it: newest snapshot, then the events after it."""
    from bemtevi.commands.application import BemteviApplication

    fresh = BemteviApplication(env=platform.settings.event_store_env())
    try:
        snapshot = next(iter(fresh.snapshots.get(account_id, desc=True, limit=1)))  # type: ignore[union-attr]
        assert snapshot.originator_version > 1
        return fresh.repository.get(account_id)
    finally:
        fresh.close()

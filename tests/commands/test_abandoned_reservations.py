"""Reservations of a lookups' ledger that died come back by themselves, on SQLite and PostgreSQL.

A ledger names itself in every reservation it takes (its own credit for a lookup; a block for a
busy account's lookups, as ledgers did before leases, may still be in a store). Stopping, it
releases them; killed, it cannot: the running ledger then releases what any other owner holds (one
ledger runs per store), found within seconds by the platform's sweeper, with no lookup on the
account. What the running ledger holds for its own lookups in flight, and what batches reserve, is
never touched. (A lease a dead server left is settled from the log: ``test_embedded_leases.py``.)
"""

from __future__ import annotations

from uuid import uuid4

from support import KNOWN_CPF, embedded_ledger, left_by_a_dead_ledger, lookup_record, super_admin, wait_until
from test_consultations import account, tenant

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.credits import CreditAccount, ReasonKind, credit_account_id
from bemtevi.domain.principals import SYSTEM
from bemtevi.domain.query_types import Category
from bemtevi.infra.settings import Settings

SWEEP_WAIT = 10  # seconds: a sweep every 2 s, after the read model saw the reservations


def test_what_a_dead_ledger_held_comes_back_without_a_lookup(platform: Platform, settings: Settings) -> None:
    principal = tenant(platform, limit=100)
    group_id = principal.group_id
    # What this platform holds: a lookup of its own in flight, and a batch's reservation.
    live = lookup_record(group_id)
    live.reserve(embedded_ledger(platform))
    platform.credits.reserve(SYSTEM, group_id, Category.UNIT, uuid4(), 7, ReasonKind.BATCH)
    left_by_a_dead_ledger(settings, group_id, own=2, block=6)
    # A reservation stored before reservations named their owner counts as abandoned too.
    platform.credits.reserve(SYSTEM, group_id, Category.UNIT, uuid4(), 5, ReasonKind.BLOCK)
    held_by_the_dead = 2 + 6
    assert account(platform, group_id).reserved == held_by_the_dead + 5 + 7 + 1

    wait_until(lambda: account(platform, group_id).reserved == 7 + 1, SWEEP_WAIT, "abandoned reservations released")
    # The lookup in flight is settled as usual, charged once.
    live.finish(embedded_ledger(platform), ConsultationStatus.DONE)
    balance = account(platform, group_id)
    assert (balance.used, balance.reserved, balance.available) == (1, 7, 92)
    events = platform.app.repository.event_store.get(credit_account_id(group_id, Category.UNIT))
    released = [e for e in events if isinstance(e, CreditAccount.Released)]
    assert sum(e.amount for e in released) == held_by_the_dead + 5
    assert all(e.actor_id is None for e in released), "released by the system"


def test_stopping_releases_the_reservations_of_lookups_still_in_flight(settings: Settings) -> None:
    first = build_platform(settings)
    try:
        principal = tenant(first, limit=10)
        lookup_record(principal.group_id).reserve(embedded_ledger(first))  # its lookup never finishes
        assert account(first, principal.group_id).reserved == 1
    finally:
        first.close()
    second = build_platform(settings, bootstrap=False, start_projector=False)
    try:
        balance = account(second, principal.group_id)
        assert (balance.used, balance.reserved, balance.available) == (0, 0, 10)
    finally:
        second.close()


def test_an_account_snapshotted_before_owners_were_named_loads_with_none(platform: Platform) -> None:
    principal = tenant(platform, limit=10)
    stored = account(platform, principal.group_id)
    snapshot = CreditAccount.Snapshot.take(stored)  # type: ignore[attr-defined]
    old_state = {k: v for k, v in snapshot.state.items() if k not in ("owners", "class_version")}
    old = type(snapshot)(
        originator_id=snapshot.originator_id,
        originator_version=snapshot.originator_version,
        timestamp=snapshot.timestamp,
        topic=snapshot.topic,
        state=old_state,
    )
    loaded = old.mutate(None)
    assert isinstance(loaded, CreditAccount) and loaded.owners == {}
    assert loaded.abandoned("any") == []
    assert platform.consultations.run_unit_query(principal, KNOWN_CPF).status == ConsultationStatus.DONE


def test_what_a_dead_ledger_held_on_the_api_account_comes_back_too(platform: Platform, settings: Settings) -> None:
    principal = tenant(platform, limit=0)
    group_id = principal.group_id
    platform.credits.set_limit(super_admin(platform), group_id, Category.API, 10)
    left_by_a_dead_ledger(settings, group_id, own=3, block=0, category=Category.API)
    assert account(platform, group_id, Category.API).reserved == 3
    wait_until(lambda: account(platform, group_id, Category.API).reserved == 0, SWEEP_WAIT, "API reservations released")
    assert account(platform, group_id, Category.API).available == 10

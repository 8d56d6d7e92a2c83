"""Leases in the embedded deployment (the server's own ledger on its group commit), on SQLite and PostgreSQL.

A busy account's lookups take units of a lease the server's ledger grants to the server itself, and are
recorded without a credit event of their own; the lease goes back when it is drawn out or its time is up, and
one settlement charges each found lookup once. What a customer or finance would notice: every found lookup is
charged exactly once, whether the server returns its lease or dies holding it (the next server settles it from
the consultations in the log); an unknown document costs nothing; the limit holds; nothing stays reserved.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.utils import get_topic
from support import KNOWN_CPF, charged_in_store, new_tenant, settlements_by_consultation, unknown_cpfs
from test_consultations import account

from bemtevi.bootstrap import Platform
from bemtevi.commands.ledger import LeasingLedger
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import ReasonKind
from bemtevi.domain.errors import DomainError, NotEnoughCredits
from bemtevi.domain.principals import ROOT_GROUP_ID, Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role
from bemtevi.infra.settings import Settings

LEASE_SECONDS = 0.3


def leasing_server(settings: Settings, start: Callable[..., Platform], *, bootstrap: bool = True) -> Platform:
    settings.ledger_lease_seconds = LEASE_SECONDS
    platform = start(settings, bootstrap=bootstrap)
    assert isinstance(platform.ledger, LeasingLedger)
    return platform


@pytest.fixture
def server(settings: Settings, start_platform: Callable[..., Platform]) -> Iterator[Platform]:
    platform = leasing_server(settings, start_platform)
    yield platform
    platform.close()


def leases_of(platform: Platform) -> LeasingLedger:
    assert isinstance(platform.ledger, LeasingLedger)
    return platform.ledger


def look_up_until_leased(platform: Platform, principal: Principal, documents: list[str], *, recorded: int = 30) -> int:
    """Lookups one after another until ``recorded`` were recorded under a lease; how many were found."""
    client = leases_of(platform)
    start = client.recorded
    found = 0
    deadline = time.monotonic() + 20
    i = 0
    while client.recorded - start < recorded:
        outcome = platform.consultations.run_unit_query(principal, documents[i % len(documents)])
        found += outcome.status == ConsultationStatus.DONE
        i += 1
        assert time.monotonic() < deadline, "no lookup was recorded under a lease"
    return found


def quiet(platform: Platform) -> None:
    """Until the keeper no longer asks leases for the account: it asks only for an account seen in the last
    second, so the account's leases stay as they are from then on (until they go back)."""
    time.sleep(1.2)
    client = leases_of(platform)
    deadline = time.monotonic() + 5
    while any(a.asking for a in client._accounts.values()) and time.monotonic() < deadline:
        time.sleep(0.02)


def settled(platform: Platform, principal: Principal, timeout: float = 10) -> None:
    """Until nothing is reserved on the account any more (its leases went back)."""
    deadline = time.monotonic() + timeout
    while account(platform, principal.group_id).reserved and time.monotonic() < deadline:
        time.sleep(0.05)


def charged_once(platform: Platform, principal: Principal, found: int) -> None:
    balance = account(platform, principal.group_id)
    charged = charged_in_store(platform.app, principal.group_id)
    assert (balance.used, balance.reserved, sum(charged.values())) == (found, 0, found)
    assert settlements_by_consultation(platform.app, principal.group_id) == charged


def test_a_busy_accounts_lookups_are_recorded_under_a_lease_and_each_found_one_charged_once(server: Platform) -> None:
    principal = new_tenant(server, "Empresa", 10_000)
    start = server.app.max_position()
    found = look_up_until_leased(server, principal, [KNOWN_CPF, *unknown_cpfs(server.supplier, 2)])
    settled(server, principal)
    charged_once(server, principal, found)

    # Under the lease, a lookup is its consultation alone: the account's events are the lease's reservation and
    # its settlement (and the lookups decided one by one before the account was busy).
    events = [
        server.app.mapper.to_domain_event(n)
        for n in server.app.recorder.select_notifications(start + 1, 100_000)
        if n.topic != get_topic(Consultation.Recorded)
    ]
    credit_events = [type(e).__name__ for e in events]
    assert "LeaseSettled" in credit_events and "SettledFromBlock" not in credit_events
    leased = [
        server.app.mapper.to_domain_event(n)
        for n in server.app.recorder.select_notifications(start + 1, 100_000, topics=[get_topic(Consultation.Recorded)])
    ]
    under_lease = [c for c in leased if c.lease_id is not None]
    assert len(under_lease) >= 30
    # An unknown document under a lease is recorded, not charged.
    assert {c.credits for c in under_lease if c.status == ConsultationStatus.NOT_FOUND} == {0}
    reservations = [e for e in events if type(e).__name__ == "Reserved" and e.reason == ReasonKind.LEASE]
    assert reservations and all(e.owner == leases_of(server).holder for e in reservations)


def test_the_server_finds_its_own_leases_tally_in_memory(server: Platform, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each lookup drawn from a lease checks the lease's tally on the writer; the server's own lease was granted by
    that writer, which keeps the new tally: no lookup waits for it to be read from the store (on PostgreSQL a
    round trip on the writer, which every other lookup waits behind)."""
    principal = new_tenant(server, "Empresa", 10_000)
    loaded: list[str] = []
    load = server.app.repository.get

    def get(aggregate_id: UUID, *args: Any, **kwargs: Any) -> Any:
        aggregate = load(aggregate_id, *args, **kwargs)
        loaded.append(type(aggregate).__name__)
        return aggregate

    monkeypatch.setattr(server.app.repository, "get", get)
    found = look_up_until_leased(server, principal, [KNOWN_CPF])
    assert "LeaseTally" not in loaded
    settled(server, principal)
    charged_once(server, principal, found)


def test_the_sweep_leaves_the_servers_own_live_lease_alone(server: Platform) -> None:
    """The embedded ledger settles at once the leases another holder left; its own server's are returned by
    the server: settled from the log while it still draws from them, lookups after it would go uncharged."""
    principal = new_tenant(server, "Empresa", 10_000)
    client = leases_of(server)
    client.lease_seconds = 30.0  # the lease stays open through the sweep
    found = look_up_until_leased(server, principal, [KNOWN_CPF])
    quiet(server)
    open_leases = account(server, principal.group_id).leases()
    assert open_leases
    server.sweeper.sweep()
    assert account(server, principal.group_id).leases() == open_leases
    found += look_up_until_leased(server, principal, [KNOWN_CPF], recorded=5)
    client.close()
    charged_once(server, principal, found)


def test_a_lease_left_by_a_server_that_died_is_settled_from_the_log_by_the_next_one(
    settings: Settings, start_platform: Callable[..., Platform]
) -> None:
    first = leasing_server(settings, start_platform)
    try:
        principal = new_tenant(first, "Empresa", 10_000)
        leases_of(first).lease_seconds = 30.0  # open when the server dies: its keeper does not return it first
        found = look_up_until_leased(first, principal, [KNOWN_CPF, *unknown_cpfs(first.supplier, 1)])
        # The server dies: its lease keeper stops, and nothing is returned.
        dying = leases_of(first)
        dying._stopping.set()
        dying._thread.join(timeout=5)
        held = account(first, principal.group_id)
        assert held.leases() and held.reserved > 0
        first.ledger = dying.remote  # closing below returns nothing, as a killed process would not
    finally:
        first.close()

    second = leasing_server(settings, start_platform, bootstrap=False)
    try:
        settled(second, principal)  # the first sweep after the start
        charged_once(second, principal, found)
        # And the next server serves the account as before.
        found += look_up_until_leased(second, principal, [KNOWN_CPF], recorded=5)
        settled(second, principal)
        charged_once(second, principal, found)
    finally:
        second.close()


def test_leases_never_hold_more_than_is_available_and_every_credit_can_be_used(server: Platform) -> None:
    principal = new_tenant(server, "Empresa", 20)
    found = refused = 0
    deadline = time.monotonic() + 30
    # Until the account has nothing left, leases or not: a refusal while a lease still holds units is followed
    # by lookups that find those units again once it goes back.
    while True:
        balance = account(server, principal.group_id)
        assert balance.available is not None and balance.available >= 0 and balance.used <= 20
        if balance.used == 20 and not balance.reserved:
            break
        assert time.monotonic() < deadline, (found, refused, balance.used, balance.reserved)
        try:
            outcome = server.consultations.run_unit_query(principal, KNOWN_CPF)
        except NotEnoughCredits:
            refused += 1
            time.sleep(0.02)
            continue
        found += outcome.status == ConsultationStatus.DONE
    assert found == 20
    with pytest.raises(NotEnoughCredits):
        server.consultations.run_unit_query(principal, KNOWN_CPF)
    charged_once(server, principal, 20)


def test_a_limit_cut_while_a_lease_is_open_takes_only_what_is_available(server: Platform) -> None:
    """The lease's units are reserved: finance can cut the limit down to what the account has used and holds,
    never below, and the lookups drawn from the lease are still charged once each when it goes back."""
    principal = new_tenant(server, "Empresa", 1_000)
    leases_of(server).lease_seconds = 30.0  # the lease stays open through the cut
    found = look_up_until_leased(server, principal, [KNOWN_CPF])
    quiet(server)
    held = account(server, principal.group_id)
    assert held.leases() and held.available is not None
    floor = held.used + held.reserved
    root = Principal(user_id=uuid4(), group_id=ROOT_GROUP_ID, role=Role.SUPER_ADMIN, session_id=uuid4())
    with pytest.raises(DomainError):
        server.credits.set_limit(root, principal.group_id, Category.UNIT, floor - 1)
    server.credits.set_limit(root, principal.group_id, Category.UNIT, floor)
    assert account(server, principal.group_id).available == 0
    leases_of(server).close()  # the lease goes back: its found lookups charged, the rest released
    balance = account(server, principal.group_id)
    assert (balance.limit, balance.used, balance.reserved) == (floor, found, 0)
    assert balance.available == floor - found
    charged_once(server, principal, found)

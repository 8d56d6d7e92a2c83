"""Lookups whose ledger runs in a process of its own (``bemtevi.ledger_process``), as the server runs
them, on SQLite and PostgreSQL: charged and recorded exactly as in one process, refusals with their
own errors, changes the server saves seen by the ledger at once, a busy account's lookups drawing
units the ledger leased the server, and exact after a stop or a crash.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections import Counter
from collections.abc import Iterator
from uuid import UUID

import pytest
from support import KNOWN_CPF, wait_until
from test_consultations import account, tenant

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.commands.identity import SYSTEM, Principal
from bemtevi.domain.audit import acting_as
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.credits import credit_account_id
from bemtevi.domain.errors import GroupInactive, NotEnoughCredits, QueryNotAllowed, SearchFailed
from bemtevi.domain.groups import Group
from bemtevi.domain.query_types import Category
from bemtevi.infra.settings import Settings
from bemtevi.ledger_process import LEASE_IDLE_SECONDS, ProcessLookupLedger

UNKNOWN_CPF = "000.000.001-91"


@pytest.fixture
def ledger_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"ledger_process": True})


@pytest.fixture
def platform(ledger_settings: Settings) -> Iterator[Platform]:
    platform = build_platform(ledger_settings)
    yield platform
    platform.close()


def ledger_of(platform: Platform) -> ProcessLookupLedger:
    ledger = platform.consultations.ledger
    assert isinstance(ledger, ProcessLookupLedger)
    return ledger


def reopened(settings: Settings, group_id: UUID) -> tuple[int, int, int | None]:
    """(used, reserved, available) as the store holds them, read by a fresh platform."""
    platform = build_platform(settings.model_copy(update={"ledger_process": False}), start_projector=False)
    try:
        balance = account(platform, group_id)
        return balance.used, balance.reserved, balance.available
    finally:
        platform.close()


def lookups(platform: Platform, principal: object, count: int, document: str = KNOWN_CPF) -> list[object]:
    """``count`` lookups at once on the event loop, as the API runs them; outcomes or errors."""

    async def all_at_once() -> list[object]:
        return await asyncio.gather(
            *(platform.consultations.run_unit_query_async(principal, document) for _ in range(count)),  # type: ignore[arg-type]
            return_exceptions=True,
        )

    return asyncio.run(all_at_once())


def busy_lookups(platform: Platform, principal: object, rounds: int, count: int) -> None:
    """Rounds of lookups half a second apart: after a second of four or more, the account is busy
    and its lookups draw from a block (``LookupBlocks``)."""
    for n in range(rounds):
        if n:
            time.sleep(0.55)
        assert all(not isinstance(o, BaseException) for o in lookups(platform, principal, count))


def leased(platform: Platform, group_id: UUID) -> int:
    return ledger_of(platform).leased(credit_account_id(group_id, Category.UNIT))


def busy_with_a_lease(platform: Platform, principal: Principal, kept_for: float = 600) -> int:
    """Make the account busy until the ledger leased the server some of its block; the lease size.
    The server keeps an idle lease ``kept_for`` seconds (so that a slow machine does not see it given back)."""
    ledger_of(platform).lease_idle_seconds = kept_for
    busy_lookups(platform, principal, 3, 20)
    wait_until(lambda: leased(platform, principal.group_id) > 0, 5, "a busy account's block is leased")
    return leased(platform, principal.group_id)


def test_lookups_are_charged_and_recorded_by_another_process(platform: Platform) -> None:
    principal = tenant(platform, limit=5)
    found = platform.consultations.run_unit_query(principal, KNOWN_CPF)
    unknown = platform.consultations.run_unit_query(principal, UNKNOWN_CPF)

    process = ledger_of(platform)._process
    assert process is not None and process.is_alive() and process.pid != os.getpid()
    assert (found.status, unknown.status) == (ConsultationStatus.DONE, ConsultationStatus.NOT_FOUND)
    assert found.result is not None and found.created_at.tzinfo is not None
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.reserved, balance.available) == (1, 0, 4)
    # The server's projector is woken by the ledger's appends: the read model reaches the answer's position.
    assert platform.projector.wait_for(unknown.position, timeout=10)
    rows = platform.store.cursor().execute(
        "SELECT status, credits FROM consultations WHERE group_id = ? ORDER BY created_at", [str(principal.group_id)]
    )
    assert rows.fetchall() == [("done", 1), ("not_found", 0)]


def test_refusals_cross_back_with_their_own_errors(platform: Platform) -> None:
    principal = tenant(platform, limit=1, query_types=["cnpj-complete"])
    with pytest.raises(QueryNotAllowed) as refused:
        platform.consultations.run_unit_query(principal, KNOWN_CPF)
    assert refused.value.field == "query_type"

    principal = tenant(platform, limit=1)
    platform.consultations.run_unit_query(principal, KNOWN_CPF)
    with pytest.raises(NotEnoughCredits):
        platform.consultations.run_unit_query(principal, KNOWN_CPF)


@pytest.mark.parametrize("leased", [False, True], ids=["ledger-decides", "server-holds-a-lease"])
def test_a_group_the_server_deactivates_is_refused_at_once(platform: Platform, leased: bool) -> None:
    """Whether the ledger holds the group in memory or the server holds a lease on its account."""
    principal = tenant(platform, limit=1000)
    if leased:
        busy_with_a_lease(platform, principal)
    else:
        platform.consultations.run_unit_query(principal, KNOWN_CPF)
    used = account(platform, principal.group_id).used
    group = platform.app.get(principal.group_id, Group)
    with acting_as(SYSTEM):
        group.inactivate()
    platform.app.save(group)

    with pytest.raises(GroupInactive):
        platform.consultations.run_unit_query(principal, KNOWN_CPF)
    assert account(platform, principal.group_id).used == used


def test_200_lookups_at_once_on_100_credits(platform: Platform, ledger_settings: Settings) -> None:
    principal = tenant(platform, limit=100)
    outcomes = lookups(platform, principal, 200)

    kinds = Counter(type(o).__name__ for o in outcomes)
    assert kinds == {"ConsultationOutcome": 100, "NotEnoughCredits": 100}
    platform.close()
    assert reopened(ledger_settings, principal.group_id) == (100, 0, 0)


def test_blocks_go_back_when_the_server_stops(platform: Platform, ledger_settings: Settings) -> None:
    principal = tenant(platform, limit=1000)
    busy_lookups(platform, principal, 3, 40)
    assert account(platform, principal.group_id).reserved > 0, "a busy account holds a block"

    platform.close()
    assert reopened(ledger_settings, principal.group_id) == (120, 0, 880)


def test_a_killed_ledger_process_is_replaced_and_the_ledger_stays_exact(
    platform: Platform, ledger_settings: Settings
) -> None:
    principal = tenant(platform, limit=1000)
    busy_lookups(platform, principal, 3, 20)
    assert account(platform, principal.group_id).reserved > 0
    process = ledger_of(platform)._process
    assert process is not None
    os.kill(process.pid, signal.SIGKILL)
    process.join(10)

    # Lookups sent to the dead process fail uncharged; then a new ledger process takes over, and
    # releases the block the dead one left open when it first decides on the account.
    answered = 60
    for _ in range(100):
        outcomes = lookups(platform, principal, 10)
        assert all(isinstance(o, SearchFailed) or o.status == ConsultationStatus.DONE for o in outcomes)  # type: ignore[union-attr]
        answered += sum(not isinstance(o, BaseException) for o in outcomes)
        if answered > 60:
            break
    assert answered > 60, "a new ledger process answers"
    assert ledger_of(platform)._process is not process

    platform.close()
    used, reserved, available = reopened(ledger_settings, principal.group_id)
    assert (used, reserved, available) == (answered, 0, 1000 - answered)


def test_a_busy_accounts_lookups_draw_the_units_leased_to_the_server(
    platform: Platform, ledger_settings: Settings
) -> None:
    principal = tenant(platform, limit=1000)
    lease = busy_with_a_lease(platform, principal)

    # Drawn here without asking the ledger: each lookup takes one unit of the lease.
    found = platform.consultations.run_unit_query(principal, KNOWN_CPF)
    unknown = platform.consultations.run_unit_query(principal, UNKNOWN_CPF)
    assert leased(platform, principal.group_id) == lease - 2
    assert (found.status, unknown.status) == (ConsultationStatus.DONE, ConsultationStatus.NOT_FOUND)
    # Charged only for what was found; the unit of the lookup that found nothing is free again.
    assert account(platform, principal.group_id).used == 61

    platform.close()  # what the lease and the block still hold goes back
    assert reopened(ledger_settings, principal.group_id) == (61, 0, 939)


def test_a_lease_left_idle_is_given_back_and_its_block_released(platform: Platform) -> None:
    principal = tenant(platform, limit=1000)
    busy_with_a_lease(platform, principal, kept_for=LEASE_IDLE_SECONDS)
    # The server gives back what it did not draw; the ledger then releases the quiet account's block.
    wait_until(lambda: account(platform, principal.group_id).reserved == 0, 4 * LEASE_IDLE_SECONDS + 5)
    assert leased(platform, principal.group_id) == 0
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.available) == (60, 940)
    # And the account is served as before.
    assert platform.consultations.run_unit_query(principal, KNOWN_CPF).status == ConsultationStatus.DONE


def test_a_lease_obeys_the_groups_query_types(platform: Platform) -> None:
    principal = tenant(platform, limit=1000, query_types=["cpf-complete"])
    busy_with_a_lease(platform, principal)
    with pytest.raises(QueryNotAllowed):
        platform.consultations.run_unit_query(principal, "11.222.333/0001-81")
    assert leased(platform, principal.group_id) > 0, "a refused lookup draws no unit"
    assert account(platform, principal.group_id).used == 60

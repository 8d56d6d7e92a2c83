"""Block reservations for busy accounts, on SQLite and PostgreSQL.

Blocks serve the lookups whose credit is reserved before their supplier is asked (a vendor: slow or
paid); here the local dataset plays such a supplier (``ReserveFirst``). A busy account's lookups draw
from a block the writer reserved for several of them: each found
lookup settles its own unit (its consultation id as the reason), an unknown document costs
nothing, the unused rest goes back when the account goes quiet or the server stops, and a block
left open by a stopped process is released by the next one. Whatever happens to a block, a lookup
is either charged exactly once with its consultation recorded, or not charged at all.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from eventsourcing.utils import get_topic
from support import KNOWN_CPF, run_on_a_loop_of_its_own
from test_consultations import account, tenant

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.commands.identity import SYSTEM, Principal
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import CreditAccount, ReasonKind
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import NotEnoughCredits, SearchFailed
from bemtevi.domain.query_types import Category
from bemtevi.infra.settings import Settings
from bemtevi.infra.suppliers.local import LocalDatasetSupplier

UNKNOWN_CPF = "000.000.001-91"


class ReserveFirst(LocalDatasetSupplier):
    """The local dataset asked as a vendor is: only once the lookup's credit is held."""

    answers_at_once = False


def reserve_first(settings: Settings, *, bootstrap: bool = True) -> Platform:
    return build_platform(settings, supplier=ReserveFirst(settings.demo_dataset_path), bootstrap=bootstrap)


@pytest.fixture
def platform(settings: Settings) -> Iterator[Platform]:
    platform = reserve_first(settings)
    yield platform
    platform.close()


def busy(platform: Platform) -> None:
    """Every lookup counts as a busy account's (the rate threshold is a tuning, not the rule)."""
    platform.consultations.blocks.HOT_RATE = 0


def topics_after(platform: Platform, position: int) -> list[str]:
    return [
        n.topic.rsplit(".", 1)[-1]
        for n in platform.app.recorder.select_notifications(position + 1, 10_000)
        if n.topic != get_topic(Consultation.Recorded)
    ]


def test_a_busy_accounts_lookups_settle_one_unit_each_from_a_block(platform: Platform) -> None:
    principal = tenant(platform, limit=100)
    busy(platform)
    start = platform.app.max_position()
    outcomes = [platform.consultations.run_unit_query(principal, KNOWN_CPF) for _ in range(3)]
    assert all(o.status == ConsultationStatus.DONE for o in outcomes)

    ledger = account(platform, principal.group_id)
    assert ledger.used == 3
    [(block_id, held)] = ledger.open_blocks().items()
    assert ledger.reserved == held and ledger.available == 100 - 3 - held
    # One block reservation, then one settlement per lookup and no reservation of its own.
    assert topics_after(platform, start) == ["Reserved", "SettledFromBlock", "SettledFromBlock", "SettledFromBlock"]

    assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
    rows = (
        platform.store.cursor()
        .execute(
            "SELECT kind, amount, reason, reason_id FROM credit_movements WHERE group_id = ? ORDER BY position",
            [str(principal.group_id)],
        )
        .fetchall()
    )
    movements = [r for r in rows if r[0] != "limit_change"]
    assert movements[0] == ("reservation", held + 3, ReasonKind.BLOCK, block_id)
    assert movements[1:] == [("settlement", 1, ReasonKind.CONSULTATION, str(o.consultation_id)) for o in outcomes]


def test_a_busy_accounts_next_lookups_draw_from_a_new_block_as_soon_as_it_is_saved(platform: Platform) -> None:
    """Once the writer's append of a new block is done, the account's other lookups take its units
    without a trip to the writer, while the lookup that opened it is still asking its supplier."""
    principal = tenant(platform, limit=100)
    busy(platform)
    commands = platform.consultations
    opening = commands._request(principal, Document.parse(KNOWN_CPF), None, "panel")
    assert commands.ledger.try_draw(opening) is None, "no block yet"
    _, block_id = commands.ledger.submit(opening).value
    assert block_id is not None
    batches = platform.writer.batches
    for _ in range(3):
        drawn = commands.ledger.try_draw(commands._request(principal, Document.parse(KNOWN_CPF), None, "panel"))
        assert drawn is not None and drawn[1] == block_id
    assert platform.writer.batches == batches, "drawn without the writer"


def test_an_unknown_document_from_a_block_costs_nothing(platform: Platform) -> None:
    principal = tenant(platform, limit=10)
    busy(platform)
    platform.consultations.run_unit_query(principal, KNOWN_CPF)
    outcome = platform.consultations.run_unit_query(principal, UNKNOWN_CPF)
    assert outcome.status == ConsultationStatus.NOT_FOUND
    ledger = account(platform, principal.group_id)
    assert ledger.used == 1 and ledger.available is not None and ledger.available + ledger.reserved == 9


def test_a_quiet_account_gets_its_block_back(platform: Platform) -> None:
    principal = tenant(platform, limit=50)
    busy(platform)
    platform.consultations.blocks.IDLE_SECONDS = 0.05
    platform.consultations.run_unit_query(principal, KNOWN_CPF)
    deadline = time.monotonic() + 5
    while account(platform, principal.group_id).reserved and time.monotonic() < deadline:
        time.sleep(0.05)
    ledger = account(platform, principal.group_id)
    assert (ledger.used, ledger.reserved, ledger.available) == (1, 0, 49)
    assert topics_after(platform, 0)[-1] == "Released"


def test_stopping_releases_blocks_and_a_block_left_open_is_released_next_time(
    settings: Settings, tmp_path: Path
) -> None:
    first = reserve_first(settings)
    try:
        principal = tenant(first, limit=40)
        busy(first)
        first.consultations.run_unit_query(principal, KNOWN_CPF)
        assert account(first, principal.group_id).reserved > 0
    finally:
        first.close()

    second = reserve_first(settings, bootstrap=False)
    try:
        # Stopping released the block.
        assert (account(second, principal.group_id).used, account(second, principal.group_id).reserved) == (1, 0)
        # A process that died without releasing leaves a block behind ...
        second.credits.reserve(SYSTEM, principal.group_id, Category.UNIT, uuid4(), 7, ReasonKind.BLOCK)
        assert account(second, principal.group_id).reserved == 7
        # ... which the next busy lookup on that account gives back, then draws from its own block.
        busy(second)
        second.consultations.run_unit_query(principal, KNOWN_CPF)
        ledger = account(second, principal.group_id)
        assert ledger.used == 2 and ledger.reserved == sum(ledger.open_blocks().values())
        assert ledger.available == 40 - 2 - ledger.reserved
        assert "Released" in topics_after(second, 0)
    finally:
        second.close()


def test_a_block_that_vanished_refuses_the_lookup_uncharged(platform: Platform) -> None:
    """The event loop draws from the writer's mirror of its blocks; if a block is gone from the
    store (here released behind the writer's back), the lookup is refused and nothing is charged."""
    principal = tenant(platform, limit=10)
    busy(platform)
    platform.consultations.run_unit_query(principal, KNOWN_CPF)
    [block_id] = account(platform, principal.group_id).open_blocks()
    platform.credits.release(SYSTEM, principal.group_id, Category.UNIT, UUID(block_id))

    with pytest.raises(SearchFailed):
        run_on_a_loop_of_its_own(platform.consultations.run_unit_query_async(principal, KNOWN_CPF))
    ledger = account(platform, principal.group_id)
    assert (ledger.used, ledger.reserved) == (1, 0)
    # The next lookup opens a fresh block and is charged as usual.
    assert platform.consultations.run_unit_query(principal, KNOWN_CPF).status == ConsultationStatus.DONE
    assert account(platform, principal.group_id).used == 2


def test_blocks_never_hold_more_than_is_available(platform: Platform) -> None:
    principal: Principal = tenant(platform, limit=5)
    busy(platform)
    for _ in range(5):
        platform.consultations.run_unit_query(principal, KNOWN_CPF)
    with pytest.raises(NotEnoughCredits):
        platform.consultations.run_unit_query(principal, KNOWN_CPF)
    ledger = account(platform, principal.group_id)
    assert (ledger.used, ledger.reserved, ledger.available) == (5, 0, 0)
    assert isinstance(ledger, CreditAccount)


def test_stopping_releases_a_block_even_with_a_lookup_still_holding_a_unit(settings: Settings) -> None:
    first = reserve_first(settings)
    try:
        principal = tenant(first, limit=40)
        busy(first)
        first.consultations.run_unit_query(principal, KNOWN_CPF)
        account_id = account(first, principal.group_id).id
        # A lookup that took a unit and will never come back (its request died with the server).
        assert first.consultations.blocks.try_draw(account_id) is not None
    finally:
        first.close()
    second = reserve_first(settings, bootstrap=False)
    try:
        ledger = account(second, principal.group_id)
        assert (ledger.used, ledger.reserved, ledger.available) == (1, 0, 39)
    finally:
        second.close()

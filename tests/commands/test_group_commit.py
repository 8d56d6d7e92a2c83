"""The group commit on SQLite and PostgreSQL: batches, undo of refused decisions, coherence."""

from __future__ import annotations

import asyncio
import threading
from uuid import UUID, uuid4

import pytest

from bemtevi.bootstrap import Platform
from bemtevi.commands.group_commit import GroupCommit, _Request
from bemtevi.commands.workspace import Workspace
from bemtevi.domain.audit import acting_as
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import NotEnoughCredits
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.query_types import Category


def company(platform: Platform, credits: int) -> UUID:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=credits
    )
    return credit_account_id(group_id, Category.UNIT)


def stored(platform: Platform, account_id: UUID) -> CreditAccount:
    return platform.app.get(account_id, CreditAccount)


def reserve(account_id: UUID, then_fail: bool = False) -> _Request[None]:
    def decide(ws: Workspace) -> None:
        with acting_as(SYSTEM):
            ws.get(account_id, CreditAccount).reserve(uuid4(), 1)
        if then_fail:
            raise RuntimeError("refused after changing the account")

    return _Request(decide)  # answered to nobody: the test reads its outcome


def test_a_decision_that_fails_halfway_is_undone_and_its_batch_mates_are_saved(platform: Platform) -> None:
    account_id = company(platform, credits=5)
    writer = GroupCommit(platform.app)
    first, failing, last = reserve(account_id), reserve(account_id, then_fail=True), reserve(account_id)
    assert writer._process([first, failing, last]) == []
    assert first.error is None and last.error is None
    assert isinstance(failing.error, RuntimeError)
    account = stored(platform, account_id)
    assert (account.reserved, account.available) == (2, 3)
    assert writer.batches == 1 and writer.commands == 3


def test_a_decision_failing_last_in_its_batch_leaves_nothing_behind(platform: Platform) -> None:
    account_id = company(platform, credits=5)
    writer = GroupCommit(platform.app)
    first, failing = reserve(account_id), reserve(account_id, then_fail=True)
    writer._process([first, failing])
    assert first.error is None and isinstance(failing.error, RuntimeError)
    assert stored(platform, account_id).reserved == 1


def test_concurrent_reservations_share_appends_and_stay_exact(platform: Platform) -> None:
    account_id = company(platform, credits=60)
    writer = platform.writer
    before = writer.batches
    outcomes: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(80)

    def one() -> None:
        start.wait()
        try:
            writer.submit(reserve(account_id).decide)
            result = "reserved"
        except NotEnoughCredits:
            result = "refused"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=one) for _ in range(80)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("reserved") == 60 and outcomes.count("refused") == 20
    assert stored(platform, account_id).available == 0
    # Far fewer appends than commands: they were gathered while earlier appends ran.
    assert writer.batches - before < 80


def test_a_save_made_outside_the_writer_is_seen_by_its_next_decision(platform: Platform) -> None:
    account_id = company(platform, credits=1)
    platform.credits.reserve(SYSTEM, account_id_group(platform, account_id), Category.UNIT, uuid4(), 1)
    # Elsewhere in the process: the limit is raised with a plain load-change-save.
    account = stored(platform, account_id)
    with acting_as(SYSTEM):
        account.change_limit(3)
    platform.app.save(account)
    # The writer had the account in memory at limit 1; it must decide on limit 3 now.
    platform.credits.reserve(SYSTEM, account.group_id, Category.UNIT, uuid4(), 2)
    assert stored(platform, account_id).available == 0
    with pytest.raises(NotEnoughCredits):
        platform.credits.reserve(SYSTEM, account.group_id, Category.UNIT, uuid4(), 1)


def account_id_group(platform: Platform, account_id: UUID) -> UUID:
    return stored(platform, account_id).group_id


def test_a_save_made_elsewhere_while_a_batch_is_decided_loses_none_of_its_decisions(platform: Platform) -> None:
    """Another thread of the process saves an account while the writer decides on it: the writer
    forgets its copy only between batches, so the batch's append collides and is decided again,
    instead of being saved without that account's decided events. What the first decision changed
    outside aggregates is undone before the second."""
    account_id = company(platform, credits=5)
    writer = GroupCommit(platform.app)
    saved_elsewhere = threading.Event()

    def raise_the_limit_elsewhere() -> None:
        account = stored(platform, account_id)
        with acting_as(SYSTEM):
            account.change_limit(10)
        platform.app.save(account)
        saved_elsewhere.set()

    decided: list[int] = []  # a change outside aggregates, undone with its refused append

    def reserve_while_saved_elsewhere(ws: Workspace) -> None:
        decided.append(1)
        ws.on_undo(decided.pop)
        with acting_as(SYSTEM):
            ws.get(account_id, CreditAccount).reserve(uuid4(), 1)
        if not saved_elsewhere.is_set():
            elsewhere = threading.Thread(target=raise_the_limit_elsewhere)
            elsewhere.start()
            elsewhere.join()

    try:
        writer.submit(reserve_while_saved_elsewhere)
    finally:
        writer.stop()
    account = stored(platform, account_id)
    assert (account.limit, account.reserved, account.available) == (10, 1, 9)
    assert decided == [1], "decided twice, the first undone with its refused append"


def test_a_caller_gone_with_its_loop_leaves_the_writer_answering_the_others(platform: Platform) -> None:
    """A caller that gave up waiting and whose event loop then closed (a blocking caller's thread that ended, a
    batch's chunk run on a loop of its own) is answered to nobody: the writer goes on answering the others."""
    writer = platform.writer
    release = threading.Event()

    def slow(ws: Workspace) -> str:
        release.wait(10)
        return "late"

    async def give_up() -> None:
        with pytest.raises(TimeoutError):
            await writer.submit_async(slow, timeout=0.05)

    asyncio.run(give_up())  # its loop is closed now
    release.set()
    assert writer.submit(lambda ws: "next", timeout=5).value == "next"

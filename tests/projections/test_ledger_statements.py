"""The balance history and the finance statement reconcile with the ledger: for any sequence of ledger movements
(grants and take-backs, reservations, settlements, releases, block draws, leases, charges, limit changes), each
history line's balance is the running sum of the lines' changes and the last is the account's available balance;
a statement of any period is what a fold of the stored events says."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, time, timedelta
from typing import Any
from uuid import UUID, uuid4

import eventsourcing.domain
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ledger_folds import folded_statement
from support import examples

from bemtevi.bootstrap import Platform
from bemtevi.domain.audit import acting_as
from bemtevi.domain.credits import CreditAccount, ReasonKind
from bemtevi.domain.errors import DomainError
from bemtevi.domain.principals import SYSTEM
from bemtevi.domain.query_types import Category
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.credit_queries import movement_history
from bemtevi.projections.statements import reconciles, statement

amounts = st.integers(min_value=1, max_value=40)
picks = st.integers(min_value=0, max_value=10)
movements = st.one_of(
    st.tuples(st.just("reserve"), amounts, st.sampled_from([ReasonKind.BATCH, ReasonKind.BLOCK, ReasonKind.LEASE])),
    st.tuples(st.just("settle"), picks, st.integers(min_value=0, max_value=40)),
    st.tuples(st.just("release"), picks, st.just(0)),
    st.tuples(st.just("draw"), picks, amounts),
    st.tuples(st.just("settle_lease"), picks, st.integers(min_value=0, max_value=5)),
    st.tuples(st.just("charge"), amounts, st.just(0)),
    st.tuples(st.just("grant"), amounts, st.just(0)),
    st.tuples(st.just("take_back"), amounts, st.just(0)),
    st.tuples(st.just("limit"), st.one_of(st.none(), st.integers(min_value=0, max_value=200)), st.just(0)),
)


def apply(movement: tuple[str, int, Any], parent: CreditAccount, child: CreditAccount) -> list[CreditAccount]:
    """Apply one movement (to the child, or between the two); the accounts it changed."""
    name, a, b = movement
    open_ids = [UUID(r) for r in child.reservations]
    pick = open_ids[a % len(open_ids)] if open_ids and name in {"settle", "release", "draw", "settle_lease"} else None
    if name == "reserve":
        child.reserve(uuid4(), a, b)
    elif name == "charge":
        child.charge(uuid4(), min(a, 3), a)
    elif name == "grant":
        parent.grant_to(child, a)
        return [parent, child]
    elif name == "take_back":
        parent.grant_to(child, -a)
        return [parent, child]
    elif name == "limit":
        if a == parent.limit:
            return []  # the ledger records no change that changes nothing (commands.ledger.accounts.set_limit)
        parent.change_limit(a)
        return [parent]
    elif pick is None:
        return []
    elif name == "settle":
        child.settle(pick, min(b, child.reservations[str(pick)]))
    elif name == "release":
        child.release(pick)
    elif name == "draw":
        child.settle_from_block(pick, uuid4(), min(b, child.reservations[str(pick)]))
    else:
        child.settle_lease(pick, [str(uuid4()) for _ in range(min(b, child.reservations[str(pick)]))])
    return [child]


@contextmanager
def events_stamped_from(start: datetime) -> Iterator[Callable[[timedelta], None]]:
    """Events made inside are stamped with a clock of the test's, from ``start``, moved by the function yielded."""
    now = [start]
    made_at = eventsourcing.domain.datetime_now_with_tzinfo
    eventsourcing.domain.datetime_now_with_tzinfo = lambda: now[0]
    try:
        yield lambda by: now.__setitem__(0, now[0] + by)
    finally:
        eventsourcing.domain.datetime_now_with_tzinfo = made_at


def play(
    platform: Platform,
    opening: int | None,
    steps: list[tuple[str, int, Any]],
    before_each: Callable[[int], None] = lambda step: None,
) -> tuple[CreditAccount, CreditAccount]:
    """A parent opened with ``opening`` credits and its child, moved by ``steps`` (refused ones skipped), each
    movement its own append (``before_each(index)`` called first); answers once the read side has caught up."""
    with acting_as(SYSTEM):
        parent = CreditAccount.open(uuid4(), Category.BATCH, opening)  # a registration's quantity
        child = CreditAccount.open(uuid4(), Category.BATCH, 0)
        position = platform.app.save_all(parent, child)
        for index, step in enumerate(steps):
            before_each(index)
            try:
                changed = apply(step, parent, child)
            except DomainError:
                continue  # refused: nothing moved
            if changed:
                position = platform.app.save_all(*changed)
    assert platform.projector.wait_for(position, timeout=10)
    return parent, child


def test_each_line_balance_is_the_running_sum_of_changes(sqlite_platform: Platform) -> None:
    platform = sqlite_platform

    @settings(
        max_examples=examples(40),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(opening=st.integers(min_value=0, max_value=300), steps=st.lists(movements, max_size=25))
    def check(opening: int, steps: list[tuple[str, int, Any]]) -> None:
        parent, child = play(platform, opening, steps)
        cur = platform.store.cursor()
        for account in (parent, child):
            lines, total = movement_history(cur, [str(account.group_id)], order="createdAt", limit=None)
            assert total == len(lines)
            running: int | None = 0
            for line in lines:
                if line["change"] is None:  # to or from unlimited: the balance starts again from the line's figures
                    running = line["balance"]
                elif running is not None:  # an unlimited account's lines carry their flow and no balance
                    running += line["change"]
                assert line["balance"] == running, line
                if running is not None:
                    assert line["balance"] == line["limit"] - line["used"] - line["reserved"] - line["granted"]
            if account.limit is not None:
                assert running == account.available
            used = sum(line["amount"] for line in lines if line["kind"] == "settlement")
            assert used == account.used

    check()


def test_a_statement_of_any_period_is_the_fold_of_the_ledger(sqlite_platform: Platform) -> None:
    """Movements hours or days apart, at any time of day; a statement of any São Paulo days (before the first
    movement, after the last, any days between) says what the account's events say of that period."""
    platform = sqlite_platform

    @settings(
        max_examples=examples(40),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(
        opening=st.one_of(st.none(), st.integers(min_value=0, max_value=300)),  # None: opened unlimited
        steps=st.lists(movements, max_size=25),
        hours_before=st.lists(st.integers(min_value=0, max_value=30), min_size=25, max_size=25),
        # Whether the read side catches up before a step: a day's lines come in one page or in several.
        catch_up=st.lists(st.booleans(), min_size=25, max_size=25),
        started=st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2027, 1, 1)),
        days=st.tuples(st.integers(min_value=-2, max_value=30), st.integers(min_value=-2, max_value=30)),
    )
    def check(
        opening: int,
        steps: list[tuple[str, int, Any]],
        hours_before: list[int],
        catch_up: list[bool],
        started: datetime,
        days: tuple[int, int],
    ) -> None:
        with events_stamped_from(started.replace(tzinfo=UTC)) as move_clock:

            def before(index: int) -> None:
                if catch_up[index]:
                    assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
                move_clock(timedelta(hours=hours_before[index]))

            parent, child = play(platform, opening, steps, before)
        cur = platform.store.cursor()
        first_day = started.replace(tzinfo=UTC).astimezone(SAO_PAULO).date()
        first, last = (first_day + timedelta(days=d) for d in sorted(days))
        # The period's bounds as UTC wall times, for the fold.
        start, end = (
            datetime.combine(day, time(), SAO_PAULO).astimezone(UTC).replace(tzinfo=None)
            for day in (first, last + timedelta(days=1))
        )
        for account in (parent, child):
            [batch] = [c for c in statement(cur, str(account.group_id), first, last) if c["category"] == "batch"]
            assert batch == folded_statement(platform, account.id, start, end, "batch")
            if limited_all_through(platform, account.id, start, end):
                assert reconciles(batch)

    check()


def limited_all_through(platform: Platform, account_id: UUID, start: datetime, end: datetime) -> bool:
    """Whether the account's limit never went to or came from unlimited in [start, end) (UTC wall times)."""
    for event in map(platform.app.mapper.to_domain_event, platform.app.recorder.select_events(account_id)):
        when = event.timestamp.astimezone(UTC).replace(tzinfo=None)
        changed = isinstance(event, CreditAccount.LimitChanged) and start <= when < end
        if changed and (event.limit_after is None or event.previous_limit is None):
            return False
    return True

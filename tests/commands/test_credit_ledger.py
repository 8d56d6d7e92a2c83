"""The credit ledger on SQLite and PostgreSQL: grants, limits, reservations, settlements, releases.

A hypothesis state machine drives a reseller and its company through random movements and
checks, after every step, what finance relies on: no balance is ever negative, credits are
conserved between parent and child, the ledger agrees with a plain model of the rules, and the
balances read model equals a fold of the events in the store.

The company's lookups run now as a quiet account's (each reserves its own credit) and now as a
busy one's (drawing from block reservations, which stay open until the account goes quiet): what
an open block still holds counts as reserved, and is still the company's to spend on lookups.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import UUID, uuid4

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule, run_state_machine_as_test
from support import KNOWN_CPF

from bemtevi.bootstrap import Platform
from bemtevi.commands.identity import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import AccessDenied, DomainError, InvalidData, NotEnoughCredits, NotEnoughToProvide
from bemtevi.domain.groups import GroupType
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role
from bemtevi.projections.credits import balances_of


def acting(group_id: UUID, role: Role = Role.OWNER) -> Principal:
    return Principal(user_id=uuid4(), group_id=group_id, role=role, session_id=uuid4())


ROOT = acting(ROOT_GROUP_ID, Role.SUPER_ADMIN)


def new_pair(platform: Platform) -> tuple[UUID, UUID]:
    reseller, _ = platform.identity.register_group(
        SYSTEM, name="Revenda", group_type=GroupType.RESELLER, parent_id=ROOT_GROUP_ID, unit_credit_limit=0
    )
    company, _ = platform.identity.register_group(
        SYSTEM, name="Empresa", group_type=GroupType.COMPANY, parent_id=reseller, unit_credit_limit=0
    )
    return reseller, company


@dataclass
class Figures:
    limit: int = 0
    used: int = 0
    reserved: int = 0
    granted: int = 0

    @property
    def available(self) -> int:
        return self.limit - self.used - self.reserved - self.granted


def test_ledger_rules_hold_for_any_sequence_of_movements(platform: Platform) -> None:
    category = Category.UNIT

    class Ledger(RuleBasedStateMachine):
        reservations = Bundle("reservations")

        def __init__(self) -> None:
            super().__init__()
            self.reseller, self.company = new_pair(platform)
            self.model = {self.reseller: Figures(), self.company: Figures()}
            self.held: dict[UUID, tuple[UUID, int]] = {}

        def account(self, group_id: UUID) -> CreditAccount:
            return platform.app.get(credit_account_id(group_id, category), CreditAccount)

        def in_blocks(self, group_id: UUID) -> int:
            """What open lookup blocks of this group hold: reserved, and spendable only on lookups."""
            return sum(self.account(group_id).open_blocks().values())

        @rule(busy=st.booleans())
        def company_turns_busy_or_quiet(self, busy: bool) -> None:
            blocks = platform.consultations.blocks
            blocks.HOT_RATE = 0 if busy else 10**9
            if not busy:  # a quiet second passes: the writer releases what blocks still hold
                platform.writer.submit(lambda ws: blocks.release_idle(ws, True))
                assert self.in_blocks(self.company) == 0

        @rule(limit=st.integers(0, 40))
        def root_sets_the_reseller_limit(self, limit: int) -> None:
            figures = self.model[self.reseller]
            if limit < figures.used + figures.reserved + figures.granted + self.in_blocks(self.reseller):
                with pytest.raises(InvalidData):
                    platform.credits.set_limit(ROOT, self.reseller, category, limit)
            else:
                platform.credits.set_limit(ROOT, self.reseller, category, limit)
                figures.limit = limit

        @rule(amount=st.integers(-15, 15).filter(bool))
        def reseller_grants_to_its_company(self, amount: int) -> None:
            parent, child = self.model[self.reseller], self.model[self.company]
            if amount > 0 and amount > parent.available:
                with pytest.raises(NotEnoughToProvide):
                    platform.credits.grant(acting(self.reseller), self.company, category, amount)
            elif amount < 0 and -amount > child.available - self.in_blocks(self.company):
                with pytest.raises(NotEnoughCredits):
                    platform.credits.grant(acting(self.reseller), self.company, category, amount)
            else:
                platform.credits.grant(acting(self.reseller), self.company, category, amount)
                parent.granted += amount
                child.limit += amount

        @rule(target=reservations, on_company=st.booleans(), amount=st.integers(1, 8))
        def reserve(self, on_company: bool, amount: int) -> UUID | None:
            group = self.company if on_company else self.reseller
            figures = self.model[group]
            reservation = uuid4()
            if amount > figures.available - self.in_blocks(group):
                with pytest.raises(NotEnoughCredits):
                    platform.credits.reserve(SYSTEM, group, category, reservation, amount)
                return None
            platform.credits.reserve(SYSTEM, group, category, reservation, amount)
            figures.reserved += amount
            self.held[reservation] = (group, amount)
            return reservation

        @rule(reservation=consumes(reservations), share=st.floats(0, 1))
        def settle(self, reservation: UUID | None, share: float) -> None:
            if reservation is None:
                return
            group, amount = self.held.pop(reservation)
            charged = round(amount * share)
            platform.credits.settle(SYSTEM, group, category, reservation, charged)
            self.model[group].reserved -= amount
            self.model[group].used += charged

        @rule(reservation=consumes(reservations))
        def release(self, reservation: UUID | None) -> None:
            if reservation is None:
                return
            group, amount = self.held.pop(reservation)
            platform.credits.release(SYSTEM, group, category, reservation)
            self.model[group].reserved -= amount

        @rule(lookups=st.integers(1, 6))
        def company_runs_lookups(self, lookups: int) -> None:
            figures = self.model[self.company]
            for _ in range(lookups):
                if figures.available < 1:
                    with pytest.raises(NotEnoughCredits):
                        platform.consultations.run_unit_query(acting(self.company, Role.USER), KNOWN_CPF)
                else:
                    platform.consultations.run_unit_query(acting(self.company, Role.USER), KNOWN_CPF)
                    figures.used += 1

        @rule()
        def company_cannot_grant_to_its_parent(self) -> None:
            with pytest.raises(AccessDenied):
                platform.credits.grant(acting(self.company), self.reseller, category, 1)

        @invariant()
        def ledger_matches_the_rules(self) -> None:
            for group_id, expected in self.model.items():
                account = self.account(group_id)
                assert (account.limit, account.used, account.reserved, account.granted) == (
                    expected.limit,
                    expected.used,
                    expected.reserved + self.in_blocks(group_id),
                    expected.granted,
                )
                assert account.available is not None and account.available >= 0
                # The figures the last movement recorded (the history's running balance) are the account's.
                stored = platform.app.recorder.select_events(account.id, desc=True, limit=1)[0]
                last = platform.app.mapper.to_domain_event(stored)
                if stored.originator_version > 1:
                    assert (last.limit_after, last.used_after, last.reserved_after, last.granted_after) == (
                        account.limit,
                        account.used,
                        account.reserved,
                        account.granted,
                    )
            # Conservation: what the reseller gave is exactly what its company can have.
            assert self.account(self.company).limit == self.account(self.reseller).granted

        def teardown(self) -> None:
            # The read side, once caught up, equals a fold of the events in the store.
            assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
            cur = platform.store.cursor()
            for group_id in self.model:
                account = self.account(group_id)
                row = balances_of(cur, str(group_id))[category.value]
                assert row == {
                    "limit": account.limit,
                    "used": account.used,
                    "reserved": account.reserved,
                    "granted": account.granted,
                }
                last = cur.execute(
                    "SELECT credit_limit, used, reserved, granted, balance FROM credit_movements "
                    "WHERE group_id = ? AND category = ? ORDER BY position DESC LIMIT 1",
                    [str(group_id), category.value],
                ).fetchone()
                if last is not None:
                    assert last == (account.limit, account.used, account.reserved, account.granted, account.available)

    run_state_machine_as_test(
        Ledger,
        settings=settings(
            max_examples=12,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )


def test_a_refused_grant_changes_nothing(platform: Platform) -> None:
    reseller, company = new_pair(platform)
    platform.credits.set_limit(ROOT, reseller, Category.UNIT, 10)
    with pytest.raises(NotEnoughToProvide) as refused:
        platform.credits.grant(acting(reseller), company, Category.UNIT, 11)
    assert refused.value.message == "Not enough manual query to provide to this group"
    parent = platform.app.get(credit_account_id(reseller, Category.UNIT), CreditAccount)
    child = platform.app.get(credit_account_id(company, Category.UNIT), CreditAccount)
    assert (parent.granted, parent.available, child.limit) == (0, 10, 0)


def test_grant_in_a_category_never_opened_opens_the_child_account(platform: Platform) -> None:
    reseller, company = new_pair(platform)
    platform.credits.set_limit(ROOT, reseller, Category.API, 50)
    platform.credits.grant(acting(reseller), company, Category.API, 20)
    child = platform.app.get(credit_account_id(company, Category.API), CreditAccount)
    assert (child.limit, child.available) == (20, 20)
    with pytest.raises(NotEnoughToProvide) as refused:
        platform.credits.grant(acting(reseller), company, Category.BATCH, 1)
    assert refused.value.message == "Not enough enrichment query to provide to this group"


def test_only_the_direct_parent_moves_credits(platform: Platform) -> None:
    reseller, company = new_pair(platform)
    with pytest.raises(AccessDenied):
        platform.credits.set_limit(ROOT, company, Category.UNIT, 5)  # root is the grandparent
    with pytest.raises(DomainError):
        platform.credits.grant(acting(reseller), uuid4(), Category.UNIT, 1)


def test_a_limited_parent_cannot_make_a_child_unlimited(platform: Platform) -> None:
    reseller, company = new_pair(platform)
    platform.credits.set_limit(ROOT, reseller, Category.UNIT, 10)
    with pytest.raises(NotEnoughToProvide):
        platform.credits.set_limit(acting(reseller), company, Category.UNIT, None)
    platform.credits.set_limit(acting(reseller), company, Category.UNIT, 4)
    parent = platform.app.get(credit_account_id(reseller, Category.UNIT), CreditAccount)
    assert (parent.granted, parent.available) == (4, 6)


def test_the_history_reads_each_movement_with_actor_counterparty_time_and_running_balance(platform: Platform) -> None:
    reseller, company = new_pair(platform)
    owner = acting(reseller)
    before = datetime.now(UTC).replace(tzinfo=None)
    platform.credits.set_limit(ROOT, reseller, Category.UNIT, 10)
    platform.credits.grant(owner, company, Category.UNIT, 4)
    reservation = uuid4()
    platform.credits.reserve(SYSTEM, company, Category.UNIT, reservation, 3)
    position = platform.credits.settle(SYSTEM, company, Category.UNIT, reservation, 2)
    assert platform.projector.wait_for(position, timeout=10)
    cur = platform.store.cursor()
    rows = cur.execute(
        "SELECT group_id, kind, amount, reason_id, reason, counterparty_group_id, actor_id, created_at, balance "
        "FROM credit_movements WHERE group_id IN (?, ?) ORDER BY position",
        [str(reseller), str(company)],
    ).fetchall()
    assert [(r[0], r[1], r[2], r[8]) for r in rows] == [
        (str(reseller), "limit_change", 10, 10),
        (str(reseller), "grant", 4, 6),
        (str(company), "grant_received", 4, 4),
        (str(company), "reservation", 3, 1),
        (str(company), "settlement", 2, 2),
    ]
    grant, received = rows[1], rows[2]
    assert grant[5] == str(company) and received[5] == str(reseller)
    assert grant[6] == str(owner.user_id) and rows[0][6] == str(ROOT.user_id)
    assert rows[3][3] == str(reservation) and rows[3][4] == "batch" and rows[4][3] == str(reservation)
    after = datetime.now(UTC).replace(tzinfo=None)
    assert all(before <= r[7] <= after for r in rows)

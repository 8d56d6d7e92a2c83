"""The credit ledger on SQLite and PostgreSQL: grants, limits, reservations, settlements, releases.

A hypothesis state machine drives a reseller and its company through random movements and
checks, after every step, what finance relies on: no balance is ever negative, credits are
conserved between parent and child, the ledger agrees with a plain model of the rules, and the
balances read model equals a fold of the events in the store.

The company's lookups are each decided by the ledger (leases are off here: a busy account's lookups under
a lease are ``test_leases.py``'s and ``test_embedded_leases.py``'s); what a dead ledger left for lookups
(its lookups' own credits, or a block of the ledgers before leases) counts as reserved until released.

Take-backs also come through another ledger on the same store (as a parent's ledger worker decides a
grant into its child's account), now and then while a lookup holds its credit; a ledger dies with lookups in flight (its
reservations stay in the store), and a recovery step (the sweep) releases what it left. After
every step no figure is negative, used + reserved + available is the limit less what was granted,
and every lookup answered as charged has exactly one settlement; after recovery nothing a dead
ledger held stays reserved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID, uuid4

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as settings_of_hypothesis
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)
from support import (
    KNOWN_CPF,
    InFlight,
    charged_in_store,
    examples,
    left_by_a_dead_ledger,
    lookup_record,
    settlements_by_consultation,
)

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.credits import CreditCommands
from bemtevi.commands.group_commit import GroupCommit
from bemtevi.commands.ledger import EmbeddedLedger, ReleaseAbandoned
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.credit_figures import LOOKUP_REASONS
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import AccessDenied, DomainError, InvalidData, NotEnoughCredits, NotEnoughToProvide
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.suppliers import Supplier
from bemtevi.domain.users import Role
from bemtevi.infra.settings import Settings
from bemtevi.infra.suppliers.local import LocalDatasetSupplier
from bemtevi.projections.credit_queries import balances_of


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


class Meanwhile:
    """The platform's supplier, which runs ``then`` (once) when next asked: something that lands
    between a lookup's reservation and its settlement."""

    def __init__(self, inner: Supplier) -> None:
        self.inner = inner
        self.name = inner.name
        self.answers_at_once = inner.answers_at_once
        self.then: Callable[[], None] | None = None

    def lookup(self, kind: Literal["cpf", "cnpj"], number: str) -> dict[str, Any] | None:
        then, self.then = self.then, None
        if then is not None:
            then()
        return self.inner.lookup(kind, number)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


class Relay:
    """One application's saves told to another's writer, as two processes' invalidators tell
    each other (``late``: held back meanwhile, so that writer decides on what it had)."""

    def __init__(self, writer: GroupCommit) -> None:
        self.writer = writer
        self.held: list[UUID] | None = None

    def __call__(self, aggregate_ids: Iterable[UUID]) -> None:
        if self.held is None:
            self.writer.forget(list(aggregate_ids))
        else:
            self.held.extend(aggregate_ids)

    @contextmanager
    def late(self) -> Iterator[None]:
        self.held = []
        try:
            yield
        finally:
            held, self.held = self.held, None
            self.writer.forget(held)


def test_ledger_rules_hold_for_any_sequence_of_movements(settings: Settings) -> None:
    category = Category.UNIT
    supplier = Meanwhile(LocalDatasetSupplier(settings.demo_dataset_path))
    # What a dead ledger left is released by the machine's recovery step only, not by a sweep
    # running beside it.
    platform = build_platform(
        settings.model_copy(update={"reservation_sweep_seconds": 3600.0, "ledger_lease_seconds": 0.0}), supplier
    )
    ledger = platform.consultations.ledger
    assert isinstance(ledger, EmbeddedLedger)
    # Another ledger on the same store (as the parent's ledger worker deciding a grant into the child's
    # account): take-backs the platform's writer is not told of.
    server_app = BemteviApplication(env=settings.event_store_env())
    server_writer = GroupCommit(server_app)
    server_credits = CreditCommands(EmbeddedLedger(server_app, server_writer))
    to_the_ledger = Relay(platform.writer)
    server_app.on_saved_elsewhere(to_the_ledger)
    platform.app.on_saved_elsewhere(Relay(server_writer))

    class Ledger(RuleBasedStateMachine):
        reservations = Bundle("reservations")

        def __init__(self) -> None:
            super().__init__()
            self.reseller, self.company = new_pair(platform)
            self.model = {self.reseller: Figures(), self.company: Figures()}
            self.held: dict[UUID, tuple[UUID, int]] = {}
            self.batches: set[str] = set()  # batches' reservations (their settlements are not lookups')
            self.charged: list[str] = []  # the lookups answered as charged

        def account(self, group_id: UUID) -> CreditAccount:
            return platform.app.get(credit_account_id(group_id, category), CreditAccount)

        def for_lookups(self, group_id: UUID) -> int:
            """What the store holds for lookups (blocks, and lookups' own credits), of the running
            ledger or left by a dead one: reserved, and not for grants or batches to take."""
            account = self.account(group_id)
            return sum(n for rid, n in account.reservations.items() if account.reasons.get(rid) in LOOKUP_REASONS)

        def take_back(self, amount: int, expected_available: int, credits: CreditCommands) -> None:
            parent, child = self.model[self.reseller], self.model[self.company]
            if -amount > expected_available:
                with pytest.raises(NotEnoughCredits):
                    credits.grant(acting(self.reseller), self.company, category, amount)
            else:
                credits.grant(acting(self.reseller), self.company, category, amount)
                parent.granted += amount
                child.limit += amount

        @initialize(limit=st.integers(0, 40), share=st.floats(0, 1))
        def root_funds_the_reseller_which_funds_its_company(self, limit: int, share: float) -> None:
            """Most runs start with credits to move and spend (any step may still take them away)."""
            platform.credits.set_limit(ROOT, self.reseller, category, limit)
            self.model[self.reseller].limit = limit
            if given := round(limit * share):
                platform.credits.grant(acting(self.reseller), self.company, category, given)
                self.model[self.reseller].granted += given
                self.model[self.company].limit += given

        @rule(limit=st.integers(0, 40))
        def root_sets_the_reseller_limit(self, limit: int) -> None:
            figures = self.model[self.reseller]
            if limit < figures.used + figures.reserved + figures.granted + self.for_lookups(self.reseller):
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
            elif amount < 0:
                self.take_back(amount, child.available - self.for_lookups(self.company), platform.credits)
            else:
                platform.credits.grant(acting(self.reseller), self.company, category, amount)
                parent.granted += amount
                child.limit += amount

        @rule(amount=st.integers(-8, -1))
        def reseller_takes_back_through_another_writer(self, amount: int) -> None:
            """As another ledger does (a parent's worker): the lookups' writer has not seen it."""
            child = self.model[self.company]
            self.take_back(amount, child.available - self.for_lookups(self.company), server_credits)

        @rule(target=reservations, on_company=st.booleans(), amount=st.integers(1, 8))
        def reserve(self, on_company: bool, amount: int) -> UUID | None:
            group = self.company if on_company else self.reseller
            figures = self.model[group]
            reservation = uuid4()
            if amount > figures.available - self.for_lookups(group):
                with pytest.raises(NotEnoughCredits):
                    platform.credits.reserve(SYSTEM, group, category, reservation, amount)
                return None
            platform.credits.reserve(SYSTEM, group, category, reservation, amount)
            figures.reserved += amount
            self.held[reservation] = (group, amount)
            self.batches.add(str(reservation))
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

        def lookup(self) -> None:
            """One lookup of the company: charged if it has a credit for lookups (what a dead ledger left
            counts: the writer releases it first), else refused."""
            figures = self.model[self.company]
            if figures.available < 1:
                with pytest.raises(NotEnoughCredits):
                    platform.consultations.run_unit_query(acting(self.company, Role.USER), KNOWN_CPF)
            else:
                outcome = platform.consultations.run_unit_query(acting(self.company, Role.USER), KNOWN_CPF)
                assert outcome.status == ConsultationStatus.DONE
                figures.used += 1
                self.charged.append(str(outcome.consultation_id))

        @rule(lookups=st.integers(1, 6))
        def company_runs_lookups(self, lookups: int) -> None:
            for _ in range(lookups):
                self.lookup()

        @rule(amount=st.integers(-6, -1))
        def a_take_back_lands_while_a_lookup_asks_its_supplier(self, amount: int) -> None:
            """Through the server's writer, between the supplier's answer and the ledger's decision. The
            local supplier is instant and free, so its lookup holds no credit meanwhile: the take-back may
            take the last one, and the lookup is then refused, uncharged; otherwise it is charged once."""

            def meanwhile() -> None:
                available = server_app.get(credit_account_id(self.company, category), CreditAccount).available
                assert available is not None
                self.take_back(amount, available, server_credits)

            supplier.then = meanwhile
            try:
                # The ledger hears of it only after the lookup: the decision collides, and is decided
                # again on the account as the take-back left it.
                with to_the_ledger.late():
                    try:
                        outcome = platform.consultations.run_unit_query(acting(self.company, Role.USER), KNOWN_CPF)
                    except NotEnoughCredits:
                        assert self.model[self.company].available < 1
                    else:
                        assert self.model[self.company].available >= 1
                        self.model[self.company].used += 1
                        self.charged.append(str(outcome.consultation_id))
            finally:
                supplier.then = None

        def reserve_for_a_lookup(self, in_flight: list[InFlight]) -> None:
            """A lookup taking its credit (and holding it) through the ledger, if one is left."""
            lookup = lookup_record(self.company)
            if self.model[self.company].available - len(in_flight) < 1:
                with pytest.raises(NotEnoughCredits):
                    lookup.reserve(ledger)
            else:
                lookup.reserve(ledger)
                in_flight.append(lookup)

        def settle_found(self, lookup: InFlight) -> None:
            lookup.finish(ledger, ConsultationStatus.DONE)
            self.model[self.company].used += 1
            self.charged.append(str(lookup.consultation_id))

        @rule(first=st.integers(1, 4), amount=st.integers(-6, -1), then=st.integers(0, 4))
        def a_take_back_lands_while_lookups_hold_their_credits(self, first: int, amount: int, then: int) -> None:
            """Lookups in flight (each holding its own credit) when a take-back lands
            through the server's writer; the settlement after it collides and is decided again,
            counting no unit twice, so the lookups that draw next are all settled too."""
            in_flight: list[InFlight] = []
            for _ in range(first):
                self.reserve_for_a_lookup(in_flight)
            with to_the_ledger.late():
                available = server_app.get(credit_account_id(self.company, category), CreditAccount).available
                assert available is not None
                self.take_back(amount, available, server_credits)
                if in_flight:
                    self.settle_found(in_flight.pop(0))
            for _ in range(then):
                self.reserve_for_a_lookup(in_flight)
            for lookup in in_flight:
                self.settle_found(lookup)

        @rule(own=st.integers(0, 4), block=st.sampled_from([0, 4, 9]))
        def a_ledger_dies_with_lookups_in_flight(self, own: int, block: int) -> None:
            """What a killed ledger leaves: its lookups' own credits and an open block, reserved."""
            available = self.account(self.company).available or 0
            own = min(own, available)
            block = block if block <= available - own else 0
            if own or block:
                left_by_a_dead_ledger(settings, self.company, own, block)
                # Its appends reached the running ledger's writers (a new ledger starts afresh).
                for writer in (platform.writer, server_writer):
                    writer.forget([credit_account_id(self.company, category)])

        @rule()
        def recovery(self) -> None:
            """The sweep: the running ledger releases what dead ones left."""
            for group_id in self.model:
                ledger.submit(ReleaseAbandoned(group_id))
            for group_id in self.model:
                assert self.account(group_id).abandoned(ledger.owner) == []

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
                    expected.reserved + self.for_lookups(group_id),
                    expected.granted,
                )
                # No figure is ever negative, and they always add up.
                assert account.available is not None and account.limit is not None
                assert min(account.used, account.reserved, account.granted, account.available) >= 0
                assert account.used + account.reserved + account.available == account.limit - account.granted
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

        @invariant()
        def every_charged_lookup_has_exactly_one_settlement(self) -> None:
            settled = settlements_by_consultation(platform.app, self.company)
            assert +Counter({rid: n for rid, n in settled.items() if rid not in self.batches}) == Counter(self.charged)

        def teardown(self) -> None:
            # The store records as charged exactly the lookups answered as charged.
            assert charged_in_store(platform.app, self.company) == Counter(self.charged)
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

    try:
        run_state_machine_as_test(
            Ledger,
            settings=settings_of_hypothesis(
                max_examples=examples(25),
                stateful_step_count=30,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
            ),
        )
    finally:
        server_writer.stop()
        server_app.close()
        platform.close()


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

"""Credit account: one per group and category, an exact ledger.

Invariant: ``used + reserved + granted <= limit`` (unless unlimited), so what is available can
never go negative whatever the interleaving: every movement is decided on the latest version of
the account, and two deciders on one version collide on the event store.

Every movement event records the account's figures after it (``used``, ``reserved``,
``granted``, ``limit``), as a bank statement line carries its running balance: the balance
history is then read straight off the events, and a fold of the events is checkable against it.

Grants move credits from a parent's account to its child's account of the same category:
the parent's ``granted`` grows by the amount and the child's ``limit`` grows by the same
amount, both saved in one atomic append, so credits are conserved across the two. An
unlimited account may grant any amount (its figures do not bound anything).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.credit_figures import CreditFigures, ReasonKind
from bemtevi.domain.errors import InvalidData
from bemtevi.domain.query_types import Category

_NAMESPACE = uuid5(NAMESPACE_URL, "https://bemtevi.example/credit-account")


@lru_cache(maxsize=65_536)  # asked on every lookup; a uuid5 is a SHA-1 away
def credit_account_id(group_id: UUID, category: Category) -> UUID:
    return uuid5(_NAMESPACE, f"{group_id}:{category.value}")


class CreditAccount(CreditFigures, AuditedAggregate):
    """The account's events; what it holds and the checks on it are ``CreditFigures``'."""

    # 2: reservations name their owner (``owners``); a snapshot of version 1 had none.
    # 3: leases name the log position they were granted after (``lease_since``).
    class_version = 3

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        state["owners"] = {}

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        state["lease_since"] = {}

    class Opened(AuditedAggregate.Created):
        group_id: UUID
        category: str
        limit: int | None

    @event(Opened)
    def __init__(self, group_id: UUID, category: str, limit: int | None) -> None:
        self.group_id = group_id
        self.category = Category(category)
        self.limit = limit
        self.used = 0
        self.granted = 0
        # What each of these holds: ``CreditFigures``.
        self.reservations: dict[str, int] = {}
        self.reasons: dict[str, str] = {}
        self.owners: dict[str, str] = {}
        self.lease_since: dict[str, int] = {}

    @classmethod
    def open(cls, group_id: UUID, category: Category, limit: int | None) -> CreditAccount:
        cls._check_limit(limit)
        return cls._create(
            cls.Opened,
            id=credit_account_id(group_id, category),
            group_id=group_id,
            category=category.value,
            limit=limit,
        )

    # -- reservations --------------------------------------------------------------------------

    def reserve(
        self,
        reservation_id: UUID,
        amount: int,
        reason: str = ReasonKind.CONSULTATION,
        owner: str | None = None,
        since: int | None = None,
    ) -> None:
        self._check_reservation(reservation_id, amount)
        self._reserved(
            reservation_id=str(reservation_id),
            amount=amount,
            reason=reason,
            **self._figures(reserved=amount),
            owner=owner,
            since=since,
        )

    class Reserved(AuditedAggregate.Event):
        reservation_id: str
        amount: int
        reason: str
        used_after: int
        reserved_after: int
        granted_after: int
        limit_after: int | None
        owner: str | None
        since: int | None

    @event(Reserved)
    def _reserved(
        self,
        reservation_id: str,
        amount: int,
        reason: str,
        used_after: int,
        reserved_after: int,
        granted_after: int,
        limit_after: int | None,
        owner: str | None = None,  # optional: events stored before owners were named have none
        since: int | None = None,  # a lease's; optional, as events stored before leases have none
    ) -> None:
        self.reservations[reservation_id] = amount
        self.reasons[reservation_id] = reason
        if owner is not None:
            self.owners[reservation_id] = owner
        if since is not None:
            self.lease_since[reservation_id] = since
        self._apply_figures(used_after, granted_after, limit_after)

    def settle(self, reservation_id: UUID, amount: int) -> None:
        """Charge ``amount`` of the reservation; what is left of it is released."""
        held = self._settleable(reservation_id, amount)
        self._settled(
            reservation_id=str(reservation_id),
            amount=amount,
            released=held - amount,
            reason=self.reasons.get(str(reservation_id), ReasonKind.CONSULTATION),
            **self._figures(used=amount, reserved=-held),
        )

    class Settled(AuditedAggregate.Event):
        reservation_id: str
        amount: int
        released: int
        reason: str
        used_after: int
        reserved_after: int
        granted_after: int
        limit_after: int | None

    @event(Settled)
    def _settled(
        self,
        reservation_id: str,
        amount: int,
        released: int,
        reason: str,
        used_after: int,
        reserved_after: int,
        granted_after: int,
        limit_after: int | None,
    ) -> None:
        self._close(reservation_id)
        self._apply_figures(used_after, granted_after, limit_after)

    def settle_from_block(self, block_id: UUID, consultation_id: UUID, amount: int) -> None:
        """Charge one consultation ``amount`` out of a block reservation (the block shrinks by it)."""
        held = self._held(block_id)
        if not 0 < amount <= held:
            raise InvalidData("Cannot settle more than was reserved", field="amount")
        self._settled_from_block(
            block_id=str(block_id),
            reservation_id=str(consultation_id),
            amount=amount,
            reason=ReasonKind.CONSULTATION,
            **self._figures(used=amount, reserved=-amount),
        )

    class SettledFromBlock(AuditedAggregate.Event):
        block_id: str
        reservation_id: str
        amount: int
        reason: str
        used_after: int
        reserved_after: int
        granted_after: int
        limit_after: int | None

    @event(SettledFromBlock)
    def _settled_from_block(
        self,
        block_id: str,
        reservation_id: str,
        amount: int,
        reason: str,
        used_after: int,
        reserved_after: int,
        granted_after: int,
        limit_after: int | None,
    ) -> None:
        # ``reservation_id`` is the consultation's id: the reason the history shows for this line.
        left = self.reservations[block_id] - amount
        if left:
            self.reservations[block_id] = left
        else:  # drawn to the last unit: the block is closed
            self._close(block_id)
        self._apply_figures(used_after, granted_after, limit_after)

    def settle_lease(self, lease_id: UUID, consultation_ids: list[str]) -> None:
        """Close a lease: one unit charged for each of its found consultations, the rest released; one line
        of the balance history for the whole lease (its consultations named in it)."""
        amount = len(consultation_ids)
        held = self._settleable(lease_id, amount)
        self._lease_settled(
            reservation_id=str(lease_id),
            amount=amount,
            released=held - amount,
            reason=ReasonKind.LEASE,
            consultations=list(consultation_ids),
            **self._figures(used=amount, reserved=-held),
        )

    class LeaseSettled(AuditedAggregate.Event):
        reservation_id: str
        amount: int
        released: int
        reason: str
        consultations: list[str]
        used_after: int
        reserved_after: int
        granted_after: int
        limit_after: int | None

    @event(LeaseSettled)
    def _lease_settled(
        self,
        reservation_id: str,
        amount: int,
        released: int,
        reason: str,
        consultations: list[str],
        used_after: int,
        reserved_after: int,
        granted_after: int,
        limit_after: int | None,
    ) -> None:
        self._close(reservation_id)
        self._apply_figures(used_after, granted_after, limit_after)

    def charge(self, consultation_id: UUID, amount: int, needed: int) -> None:
        """Charge a lookup already answered ``amount`` (0: nothing found, no event), provided ``needed``
        credits are available, as a reservation of them would have required."""
        self._check_charge(amount, needed)
        if amount:
            self._charged(
                reservation_id=str(consultation_id),
                amount=amount,
                reason=ReasonKind.CONSULTATION,
                **self._figures(used=amount),
            )

    class Charged(AuditedAggregate.Event):
        reservation_id: str
        amount: int
        reason: str
        used_after: int
        reserved_after: int
        granted_after: int
        limit_after: int | None

    @event(Charged)
    def _charged(
        self,
        reservation_id: str,
        amount: int,
        reason: str,
        used_after: int,
        reserved_after: int,
        granted_after: int,
        limit_after: int | None,
    ) -> None:
        # ``reservation_id`` is the consultation's id: the reason the history shows for this line.
        self._apply_figures(used_after, granted_after, limit_after)

    def release(self, reservation_id: UUID) -> None:
        held = self._held(reservation_id)
        self._released(
            reservation_id=str(reservation_id),
            amount=held,
            reason=self.reasons.get(str(reservation_id), ReasonKind.CONSULTATION),
            **self._figures(reserved=-held),
        )

    class Released(AuditedAggregate.Event):
        reservation_id: str
        amount: int
        reason: str
        used_after: int
        reserved_after: int
        granted_after: int
        limit_after: int | None

    @event(Released)
    def _released(
        self,
        reservation_id: str,
        amount: int,
        reason: str,
        used_after: int,
        reserved_after: int,
        granted_after: int,
        limit_after: int | None,
    ) -> None:
        self._close(reservation_id)
        self._apply_figures(used_after, granted_after, limit_after)

    # -- limits and grants -----------------------------------------------------------------------

    def change_limit(self, limit: int | None) -> None:
        """Set the limit outright: only for accounts whose parent is unlimited (see CreditCommands)."""
        self._check_new_limit(limit)
        self._limit_changed(previous_limit=self.limit, **self._figures(limit=limit))

    class LimitChanged(AuditedAggregate.Event):
        previous_limit: int | None
        used_after: int
        reserved_after: int
        granted_after: int
        limit_after: int | None

    @event(LimitChanged)
    def _limit_changed(
        self,
        previous_limit: int | None,
        used_after: int,
        reserved_after: int,
        granted_after: int,
        limit_after: int | None,
    ) -> None:
        self._apply_figures(used_after, granted_after, limit_after)

    def grant_to(self, child: CreditAccount, amount: int) -> None:
        """Move ``amount`` credits to a child's account (negative: take unused credits back)."""
        if child.category != self.category or child.id == self.id:
            raise InvalidData("Credits move only between a group and its child, in one category", field="category")
        self._check_grant(child, amount)
        # An unlimited giver keeps no count of what it gave: its figures bound nothing.
        given = 0 if self.unlimited else amount
        self._granted(counterparty_group_id=child.group_id, amount=amount, **self._figures(granted=given))
        child._received(
            counterparty_group_id=self.group_id, amount=amount, **child._figures(limit=(child.limit or 0) + amount)
        )

    class Granted(AuditedAggregate.Event):
        counterparty_group_id: UUID
        amount: int
        used_after: int
        reserved_after: int
        granted_after: int
        limit_after: int | None

    @event(Granted)
    def _granted(
        self,
        counterparty_group_id: UUID,
        amount: int,
        used_after: int,
        reserved_after: int,
        granted_after: int,
        limit_after: int | None,
    ) -> None:
        self._apply_figures(used_after, granted_after, limit_after)

    class GrantReceived(AuditedAggregate.Event):
        counterparty_group_id: UUID
        amount: int
        used_after: int
        reserved_after: int
        granted_after: int
        limit_after: int | None

    @event(GrantReceived)
    def _received(
        self,
        counterparty_group_id: UUID,
        amount: int,
        used_after: int,
        reserved_after: int,
        granted_after: int,
        limit_after: int | None,
    ) -> None:
        self._apply_figures(used_after, granted_after, limit_after)

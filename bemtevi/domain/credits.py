"""Credit account: one per group and category; reserve before work, settle or release after.

Invariant: used + reserved never exceeds the limit (unless unlimited), so the balance can
never go negative whatever the interleaving: every reservation is decided on the latest
version of the account, and two deciders on one version collide on the event store.
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.errors import NotEnoughCredits
from bemtevi.domain.query_types import Category

_NAMESPACE = uuid5(NAMESPACE_URL, "https://bemtevi.example/credit-account")

NOT_ENOUGH_MESSAGES = {
    Category.UNIT: "Not enough manual query credits",
    Category.ADVANCED: "Not enough advanced query credits",
    Category.BATCH: "Not enough enrichment credits",
    Category.API: "Not enough API query credits",
}


def credit_account_id(group_id: UUID, category: Category) -> UUID:
    return uuid5(_NAMESPACE, f"{group_id}:{category.value}")


class CreditAccount(AuditedAggregate):
    @event("Opened")
    def __init__(self, group_id: UUID, category: str, limit: int | None) -> None:
        self.group_id = group_id
        self.category = Category(category)
        self.limit = limit
        self.used = 0
        self.reservations: dict[str, int] = {}

    @classmethod
    def open(cls, group_id: UUID, category: Category, limit: int | None) -> CreditAccount:
        if limit is not None and limit < 0:
            raise ValueError("a credit limit cannot be negative")
        return cls._create(
            cls.Opened,
            id=credit_account_id(group_id, category),
            group_id=group_id,
            category=category.value,
            limit=limit,
        )

    @property
    def reserved(self) -> int:
        return sum(self.reservations.values())

    @property
    def available(self) -> int | None:
        """Credits that may still be reserved; None when unlimited."""
        if self.limit is None:
            return None
        return self.limit - self.used - self.reserved

    def reserve(self, reservation_id: UUID, amount: int) -> None:
        if amount <= 0:
            raise ValueError("a reservation must be positive")
        available = self.available
        if available is not None and amount > available:
            raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[self.category])
        self._reserved(reservation_id=str(reservation_id), amount=amount)

    @event("Reserved")
    def _reserved(self, reservation_id: str, amount: int) -> None:
        self.reservations[reservation_id] = amount

    def settle(self, reservation_id: UUID, amount: int) -> None:
        """Charge ``amount`` of the reservation; what is left of it is released."""
        held = self.reservations.get(str(reservation_id))
        if held is None:
            raise KeyError(f"no reservation {reservation_id}")
        if not 0 <= amount <= held:
            raise ValueError("cannot settle more than was reserved")
        self._settled(reservation_id=str(reservation_id), amount=amount, released=held - amount)

    @event("Settled")
    def _settled(self, reservation_id: str, amount: int, released: int) -> None:
        del self.reservations[reservation_id]
        self.used += amount

    def release(self, reservation_id: UUID) -> None:
        held = self.reservations.get(str(reservation_id))
        if held is None:
            raise KeyError(f"no reservation {reservation_id}")
        self._released(reservation_id=str(reservation_id), amount=held)

    @event("Released")
    def _released(self, reservation_id: str, amount: int) -> None:
        del self.reservations[reservation_id]

    @event("LimitChanged")
    def change_limit(self, limit: int | None) -> None:
        self.limit = limit

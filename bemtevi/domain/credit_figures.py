"""What a credit account holds, read off its state: its figures (used, reserved, granted, limit, available), its
open reservations with their reasons and owners (lookups', blocks', leases', batches'), and the checks each
movement makes first. ``CreditAccount`` (``credits``) is these plus its events.

A lease (cluster mode) is a reservation held for one API process: it names that process as its owner and
the log position it was granted after (``lease_since``), so that the ledger can settle it from the
consultations recorded under it should the process die; ``abandoned`` never lists one.

A lookup's reservation (its own credit, or a block for a busy account's lookups) names its owner:
the lookups' ledger instance that took it. Only that instance settles or releases it while it
runs; once it stopped (a crash included), the running ledger releases what it left
(``abandoned``), so credits held for lookups that can no longer finish come back by themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from bemtevi.domain.errors import InvalidData, NotEnoughCredits, NotEnoughToProvide
from bemtevi.domain.query_types import Category

NOT_ENOUGH_MESSAGES = {
    Category.UNIT: "Not enough manual query credits",
    Category.ADVANCED: "Not enough advanced query credits",
    Category.BATCH: "Not enough enrichment credits",
    Category.API: "Not enough API query credits",
}

NOT_ENOUGH_TO_PROVIDE_MESSAGES = {
    Category.UNIT: "Not enough manual query to provide to this group",
    Category.ADVANCED: "Not enough advanced query to provide to this group",
    Category.BATCH: "Not enough enrichment query to provide to this group",
    Category.API: "Not enough API query to provide to this group",
}


class ReasonKind:
    """What a reservation is for: the reason column of the balance history."""

    CONSULTATION = "consultation"
    BATCH = "batch"
    # Credits held ahead for a busy account's lookups; each lookup settles its own unit from the
    # block (its consultation id is the reason of that settlement), and what is left is released.
    BLOCK = "block"
    # Credits leased to an API process (cluster mode) for a busy account's lookups: the process records each
    # lookup's consultation under the lease, and the ledger settles the lease from those consultations.
    LEASE = "lease"


# Reservations taken by the lookups' ledger (owned by one ledger instance), as against a batch's.
LOOKUP_REASONS = frozenset({ReasonKind.CONSULTATION, ReasonKind.BLOCK})


class CreditFigures:
    """A mixin of ``CreditAccount``: its state is set by the account's events."""

    if TYPE_CHECKING:
        category: Category
        limit: int | None
        used: int
        granted: int
        reservations: dict[str, int]
        # What each open reservation is for, repeated on its settlement or release (the history's reason).
        reasons: dict[str, str]
        # Who holds each open lookup reservation (a ledger instance, or an API process for a lease); batches'
        # have no owner.
        owners: dict[str, str]
        # Each open lease's log position at its grant: its consultations are recorded after it.
        lease_since: dict[str, int]

    @property
    def reserved(self) -> int:
        return sum(self.reservations.values())

    @property
    def unlimited(self) -> bool:
        return self.limit is None

    @property
    def available(self) -> int | None:
        """Credits that may still be reserved or granted; None when unlimited."""
        if self.limit is None:
            return None
        return self.limit - self.used - self.reserved - self.granted

    def _figures(
        self, *, used: int = 0, reserved: int = 0, granted: int = 0, limit: int | bool | None = False
    ) -> dict[str, Any]:
        """The account's figures after a movement of the given deltas (``limit`` replaces)."""
        return {
            "used_after": self.used + used,
            "reserved_after": self.reserved + reserved,
            "granted_after": self.granted + granted,
            "limit_after": self.limit if limit is False else limit,
        }

    def _apply_figures(self, used_after: int, granted_after: int, limit_after: int | None) -> None:
        self.used = used_after
        self.granted = granted_after
        self.limit = limit_after

    def _require_available(self, amount: int) -> None:
        """Refuse a movement that needs more than is available (the category's own message)."""
        available = self.available
        if available is not None and amount > available:
            raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[self.category])

    @staticmethod
    def _check_limit(limit: int | None) -> None:
        if limit is not None and limit < 0:
            raise InvalidData("A credit limit cannot be negative", field="limit")

    def _check_new_limit(self, limit: int | None) -> None:
        self._check_limit(limit)
        if limit is not None and limit < self.used + self.reserved + self.granted:
            raise InvalidData("The limit cannot be below what is already used, reserved or granted", field="limit")

    def _check_reservation(self, reservation_id: UUID, amount: int) -> None:
        if amount <= 0:
            raise InvalidData("A reservation must be positive", field="amount")
        if str(reservation_id) in self.reservations:
            raise InvalidData("This reservation already exists", field="reservation_id")
        self._require_available(amount)

    def _settleable(self, reservation_id: UUID, amount: int) -> int:
        """What an open reservation holds, once ``amount`` (not negative) is found within it."""
        held = self._held(reservation_id)
        if not 0 <= amount <= held:
            raise InvalidData("Cannot settle more than was reserved", field="amount")
        return held

    def _check_charge(self, amount: int, needed: int) -> None:
        if not 0 <= amount <= needed:
            raise InvalidData("Cannot charge more than a lookup needs", field="amount")
        self._require_available(needed)

    def _check_grant(self, child: CreditFigures, amount: int) -> None:
        """A grant of ``amount`` to ``child`` (negative: taken back) must fit both accounts' figures."""
        if amount == 0:
            raise InvalidData("The amount must not be zero", field="amount")
        if child.unlimited:
            raise InvalidData("An unlimited account takes no grants", field="groupId")
        if amount > 0:
            available = self.available
            if available is not None and amount > available:
                raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[self.category])
        else:
            child_available = child.available or 0
            if -amount > child_available:
                raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[self.category], field="amount")
            if not self.unlimited and -amount > self.granted:
                raise InvalidData("Cannot take back more than was granted", field="amount")

    def holds(self, reservation_id: UUID) -> int | None:
        return self.reservations.get(str(reservation_id))

    def abandoned(self, live_owner: str) -> list[str]:
        """Lookup reservations held by anyone but ``live_owner`` (the running ledger): left by a
        ledger instance that stopped, or taken before owners were named."""
        return [
            rid
            for rid in self.reservations
            if self.reasons.get(rid) in LOOKUP_REASONS and self.owners.get(rid) != live_owner
        ]

    def leases(self) -> dict[str, int]:
        """Open leases: the log position each was granted after, by lease id."""
        return {
            rid: self.lease_since.get(rid, 0) for rid in self.reservations if self.reasons.get(rid) == ReasonKind.LEASE
        }

    def _held(self, reservation_id: UUID) -> int:
        """What an open reservation holds; ``KeyError`` when there is none."""
        held = self.reservations.get(str(reservation_id))
        if held is None:
            raise KeyError(f"no reservation {reservation_id}")
        return held

    def _close(self, reservation_id: str) -> None:
        del self.reservations[reservation_id]
        self.reasons.pop(reservation_id, None)
        self.owners.pop(reservation_id, None)
        self.lease_since.pop(reservation_id, None)

    def open_blocks(self) -> dict[str, int]:
        """Block reservations still holding credits, by id."""
        return {rid: held for rid, held in self.reservations.items() if self.reasons.get(rid) == ReasonKind.BLOCK}

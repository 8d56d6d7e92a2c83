"""What a credit account holds, read off its state: its figures (used, reserved, granted, limit, available), its
open reservations with their reasons and owners (lookups', blocks', leases', batches'), and the check every
movement makes first. ``CreditAccount`` (``credits``) is these plus its events."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from bemtevi.domain.errors import NotEnoughCredits
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
        reasons: dict[str, str]
        owners: dict[str, str]
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

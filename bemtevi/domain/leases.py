"""``LeaseTally``: what was charged under one lease of units, and whether the lease is settled.

A lease's units are held on the group's credit account, which only the ledger writes; the consultations drawn
from it are recorded by the API process that holds it. When that process dies, the ledger settles the lease
from what was recorded under it, while a late consultation of the same process may still be on its way to the
store. Both write here: the holder one event per charged consultation, the ledger one event when it settles a
lease its holder abandoned. The event store's version check orders the two appends, so a consultation either
is counted by the settlement or finds the lease closed and is refused (uncharged): never a free lookup.
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate

_NAMESPACE = uuid5(NAMESPACE_URL, "https://bemtevi.example/lease-tally")


def lease_tally_id(lease_id: UUID) -> UUID:
    return uuid5(_NAMESPACE, str(lease_id))


class LeaseTally(AuditedAggregate):
    """Opened by the ledger in the append that grants the lease (so a grant delivered again finds it).

    ``counts``: whether the holder counts its consultations here. Not when the holder is the ledger's own
    process (embedded): that ledger never settles its own live leases, so no late consultation can race a
    settlement, and a dead run's leases are settled from the consultations the log holds under them; the
    count's event would cost every leased lookup for nothing."""

    class Opened(AuditedAggregate.Created):
        lease_id: UUID
        group_id: UUID
        counts: bool

    @event(Opened)
    def __init__(self, lease_id: UUID, group_id: UUID, counts: bool = True) -> None:
        self.lease_id = lease_id
        self.group_id = group_id
        self.counts = counts
        self.charged: list[str] = []
        self.closed = False

    @staticmethod
    def create_id(lease_id: UUID, group_id: UUID, counts: bool = True) -> UUID:
        return lease_tally_id(lease_id)

    class Counted(AuditedAggregate.Event):
        consultation_id: str

    @event(Counted)
    def count(self, consultation_id: str) -> None:
        """A consultation charged one of the lease's units (its holder records it in the same append)."""
        self.charged.append(consultation_id)

    class Closed(AuditedAggregate.Event):
        pass

    @event(Closed)
    def close(self) -> None:
        """Settled by the ledger as abandoned: nothing more is counted under it."""
        self.closed = True

"""What an API process keeps of its leases: the accounts it serves lookups of, their rates, the leases it holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from uuid import UUID

from bemtevi.commands.ledger.requests import FinishLookup, consultation_of
from bemtevi.commands.workspace import Workspace
from bemtevi.domain.audit import acting_as
from bemtevi.domain.errors import SearchFailed
from bemtevi.domain.leases import LeaseTally, lease_tally_id


class LookupRate:
    """One account's lookups a second, as leases size what they hold:
    the count of the current one-second window, of the one before it (0 when there was a gap), and when the
    account was last seen."""

    __slots__ = ("last", "now", "seen", "start")

    def __init__(self, now: float) -> None:
        self.start = now
        self.now = 0  # lookups since ``start``
        self.last = 0  # lookups in the second before ``start``
        self.seen = now

    def count(self, now: float) -> int:
        """Count one lookup at ``now``; answers the last whole second's count."""
        if now - self.start >= 1.0:
            self.last = self.now if now - self.start < 2.0 else 0
            self.start, self.now = now, 0
        self.now += 1
        self.seen = now
        return self.last


@dataclass(slots=True)
class HeldLease:
    """A lease this process holds: units of one account's, drawn by its lookups until used up or its time."""

    lease_id: UUID
    account_id: UUID
    group_id: UUID
    category: str  # of the account leased (unit, or API): its return names it
    units: int
    until: float  # monotonic: no unit is drawn after it
    asked: float  # monotonic: when it was asked for, before the ledger granted it
    drawn: int = 0
    in_flight: int = 0  # units drawn by lookups not over yet
    recording: int = 0  # of those, lookups whose consultation is being appended now
    returned: bool = False  # taken to be returned: no consultation is recorded under it any more
    charged: list[str] = field(default_factory=list)

    def open(self, now: float) -> bool:
        return self.drawn < self.units and now < self.until


@dataclass(slots=True)
class LeasedAccount:
    """An account whose lookups this process serves: its rate, and the leases it holds of it."""

    group_id: UUID
    user_id: UUID
    category: str  # unit, or API (the public API's lookups): a group's two accounts are leased apart
    rate: LookupRate
    asking: bool = False
    leases: list[HeldLease] = field(default_factory=list)


def next_lease_end(open_ends: list[float], now: float, lease_seconds: float) -> float:
    """When a lease granted ``now`` stops lending units, the account's open leases ending at ``open_ends``.

    A lease is asked for ahead (before the open ones run out), so its time starts when they end: from its grant it
    would be drawn for only the second half of its time and go back half unused, and a steady account would cost
    the ledger twice the leases. But at most one lease time ahead: when demand outruns each lease's units, the next
    is asked for while the last is open, and ends chained on ends would drift further with every ask, until a lease
    still drawn from outlived the ledger's wait before it settles another process's lease as abandoned."""
    starts = min(max([now, *open_ends]), now + lease_seconds)
    return starts + lease_seconds


@lru_cache(maxsize=1024)
def _tally_of(lease_id: str) -> UUID:
    # Every lookup drawn from a lease names its tally: worked out (a name-based UUID) once per lease.
    return lease_tally_id(UUID(lease_id))


def record_leased(finish: FinishLookup, ws: Workspace) -> datetime:
    """On this process's group commit: the consultation of a lookup that took a unit of a lease, counted on the
    lease's tally in the same append. A lease the ledger settled meanwhile (it took this process for dead) has a
    closed tally: the lookup is refused, uncharged, and its answer not given (``LeaseTally``)."""
    assert finish.block_id is not None
    tally = ws.find(_tally_of(finish.block_id), LeaseTally)
    if tally is None or tally.closed:
        raise SearchFailed()
    with acting_as(finish.actor):
        consultation = consultation_of(finish, finish.query_type, finish.charged, lease_id=finish.block_id)
        if finish.charged and tally.counts:
            tally.count(str(finish.consultation_id))
    ws.add(consultation)
    return consultation.created_on

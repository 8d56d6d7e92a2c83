"""``Ledger``: decides each request on a group-commit workspace (the only code that appends credit events)."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any
from uuid import UUID, uuid4

from bemtevi.commands.ledger.accounts import grant, register, release_work, reserve_work, set_limit, settle_work
from bemtevi.commands.ledger.lease_log import LeaseLog
from bemtevi.commands.ledger.requests import (
    ADVANCED_CHANNEL,
    CREDITS_PER_UNIT_QUERY,
    LEASE_MIN,
    LEASED_CATEGORIES,
    FinishLookup,
    Grant,
    LeaseUnits,
    OpenAccounts,
    RecordLookup,
    ReleaseAbandoned,
    ReleaseWork,
    Request,
    ReserveLookup,
    ReserveWork,
    ReturnLease,
    SetLimit,
    SettleWork,
    consultation_of,
)
from bemtevi.commands.workspace import Workspace
from bemtevi.domain.audit import acting_as
from bemtevi.domain.consultations import Consultation
from bemtevi.domain.credits import CreditAccount, ReasonKind, credit_account_id
from bemtevi.domain.errors import GroupInactive, GroupNotFound, NotEnoughCredits, PurposeRequired, SearchFailed
from bemtevi.domain.groups import Group
from bemtevi.domain.indexes import UniqueIndex, index_id
from bemtevi.domain.leases import LeaseTally, lease_tally_id
from bemtevi.domain.principals import SYSTEM
from bemtevi.domain.query_types import Category, QueryType, QueryTypeCatalogue, choose_query_type

log = logging.getLogger(__name__)

# The claim kind of a request id (grants, limits, batch movements): a redelivered request collides with it.
REQUEST_CLAIM = "ledger-request"

# A request type's decision: (the request, ``recorded``, the workspace) -> the answer's value. ``recorded``: the
# request's consultation is known to be recorded already (a lookup's reservation or record delivered again
# after its decision); only lookups' handlers read it.
Handler = Callable[[Any, bool, Workspace], Any]
# The requests decided once per request id (claimed in their decision's append).
ClaimedOnce = Grant | SetLimit | ReserveWork | SettleWork | ReleaseWork


def _plain(decision: Callable[[Any, Workspace], Any]) -> Handler:
    """A decision that needs the request and the workspace only."""

    def handler(request: Any, recorded: bool, ws: Workspace) -> Any:
        return decision(request, ws)

    return handler


def _release_left_behind(account: CreditAccount, live_owner: str) -> None:
    """Release, as the system, the lookup reservations another (stopped) ledger left on ``account``."""
    abandoned = account.abandoned(live_owner)
    if abandoned:
        with acting_as(SYSTEM):
            for reservation_id in abandoned:
                account.release(UUID(reservation_id))


class Ledger:
    """Decides credit requests on a group-commit workspace.

    Busy accounts' lookups are not decided here one by one: the API process draws them from a lease of the
    account's units (``LeaseUnits``, ``leases``), in either deployment.
    ``abandon_after``: reservations of another owner are released once seen abandoned for this long
    (0: at once, the embedded ledger, the only one of its store; a worker behind Kafka waits, since a
    partition's previous owner may have lookups whose finish is still on its way here).
    ``stale_after``: this ledger's own lookup reservations still held after this long are released (their
    caller is gone: an API process killed between reserve and finish); 0: never (embedded: caller and
    ledger die together). ``release_on_stop``: on stop, what lookups in flight hold goes back (embedded).
    """

    def __init__(
        self,
        *,
        catalogue: QueryTypeCatalogue,
        abandon_after: float = 0.0,
        stale_after: float = 0.0,
        release_on_stop: bool = True,
        lease_log: LeaseLog | None = None,
    ) -> None:
        self.owner = str(uuid4())
        # Leases are granted only by a ledger that can settle them from the log.
        self.lease_log = lease_log
        # Which query type a lookup runs, read from the event store (``commands.query_types``).
        self.catalogue = catalogue
        self.abandon_after = abandon_after
        self.stale_after = stale_after
        self.release_on_stop = release_on_stop
        # Consultation id -> (account id, when reserved): lookups in flight holding a reservation of their own.
        self._reserved: dict[UUID, tuple[UUID, float]] = {}
        # Account id -> reservation id -> when first seen abandoned (only with ``abandon_after``).
        self._abandoned_seen: dict[UUID, dict[str, float]] = {}
        # Request ids claimed lately (a redelivery in the same batch, or soon after, answers without a read).
        self._claimed: OrderedDict[UUID, None] = OrderedDict()
        # Each request type's decision (``decide`` looks it up by the request's type).
        self.handlers: dict[type[Any], Handler] = {
            ReserveLookup: self._reserve_lookup,
            FinishLookup: _plain(self._finish_lookup),
            RecordLookup: self._record_lookup,
            LeaseUnits: _plain(self._lease_units),
            ReturnLease: _plain(self._return_lease),
            ReleaseAbandoned: _plain(self._release_abandoned),
            OpenAccounts: _plain(register),
            Grant: self._once(grant),
            SetLimit: self._once(set_limit),
            ReserveWork: self._once(reserve_work),
            SettleWork: self._once(settle_work),
            ReleaseWork: self._once(release_work),
        }

    def forget(self) -> None:
        """Drop what this ledger keeps in memory about accounts (a Kafka rebalance: a partition's next
        owner starts from the event store)."""
        self._abandoned_seen.clear()
        self._claimed.clear()

    def decide(self, request: Request, *, recorded: bool = False) -> Callable[[Workspace], Any]:
        """The decision of ``request``; ``recorded``: its consultation is known to be recorded already
        (a lookup's reservation delivered again after its finish)."""
        handler = self.handlers.get(type(request))
        if handler is None:
            raise TypeError(f"not a ledger request: {request!r}")
        return partial(handler, request, recorded)

    # lookups

    def _query_type_for(self, request: ReserveLookup | RecordLookup, ws: Workspace) -> QueryType:
        """The query type a lookup of an active group runs (the checks every lookup passes first)."""
        group = ws.find(request.group_id, Group)
        if group is None:
            raise GroupNotFound()
        if not group.active:
            raise GroupInactive()
        if request.purpose is None and group.requires_purpose():
            raise PurposeRequired(field="purpose")
        return choose_query_type(
            self.catalogue, request.requested_type, request.document_type, frozenset(group.enabled_query_types)
        )

    def _reserve_lookup(self, request: ReserveLookup, recorded: bool, ws: Workspace) -> tuple[str, str | None]:
        chosen = self._query_type_for(request, ws)
        account = ws.find(request.account_id, CreditAccount)
        if account is None:
            raise NotEnoughCredits()
        if recorded or account.holds(request.consultation_id) is not None:
            return chosen.key, None  # delivered again: the credit is held (or was settled) already
        if not self.abandon_after:
            # The only ledger of its store (embedded): what another left for lookups is a dead one's.
            _release_left_behind(account, self.owner)
        with acting_as(request.actor):
            account.reserve(request.consultation_id, CREDITS_PER_UNIT_QUERY, ReasonKind.CONSULTATION, owner=self.owner)
        self._reserved[request.consultation_id] = (request.account_id, time.monotonic())
        ws.on_undo(lambda: self._reserved.pop(request.consultation_id, None))
        return chosen.key, None

    def _finish_lookup(self, request: FinishLookup, ws: Workspace) -> datetime:
        """Settle (found) or release (not found, failed) and record the consultation, atomically."""
        if request.block_id is not None:
            # Drawn from a lease that went back before its consultation was recorded under it (the process
            # stopping): nothing holds its unit any more, and the answer must not be given for free.
            raise SearchFailed()
        account = ws.get(request.account_id, CreditAccount)
        charged = request.charged
        kept = self._reserved.pop(request.consultation_id, None)
        if kept is not None:
            ws.on_undo(lambda: self._reserved.__setitem__(request.consultation_id, kept))
        if account.holds(request.consultation_id) is None:
            recorded = ws.find(request.consultation_id, Consultation)
            if recorded is not None:
                return recorded.created_on  # delivered again: the recorded answer, no second charge
            # Released meanwhile (its ledger stopped): nothing was charged, and the answer must not be given
            # for free.
            raise SearchFailed()
        with acting_as(request.actor):
            if charged:
                account.settle(request.consultation_id, charged)
            else:
                account.release(request.consultation_id)
            consultation = consultation_of(request, request.query_type, charged)
        ws.add(consultation)
        return consultation.created_on

    def _record_lookup(self, request: RecordLookup, recorded: bool, ws: Workspace) -> tuple[str, datetime]:
        """A lookup already answered: the checks of a reservation, then charged (if found) and recorded at once."""
        chosen = self._query_type_for(request, ws)
        if recorded:
            # Delivered again after its decision: the recorded answer, never a second charge.
            consultation = ws.get(request.consultation_id, Consultation)
            return consultation.query_type, consultation.created_on
        if request.channel == ADVANCED_CHANNEL:
            # A result opened again from its search (a retry, another tab): its id is the search's and the
            # document's, and it is charged once. Unit lookups skip this read: their ids are new each time.
            opened = ws.find(request.consultation_id, Consultation)
            if opened is not None:
                return opened.query_type, opened.created_on
        account = ws.find(request.account_id, CreditAccount)
        if account is None:
            raise NotEnoughCredits()
        if not self.abandon_after:
            # The only ledger of its store (embedded): what another left for lookups is a dead one's.
            _release_left_behind(account, self.owner)
        with acting_as(request.actor):
            # As if reserved first: a tenant with no credit left is refused whatever the supplier found.
            account.charge(request.consultation_id, request.charged, CREDITS_PER_UNIT_QUERY)
            consultation = consultation_of(request, chosen.key, request.charged)
        ws.add(consultation)
        return chosen.key, consultation.created_on

    def _lease_units(self, request: LeaseUnits, ws: Workspace) -> int:
        """Lease units of an active group's lookup account (unit or API) to an API process (delivered again: the
        same lease)."""
        if self.lease_log is None:
            return 0  # this ledger cannot settle a lease whose holder died: none granted
        if request.category not in LEASED_CATEGORIES:
            return 0
        group = ws.find(request.group_id, Group)
        if group is None or not group.active:
            return 0  # the holder's lookups go one by one, and are refused with the group's own message
        account = ws.find(request.account_id, CreditAccount)
        if account is None:
            return 0
        held = account.holds(request.lease_id)
        if held is not None:
            return held  # delivered again while open: the same lease
        if ws.find(lease_tally_id(request.lease_id), LeaseTally) is not None:
            # Delivered again after the lease was settled: granted anew, it would be settled again from the
            # consultations counted under it.
            return 0
        available = account.available
        units = request.units if available is None else min(request.units, available)
        if units < LEASE_MIN:
            return 0
        with acting_as(request.actor):
            account.reserve(
                request.lease_id, units, ReasonKind.LEASE, owner=request.holder, since=self.lease_log.position()
            )
            # A lease of this ledger's own process (embedded) has its tally checked by the holder at every lookup it
            # draws, on this same writer, and written by nothing else while it runs: kept in memory, not loaded.
            own = request.holder == self.owner
            ws.add(LeaseTally(request.lease_id, request.group_id, counts=not own), keep=own)
        return units

    def _return_lease(self, request: ReturnLease, ws: Workspace) -> None:
        """Settle a lease from its holder's account of it (delivered again, or settled already: nothing)."""
        account = ws.find(credit_account_id(request.group_id, Category(request.category)), CreditAccount)
        if account is None or account.holds(request.lease_id) is None:
            return
        with acting_as(SYSTEM):
            self._settle_lease(account, str(request.lease_id), request.charged)

    @staticmethod
    def _settle_lease(account: CreditAccount, lease_id: str, charged: list[str]) -> None:
        """One unit of the lease for each charged consultation, the rest released: one event."""
        unique = list(dict.fromkeys(charged))
        held = account.holds(UUID(lease_id)) or 0
        if len(unique) > held:
            log.error("lease %s held %d units for %d charged consultations", lease_id, held, len(unique))
            unique = unique[:held]
        account.settle_lease(UUID(lease_id), unique)

    def _others_leases(self, account: CreditAccount) -> dict[str, int]:
        """The account's open leases but those held for this ledger's own process (embedded: the process's
        lease holder is named by the ledger's owner, and returns them itself while it runs)."""
        return {
            lease_id: since
            for lease_id, since in account.leases().items()
            if account.owners.get(lease_id) != self.owner
        }

    def _recover_leases(
        self, account: CreditAccount, leases: dict[str, int], now: float, seen: dict[str, float], ws: Workspace
    ) -> int:
        """Of ``leases`` (another holder's, ``_others_leases``), those whose holder has not returned them
        ``abandon_after`` after they were first seen here (the holder died, or cannot reach the ledger; embedded,
        at once: a lease of another holder is a dead process's): settled from the consultations counted on their
        tally, which is closed in the same append. Should the holder count one more meanwhile, the store refuses
        this append and the decision is taken again on the new tally."""
        if self.lease_log is None:
            return 0
        recovered = 0
        with acting_as(SYSTEM):
            for lease_id, since in leases.items():
                first_seen = seen.setdefault(lease_id, now)
                if now - first_seen < self.abandon_after:
                    continue
                del seen[lease_id]
                tally = ws.find(lease_tally_id(UUID(lease_id)), LeaseTally)
                if tally is not None and tally.counts:
                    charged = list(tally.charged)
                else:  # the holder did not count on it (see LeaseTally): its consultations are read from the log
                    charged = self.lease_log.charged_under(lease_id, since)
                if tally is not None:
                    tally.close()
                self._settle_lease(account, lease_id, charged)
                recovered += 1
        return recovered

    def _release_abandoned(self, request: ReleaseAbandoned, ws: Workspace) -> int:
        account = ws.find(credit_account_id(request.group_id, Category(request.category)), CreditAccount)
        if account is None:
            return 0
        released = 0
        now = time.monotonic()
        abandoned = account.abandoned(self.owner)
        # What was seen before and is no longer abandoned (settled by its lookup meanwhile) is forgotten.
        before = self._abandoned_seen.get(account.id, {})
        leases = self._others_leases(account)
        seen = {r: before.get(r, now) for r in [*abandoned, *leases]}
        with acting_as(SYSTEM):
            for reservation_id in abandoned:
                if now - seen[reservation_id] < self.abandon_after:
                    continue
                del seen[reservation_id]
                account.release(UUID(reservation_id))
                released += 1
        released += self._recover_leases(account, leases, now, seen, ws)
        # Refused by the store (a tally counted meanwhile), the decision is taken again: with what was seen before.
        ws.on_undo(lambda: self._abandoned_seen.__setitem__(account.id, before))
        if seen:
            self._abandoned_seen[account.id] = seen
        else:
            self._abandoned_seen.pop(account.id, None)
        return released

    def chore(self, ws: Workspace, final: bool) -> None:
        """On the writer every quarter second: this ledger's own lookup reservations whose caller is gone go
        back; on stop (embedded), so does every reservation still held for a lookup in flight (it can no
        longer be settled: its late settlement is refused uncharged)."""
        now = time.monotonic()
        release_all = final and self.release_on_stop
        if not release_all and not self.stale_after:
            return
        with acting_as(SYSTEM):
            for consultation_id, (account_id, since) in list(self._reserved.items()):
                if not release_all and now - since < self.stale_after:
                    continue
                del self._reserved[consultation_id]
                account = ws.find(account_id, CreditAccount)
                if account is not None and account.holds(consultation_id) is not None:
                    account.release(consultation_id)

    # grants, limits, batches: claimed once by their request id

    def _once(self, decision: Callable[[Any, Workspace], None]) -> Handler:
        """``decision`` taken once per request id: the id is claimed in the same append, and a request
        delivered again finds it claimed and changes nothing."""

        def handler(request: ClaimedOnce, recorded: bool, ws: Workspace) -> None:
            if self._claimed_before(request.request_id, ws):
                return None  # delivered again: done already
            decision(request, ws)
            with acting_as(request.actor):
                self._claim(request.request_id, request.group_id, ws)
            return None

        return handler

    def _claimed_before(self, request_id: UUID, ws: Workspace) -> bool:
        """Whether a request id was claimed by an earlier decision (remembered here, or in the store)."""
        return request_id in self._claimed or ws.find(index_id(REQUEST_CLAIM, str(request_id)), UniqueIndex) is not None

    def _claim(self, request_id: UUID, group_id: UUID, ws: Workspace) -> None:
        """Claim a request id in this decision's append, and remember it (a redelivery soon after answers
        without a read). Made while acting as the request's actor."""
        ws.add(UniqueIndex(kind=REQUEST_CLAIM, value=str(request_id), ref=group_id))
        self._claimed[request_id] = None
        while len(self._claimed) > 10_000:
            self._claimed.popitem(last=False)
        ws.on_undo(lambda: self._claimed.pop(request_id, None))

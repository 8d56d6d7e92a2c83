"""``LeasingLedger``: the API process's side of unit leases, in front of the ledger (README.md, "Leases").

A busy account's lookups take units of a lease this process holds and are recorded on its own group commit,
naming the lease; a lookup of an account with no open lease, or that fails the checks made here, goes to the
ledger, which decides or refuses it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from datetime import datetime
from functools import partial
from typing import Any, ClassVar
from uuid import UUID, uuid4

from bemtevi.commands.group_commit import GroupCommit, Outcome
from bemtevi.commands.ledger.client import LedgerClient
from bemtevi.commands.ledger.held_leases import (
    HeldLease,
    LeasedAccount,
    LookupRate,
    next_lease_end,
    record_leased,
)
from bemtevi.commands.ledger.requests import (
    LEASE_MIN,
    LEASED_CATEGORIES,
    FinishLookup,
    LeaseUnits,
    RecordLookup,
    Request,
    ReserveLookup,
    ReturnLease,
    lookup_category,
)
from bemtevi.domain.errors import DomainError, NotEnoughCredits
from bemtevi.domain.groups import Group
from bemtevi.domain.query_types import QueryTypeCatalogue, choose_query_type
from bemtevi.infra.failure_log import RepeatedFailureLog

log = logging.getLogger(__name__)


class LeasingLedger(LedgerClient):
    """``LedgerClient`` of the process that serves lookups: the ledger behind ``remote`` (the ledger workers
    in cluster mode, this process's own embedded), and this process's leases of busy accounts' units. A
    keeper thread (an asyncio loop of its own) asks for leases and returns them.

    ``holder``: the name this process's leases are granted under. Embedded, the ledger's own owner: the
    ledger then tells this process's live leases from those a dead process left (settled from the log)."""

    HOT_RATE: ClassVar[int] = 8  # lookups in the last second that make an account worth a lease
    MAX_UNITS: ClassVar[int] = 512
    # A lookup the ledger refused for want of credit waits this long at most for a lease of its account that
    # this process is being granted (the credit it lacked may be in it).
    REFUSED_WAIT_SECONDS: ClassVar[float] = 2.0
    STUCK_SECONDS: ClassVar[float] = 60.0  # a lease is returned this long after its time, lookups in flight or not
    IDLE_SECONDS: ClassVar[float] = 30.0  # an account unseen this long is forgotten

    def __init__(
        self,
        remote: LedgerClient,
        app: Any,
        writer: GroupCommit,
        catalogue: QueryTypeCatalogue,
        *,
        lease_seconds: float = 2.0,
        tick: float = 0.05,
        holder: str | None = None,
        record_within: float | None = None,
    ) -> None:
        self.remote = remote
        self.transport = getattr(remote, "transport", "kafka")
        self._app = app
        self._writer = writer
        self._catalogue = catalogue
        self.lease_seconds = lease_seconds
        # How long after its ask a lease still takes consultations (None: while it is held). In cluster mode the
        # ledger's abandon time less a second: past it the ledger may have settled the lease from the log as a
        # dead process's, and a consultation recorded under it then would never be charged.
        self._record_within = record_within
        self._tick = tick
        self.holder = holder or f"api-{uuid4()}"
        self._lock = threading.Lock()
        self._accounts: dict[UUID, LeasedAccount] = {}
        self._by_id: dict[str, HeldLease] = {}
        self._returning: list[HeldLease] = []  # leases to return whose last return failed (or came unasked for)
        self.leased = 0  # leases granted, and lookups recorded under one (for the benches and tests)
        self.recorded = 0
        self._stopping = threading.Event()
        self._failures = RepeatedFailureLog(log, "the lease keeper")
        self._thread = threading.Thread(target=asyncio.run, args=(self._keep(),), name="bemtevi-leases", daemon=True)
        self._thread.start()

    # -- LedgerClient --------------------------------------------------------------------------------

    def try_draw(self, request: ReserveLookup | RecordLookup) -> tuple[str, str] | None:
        """A unit of one of this process's leases of the account (and the query type the lookup runs), or
        None: the ledger decides the lookup. Counts the lookup towards its account's rate. The account is the
        lookup's channel's (unit, or API for the public API's lookups): a lookup draws only from leases of it; an
        advanced query's result is never drawn from a lease (its account is not leased)."""
        if lookup_category(request.channel).value not in LEASED_CATEGORIES:
            return None
        now = time.monotonic()
        account_id = request.account_id
        with self._lock:
            account = self._count(request, now)
            if not any(lease.open(now) for lease in account.leases):
                return None
        group = self._app.find_readonly(request.group_id, Group)
        if group is None or not group.active or (request.purpose is None and group.requires_purpose()):
            return None  # the ledger refuses it with the group's own message
        try:
            query_type = choose_query_type(
                self._catalogue, request.requested_type, request.document_type, frozenset(group.enabled_query_types)
            ).key
        except DomainError:
            return None  # the ledger refuses it with its own message
        with self._lock:
            lease = next((lease for lease in account.leases if lease.open(now)), None)
            if lease is None or self._accounts.get(account_id) is not account:
                return None
            lease.drawn += 1
            lease.in_flight += 1
        return query_type, str(lease.lease_id)

    async def submit_async(self, request: Request) -> Outcome[Any]:
        if isinstance(request, RecordLookup):
            finish = self._drawn_finish(request)
            if finish is not None:
                recorded = await self._record(finish)
                return Outcome((finish.query_type, recorded.value), recorded.position)
        if isinstance(request, FinishLookup) and self._recording(request):
            return await self._record(request)
        try:
            return await self.remote.submit_async(request)
        except NotEnoughCredits:
            if not isinstance(request, RecordLookup | ReserveLookup):
                raise
            deadline = time.monotonic() + self.REFUSED_WAIT_SECONDS
            while self._asking(request.account_id) and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            leased = self._leased_after_refusal(request)
            if leased is None:
                raise
            if isinstance(leased, FinishLookup):
                recorded = await self._record(leased)
                return Outcome((leased.query_type, recorded.value), recorded.position)
            return Outcome(leased, 0)  # a reservation drawn here appends nothing (its lease is in the store)

    def close(self) -> None:
        """Return every lease (lookups still in flight on one are not charged), then close the remote."""
        self._stopping.set()
        self._thread.join(timeout=10)
        leases = self._take_returnable(final=True)
        deadline = time.monotonic() + 5
        while self._has_leases() and time.monotonic() < deadline:  # consultations being appended finish first
            time.sleep(0.01)
            leases += self._take_returnable(final=True)
        for lease in leases:
            try:
                self.remote.submit(self._return_of(lease))
            except Exception:
                log.warning("lease %s was not returned; the ledger settles it from the log", lease.lease_id)
        self.remote.close()

    # -- lookups -----------------------------------------------------------------------------------------

    def _count(self, request: ReserveLookup | RecordLookup, now: float) -> LeasedAccount:
        """Under the lock: the request's account, its rate counted, and marked for a lease when busy."""
        account = self._accounts.get(request.account_id)
        if account is None:
            account = LeasedAccount(
                request.group_id, request.user_id, lookup_category(request.channel).value, LookupRate(now)
            )
            self._accounts[request.account_id] = account
        account.rate.count(now)
        account.user_id = request.user_id  # a lease is asked for as the account's latest user
        return account

    def _asking(self, account_id: UUID) -> bool:
        with self._lock:
            account = self._accounts.get(account_id)
            return account is not None and account.asking

    def _leased_after_refusal(self, request: RecordLookup | ReserveLookup) -> FinishLookup | tuple[str, str] | None:
        """A lookup the ledger refused for want of credit, drawn from a lease of this process after all: the
        account's last credits may be in a lease granted while the lookup went to the ledger (its ask was in
        flight, and the caller waited for it). Refused for good only when no lease of the account has a unit."""
        if isinstance(request, RecordLookup):
            return self._drawn_finish(request)
        return self.try_draw(request)

    def _drawn_finish(self, request: RecordLookup) -> FinishLookup | None:
        """A lookup already answered, drawn from a lease and about to be recorded under it; None: not drawn."""
        drawn = self.try_draw(request)
        if drawn is None:
            return None
        finish = request.finished(*drawn)
        if not self._recording(finish):  # returned in between (the process stopping)
            with self._lock:
                lease = self._by_id.get(drawn[1])
                if lease is not None:
                    lease.in_flight -= 1
            return None
        return finish

    def _recording(self, finish: FinishLookup) -> bool:
        """Whether the finish's lease takes its consultation: not once the lease is taken to be returned (the
        finish then goes to the ledger, which finds no such reservation and refuses it, uncharged)."""
        with self._lock:
            lease = self._by_id.get(finish.block_id or "")
            if lease is None or lease.returned:
                return False
            if self._record_within is not None and time.monotonic() - lease.asked > self._record_within:
                return False  # the ledger may have taken it for abandoned: the finish goes to the ledger
            lease.recording += 1
            return True

    async def _record(self, finish: FinishLookup) -> Outcome[datetime]:
        try:
            outcome = await self._writer.submit_async(partial(record_leased, finish))
        except BaseException:
            self._finished(finish, recorded=False)
            raise
        self._finished(finish, recorded=True)
        return outcome

    def _finished(self, finish: FinishLookup, *, recorded: bool) -> None:
        with self._lock:
            lease = self._by_id.get(finish.block_id or "")
            if lease is None:
                return
            lease.in_flight -= 1
            lease.recording -= 1
            if recorded:
                self.recorded += 1
                if finish.charged:
                    lease.charged.append(str(finish.consultation_id))

    # -- the keeper: asking for leases and returning them -------------------------------------------------

    async def _keep(self) -> None:
        while not self._stopping.is_set():
            try:
                await self._round()
                self._failures.worked("round")
            except Exception:
                self._failures.failed("round", "the lease keeper's round failed; tried again next round")
            await asyncio.sleep(self._tick)

    async def _round(self) -> None:
        asks = self._take_asks()
        returns = self._take_returnable(final=False)
        await asyncio.gather(
            *(self._ask(account_id, ask) for account_id, ask in asks),
            *(self._return(lease) for lease in returns),
        )

    def _take_asks(self) -> list[tuple[UUID, LeaseUnits]]:
        """Busy accounts whose live leases will not last: each a lease request (one in flight per account)."""
        now = time.monotonic()
        asks = []
        with self._lock:
            for account_id, account in list(self._accounts.items()):
                seen = account.rate.seen
                if now - seen > self.IDLE_SECONDS and not account.leases:
                    del self._accounts[account_id]
                    continue
                rate = max(account.rate.last, account.rate.now / max(now - account.rate.start, 0.25))
                if account.asking or rate < self.HOT_RATE or now - seen > 1.0:
                    continue
                # Units left in leases still open for the next half lease time, against that half's demand: the
                # next lease is asked for before this one runs out of units or of time.
                half = self.lease_seconds / 2
                left = sum(lease.units - lease.drawn for lease in account.leases if lease.open(now + half))
                if left > rate * self.lease_seconds / 2:
                    continue
                units = min(self.MAX_UNITS, max(LEASE_MIN, int(rate * self.lease_seconds)))
                account.asking = True
                ask = LeaseUnits(uuid4(), account.group_id, account.user_id, units, self.holder, account.category)
                asks.append((account_id, ask))
        return asks

    async def _ask(self, account_id: UUID, request: LeaseUnits) -> None:
        units = 0
        asked = time.monotonic()
        try:
            units = (await self.remote.submit_async(request)).value
            self._failures.worked("lease grant")
        except Exception:
            self._failures.failed("lease grant", "a lease of %s was not granted", account_id)
        with self._lock:
            account = self._accounts.get(account_id)
            if account is not None:
                account.asking = False
            if not units:
                return
            now = time.monotonic()
            open_ends = [held.until for held in account.leases if held.open(now)] if account else []
            until = next_lease_end(open_ends, now, self.lease_seconds)
            lease = HeldLease(request.lease_id, account_id, request.group_id, request.category, units, until, asked)
            if account is None:
                # Forgotten meanwhile: handed straight back (drawn out, nothing charged).
                lease.drawn = lease.units
                self._returning.append(lease)
                return
            account.leases.append(lease)
            self._by_id[str(lease.lease_id)] = lease
            self.leased += 1

    def _take_returnable(self, *, final: bool) -> list[HeldLease]:
        """Leases no lookup will draw from any more and none is in flight on (stuck ones, and all of them
        ``final``, once no consultation is being appended under them)."""
        now = time.monotonic()
        done = []
        with self._lock:
            done.extend(self._returning)
            self._returning.clear()
            for account in self._accounts.values():
                for lease in list(account.leases):
                    stuck = now > lease.until + self.STUCK_SECONDS
                    over = not lease.open(now) and (lease.in_flight == 0 or stuck)
                    if (final or over) and lease.recording == 0:
                        lease.returned = True
                        account.leases.remove(lease)
                        done.append(lease)
        return done

    def _has_leases(self) -> bool:
        with self._lock:
            return any(account.leases for account in self._accounts.values())

    def _return_of(self, lease: HeldLease) -> ReturnLease:
        with self._lock:
            self._by_id.pop(str(lease.lease_id), None)
            return ReturnLease(lease.lease_id, lease.group_id, list(lease.charged), lease.category)

    async def _return(self, lease: HeldLease) -> None:
        request = self._return_of(lease)
        try:
            await self.remote.submit_async(request)
            self._failures.worked("lease return")
        except Exception:
            # Tried again next round; should this process die first, the ledger settles it from the log.
            self._failures.failed("lease return", "lease %s was not returned; tried again", lease.lease_id)
            with self._lock:
                self._returning.append(lease)  # taken to go back: nothing more is charged under it

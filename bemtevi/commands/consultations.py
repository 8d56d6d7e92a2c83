"""Unit lookup: validate, check permission, reserve a credit, ask the supplier, settle or release.

A lone lookup reserves its own credit (a ``Reserved`` event, then ``Settled`` or ``Released``).
A busy account's lookups draw from a block reservation instead (``LookupBlocks``): the writer
reserves several credits at once, each lookup takes one unit of it in memory before asking the
supplier and settles exactly that unit afterwards (``SettledFromBlock``, its consultation id as
the reason), and the unused rest is released when the account goes quiet. A busy client's lookup
then costs one append of two events instead of two appends of three, and the ledger stays exact:
a unit is spent only by a settlement saved with its consultation, and what a block holds counts
as reserved (not available) until it is settled or released.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, Literal, Protocol
from uuid import UUID, uuid4

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.group_commit import GroupCommit, Workspace
from bemtevi.commands.identity import SYSTEM, Principal
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import CreditAccount, ReasonKind, credit_account_id
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import GroupInactive, NotEnoughCredits, SearchFailed
from bemtevi.domain.groups import Group
from bemtevi.domain.query_types import BUILT_IN_QUERY_TYPES, Category, QueryType, choose_query_type
from bemtevi.domain.suppliers import Supplier

log = logging.getLogger(__name__)

CREDITS_PER_UNIT_QUERY = 1


class LookupBlocks:
    """The block reservations this process's writer opened, and the units lookups have drawn.

    An account is busy when it has lookups in flight or had ``HOT_RATE`` or more in the last
    second; a block is sized to about a second of that account's demand (never more than
    it has available), so the credits a block holds away from other uses are few and held briefly.

    Blocks are opened, settled and released only by decisions on the writer thread; each such
    decision registers the inverse of what it changed here (``Workspace.on_undo``), so that when
    its batch's append is refused and the batch is decided again, no unit is counted twice or lost.
    A lookup on the event loop may take a unit of an open block directly (``try_draw``), without a
    round trip to the writer: ``held`` mirrors what each block still holds in the store (a block
    appears in it once a settlement from it is decided, so never before its own append), and
    ``drawn`` counts the units lookups in flight have taken; one lock covers both.
    """

    HOT_RATE = 4
    MIN_BLOCK = 4
    MAX_BLOCK = 256
    IDLE_SECONDS = 1.0

    def __init__(self, owner: str) -> None:
        self.owner = owner  # the ledger instance that holds these blocks (named in their reservations)
        self._lock = threading.Lock()
        # account id -> block id -> units the block still holds (as last decided on the writer)
        self.held: dict[UUID, dict[str, int]] = {}
        # account id -> block id -> units drawn by lookups still in flight
        self.drawn: dict[UUID, dict[str, int]] = {}
        # account id -> [start of the current one-second window, lookups in it, lookups in the last]
        self._windows: dict[UUID, list[float]] = {}
        self._last_seen: dict[UUID, float] = {}

    def _count(self, account_id: UUID, now: float) -> float:
        window = self._windows.get(account_id)
        if window is None:
            window = self._windows[account_id] = [now, 0.0, 0.0]
        elif now - window[0] >= 1.0:
            window[2] = window[1] if now - window[0] < 2.0 else 0.0
            window[0], window[1] = now, 0.0
        window[1] += 1
        self._last_seen[account_id] = now
        return window[2]

    def try_draw(self, account_id: UUID) -> str | None:
        """A unit of an open block of this account, if one has a unit free (any thread)."""
        with self._lock:
            held = self.held.get(account_id)
            if not held:
                return None
            drawn = self.drawn.setdefault(account_id, {})
            for block_id, units in held.items():
                in_flight = drawn.get(block_id, 0)
                if units > in_flight:
                    drawn[block_id] = in_flight + 1
                    self._count(account_id, time.monotonic())
                    return block_id
            return None

    # Inverses (``Workspace.on_undo``) of what writer decisions changed here, should their append be refused.

    def _add_drawn(self, account_id: UUID, block_id: str, units: int) -> None:
        with self._lock:
            drawn = self.drawn.setdefault(account_id, {})
            drawn[block_id] = max(0, drawn.get(block_id, 0) + units)

    def _restore(self, account_id: UUID, block_id: str, drawn_back: int, mirrored: int | None) -> None:
        """A block's units in flight given back and its mirror as it was (None: not mirrored)."""
        with self._lock:
            drawn = self.drawn.setdefault(account_id, {})
            drawn[block_id] = drawn.get(block_id, 0) + drawn_back
            if mirrored is None:
                self.held.get(account_id, {}).pop(block_id, None)
            else:
                self.held.setdefault(account_id, {})[block_id] = mirrored

    def _drop(self, account_id: UUID, block_id: str) -> None:
        """A block whose reservation was not saved: nothing of it is counted."""
        with self._lock:
            self.drawn.get(account_id, {}).pop(block_id, None)
            self.held.get(account_id, {}).pop(block_id, None)

    def draw(self, ws: Workspace, account: CreditAccount, actor: Any) -> str | None:
        """On the writer: a unit for one lookup from an open block (opening one when the account is
        busy), or None: the lookup then reserves its own credit."""
        account_id = account.id
        with self._lock:
            last_rate = self._count(account_id, time.monotonic())
            drawn, open_blocks = self._sync(account, actor)
            for block_id, in_flight in drawn.items():
                if open_blocks.get(block_id, 0) > in_flight:
                    drawn[block_id] = in_flight + 1
                    ws.on_undo(partial(self._add_drawn, account_id, block_id, -1))
                    return block_id
            in_flight = sum(drawn.values())
            if in_flight == 0 and last_rate < self.HOT_RATE:
                return None
            size = min(self.MAX_BLOCK, max(self.MIN_BLOCK, int(last_rate), 2 * (in_flight + 1)))
            available = account.available
            if available is not None:
                size = min(size, available)
            if size < self.MIN_BLOCK:
                return None  # one credit or none left: the lookup reserves (or is refused) on its own
            new_block = str(uuid4())
            with acting_as(actor):
                account.reserve(UUID(new_block), size, ReasonKind.BLOCK, owner=self.owner)
            drawn[new_block] = 1
            ws.on_undo(lambda: self._drop(account_id, new_block))
            return new_block

    def _sync(self, account: CreditAccount, actor: Any) -> tuple[dict[str, int], dict[str, int]]:
        """Under ``_lock``, on the writer: this account's draws and open blocks, as the writer has them.
        What a ledger that stopped left on the account (reservations of another owner) goes back first."""
        abandoned = account.abandoned(self.owner)
        if abandoned:
            with acting_as(SYSTEM):
                for reservation_id in abandoned:
                    account.release(UUID(reservation_id))
        drawn = self.drawn.setdefault(account.id, {})
        open_blocks = account.open_blocks()
        for block_id in [b for b in drawn if b not in open_blocks]:
            del drawn[block_id]  # settled to its last unit, or released behind the writer's back
        mirror = self.held.get(account.id)
        if mirror:
            for block_id in [b for b in mirror if b not in open_blocks]:
                del mirror[block_id]
        with acting_as(actor):
            for block_id in [b for b in open_blocks if b not in drawn]:
                # A block of this ledger that no lookup counts on any more: nobody can draw from it.
                account.release(UUID(block_id))
                del open_blocks[block_id]
        return drawn, open_blocks

    def lease(self, account: CreditAccount) -> list[tuple[str, int]]:
        """On the writer, with the account as saved: every free unit of its open blocks, handed out.

        For a server whose ledger runs in another process: it draws leased units for its lookups
        without asking, and each comes back as a settlement (``settle(..., leased=True)``) or, unused,
        with ``give_back``. Until then a leased unit counts as drawn, so it is never drawn twice and
        its block is not released. Only blocks this writer opened and the store holds are leased.
        """
        with self._lock:
            drawn = self.drawn.get(account.id)
            if not drawn:
                return []
            open_blocks = account.open_blocks()
            leased = []
            for block_id, in_flight in drawn.items():
                free = open_blocks.get(block_id, 0) - in_flight
                if free > 0:
                    drawn[block_id] = in_flight + free
                    leased.append((block_id, free))
            return leased

    def give_back(self, ws: Workspace, account_id: UUID, block_id: str, units: int) -> None:
        """On the writer: leased units that were not drawn (their block may be released once quiet)."""
        with self._lock:
            drawn = self.drawn.get(account_id)
            if drawn is not None and block_id in drawn:
                given = min(units, drawn[block_id])
                drawn[block_id] -= given
                ws.on_undo(lambda: self._add_drawn(account_id, block_id, given))

    def settle(
        self,
        ws: Workspace,
        account: CreditAccount,
        block_id: str,
        consultation_id: UUID,
        charged: int,
        *,
        leased: bool = False,
    ) -> None:
        """On the writer: the lookup that drew ``block_id`` is over; charge it (if found) from the block.

        A leased unit's lookup was not counted when drawn (that was in another process): it counts here."""
        account_id = account.id
        with self._lock:
            if leased:
                self._count(account_id, time.monotonic())
            held = account.holds(UUID(block_id))
            if held is None or held < charged:
                # Released behind the writer's back: nothing to charge from.
                self.held.get(account_id, {}).pop(block_id, None)
                self.drawn.get(account_id, {}).pop(block_id, None)
                raise SearchFailed()
            drawn = self.drawn.setdefault(account_id, {})
            mirror = self.held.setdefault(account_id, {})
            was_mirrored = mirror.get(block_id)
            in_flight = drawn.get(block_id, 0)
            if charged:
                account.settle_from_block(UUID(block_id), consultation_id, charged)
            if held > charged:
                # The block is in the store (its lookups were answered after its append): mirrored.
                mirror[block_id] = held - charged
                drawn[block_id] = max(0, in_flight - 1)
                taken = min(1, in_flight)
            else:
                mirror.pop(block_id, None)
                drawn.pop(block_id, None)
                taken = in_flight
        ws.on_undo(lambda: self._restore(account_id, block_id, taken, was_mirrored))

    def release_idle(self, ws: Workspace, final: bool) -> None:
        """Writer chore: release what quiet accounts' blocks still hold (every block on stop)."""
        now = time.monotonic()
        with self._lock:
            for account_id, drawn in list(self.drawn.items()):
                if not final and now - self._last_seen.get(account_id, 0.0) < self.IDLE_SECONDS:
                    continue
                # On stop every block goes back, even one a lookup still holds a unit of: that
                # lookup can no longer be settled, and its late settlement finds no block (uncharged).
                idle = [b for b, in_flight in drawn.items() if final or in_flight == 0]
                if idle:
                    account = ws.find(account_id, CreditAccount)
                    open_blocks = account.open_blocks() if account is not None else {}
                    mirror = self.held.get(account_id, {})
                    with acting_as(SYSTEM):
                        for block_id in idle:
                            if account is not None and block_id in open_blocks:
                                account.release(UUID(block_id))
                            in_flight, was_mirrored = drawn.pop(block_id), mirror.pop(block_id, None)
                            ws.on_undo(partial(self._restore, account_id, block_id, in_flight, was_mirrored))
                if not drawn:
                    del self.drawn[account_id]
                    self.held.pop(account_id, None)
                    self._windows.pop(account_id, None)
                    self._last_seen.pop(account_id, None)


@dataclass(frozen=True, slots=True)
class ConsultationOutcome:
    consultation_id: UUID
    document: Document
    query_type: QueryType
    status: ConsultationStatus
    result: dict[str, Any] | None
    created_at: datetime
    position: int


@dataclass(slots=True)
class LookupRecord:
    """One unit lookup as the write side decides on it: plain values, so that a ledger in another
    process (``bemtevi.ledger_process``) receives it as it is."""

    consultation_id: UUID
    group_id: UUID
    user_id: UUID
    document: str
    document_type: Literal["cpf", "cnpj"]
    requested_type: str | None
    channel: str
    supplier: str
    # Decided by the reservation:
    query_type: str | None = None
    block_id: str | None = None
    leased: bool = False  # drawn by the server from a unit the ledger leased it
    # Known once the supplier answered:
    status: str = ConsultationStatus.FAILED.value

    @property
    def actor(self) -> Actor:
        return Actor(user_id=self.user_id, tenant_id=self.group_id)

    @property
    def account_id(self) -> UUID:
        return credit_account_id(self.group_id, Category.UNIT)

    def choose_query_type(self, group: Group) -> QueryType:
        return choose_query_type(self.requested_type, self.document_type, frozenset(group.enabled_query_types))


def query_type_here(app: BemteviApplication, record: LookupRecord) -> str | None:
    """For a lookup that takes a unit without asking the ledger: the query type it runs, decided
    on this process's copy of its group (kept current with this process's saves). None when the
    group is gone or inactive: the ledger then decides, and gives the canonical refusal. A query
    type the group may not run is refused here, as the ledger would."""
    group = app.find_readonly(record.group_id, Group)
    if group is None or not group.active:
        return None
    return record.choose_query_type(group).key


class LookupLedger(Protocol):
    """Where a lookup's credit is reserved and settled and its consultation recorded."""

    def try_draw(self, record: LookupRecord) -> bool: ...
    def reserve(self, record: LookupRecord) -> None: ...
    async def reserve_async(self, record: LookupRecord) -> None: ...
    def finish(self, record: LookupRecord) -> tuple[datetime, int]: ...
    async def finish_async(self, record: LookupRecord) -> tuple[datetime, int]: ...
    def release_abandoned(self, account_ids: Sequence[UUID]) -> None: ...
    def close(self) -> None: ...


class WriterLookupLedger:
    """The lookups' ledger decided on a group-commit writer (``GroupCommit``) of this process.

    Each instance names itself (``owner``) in the reservations it takes; it releases what its
    blocks hold when their account goes quiet and, on stop, every reservation of its lookups still
    in flight; and, when asked (``release_abandoned``), what any other owner left: one ledger runs
    per store, so those are of an instance that stopped (or died)."""

    def __init__(self, app: BemteviApplication, writer: GroupCommit) -> None:
        self._app = app
        self._writer = writer
        self.owner = str(uuid4())
        self.blocks = LookupBlocks(self.owner)
        # Consultation id -> account id: lookups in flight holding a reservation of their own.
        self._reserved: dict[UUID, UUID] = {}
        writer.add_chore(self._chore)

    # -- the decisions, taken on the writer ----------------------------------------------------

    def reserve_decision(self, record: LookupRecord) -> Callable[[Workspace], tuple[str, str | None]]:
        def reserve(ws: Workspace) -> tuple[str, str | None]:
            group = ws.get(record.group_id, Group)
            if not group.active:
                raise GroupInactive()
            chosen = record.choose_query_type(group)
            account = ws.find(record.account_id, CreditAccount)
            if account is None:
                raise NotEnoughCredits()
            block_id = self.blocks.draw(ws, account, record.actor)
            if block_id is None:
                with acting_as(record.actor):
                    account.reserve(
                        record.consultation_id, CREDITS_PER_UNIT_QUERY, ReasonKind.CONSULTATION, owner=self.owner
                    )
                self._reserved[record.consultation_id] = record.account_id
                ws.on_undo(lambda: self._reserved.pop(record.consultation_id, None))
            return chosen.key, block_id

        return reserve

    def finish_decision(self, record: LookupRecord) -> Callable[[Workspace], datetime]:
        """Settle (found) or release (not found, failed) and record the consultation, atomically."""

        def finish(ws: Workspace) -> datetime:
            assert record.query_type is not None
            account = ws.get(record.account_id, CreditAccount)
            charged = CREDITS_PER_UNIT_QUERY if record.status == ConsultationStatus.DONE else 0
            if record.block_id is None:
                if self._reserved.pop(record.consultation_id, None) is not None:
                    ws.on_undo(lambda: self._reserved.__setitem__(record.consultation_id, record.account_id))
                if account.holds(record.consultation_id) is None:
                    # Released meanwhile (this ledger stopped): nothing was charged, and the
                    # answer must not be given for free.
                    raise SearchFailed()
            with acting_as(record.actor):
                if record.block_id is not None:
                    self.blocks.settle(
                        ws, account, record.block_id, record.consultation_id, charged, leased=record.leased
                    )
                elif charged:
                    account.settle(record.consultation_id, charged)
                else:
                    account.release(record.consultation_id)
                consultation = Consultation._create(
                    Consultation.Recorded,
                    id=record.consultation_id,
                    group_id=record.group_id,
                    user_id=record.user_id,
                    document=record.document,
                    document_type=record.document_type,
                    query_type=record.query_type,
                    category=Category.UNIT.value,
                    supplier=record.supplier,
                    status=record.status,
                    credits=charged,
                    channel=record.channel,
                )
            ws.add(consultation)
            return consultation.created_on

        return finish

    def lease(self, account_id: UUID) -> list[tuple[str, int]]:
        """On the writer, between batches (so on the account as saved): the free units of the
        account's open blocks, leased to a server (``LookupBlocks.lease``)."""
        account = self._writer.cached(account_id, CreditAccount)
        return [] if account is None else self.blocks.lease(account)

    def give_back_decision(self, account_id: UUID, block_id: str, units: int) -> Callable[[Workspace], None]:
        def give_back(ws: Workspace) -> None:
            self.blocks.give_back(ws, account_id, block_id, units)

        return give_back

    def release_abandoned_decision(self, account_ids: Sequence[UUID]) -> Callable[[Workspace], int]:
        """Release the lookup reservations of these accounts that another owner holds (a ledger
        that stopped: one runs per store); how many were released."""

        def release(ws: Workspace) -> int:
            released = 0
            for account_id in account_ids:
                account = ws.find(account_id, CreditAccount)
                if account is None:
                    continue
                with acting_as(SYSTEM):
                    for reservation_id in account.abandoned(self.owner):
                        account.release(UUID(reservation_id))
                        released += 1
            return released

        return release

    def _chore(self, ws: Workspace, final: bool) -> None:
        """Quiet accounts' blocks go back; on stop, so does every reservation still held for a
        lookup in flight (it can no longer be settled: its late settlement is refused uncharged)."""
        self.blocks.release_idle(ws, final)
        if final:
            with acting_as(SYSTEM):
                for consultation_id, account_id in list(self._reserved.items()):
                    account = ws.find(account_id, CreditAccount)
                    if account is not None and account.holds(consultation_id) is not None:
                        account.release(consultation_id)
            self._reserved.clear()

    # -- entry points ------------------------------------------------------------------------------

    def try_draw(self, record: LookupRecord) -> bool:
        """Take a unit of the account's open block here, without the writer, when one has a unit
        free; the group's checks are made on the copy kept current with this process's saves."""
        if not self.blocks.held.get(record.account_id):
            return False
        query_type = query_type_here(self._app, record)
        if query_type is None:
            return False
        block_id = self.blocks.try_draw(record.account_id)
        if block_id is None:
            return False
        record.query_type, record.block_id = query_type, block_id
        return True

    def reserve(self, record: LookupRecord) -> None:
        # Answered once the reservation is in the store: only then does the lookup hold its credit.
        record.query_type, record.block_id = self._writer.submit(self.reserve_decision(record)).value

    async def reserve_async(self, record: LookupRecord) -> None:
        decided = await self._writer.submit_async(self.reserve_decision(record))
        record.query_type, record.block_id = decided.value

    def release_abandoned(self, account_ids: Sequence[UUID]) -> None:
        """Ask the writer to release what other (stopped) owners hold on these accounts."""
        self._writer.enqueue(self.release_abandoned_decision(account_ids), _log_refusal)

    def finish(self, record: LookupRecord) -> tuple[datetime, int]:
        recorded = self._writer.submit(self.finish_decision(record))
        return recorded.value, recorded.position

    async def finish_async(self, record: LookupRecord) -> tuple[datetime, int]:
        recorded = await self._writer.submit_async(self.finish_decision(record))
        return recorded.value, recorded.position

    def close(self) -> None:
        pass  # the writer's own stop releases the blocks and what lookups in flight hold


def _log_refusal(request: Any) -> None:
    if request.error is not None:
        log.error("ledger decision failed: %r", request.error)


class ConsultationCommands:
    """Unit lookups: validate, reserve a credit, ask the supplier, settle or release.

    The ledger decides reservations and settlements: this process's group-commit writer
    (``WriterLookupLedger``), or a ledger process of its own (``bemtevi.ledger_process``) so that
    the appends of a busy server run beside the requests instead of under the same interpreter lock.
    """

    def __init__(self, app: BemteviApplication, supplier: Supplier, ledger: LookupLedger) -> None:
        self._app = app
        self._supplier = supplier
        self.ledger = ledger

    @property
    def blocks(self) -> LookupBlocks:
        """This process's block reservations (a ledger in this process only)."""
        assert isinstance(self.ledger, WriterLookupLedger)
        return self.ledger.blocks

    def _record(self, principal: Principal, parsed: Document, query_type: str | None, channel: str) -> LookupRecord:
        return LookupRecord(
            consultation_id=uuid4(),
            group_id=principal.group_id,
            user_id=principal.user_id,
            document=parsed.number,
            document_type=parsed.kind,
            requested_type=query_type,
            channel=channel,
            supplier=self._supplier.name,
        )

    def run_unit_query(
        self, principal: Principal, document: str, query_type: str | None = None, channel: str = "panel"
    ) -> ConsultationOutcome:
        parsed = Document.parse(document)
        record = self._record(principal, parsed, query_type, channel)
        if not self.ledger.try_draw(record):
            self.ledger.reserve(record)
        result, error = self._ask_supplier(record)
        created_on, position = self.ledger.finish(record)
        return self._outcome(record, parsed, result, error, created_on, position)

    async def run_unit_query_async(
        self, principal: Principal, document: str, query_type: str | None = None, channel: str = "panel"
    ) -> ConsultationOutcome:
        """The same lookup for the API's event loop: no thread is parked while the writer works."""
        parsed = Document.parse(document)
        record = self._record(principal, parsed, query_type, channel)
        if not self.ledger.try_draw(record):
            await self.ledger.reserve_async(record)
        # The local supplier answers in a fraction of a millisecond: cheaper inline than a thread hop.
        result, error = self._ask_supplier(record)
        created_on, position = await self.ledger.finish_async(record)
        return self._outcome(record, parsed, result, error, created_on, position)

    def _ask_supplier(self, record: LookupRecord) -> tuple[dict[str, Any] | None, Exception | None]:
        try:
            result = self._supplier.lookup(record.document_type, record.document)
        except Exception as e:
            log.exception("supplier %s failed", self._supplier.name)
            record.status = ConsultationStatus.FAILED.value
            return None, e
        record.status = (ConsultationStatus.DONE if result is not None else ConsultationStatus.NOT_FOUND).value
        return result, None

    def _outcome(
        self,
        record: LookupRecord,
        document: Document,
        result: dict[str, Any] | None,
        supplier_error: Exception | None,
        created_on: datetime,
        position: int,
    ) -> ConsultationOutcome:
        if supplier_error is not None:
            raise SearchFailed() from supplier_error
        assert record.query_type is not None
        return ConsultationOutcome(
            consultation_id=record.consultation_id,
            document=document,
            query_type=BUILT_IN_QUERY_TYPES[record.query_type],
            status=ConsultationStatus(record.status),
            result=result,
            created_at=created_on,
            position=position,
        )

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
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.group_commit import GroupCommit, Outcome, Workspace
from bemtevi.commands.identity import SYSTEM, Principal
from bemtevi.domain.audit import acting_as
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import CreditAccount, ReasonKind, credit_account_id
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import GroupInactive, NotEnoughCredits, SearchFailed
from bemtevi.domain.groups import Group
from bemtevi.domain.query_types import Category, QueryType, choose_query_type
from bemtevi.domain.suppliers import Supplier

log = logging.getLogger(__name__)

CREDITS_PER_UNIT_QUERY = 1


class LookupBlocks:
    """The block reservations this process's writer opened, and the units lookups have drawn.

    An account is busy when it has lookups in flight or had ``HOT_RATE`` or more in the last
    second; a block is sized to about a second of that account's demand (never more than
    it has available), so the credits a block holds away from other uses are few and held briefly.

    Blocks are opened, settled and released only by decisions on the writer thread. A lookup on
    the event loop may take a unit of an open block directly (``try_draw``), without a round trip
    to the writer: ``held`` mirrors what each block still holds as the writer last decided it, and
    ``drawn`` counts the units lookups in flight have taken; one lock covers both. Should the mirror
    ever be ahead of the store (a block whose append was refused), the settlement finds nothing to
    settle and the lookup is refused uncharged.
    """

    HOT_RATE = 4
    MIN_BLOCK = 4
    MAX_BLOCK = 256
    IDLE_SECONDS = 1.0

    def __init__(self) -> None:
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
            drawn = self.drawn[account_id]
            for block_id, units in held.items():
                in_flight = drawn.get(block_id, 0)
                if units > in_flight:
                    drawn[block_id] = in_flight + 1
                    self._count(account_id, time.monotonic())
                    return block_id
            return None

    def draw(self, account: CreditAccount, actor: Any) -> str | None:
        """On the writer: a unit for one lookup from an open block (opening one when the account is
        busy), or None: the lookup then reserves its own credit."""
        with self._lock:
            last_rate = self._count(account.id, time.monotonic())
            drawn = self.drawn.setdefault(account.id, {})
            open_blocks = account.open_blocks()
            for block_id in [b for b in drawn if b not in open_blocks]:
                del drawn[block_id]  # settled to its last unit, or its append was refused
            with acting_as(actor):
                for block_id in [b for b in open_blocks if b not in drawn]:
                    # Left open by an earlier process that stopped before releasing it.
                    account.release(UUID(block_id))
                    del open_blocks[block_id]
            self.held[account.id] = open_blocks
            for block_id, in_flight in drawn.items():
                if open_blocks[block_id] > in_flight:
                    drawn[block_id] = in_flight + 1
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
            new_block = uuid4()
            with acting_as(actor):
                account.reserve(new_block, size, ReasonKind.BLOCK)
            drawn[str(new_block)] = 1
            open_blocks[str(new_block)] = size
            return str(new_block)

    def settle(self, account: CreditAccount, block_id: str, consultation_id: UUID, charged: int) -> None:
        """On the writer: the lookup that drew ``block_id`` is over; charge it (if found) from the block."""
        with self._lock:
            drawn = self.drawn.get(account.id, {})
            if drawn.get(block_id):
                drawn[block_id] -= 1
            held = account.holds(UUID(block_id))
            if held is None or held < charged:
                # The block's append was refused (or the mirror ran ahead): nothing to charge from.
                self.held.get(account.id, {}).pop(block_id, None)
                drawn.pop(block_id, None)
                raise SearchFailed()
            if charged:
                account.settle_from_block(UUID(block_id), consultation_id, charged)
                mirror = self.held.setdefault(account.id, {})
                if held > charged:
                    mirror[block_id] = held - charged
                else:
                    mirror.pop(block_id, None)
                    drawn.pop(block_id, None)

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
                            del drawn[block_id]
                            mirror.pop(block_id, None)
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


class ConsultationCommands:
    """Unit lookups, charged through the group commit (see ``group_commit``)."""

    def __init__(self, app: BemteviApplication, supplier: Supplier, writer: GroupCommit) -> None:
        self._app = app
        self._supplier = supplier
        self._writer = writer
        self.blocks = LookupBlocks()
        writer.add_chore(self.blocks.release_idle)

    def run_unit_query(
        self, principal: Principal, document: str, query_type: str | None = None, channel: str = "panel"
    ) -> ConsultationOutcome:
        lookup = _UnitLookup(self, principal, Document.parse(document), query_type, channel)
        # Not durable: the reservation is taken (in the writer's account) before the supplier is
        # asked, and its append overlaps the supplier call; the settlement waits for both.
        if not lookup.draw_from_block():
            lookup.query_type = self._writer.submit(lookup.reserve, durable=False).value
        lookup.ask_supplier()
        return lookup.outcome(self._writer.submit(lookup.finish))

    async def run_unit_query_async(
        self, principal: Principal, document: str, query_type: str | None = None, channel: str = "panel"
    ) -> ConsultationOutcome:
        """The same lookup for the API's event loop: no thread is parked while the writer works."""
        lookup = _UnitLookup(self, principal, Document.parse(document), query_type, channel)
        if not lookup.draw_from_block():
            lookup.query_type = (await self._writer.submit_async(lookup.reserve, durable=False)).value
        # The local supplier answers in a fraction of a millisecond: cheaper inline than a thread hop.
        lookup.ask_supplier()
        return lookup.outcome(await self._writer.submit_async(lookup.finish))


class _UnitLookup:
    """One unit lookup's decisions, shared by the thread and the event-loop entry points."""

    def __init__(
        self,
        commands: ConsultationCommands,
        principal: Principal,
        document: Document,
        requested_type: str | None,
        channel: str,
    ) -> None:
        self.principal = principal
        self.document = document
        self.requested_type = requested_type
        self.channel = channel
        self.supplier = commands._supplier
        self.blocks = commands.blocks
        self.app = commands._app
        self.account_id = credit_account_id(principal.group_id, Category.UNIT)
        self.consultation_id = uuid4()
        self.block_id: str | None = None
        self.query_type: QueryType | None = None
        self.status = ConsultationStatus.FAILED
        self.result: dict[str, Any] | None = None
        self.supplier_error: Exception | None = None

    def _query_type_for(self, group: Group) -> QueryType:
        return choose_query_type(self.requested_type, self.document.kind, frozenset(group.enabled_query_types))

    def draw_from_block(self) -> bool:
        """Take a unit of the account's open block here, without the writer, when one has a unit
        free; the group's checks are made on the copy kept current with this process's saves."""
        if not self.blocks.held.get(self.account_id):
            return False
        group = self.app.find_readonly(self.principal.group_id, Group)
        if group is None or not group.active:
            return False  # the writer decides, and gives the canonical refusal
        chosen = self._query_type_for(group)
        self.block_id = self.blocks.try_draw(self.account_id)
        if self.block_id is None:
            return False
        self.query_type = chosen
        return True

    def reserve(self, ws: Workspace) -> QueryType:
        group = ws.get(self.principal.group_id, Group)
        if not group.active:
            raise GroupInactive()
        chosen = self._query_type_for(group)
        account = ws.find(self.account_id, CreditAccount)
        if account is None:
            raise NotEnoughCredits()
        self.block_id = self.blocks.draw(account, self.principal.actor)
        if self.block_id is None:
            with acting_as(self.principal.actor):
                account.reserve(self.consultation_id, CREDITS_PER_UNIT_QUERY, ReasonKind.CONSULTATION)
        return chosen

    def ask_supplier(self) -> None:
        try:
            self.result = self.supplier.lookup(self.document.kind, self.document.number)
        except Exception as e:
            log.exception("supplier %s failed", self.supplier.name)
            self.supplier_error = e
            self.status = ConsultationStatus.FAILED
            return
        self.status = ConsultationStatus.DONE if self.result is not None else ConsultationStatus.NOT_FOUND

    def finish(self, ws: Workspace) -> Consultation:
        """Settle (found) or release (not found, failed) and record the consultation, atomically."""
        assert self.query_type is not None
        account = ws.get(self.account_id, CreditAccount)
        charged = CREDITS_PER_UNIT_QUERY if self.status == ConsultationStatus.DONE else 0
        if self.block_id is None and account.holds(self.consultation_id) is None:
            # The reservation's append failed (the store refused its batch): nothing was
            # charged, and the answer must not be given for free.
            raise SearchFailed()
        with acting_as(self.principal.actor):
            if self.block_id is not None:
                self.blocks.settle(account, self.block_id, self.consultation_id, charged)
            elif charged:
                account.settle(self.consultation_id, charged)
            else:
                account.release(self.consultation_id)
            consultation = Consultation._create(
                Consultation.Recorded,
                id=self.consultation_id,
                group_id=self.principal.group_id,
                user_id=self.principal.user_id,
                document=self.document.number,
                document_type=self.document.kind,
                query_type=self.query_type.key,
                category=Category.UNIT.value,
                supplier=self.supplier.name,
                status=self.status.value,
                credits=charged,
                channel=self.channel,
            )
        ws.add(consultation)
        return consultation

    def outcome(self, recorded: Outcome[Consultation]) -> ConsultationOutcome:
        if self.supplier_error is not None:
            raise SearchFailed() from self.supplier_error
        assert self.query_type is not None
        return ConsultationOutcome(
            consultation_id=self.consultation_id,
            document=self.document,
            query_type=self.query_type,
            status=self.status,
            result=self.result,
            created_at=recorded.value.created_on,
            position=recorded.position,
        )

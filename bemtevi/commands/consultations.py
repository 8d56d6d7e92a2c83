"""Unit lookup: validate, check permission, reserve a credit, ask the supplier, settle or release."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.group_commit import GroupCommit, Outcome, Workspace
from bemtevi.commands.identity import Principal
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

    def run_unit_query(
        self, principal: Principal, document: str, query_type: str | None = None, channel: str = "panel"
    ) -> ConsultationOutcome:
        lookup = _UnitLookup(self, principal, Document.parse(document), query_type, channel)
        # Not durable: the reservation is taken (in the writer's account) before the supplier is
        # asked, and its append overlaps the supplier call; the settlement waits for both.
        lookup.query_type = self._writer.submit(lookup.reserve, durable=False).value
        lookup.ask_supplier()
        return lookup.outcome(self._writer.submit(lookup.finish))

    async def run_unit_query_async(
        self, principal: Principal, document: str, query_type: str | None = None, channel: str = "panel"
    ) -> ConsultationOutcome:
        """The same lookup for the API's event loop: no thread is parked while the writer works."""
        lookup = _UnitLookup(self, principal, Document.parse(document), query_type, channel)
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
        self.account_id = credit_account_id(principal.group_id, Category.UNIT)
        self.consultation_id = uuid4()
        self.query_type: QueryType | None = None
        self.status = ConsultationStatus.FAILED
        self.result: dict[str, Any] | None = None
        self.supplier_error: Exception | None = None

    def reserve(self, ws: Workspace) -> QueryType:
        group = ws.get(self.principal.group_id, Group)
        if not group.active:
            raise GroupInactive()
        chosen = choose_query_type(self.requested_type, self.document.kind, frozenset(group.enabled_query_types))
        account = ws.find(self.account_id, CreditAccount)
        if account is None:
            raise NotEnoughCredits()
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
        if account.holds(self.consultation_id) is None:
            # The reservation's append failed (the store refused its batch): nothing was
            # charged, and the answer must not be given for free.
            raise SearchFailed()
        charged = CREDITS_PER_UNIT_QUERY if self.status == ConsultationStatus.DONE else 0
        with acting_as(self.principal.actor):
            if charged:
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

"""Unit lookup: validate, check permission, reserve a credit, ask the supplier, settle or release."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.group_commit import GroupCommit, Workspace
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
        parsed = Document.parse(document)
        account_id = credit_account_id(principal.group_id, Category.UNIT)
        consultation_id = uuid4()

        def reserve(ws: Workspace) -> QueryType:
            group = ws.get(principal.group_id, Group)
            if not group.active:
                raise GroupInactive()
            chosen = choose_query_type(query_type, parsed.kind, frozenset(group.enabled_query_types))
            account = ws.find(account_id, CreditAccount)
            if account is None:
                raise NotEnoughCredits()
            with acting_as(principal.actor):
                account.reserve(consultation_id, CREDITS_PER_UNIT_QUERY, ReasonKind.CONSULTATION)
            return chosen

        # Not durable: the reservation is taken (in the writer's account) before the supplier is
        # asked, and its append overlaps the supplier call; the settlement below waits for both.
        chosen = self._writer.submit(reserve, durable=False).value
        try:
            result = self._supplier.lookup(parsed.kind, parsed.number)
        except Exception as e:
            log.exception("supplier %s failed", self._supplier.name)
            self._finish(principal, account_id, consultation_id, parsed, chosen, ConsultationStatus.FAILED, channel)
            raise SearchFailed() from e
        status = ConsultationStatus.DONE if result is not None else ConsultationStatus.NOT_FOUND
        consultation, position = self._finish(principal, account_id, consultation_id, parsed, chosen, status, channel)
        return ConsultationOutcome(
            consultation_id=consultation_id,
            document=parsed,
            query_type=chosen,
            status=status,
            result=result,
            created_at=consultation.created_on,
            position=position,
        )

    def _finish(
        self,
        principal: Principal,
        account_id: UUID,
        consultation_id: UUID,
        document: Document,
        query_type: QueryType,
        status: ConsultationStatus,
        channel: str,
    ) -> tuple[Consultation, int]:
        """Settle (found) or release (not found, failed) and record the consultation, atomically."""

        def decide(ws: Workspace) -> Consultation:
            account = ws.get(account_id, CreditAccount)
            if account.holds(consultation_id) is None:
                # The reservation's append failed (the store refused the batch): nothing was
                # charged, and the answer must not be given for free.
                raise SearchFailed()
            charged = CREDITS_PER_UNIT_QUERY if status == ConsultationStatus.DONE else 0
            with acting_as(principal.actor):
                if charged:
                    account.settle(consultation_id, charged)
                else:
                    account.release(consultation_id)
                consultation = Consultation._create(
                    Consultation.Recorded,
                    id=consultation_id,
                    group_id=principal.group_id,
                    user_id=principal.user_id,
                    document=document.number,
                    document_type=document.kind,
                    query_type=query_type.key,
                    category=Category.UNIT.value,
                    supplier=self._supplier.name,
                    status=status.value,
                    credits=charged,
                    channel=channel,
                )
            ws.add(consultation)
            return consultation

        outcome = self._writer.submit(decide)
        return outcome.value, outcome.position

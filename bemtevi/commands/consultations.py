"""Unit lookup: validate, ask the supplier, and have the ledger charge and record it.

The credit side is the ledger's (``bemtevi.commands.ledger``). Two ways, by the supplier:
- one that answers at once and costs nothing to ask (the local dataset, ``answers_at_once``) is asked
  first, and one request (``RecordLookup``) checks the group and its credit, charges the lookup if found
  and records the consultation, in one append: one round trip to the ledger per lookup;
- any other (a vendor: slow, paid) is asked only once its credit is held: a ``ReserveLookup``, then the
  matching ``FinishLookup`` (settle if found, release otherwise, the consultation recorded in the same
  append). In the embedded deployment a busy account's reserve-first lookups draw from a block
  reservation in memory (``LookupBlocks``).
The ledger client is this process's group commit (embedded) or the ledger workers behind Kafka (cluster).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.identity import Principal
from bemtevi.commands.ledger import EmbeddedLedger, LedgerClient, LookupBlocks, ReserveLookup
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import SearchFailed
from bemtevi.domain.query_types import QueryType, QueryTypeCatalogue
from bemtevi.domain.suppliers import Supplier

log = logging.getLogger(__name__)


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
    """Unit lookups: validate, reserve a credit, ask the supplier, settle or release (through the ledger)."""

    def __init__(
        self,
        app: BemteviApplication,
        supplier: Supplier,
        ledger: LedgerClient,
        query_types: QueryTypeCatalogue,
    ) -> None:
        self._app = app
        self._supplier = supplier
        self.ledger = ledger
        # What a lookup's outcome says of its type (the ledger chose it on the same catalogue).
        self._query_types = query_types

    @property
    def blocks(self) -> LookupBlocks:
        """This process's block reservations (the embedded ledger only)."""
        assert isinstance(self.ledger, EmbeddedLedger)
        return self.ledger.blocks

    def _request(self, principal: Principal, parsed: Document, query_type: str | None, channel: str) -> ReserveLookup:
        return ReserveLookup(
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
        request = self._request(principal, parsed, query_type, channel)
        if self._supplier.answers_at_once:
            status, result, error = self._ask_supplier(request)
            answered = self.ledger.submit(request.answered(status))
            chosen, created_on = answered.value
            return self._outcome(request, parsed, chosen, status, result, error, created_on, answered.position)
        drawn = self.ledger.try_draw(request)
        chosen, block_id = drawn if drawn is not None else self.ledger.submit(request).value
        status, result, error = self._ask_supplier(request)
        recorded = self.ledger.submit(request.finished(chosen, block_id, status))
        return self._outcome(request, parsed, chosen, status, result, error, recorded.value, recorded.position)

    async def run_unit_query_async(
        self, principal: Principal, document: str, query_type: str | None = None, channel: str = "panel"
    ) -> ConsultationOutcome:
        """The same lookup for the API's event loop: no thread is parked while the ledger works."""
        parsed = Document.parse(document)
        request = self._request(principal, parsed, query_type, channel)
        if self._supplier.answers_at_once:
            # The local supplier answers in a fraction of a millisecond: cheaper inline than a thread hop.
            status, result, error = self._ask_supplier(request)
            answered = await self.ledger.submit_async(request.answered(status))
            chosen, created_on = answered.value
            return self._outcome(request, parsed, chosen, status, result, error, created_on, answered.position)
        drawn = self.ledger.try_draw(request)
        chosen, block_id = drawn if drawn is not None else (await self.ledger.submit_async(request)).value
        status, result, error = self._ask_supplier(request)
        recorded = await self.ledger.submit_async(request.finished(chosen, block_id, status))
        return self._outcome(request, parsed, chosen, status, result, error, recorded.value, recorded.position)

    def _ask_supplier(
        self, request: ReserveLookup
    ) -> tuple[ConsultationStatus, dict[str, Any] | None, Exception | None]:
        try:
            result = self._supplier.lookup(request.document_type, request.document)
        except Exception as e:
            log.exception("supplier %s failed", self._supplier.name)
            return ConsultationStatus.FAILED, None, e
        return (ConsultationStatus.DONE if result is not None else ConsultationStatus.NOT_FOUND), result, None

    def _outcome(
        self,
        request: ReserveLookup,
        document: Document,
        query_type: str,
        status: ConsultationStatus,
        result: dict[str, Any] | None,
        supplier_error: Exception | None,
        created_on: datetime,
        position: int,
    ) -> ConsultationOutcome:
        if supplier_error is not None:
            raise SearchFailed() from supplier_error
        return ConsultationOutcome(
            consultation_id=request.consultation_id,
            document=document,
            query_type=self._query_types.get(query_type),
            status=status,
            result=result,
            created_at=created_on,
            position=position,
        )

"""Unit lookup: validate, check permission, ask the suppliers, and have the ledger charge and record it.

The credit side is the ledger's (``bemtevi.commands.ledger``). Two ways, by what has to be asked:
- the local dataset answers at once and costs nothing to ask (``Supplier.answers_at_once``): it is asked
  first, and when it finds the document (or no HTTP supplier could be asked after it) one request
  (``RecordLookup``) checks the group and its credit, charges the lookup if found and records the
  consultation, in one append: one round trip to the ledger per lookup;
- otherwise the lookup's credit is held before a slow or paid supplier is asked: a ``ReserveLookup``,
  then the matching ``FinishLookup`` (settle if found, release otherwise, the consultation recorded in
  the same append).
A busy account's lookups, either way, take a unit of a lease of its units instead and are recorded without a
credit event of their own (``commands.ledger.leases.LeasingLedger``, the ledger client in front of this process's
group commit, embedded, or of the ledger workers behind Kafka, cluster).

Suppliers in order: the local dataset first; when it knows nothing of the document, a result kept
within the query type's cache days (``infra.kept_results``, recorded as supplier ``cache`` and charged
like any found result: the customer gets the report); then the active HTTP suppliers whose allowed
consultations include the query type, in the order they were added, until one finds the document.
Every vendor's found result is kept (write-behind) for reopening within the query type's validity
days. Only when a supplier that could answer failed and none found the document is the lookup FAILED
(its credit released) and answered ``SupplierFailed``.

A group whose customer form says not to consult protests gets its answers without ``protests``
(``Principal.consults_protests``, read with the group when the caller is checked: no read per lookup). A lookup
is charged per lookup whatever its result holds: protests are not priced apart, so the price does not change.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from uuid import UUID

from uuid_utils.compat import uuid7

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.ledger import LedgerClient, ReserveLookup
from bemtevi.commands.vendor_lookups import CACHE_SUPPLIER, Asked, Owner, VendorLookups
from bemtevi.commands.vendors import VendorDirectory
from bemtevi.domain.consultations import ConsultationStatus, purpose_of
from bemtevi.domain.customers import without_protests
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import DefaultQueryNotFound, DomainError, SearchFailed, SupplierFailed
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import QueryType, QueryTypeCatalogue
from bemtevi.domain.suppliers import Supplier
from bemtevi.domain.vendors import VendorConfig
from bemtevi.infra.blocking import blocking
from bemtevi.infra.kept_results import KeptResults
from bemtevi.infra.suppliers.vendor_error import VendorError
from bemtevi.infra.suppliers.vendor_pool import VendorPool

_Asked = tuple[ConsultationStatus, dict[str, Any] | None, Exception | None, str]

__all__ = ["CACHE_SUPPLIER", "ConsultationCommands", "ConsultationOutcome"]

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
    supplier: str = ""


class ConsultationCommands:
    """Unit lookups: validate, reserve a credit, ask the supplier, settle or release (through the ledger)."""

    def __init__(
        self,
        app: BemteviApplication,
        supplier: Supplier,
        ledger: LedgerClient,
        query_types: QueryTypeCatalogue,
        *,
        vendors: VendorDirectory | None = None,
        pool: VendorPool | None = None,
        kept: KeptResults | None = None,
    ) -> None:
        self._app = app
        self._supplier = supplier
        self.ledger = ledger
        # What a lookup's outcome says of its type (the ledger chose it on the same catalogue).
        self._query_types = query_types
        self.kept = kept
        # Asking the HTTP suppliers and keeping their answers: the path batches share (``VendorLookups``).
        self._lookups = None if vendors is None or pool is None else VendorLookups(vendors, pool, kept, query_types)

    @property
    def vendor_lookups(self) -> VendorLookups | None:
        return self._lookups

    def _request(
        self,
        principal: Principal,
        parsed: Document,
        query_type: str | None,
        channel: str,
        consultation_id: UUID | None = None,
        purpose: str | None = None,
    ) -> ReserveLookup:
        return ReserveLookup(
            # Time-ordered (UUIDv7), not random: a consultation is a new aggregate, and the event store's
            # index on aggregate ids, the kept results' and the read store's then grow at their end (one page
            # written per batch of lookups, not one random page per lookup). The id shows when it was made,
            # to the millisecond, which the consultation shows anyway.
            consultation_id=consultation_id or uuid7(),
            group_id=principal.group_id,
            user_id=principal.user_id,
            document=parsed.number,
            document_type=parsed.kind,
            requested_type=query_type,
            channel=channel,
            supplier=self._supplier.name,
            purpose=purpose,
        )

    async def run_unit_query_async(
        self,
        principal: Principal,
        document: str | Document,
        query_type: str | None = None,
        channel: str = "panel",
        *,
        consultation_id: UUID | None = None,
        purpose: str | None = None,
    ) -> ConsultationOutcome:
        """A unit lookup, awaited on the API's event loop: no thread is parked while the ledger works.
        ``document``: as sent, or already parsed (the public API's check parses it first);
        ``consultation_id``: the id to record it under, chosen beforehand (an ``Idempotency-Key``'s claim);
        ``purpose``: what the user said it is for (recorded with it; required by a group that says so)."""
        if query_type is None and not principal.uses_default_query:
            raise DefaultQueryNotFound(field="query_type")  # its customer form says: choose each lookup's type
        parsed = document if isinstance(document, Document) else Document.parse(document)
        request = self._request(principal, parsed, query_type, channel, consultation_id, purpose_of(purpose))
        asked: _Asked | None = None
        if self._supplier.answers_at_once:
            # The local supplier answers in a fraction of a millisecond: cheaper inline than a thread hop.
            asked = self._ask_supplier(request)
            if not self._may_ask_vendors(request, asked):
                answered = await self.ledger.submit_async(request.answered(asked[0]))
                chosen, created_on = answered.value
                return self._outcome(principal, request, parsed, chosen, asked, created_on, answered.position)
        drawn = self.ledger.try_draw(request)
        chosen, block_id = drawn if drawn is not None else (await self.ledger.submit_async(request)).value
        if asked is None:
            asked = self._ask_supplier(request)
        vendors: list[VendorConfig] = []
        try:
            if asked[0] == ConsultationStatus.NOT_FOUND and self._lookups is not None:
                vendors = self._lookups.vendors_for(chosen, request.document_type)
                if vendors:
                    answer = self._lookups.cached(request.document, chosen) or await self._lookups.ask_async(
                        request.document_type, request.document, vendors
                    )
                    asked = answer.as_tuple()
        except Exception as e:
            asked = self._failed_asking(request, vendors, e)
        status, _result, _error, supplier = asked
        recorded = await self.ledger.submit_async(self._finish(request, chosen, block_id, status, supplier))
        self._keep(request, chosen, asked, vendors)
        return self._outcome(principal, request, parsed, chosen, asked, recorded.value, recorded.position)

    # The same lookup from a thread with no event loop (the CLI, tests, benchmarks' client threads).
    run_unit_query = blocking(run_unit_query_async)

    def _may_ask_vendors(self, request: ReserveLookup, asked: _Asked) -> bool:
        """Whether the local dataset's answer leaves an HTTP supplier (or a kept result) to ask: then the
        lookup's credit is held first. Judged on the type the ledger will choose (the one asked for, or
        the document's default); the ledger still makes every check of the group."""
        if asked[0] != ConsultationStatus.NOT_FOUND or self._lookups is None:
            return False
        try:
            candidate = request.requested_type or self._query_types.default_for(request.document_type).key
        except DomainError:
            return False  # the ledger refuses it with the same message
        return bool(self._lookups.vendors_for(candidate, request.document_type))

    def _finish(
        self, request: ReserveLookup, chosen: str, block_id: str | None, status: ConsultationStatus, supplier: str
    ) -> Any:
        finish = request.finished(chosen, block_id, status)
        return finish if supplier == finish.supplier else replace(finish, supplier=supplier)

    def _failed_asking(self, request: ReserveLookup, vendors: list[VendorConfig], error: Exception) -> _Asked:
        """Anything that escapes asking the suppliers (a bug, a store that failed) fails the lookup: its
        credit held above is released by the finish that follows, never left reserved."""
        log.exception("lookup %s: asking the suppliers failed", request.consultation_id)
        return ConsultationStatus.FAILED, None, error, vendors[-1].name if vendors else self._supplier.name

    def _ask_supplier(self, request: ReserveLookup) -> _Asked:
        try:
            result = self._supplier.lookup(request.document_type, request.document)
        except Exception as e:
            log.exception("supplier %s failed", self._supplier.name)
            return ConsultationStatus.FAILED, None, e, self._supplier.name
        status = ConsultationStatus.DONE if result is not None else ConsultationStatus.NOT_FOUND
        return status, result, None, self._supplier.name

    def _keep(
        self,
        request: ReserveLookup,
        chosen: str,
        asked: _Asked,
        asked_vendors: list[VendorConfig],
    ) -> None:
        """Keep a vendor's found result for reopening and as a cache (``VendorLookups.keep``)."""
        if self._lookups is None:
            return
        self._lookups.keep(
            Owner(request.consultation_id, request.group_id, request.user_id),
            request.document,
            request.document_type,
            chosen,
            Asked(*asked),
            asked_vendors,
        )

    def _outcome(
        self,
        principal: Principal,
        request: ReserveLookup,
        document: Document,
        query_type: str,
        asked: _Asked,
        created_on: datetime,
        position: int,
    ) -> ConsultationOutcome:
        status, result, supplier_error, supplier = asked
        if isinstance(supplier_error, VendorError):
            raise SupplierFailed() from supplier_error
        if supplier_error is not None:
            raise SearchFailed() from supplier_error
        return ConsultationOutcome(
            consultation_id=request.consultation_id,
            document=document,
            query_type=self._query_types.get(query_type),
            status=status,
            # The charge is per lookup, whatever its result holds: hiding protests changes no price.
            result=result if principal.consults_protests else without_protests(result),
            created_at=created_on,
            position=position,
            supplier=supplier,
        )

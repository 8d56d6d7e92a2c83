"""Unit lookup: validate, check permission, ask the suppliers, and have the ledger charge and record it.

The credit side is the ledger's (``bemtevi.commands.ledger``). Two ways, by what has to be asked:
- the local dataset answers at once and costs nothing to ask (``Supplier.answers_at_once``): it is asked
  first, and when it finds the document (or no HTTP supplier could be asked after it) one request
  (``RecordLookup``) checks the group and its credit, charges the lookup if found and records the
  consultation, in one append: one round trip to the ledger per lookup;
- otherwise the lookup's credit is held before a slow or paid supplier is asked: a ``ReserveLookup``,
  then the matching ``FinishLookup`` (settle if found, release otherwise, the consultation recorded in
  the same append). In the embedded deployment a busy account's reserve-first lookups draw from a block
  reservation in memory (``LookupBlocks``).
The ledger client is this process's group commit (embedded) or the ledger workers behind Kafka (cluster).

Suppliers in order: the local dataset first; when it knows nothing of the document, a result kept
within the query type's cache days (``infra.kept_results``, recorded as supplier ``cache`` and charged
like any found result: the customer gets the report); then the active HTTP suppliers whose allowed
consultations include the query type, in the order they were added, until one finds the document.
Every vendor's found result is kept (write-behind) for reopening within the query type's validity
days. Only when a supplier that could answer failed and none found the document is the lookup FAILED
(its credit released) and answered ``SupplierFailed``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.identity import Principal
from bemtevi.commands.ledger import EmbeddedLedger, LedgerClient, LookupBlocks, ReserveLookup
from bemtevi.commands.vendors import VendorDirectory
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import DomainError, SearchFailed, SupplierFailed
from bemtevi.domain.query_types import QueryType, QueryTypeCatalogue
from bemtevi.domain.suppliers import Supplier
from bemtevi.domain.vendors import VendorConfig
from bemtevi.infra.kept_results import DAY, KeptResult, KeptResults
from bemtevi.infra.suppliers.http import VendorError, VendorPool

CACHE_SUPPLIER = "cache"
_Asked = tuple[ConsultationStatus, dict[str, Any] | None, Exception | None, str]

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
        self._vendors = vendors if pool is not None else None
        self._pool = pool
        self.kept = kept

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
        asked: _Asked | None = None
        if self._supplier.answers_at_once:
            asked = self._ask_supplier(request)
            if not self._may_ask_vendors(request, asked):
                answered = self.ledger.submit(request.answered(asked[0]))
                chosen, created_on = answered.value
                return self._outcome(request, parsed, chosen, asked, created_on, answered.position)
        drawn = self.ledger.try_draw(request)
        chosen, block_id = drawn if drawn is not None else self.ledger.submit(request).value
        if asked is None:
            asked = self._ask_supplier(request)
        vendors: list[VendorConfig] = []
        if asked[0] == ConsultationStatus.NOT_FOUND and self._vendors is not None:
            vendors = self._vendors.for_query_type(chosen, request.document_type)
            if vendors:
                asked = self._from_cache(request, chosen) or self._ask_vendors(request, vendors)
        status, result, _error, supplier = asked
        recorded = self.ledger.submit(self._finish(request, chosen, block_id, status, supplier))
        self._keep(request, chosen, result, supplier, vendors)
        return self._outcome(request, parsed, chosen, asked, recorded.value, recorded.position)

    async def run_unit_query_async(
        self, principal: Principal, document: str, query_type: str | None = None, channel: str = "panel"
    ) -> ConsultationOutcome:
        """The same lookup for the API's event loop: no thread is parked while the ledger works."""
        parsed = Document.parse(document)
        request = self._request(principal, parsed, query_type, channel)
        asked: _Asked | None = None
        if self._supplier.answers_at_once:
            # The local supplier answers in a fraction of a millisecond: cheaper inline than a thread hop.
            asked = self._ask_supplier(request)
            if not self._may_ask_vendors(request, asked):
                answered = await self.ledger.submit_async(request.answered(asked[0]))
                chosen, created_on = answered.value
                return self._outcome(request, parsed, chosen, asked, created_on, answered.position)
        drawn = self.ledger.try_draw(request)
        chosen, block_id = drawn if drawn is not None else (await self.ledger.submit_async(request)).value
        if asked is None:
            asked = self._ask_supplier(request)
        vendors: list[VendorConfig] = []
        if asked[0] == ConsultationStatus.NOT_FOUND and self._vendors is not None:
            vendors = self._vendors.for_query_type(chosen, request.document_type)
            if vendors:
                asked = self._from_cache(request, chosen) or await self._ask_vendors_async(request, vendors)
        status, result, _error, supplier = asked
        recorded = await self.ledger.submit_async(self._finish(request, chosen, block_id, status, supplier))
        self._keep(request, chosen, result, supplier, vendors)
        return self._outcome(request, parsed, chosen, asked, recorded.value, recorded.position)

    def _may_ask_vendors(self, request: ReserveLookup, asked: _Asked) -> bool:
        """Whether the local dataset's answer leaves an HTTP supplier (or a kept result) to ask: then the
        lookup's credit is held first. Judged on the type the ledger will choose (the one asked for, or
        the document's default); the ledger still makes every check of the group."""
        if asked[0] != ConsultationStatus.NOT_FOUND or self._vendors is None:
            return False
        try:
            candidate = request.requested_type or self._query_types.default_for(request.document_type).key
        except DomainError:
            return False  # the ledger refuses it with the same message
        return bool(self._vendors.for_query_type(candidate, request.document_type))

    def _finish(
        self, request: ReserveLookup, chosen: str, block_id: str | None, status: ConsultationStatus, supplier: str
    ) -> Any:
        finish = request.finished(chosen, block_id, status)
        return finish if supplier == finish.supplier else replace(finish, supplier=supplier)

    def _ask_supplier(self, request: ReserveLookup) -> _Asked:
        try:
            result = self._supplier.lookup(request.document_type, request.document)
        except Exception as e:
            log.exception("supplier %s failed", self._supplier.name)
            return ConsultationStatus.FAILED, None, e, self._supplier.name
        status = ConsultationStatus.DONE if result is not None else ConsultationStatus.NOT_FOUND
        return status, result, None, self._supplier.name

    def _from_cache(self, request: ReserveLookup, query_type: str) -> _Asked | None:
        if self.kept is None:
            return None
        kept = self.kept.fresh(request.document, query_type)
        if kept is None:
            return None
        return ConsultationStatus.DONE, kept.result, None, CACHE_SUPPLIER

    def _ask_vendors(self, request: ReserveLookup, vendors: list[VendorConfig]) -> _Asked:
        assert self._pool is not None
        failure: Exception | None = None
        for vendor in vendors:
            try:
                result = self._pool.lookup(vendor, request.document_type, request.document)
            except VendorError as e:
                log.warning("%s", e)
                failure = e
                continue
            if result is not None:
                return ConsultationStatus.DONE, result, None, vendor.name
        return self._nothing_found(failure, vendors)

    async def _ask_vendors_async(self, request: ReserveLookup, vendors: list[VendorConfig]) -> _Asked:
        assert self._pool is not None
        failure: Exception | None = None
        for vendor in vendors:
            try:
                result = await self._pool.lookup_async(vendor, request.document_type, request.document)
            except VendorError as e:
                log.warning("%s", e)
                failure = e
                continue
            if result is not None:
                return ConsultationStatus.DONE, result, None, vendor.name
        return self._nothing_found(failure, vendors)

    def _nothing_found(self, failure: Exception | None, vendors: list[VendorConfig]) -> _Asked:
        if failure is not None:
            return ConsultationStatus.FAILED, None, failure, vendors[-1].name
        return ConsultationStatus.NOT_FOUND, None, None, vendors[-1].name

    def _keep(
        self,
        request: ReserveLookup,
        chosen: str,
        result: dict[str, Any] | None,
        supplier: str,
        asked_vendors: list[VendorConfig],
    ) -> None:
        """Keep a vendor's found result for reopening and as a cache. Not the local dataset's: it is the
        platform's own data, read again from the dataset on reopening (no copy of personal data, and the
        hot path writes nothing more); nor one answered from the cache, which is kept already."""
        if result is None or self.kept is None or supplier in (CACHE_SUPPLIER, self._supplier.name):
            return
        query_type = self._query_types.get(chosen)
        cache_days, validity_days = query_type.cache_days, query_type.validity_days
        for vendor in asked_vendors:
            if vendor.name == supplier:  # a supplier's own days narrow the query type's
                cache_days = min(cache_days, vendor.cache_days)
                validity_days = min(validity_days, vendor.validity_days)
        now = time.time()
        self.kept.keep(
            KeptResult(
                consultation_id=request.consultation_id,
                group_id=request.group_id,
                user_id=request.user_id,
                document=request.document,
                document_type=request.document_type,
                query_type=chosen,
                supplier=supplier,
                result=result,
                created_at=now,
                cache_until=now + cache_days * DAY,
                valid_until=now + validity_days * DAY,
            )
        )

    def _outcome(
        self,
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
            result=result,
            created_at=created_on,
            position=position,
            supplier=supplier,
        )

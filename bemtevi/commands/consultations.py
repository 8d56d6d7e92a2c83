"""Unit lookup: validate, check permission, reserve a credit, ask the supplier, settle or release.

The credit side is the ledger's (``bemtevi.commands.ledger``): a lookup builds a ``ReserveLookup``
request, asks its supplier once the credit is held, and sends the matching ``FinishLookup`` (settle if
found, release otherwise, the consultation recorded in the same append). The ledger client is this
process's group commit (embedded; a busy account's lookups then draw from a block reservation in
memory, ``LookupBlocks``) or the ledger workers behind Kafka (cluster).

Suppliers in order: the local dataset first (inline: it answers in microseconds); when it knows
nothing of the document, a result kept within the query type's cache days (``infra.kept_results``,
recorded as supplier ``cache`` and charged like any found result: the customer gets the report);
then the active HTTP suppliers whose allowed consultations include the query type, in the order they
were added, until one finds the document. Every found result is kept (write-behind) for reopening
within the query type's validity days. Only when a supplier that could answer failed and none found
the document is the lookup FAILED (its credit released) and answered ``SupplierFailed``.
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
from bemtevi.domain.errors import SearchFailed, SupplierFailed
from bemtevi.domain.query_types import BUILT_IN_QUERY_TYPES, QueryType
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
        *,
        vendors: VendorDirectory | None = None,
        pool: VendorPool | None = None,
        kept: KeptResults | None = None,
    ) -> None:
        self._app = app
        self._supplier = supplier
        self.ledger = ledger
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
        drawn = self.ledger.try_draw(request)
        chosen, block_id = drawn if drawn is not None else self.ledger.submit(request).value
        asked = self._ask_supplier(request)
        if asked[0] == ConsultationStatus.NOT_FOUND and self._vendors is not None:
            vendors = self._vendors.for_query_type(chosen, request.document_type)
            if vendors:
                asked = self._from_cache(request, chosen) or self._ask_vendors(request, vendors)
        status, result, _error, supplier = asked
        recorded = self.ledger.submit(self._finish(request, chosen, block_id, status, supplier))
        self._keep(request, chosen, result, supplier)
        return self._outcome(request, parsed, chosen, asked, recorded.value, recorded.position)

    async def run_unit_query_async(
        self, principal: Principal, document: str, query_type: str | None = None, channel: str = "panel"
    ) -> ConsultationOutcome:
        """The same lookup for the API's event loop: no thread is parked while the ledger works."""
        parsed = Document.parse(document)
        request = self._request(principal, parsed, query_type, channel)
        drawn = self.ledger.try_draw(request)
        chosen, block_id = drawn if drawn is not None else (await self.ledger.submit_async(request)).value
        # The local supplier answers in a fraction of a millisecond: cheaper inline than a thread hop.
        asked = self._ask_supplier(request)
        if asked[0] == ConsultationStatus.NOT_FOUND and self._vendors is not None:
            vendors = self._vendors.for_query_type(chosen, request.document_type)
            if vendors:
                asked = self._from_cache(request, chosen) or await self._ask_vendors_async(request, vendors)
        status, result, _error, supplier = asked
        recorded = await self.ledger.submit_async(self._finish(request, chosen, block_id, status, supplier))
        self._keep(request, chosen, result, supplier)
        return self._outcome(request, parsed, chosen, asked, recorded.value, recorded.position)

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

    def _keep(self, request: ReserveLookup, chosen: str, result: dict[str, Any] | None, supplier: str) -> None:
        """Keep a vendor's found result for reopening and as a cache. Not the local dataset's: it is the
        platform's own data, read again from the dataset on reopening (no copy of personal data, and the
        hot path writes nothing more); nor one answered from the cache, which is kept already."""
        if result is None or self.kept is None or supplier in (CACHE_SUPPLIER, self._supplier.name):
            return
        query_type = BUILT_IN_QUERY_TYPES[chosen]
        cache_days, validity_days = query_type.cache_days, query_type.validity_days
        if supplier != self._supplier.name and self._vendors is not None:
            for vendor in self._vendors.for_query_type(chosen, request.document_type):
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
            query_type=BUILT_IN_QUERY_TYPES[query_type],
            status=status,
            result=result,
            created_at=created_on,
            position=position,
            supplier=supplier,
        )

"""Ask the HTTP suppliers for a document and keep what they find: the one path a unit lookup
(``commands.consultations``) and a batch (``streams.enrichment.VendorResolver``) share.

- ``vendors_for``: the active suppliers of a query type that take the document's kind, in their order;
- ``cached``: a result kept within its cache days (answered instead of asking anyone);
- ``ask_async``: each supplier in turn until one finds the document; a supplier that fails
  (``VendorError``) is passed over, and the answer is FAILED only when one failed and none found it;
- ``keep``: a supplier's found result kept (``infra.kept_results``) for the query type's cache and
  validity days, narrowed by the answering supplier's own, owned by the group (and user) it was asked
  for, under the id that reopens it (a consultation's, or a batch record's ``kept_result_id``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from bemtevi.commands.vendors import VendorDirectory
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.query_types import DocumentKind, QueryTypeCatalogue
from bemtevi.domain.vendors import VendorConfig
from bemtevi.infra.kept_results import DAY, KeptResult, KeptResults
from bemtevi.infra.suppliers.vendor_error import VendorError
from bemtevi.infra.suppliers.vendor_pool import VendorPool

CACHE_SUPPLIER = "cache"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Asked:
    """What asking gave: the status, the result (when found), the failure (when failed) and who answered."""

    status: ConsultationStatus
    result: dict[str, Any] | None
    error: Exception | None
    supplier: str

    def as_tuple(self) -> tuple[ConsultationStatus, dict[str, Any] | None, Exception | None, str]:
        return self.status, self.result, self.error, self.supplier


@dataclass(frozen=True, slots=True)
class Owner:
    """Whose a kept result is: the id that reopens it, the group (and user) that may reopen it."""

    result_id: UUID
    group_id: UUID
    user_id: UUID | None


class VendorLookups:
    def __init__(
        self,
        vendors: VendorDirectory,
        pool: VendorPool,
        kept: KeptResults | None,
        query_types: QueryTypeCatalogue,
    ) -> None:
        self._vendors = vendors
        self.pool = pool
        self.kept = kept
        self._query_types = query_types

    def vendors_for(self, query_type: str, document_kind: DocumentKind) -> list[VendorConfig]:
        return self._vendors.for_query_type(query_type, document_kind)

    def cached(self, document: str, query_type: str) -> Asked | None:
        if self.kept is None:
            return None
        kept = self.kept.fresh(document, query_type)
        if kept is None:
            return None
        return Asked(ConsultationStatus.DONE, kept.result, None, CACHE_SUPPLIER)

    async def ask_async(self, document_kind: DocumentKind, document: str, vendors: list[VendorConfig]) -> Asked:
        failure: Exception | None = None
        for vendor in vendors:
            try:
                result = await self.pool.lookup_async(vendor, document_kind, document)
            except VendorError as e:
                log.warning("%s", e)
                failure = e
                continue
            if result is not None:
                return Asked(ConsultationStatus.DONE, result, None, vendor.name)
        return _nothing_found(failure, vendors)

    def keep(
        self,
        owner: Owner,
        document: str,
        document_kind: DocumentKind,
        query_type: str,
        asked: Asked,
        vendors: list[VendorConfig],
    ) -> None:
        """Keep a supplier's found result. Not one answered from the cache (kept already) nor by anyone but
        the suppliers asked (the local dataset's is the platform's own data, read again on reopening)."""
        answering = next((v for v in vendors if v.name == asked.supplier), None)
        if asked.result is None or self.kept is None or asked.supplier == CACHE_SUPPLIER or answering is None:
            return
        kind = self._query_types.get(query_type)
        cache_days = min(kind.cache_days, answering.cache_days)
        validity_days = min(kind.validity_days, answering.validity_days)
        now = time.time()
        self.kept.keep(
            KeptResult(
                consultation_id=owner.result_id,
                group_id=owner.group_id,
                user_id=owner.user_id,
                document=document,
                document_type=document_kind,
                query_type=query_type,
                supplier=asked.supplier,
                result=asked.result,
                created_at=now,
                cache_until=now + cache_days * DAY,
                valid_until=now + validity_days * DAY,
            )
        )


def _nothing_found(failure: Exception | None, vendors: list[VendorConfig]) -> Asked:
    if failure is not None:
        return Asked(ConsultationStatus.FAILED, None, failure, vendors[-1].name)
    return Asked(ConsultationStatus.NOT_FOUND, None, None, vendors[-1].name)

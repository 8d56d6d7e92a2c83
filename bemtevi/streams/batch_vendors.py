"""The suppliers a batch asks for the valid documents the dataset lacks (``run_batch``'s ``resolve_missing``),
through the unit lookup's one path (``commands.vendor_lookups.VendorLookups``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bemtevi.commands.vendor_lookups import Owner, VendorLookups
from bemtevi.domain.batches import kept_result_id
from bemtevi.domain.query_types import DocumentKind
from bemtevi.streams.enrichment import BatchJob


class VendorResolver:
    """``run_batch``'s ``resolve_missing`` for one batch: the valid documents the dataset lacks, asked as a unit
    lookup asks them (``commands.vendor_lookups.VendorLookups``, the one path): a result kept within its cache
    days first, then the active HTTP suppliers of the batch's query type in their order (the first that finds it
    wins, a failing one is passed over), at most ``concurrency`` documents in flight. What a supplier finds is kept
    like a unit lookup's result (same store, key and days), owned by the batch's group under
    ``kept_result_id(batch, document)``, so a later lookup within the cache days is answered from it and
    ``query-result`` reopens it. A supplier's failure is that document not found (the batch goes on). A batch
    without a query type asks no supplier."""

    def __init__(self, lookups: VendorLookups, concurrency: int = 16) -> None:
        self._lookups = lookups
        self._concurrency = max(1, concurrency)

    def for_batch(self, job: BatchJob) -> Callable[[list[str]], dict[str, dict[str, Any]]] | None:
        query_type = job.inputs.get("query_type")
        if not query_type:
            return None
        return lambda documents: self.resolve(job, str(query_type), documents)

    def resolve(self, job: BatchJob, query_type: str, documents: list[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        ask: list[tuple[str, list[Any]]] = []
        for document in documents:
            kept = self._lookups.cached(document, query_type)
            if kept is not None and kept.result is not None:
                found[document] = kept.result
                continue
            vendors = self._lookups.vendors_for(query_type, _kind(document))
            if vendors:
                ask.append((document, vendors))
        if ask:
            found.update(asyncio.run(self._ask_all(job, query_type, ask)))
        return found

    async def _ask_all(
        self, job: BatchJob, query_type: str, ask: list[tuple[str, list[Any]]]
    ) -> dict[str, dict[str, Any]]:
        bound = asyncio.Semaphore(self._concurrency)
        answers: dict[str, dict[str, Any]] = {}

        async def one(document: str, vendors: list[Any]) -> None:
            async with bound:
                asked = await self._lookups.ask_async(_kind(document), document, vendors)
            if asked.result is not None:
                answers[document] = asked.result
                if job.group_id is not None:
                    owner = Owner(kept_result_id(job.id, document), job.group_id, job.user_id)
                    self._lookups.keep(owner, document, _kind(document), query_type, asked, vendors)

        await asyncio.gather(*(one(document, vendors) for document, vendors in ask))
        return answers


def _kind(document: str) -> DocumentKind:
    return "cpf" if len(document) == 11 else "cnpj"

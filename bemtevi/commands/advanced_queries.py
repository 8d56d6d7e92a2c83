"""The advanced query (issue 36): search the local dataset's people and companies, list the matches, open one.

- ``search``: the criteria validated (``domain.advanced_query``), the group's configuration and advanced credit
  checked, the index asked (``infra.suppliers.search_index``) and the search recorded as an ``AdvancedSearch``
  (who, which group, which criteria, how many matched). Free: nothing is charged for a list.
- ``results``: a page of a recorded search's matches, of this group only, showing ``LIST_FIELDS`` alone.
- ``open_async``: one match opened is a consultation of its document on the ``advanced`` channel: the ledger
  charges one advanced credit and records it (the data-subject report lists it); its id is the search's and
  the document's, so opening it again is not charged again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.consultations import ConsultationOutcome
from bemtevi.commands.ledger import LedgerClient
from bemtevi.commands.ledger.requests import ADVANCED_CHANNEL, RecordLookup
from bemtevi.domain.advanced_errors import AdvancedNotConfigured, AdvancedSearchNotFound
from bemtevi.domain.advanced_query import (
    CREDITS_PER_RESULT,
    AdvancedCriteria,
    AdvancedSearch,
    advanced_consultation_id,
    fold,
    mask_document,
)
from bemtevi.domain.audit import acting_as
from bemtevi.domain.consultations import ConsultationStatus, purpose_of
from bemtevi.domain.credit_figures import NOT_ENOUGH_MESSAGES
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.customers import without_protests
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import (
    DomainError,
    GroupInactive,
    GroupNotFound,
    NotEnoughCredits,
    SearchFailed,
)
from bemtevi.domain.groups import Group
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import DOCUMENT_KINDS, Category, QueryTypeCatalogue
from bemtevi.domain.suppliers import Supplier
from bemtevi.infra.suppliers.search_index import Match, SearchIndex

SORTS = ("name", "city", "state", "kind")
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    search_id: UUID
    total: int
    capped: bool  # more matched than are listed: more criteria narrow it
    available: int | None  # the group's advanced credits left (None: unlimited), shown beside the cost
    position: int


@dataclass(frozen=True, slots=True)
class ResultPage:
    rows: list[dict[str, Any]]
    total: int
    capped: bool
    criteria: dict[str, str]


class AdvancedQueryCommands:
    def __init__(
        self,
        app: BemteviApplication,
        index: SearchIndex,
        supplier: Supplier,
        ledger: LedgerClient,
        query_types: QueryTypeCatalogue,
    ) -> None:
        self._app = app
        self._index = index
        self._supplier = supplier
        self._ledger = ledger
        self._query_types = query_types

    def search(self, principal: Principal, raw: dict[str, Any]) -> SearchOutcome:
        criteria = AdvancedCriteria.parse(raw)
        kinds = self._configured(principal.group_id)
        available = self._available(principal.group_id)
        matches, capped = self._matches(criteria, kinds)
        with acting_as(principal.actor):
            search = AdvancedSearch(
                group_id=principal.group_id,
                user_id=principal.user_id,
                criteria=criteria.recorded(),
                matches=len(matches),
            )
            position = self._app.save_all(search)
        return SearchOutcome(search.id, len(matches), capped, available, position)

    def results(
        self, principal: Principal, search_id: UUID, offset: int, size: int, sort: str = "name", desc: bool = False
    ) -> ResultPage:
        search = self._search_of(principal, search_id)
        matches, capped = self._matches(search.criteria_value(), self._configured(principal.group_id))
        key = sort if sort in SORTS else "name"
        ordered = sorted(matches, key=lambda m: (fold(str(getattr(m, key))), m.ref), reverse=desc)
        rows = [_row(m) for m in ordered[offset : offset + size]]
        return ResultPage(rows, len(matches), capped, dict(search.criteria))

    async def open_async(
        self, principal: Principal, search_id: UUID, ref: int, purpose: str | None = None
    ) -> ConsultationOutcome:
        """``purpose``: what the user said the opening is for (recorded with it; required by a group that says so)."""
        said = purpose_of(purpose)
        search = self._search_of(principal, search_id)
        match = self._index.match(search.criteria_value(), self._configured(principal.group_id), ref)
        if match is None:
            raise AdvancedSearchNotFound(field="ref")
        document = Document.parse(match.document)
        try:
            result = self._supplier.lookup(document.kind, document.number)
        except Exception as e:
            raise SearchFailed() from e
        status = ConsultationStatus.DONE if result is not None else ConsultationStatus.NOT_FOUND
        request = RecordLookup(
            consultation_id=advanced_consultation_id(search_id, document.number),
            group_id=principal.group_id,
            user_id=principal.user_id,
            document=document.number,
            document_type=document.kind,
            requested_type=None,
            channel=ADVANCED_CHANNEL,
            supplier=self._supplier.name,
            status=status.value,
            purpose=said,
        )
        answered = await self._ledger.submit_async(request)
        chosen, created_on = answered.value
        return ConsultationOutcome(
            consultation_id=request.consultation_id,
            document=document,
            query_type=self._query_types.get(chosen),
            status=status,
            result=result if principal.consults_protests else without_protests(result),
            created_at=created_on,
            position=answered.position,
            supplier=self._supplier.name,
        )

    # -- checks ----------------------------------------------------------------------------------------

    def _configured(self, group_id: UUID) -> frozenset[str]:
        """The document kinds a group's searches list: those whose default query type (what an opened result
        runs) is enabled for it; none is the spec's 'No advanced layout or query configuration found'."""
        group = self._app.find_readonly(group_id, Group)
        if group is None:
            raise GroupNotFound()
        if not group.active:
            raise GroupInactive()
        enabled = frozenset(group.enabled_query_types)
        kinds = set()
        for kind in DOCUMENT_KINDS:
            try:
                default = self._query_types.default_for(kind)
            except DomainError:
                continue
            if default.active and default.key in enabled:
                kinds.add(kind)
        if not kinds:
            raise AdvancedNotConfigured()
        return frozenset(kinds)

    def _available(self, group_id: UUID) -> int | None:
        """The advanced credits left; a group with none is refused before anything is searched."""
        account = self._app.find_readonly(credit_account_id(group_id, Category.ADVANCED), CreditAccount)
        available = None if account is None else account.available
        if account is None or (available is not None and available < CREDITS_PER_RESULT):
            raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[Category.ADVANCED])
        return available

    def _search_of(self, principal: Principal, search_id: UUID) -> AdvancedSearch:
        search = self._app.find_readonly(search_id, AdvancedSearch)
        if search is None or search.group_id != principal.group_id:
            raise AdvancedSearchNotFound()  # another tenant's search is not told apart from none
        return search

    def close(self) -> None:
        self._index.close()

    def _matches(self, criteria: AdvancedCriteria, kinds: frozenset[str]) -> tuple[list[Match], bool]:
        try:
            return self._index.search(criteria, sorted(kinds))
        except Exception as e:  # the index missing or unreadable: the spec's 'Error performing search'
            # The customer sees that message; the operator needs the cause (no dataset, the database unreachable).
            log.exception("advanced search: the index failed")
            raise SearchFailed() from e


def _row(match: Match) -> dict[str, Any]:
    return {
        "ref": match.ref,
        "kind": match.kind,
        "name": match.name,
        "maskedDocument": mask_document(match.document, match.kind),
        "city": match.city,
        "state": match.state,
    }

"""The public API's lookups: the unit lookup's own command path (``ConsultationCommands``), on the ``api``
channel (charged to the group's API credits by the ledger), after the one check only a token has: the query
types it may run."""

from __future__ import annotations

from bemtevi.commands.api_tokens import ApiCaller
from bemtevi.commands.consultations import ConsultationCommands, ConsultationOutcome
from bemtevi.commands.ledger.requests import API_CHANNEL
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import TokenQueryNotAllowed
from bemtevi.domain.query_types import QueryTypeCatalogue


class ApiLookups:
    def __init__(self, consultations: ConsultationCommands, query_types: QueryTypeCatalogue) -> None:
        self._consultations = consultations
        self._query_types = query_types

    def check(self, caller: ApiCaller, document: str, query_type: str | None) -> None:
        """Refuses a query type the token may not run (the document's default one when none is named); every
        other rule (the document, the group's types, its credits) is the lookup's own, decided after."""
        kind = Document.parse(document).kind
        key = query_type or self._query_types.default_for(kind).key
        if key not in caller.query_types:
            raise TokenQueryNotAllowed(field="queryType")

    async def lookup(self, caller: ApiCaller, document: str, query_type: str | None) -> ConsultationOutcome:
        self.check(caller, document, query_type)
        return await self._consultations.run_unit_query_async(
            caller.principal, document, query_type, channel=API_CHANNEL
        )

"""The public API's lookups: the unit lookup's own command path (``ConsultationCommands``), on the ``api``
channel (charged to the group's API credits by the ledger), after the one check only a token has: the query
types it may run. With an ``Idempotency-Key``, a retry answers the first lookup's outcome, read again from
what it recorded (its consultation; its result from the kept results or the local dataset), uncharged."""

from __future__ import annotations

from uuid import UUID

from bemtevi.commands.api_tokens import ApiCaller
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.consultations import ConsultationCommands, ConsultationOutcome
from bemtevi.commands.idempotency import IdempotentRequests
from bemtevi.commands.ledger.requests import API_CHANNEL
from bemtevi.domain.api_client_errors import TokenQueryNotAllowed
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.customers import without_protests
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import DefaultQueryNotFound, SearchFailed
from bemtevi.domain.query_types import QueryTypeCatalogue
from bemtevi.domain.suppliers import Supplier

LOOKUP_OPERATION = "POST /api/v1/lookups"


class ApiLookups:
    def __init__(
        self,
        app: BemteviApplication,
        consultations: ConsultationCommands,
        query_types: QueryTypeCatalogue,
        supplier: Supplier,
        idempotency: IdempotentRequests,
    ) -> None:
        self._app = app
        self._consultations = consultations
        self._query_types = query_types
        self._supplier = supplier
        self.idempotency = idempotency

    def check(self, caller: ApiCaller, document: str, query_type: str | None) -> Document:
        """Refuses a query type the token may not run (the document's default one when none is named); every
        other rule (the group's types, its credits) is the lookup's own, decided after. Answers the document
        parsed, which the lookup takes as it is (one parse per lookup)."""
        if query_type is None and not caller.principal.uses_default_query:
            raise DefaultQueryNotFound(field="queryType")  # the group's lookups name their type
        parsed = Document.parse(document)
        key = query_type or self._query_types.default_for(parsed.kind).key
        if key not in caller.query_types:
            raise TokenQueryNotAllowed(field="queryType")
        return parsed

    async def lookup(
        self,
        caller: ApiCaller,
        document: str,
        query_type: str | None,
        *,
        idempotency_key: str | None = None,
        body: bytes = b"",
        purpose: str | None = None,
    ) -> ConsultationOutcome:
        parsed = self.check(caller, document, query_type)

        async def first(consultation_id: UUID | None = None) -> ConsultationOutcome:
            return await self._consultations.run_unit_query_async(
                caller.principal,
                parsed,
                query_type,
                channel=API_CHANNEL,
                consultation_id=consultation_id,
                purpose=purpose,
            )

        if idempotency_key is None:
            return await first()
        return await self.idempotency.run(
            caller,
            idempotency_key,
            LOOKUP_OPERATION,
            body,
            first,
            lambda consultation_id: self.replay(consultation_id, caller.principal.consults_protests),
            lambda outcome: outcome.consultation_id,
            lambda consultation_id: self._app.find(consultation_id, Consultation) is not None,
        )

    def replay(self, consultation_id: UUID, protests: bool = True) -> ConsultationOutcome:
        """A recorded lookup's outcome again: its consultation, and its result read again (free); ``protests``:
        whether the group sees them now."""
        consultation = self._app.get(consultation_id, Consultation)
        result = None
        if consultation.status == ConsultationStatus.DONE:
            kept = self._consultations.kept.get(consultation_id) if self._consultations.kept is not None else None
            if kept is not None:
                result = kept.result
            elif consultation.supplier == self._supplier.name:
                result = self._supplier.lookup(consultation.document_type, consultation.document)  # type: ignore[arg-type]
            if result is None:
                raise SearchFailed()  # past its validity: the result is gone (LGPD), the lookup stays charged
        return ConsultationOutcome(
            consultation_id=consultation_id,
            document=Document.parse(consultation.document),
            query_type=self._query_types.get(consultation.query_type),
            status=consultation.status,
            result=result if protests else without_protests(result),
            created_at=consultation.created_on,
            position=self._app.max_position(),
            supplier=consultation.supplier,
        )

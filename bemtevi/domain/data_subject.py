"""A data-subject report (LGPD art. 18, 37): every consultation of one CPF or CNPJ in every tenant.

Reading it is itself a use of that person's data, so each report run is recorded (who asked, for which
document, how many consultations it listed): the audit log shows it like any change.
"""

from __future__ import annotations

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.documents import Document


class DataSubjectReport(AuditedAggregate):
    class Requested(AuditedAggregate.Created):
        document: str
        document_type: str
        consultations: int
        export: str | None

    @event(Requested)
    def __init__(self, document: str, document_type: str, consultations: int, export: str | None) -> None:
        self.document = document
        self.document_type = document_type
        self.consultations = consultations
        self.export = export

    @classmethod
    def request(cls, document: Document, consultations: int, export: str | None = None) -> DataSubjectReport:
        return cls(document=document.number, document_type=document.kind, consultations=consultations, export=export)

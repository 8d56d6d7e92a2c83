"""Records that a data-subject report was read (the report itself is a read: ``projections.data_subject``)."""

from __future__ import annotations

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.data_subject import DataSubjectReport
from bemtevi.domain.documents import Document


def record_data_subject_report(
    app: BemteviApplication, actor: Actor, document: Document, consultations: int, export: str | None = None
) -> int:
    """Append the report's run (who, which document, how many consultations, exported as what); its position."""
    with acting_as(actor):
        return app.save_all(DataSubjectReport.request(document, consultations, export))

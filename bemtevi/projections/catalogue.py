"""All read models kept by the projector, in one DuckDB file and one tracking position."""

from __future__ import annotations

from bemtevi.projections.api_tokens import ApiTokensReadModel
from bemtevi.projections.audit import AuditReadModel
from bemtevi.projections.base import ReadModel
from bemtevi.projections.batches import BatchesReadModel
from bemtevi.projections.consultations import ConsultationsReadModel
from bemtevi.projections.credits import CreditsReadModel
from bemtevi.projections.data_subject import LookedUp, SubjectBatchesReadModel
from bemtevi.projections.directory import DirectoryReadModel
from bemtevi.projections.enrichment import EnrichmentCatalogueReadModel
from bemtevi.projections.mail import MailOutboxReadModel
from bemtevi.projections.reports import ReportsReadModel
from bemtevi.projections.suppliers import SuppliersReadModel
from bemtevi.projections.users import UsersReadModel


def all_read_models(looked_up: LookedUp) -> list[ReadModel]:
    """``looked_up``: what a batch's run looked up, from the batches' folder (``BatchFiles.looked_up``)."""
    return [
        DirectoryReadModel(),
        ConsultationsReadModel(),
        CreditsReadModel(),
        AuditReadModel(),
        UsersReadModel(),
        MailOutboxReadModel(),
        EnrichmentCatalogueReadModel(),
        SuppliersReadModel(),
        BatchesReadModel(),
        ApiTokensReadModel(),
        ReportsReadModel(),
        SubjectBatchesReadModel(looked_up),
    ]

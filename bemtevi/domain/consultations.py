"""Consultation: one lookup of one document, the LGPD record of who consulted what."""

from __future__ import annotations

from enum import StrEnum
from uuid import UUID

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.errors import TextTooLong

# A consultation's purpose (LGPD art. 6 I, 37): what its user said it was for, a short free text shown in the
# data-subject report. A line of words, not a document: a paragraph belongs elsewhere.
PURPOSE_MAX = 200


def purpose_of(text: str | None, *, field: str = "purpose") -> str | None:
    """A purpose as recorded: its words joined by single spaces (no line breaks, no edge blanks); None when
    nothing was said; longer than ``PURPOSE_MAX`` refused."""
    words = " ".join((text or "").split())
    if len(words) > PURPOSE_MAX:
        raise TextTooLong(PURPOSE_MAX, field=field)
    return words or None


class ConsultationStatus(StrEnum):
    DONE = "done"  # found and charged
    NOT_FOUND = "not_found"  # nothing known about the document: released, not charged
    FAILED = "failed"  # the supplier failed: released, not charged


class Consultation(AuditedAggregate):
    class Recorded(AuditedAggregate.Created):
        group_id: UUID
        user_id: UUID | None
        document: str
        document_type: str
        query_type: str
        category: str
        supplier: str
        status: str
        credits: int
        channel: str
        lease_id: str | None
        purpose: str | None

    @event(Recorded)
    def __init__(
        self,
        group_id: UUID,
        user_id: UUID | None,
        document: str,
        document_type: str,
        query_type: str,
        category: str,
        supplier: str,
        status: str,
        credits: int,
        channel: str,
        lease_id: str | None = None,  # the lease (cluster mode) whose unit it took; optional, as older events have none
        purpose: str | None = None,  # what the user said it was for (``purpose_of``); older events have none
    ) -> None:
        self.group_id = group_id
        self.user_id = user_id
        self.document = document
        self.document_type = document_type
        self.query_type = query_type
        self.category = category
        self.supplier = supplier
        self.status = ConsultationStatus(status)
        self.credits = credits
        self.channel = channel
        self.lease_id = lease_id
        self.purpose = purpose

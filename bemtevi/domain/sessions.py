"""Session: one sign-in. The bearer token names it; logout closes it for good."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate


class Session(AuditedAggregate):
    class Opened(AuditedAggregate.Created):
        user_id: UUID
        group_id: UUID
        role: str
        expires_at: datetime

    @event(Opened)
    def __init__(self, user_id: UUID, group_id: UUID, role: str, expires_at: datetime) -> None:
        self.user_id = user_id
        self.group_id = group_id
        self.role = role
        self.expires_at = expires_at
        self.closed = False

    def is_open(self, now: datetime) -> bool:
        return not self.closed and now < self.expires_at

    class Closed(AuditedAggregate.Event):
        reason: str

    @event(Closed)
    def close(self, reason: str) -> None:
        self.closed = True
        self.close_reason = reason

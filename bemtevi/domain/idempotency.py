"""IdempotentRequest: an ``Idempotency-Key`` a token sent with a lookup or a batch submission.

Its id is uuid5 of the token and the key, so retries of one request (from any API process, in either
deployment) meet on one aggregate in the event store: the first claim wins the append, the others collide on
its version and wait for its outcome. It names, at its claim, the resource the request makes (a lookup's
consultation id), so that a claim whose process died can still be answered from what it recorded instead of
running (and charging) again. Kept ``KEEP`` (24 h): a key sent later starts a new request.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate

_NAMESPACE = uuid5(NAMESPACE_URL, "https://bemtevi.example/idempotency-keys")
KEEP = timedelta(hours=24)
# A claim still unanswered this long after it was made is taken for its process's death (a lookup's whole
# deadline, vendors' retries included, is far shorter).
STALE_AFTER = timedelta(minutes=2)
KEY_MAX = 255


def idempotent_request_id(token_id: UUID, key: str) -> UUID:
    return uuid5(_NAMESPACE, f"{token_id}:{key}")


def valid_key(key: str) -> bool:
    """A key as clients send them (a UUID, usually): 1 to 255 visible ASCII characters."""
    return 0 < len(key) <= KEY_MAX and all(33 <= ord(c) <= 126 for c in key)


class IdempotentRequest(AuditedAggregate):
    class Claimed(AuditedAggregate.Created):
        token_id: UUID
        operation: str
        fingerprint: str
        resource_id: UUID
        claimed_at: datetime

    @event(Claimed)
    def __init__(
        self, token_id: UUID, operation: str, fingerprint: str, resource_id: UUID, claimed_at: datetime
    ) -> None:
        self.token_id = token_id
        self._claim(operation, fingerprint, resource_id, claimed_at)

    def _claim(self, operation: str, fingerprint: str, resource_id: UUID, claimed_at: datetime) -> None:
        self.operation = operation
        self.fingerprint = fingerprint
        self.resource_id = resource_id
        self.claimed_at = claimed_at
        self.answered: UUID | None = None
        self.released = False

    @classmethod
    def claim(
        cls, token_id: UUID, key: str, operation: str, fingerprint: str, resource_id: UUID, now: datetime
    ) -> IdempotentRequest:
        return cls._create(
            cls.Claimed,
            id=idempotent_request_id(token_id, key),
            token_id=token_id,
            operation=operation,
            fingerprint=fingerprint,
            resource_id=resource_id,
            claimed_at=now,
        )

    class Reclaimed(AuditedAggregate.Event):
        operation: str
        fingerprint: str
        resource_id: UUID
        claimed_at: datetime

    @event(Reclaimed)
    def reclaim(self, operation: str, fingerprint: str, resource_id: UUID, claimed_at: datetime) -> None:
        """A new request under the key: the old one expired, or was released (refused, nothing charged)."""
        self._claim(operation, fingerprint, resource_id, claimed_at)

    class Answered(AuditedAggregate.Event):
        resource_id: UUID

    @event(Answered)
    def answer(self, resource_id: UUID) -> None:
        """The request's outcome: the resource it made (the consultation, the batch); retries answer it."""
        self.answered = resource_id

    class Released(AuditedAggregate.Event):
        pass

    @event(Released)
    def release(self) -> None:
        """The request was refused or failed (nothing charged): a retry runs it again."""
        self.released = True

    def expired(self, now: datetime) -> bool:
        return now - self.claimed_at >= KEEP

    def stale(self, now: datetime) -> bool:
        return self.answered is None and not self.released and now - self.claimed_at >= STALE_AFTER

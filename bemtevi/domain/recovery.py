"""PasswordRecovery: one "forgot password" request and its 6-digit code.

Only a keyed hash of the code is stored (the command computes it); the code itself travels in
the recovery mail queued in the same append. A code works for ``expires_at``, once, and stops
working after ``MAX_CODE_FAILURES`` wrong tries.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from uuid import UUID

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate

MAX_CODE_FAILURES = 5
CODE_DIGITS = 6


def new_unique_key() -> str:
    return secrets.token_hex(16)


def new_code() -> str:
    """A uniformly random 6-digit code (leading zeros kept)."""
    return f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"


class PasswordRecovery(AuditedAggregate):
    class Requested(AuditedAggregate.Created):
        user_id: UUID
        code_hash: str
        unique_key: str
        expires_at: datetime

    @event(Requested)
    def __init__(self, user_id: UUID, code_hash: str, unique_key: str, expires_at: datetime) -> None:
        self.user_id = user_id
        self.code_hash = code_hash
        self.unique_key = unique_key
        self.expires_at = expires_at
        self.failures = 0
        self.verified = False
        self.completed = False

    @classmethod
    def request(cls, *, user_id: UUID, code_hash: str, unique_key: str, expires_at: datetime) -> PasswordRecovery:
        return cls(user_id=user_id, code_hash=code_hash, unique_key=unique_key, expires_at=expires_at)

    def usable(self, now: datetime) -> bool:
        return not self.completed and self.failures < MAX_CODE_FAILURES and now < self.expires_at

    class CodeFailed(AuditedAggregate.Event):
        pass

    @event(CodeFailed)
    def code_failed(self) -> None:
        self.failures += 1

    class CodeVerified(AuditedAggregate.Event):
        pass

    @event(CodeVerified)
    def code_verified(self) -> None:
        self.verified = True

    class Completed(AuditedAggregate.Event):
        pass

    @event(Completed)
    def complete(self) -> None:
        """The password was redefined: the code is spent."""
        self.completed = True

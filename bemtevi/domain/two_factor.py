"""SignInChallenge: a sign-in whose password was right, waiting for the code mailed to the user (two-factor).

A group may require it (``Group.two_factor``). Only a keyed hash of the code is kept, with the random key it was
hashed under (as ``PasswordRecovery`` does); the code travels in the mail queued in the same append. The challenge
lives in the event store, so whichever API process gets the code checks the same challenge. A code works until
``expires_at``, once (``Verified``, appended with the session it opens), and ``MAX_FAILURES`` wrong tries lock the
challenge; a resend (no sooner than ``RESEND_AFTER``, at most ``MAX_SENDS`` codes in all) replaces the code and
its expiry. API tokens never meet a challenge: they are not signed in with a password.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from uuid import UUID

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.errors import DomainError
from bemtevi.domain.two_factor_errors import (
    TwoFactorCodeExpired,
    TwoFactorCodeUsed,
    TwoFactorLocked,
    TwoFactorResendTooSoon,
)

CODE_TTL = timedelta(minutes=10)
RESEND_AFTER = timedelta(seconds=30)
MAX_FAILURES = 5
MAX_SENDS = 4  # the first code and three resends: then sign in again


class ChallengeState(StrEnum):
    OPEN = "open"
    EXPIRED = "expired"
    USED = "used"
    LOCKED = "locked"


_REFUSALS: dict[ChallengeState, type[DomainError]] = {
    ChallengeState.EXPIRED: TwoFactorCodeExpired,
    ChallengeState.USED: TwoFactorCodeUsed,
    ChallengeState.LOCKED: TwoFactorLocked,
}


class SignInChallenge(AuditedAggregate):
    class Requested(AuditedAggregate.Created):
        user_id: UUID
        group_id: UUID
        code_hash: str
        hash_key: str
        sent_at: datetime
        expires_at: datetime

    @event(Requested)
    def __init__(
        self, user_id: UUID, group_id: UUID, code_hash: str, hash_key: str, sent_at: datetime, expires_at: datetime
    ) -> None:
        self.user_id = user_id
        self.group_id = group_id
        self.code_hash = code_hash
        self.hash_key = hash_key
        self.sent_at = sent_at
        self.expires_at = expires_at
        self.sends = 1
        self.failures = 0
        self.verified = False

    @classmethod
    def request(cls, *, user_id: UUID, group_id: UUID, code_hash: str, hash_key: str, now: datetime) -> SignInChallenge:
        return cls(
            user_id=user_id,
            group_id=group_id,
            code_hash=code_hash,
            hash_key=hash_key,
            sent_at=now,
            expires_at=now + CODE_TTL,
        )

    def state(self, now: datetime) -> ChallengeState:
        """Spent first (a used code says so even once expired), then locked, then expired."""
        if self.verified:
            return ChallengeState.USED
        if self.failures >= MAX_FAILURES:
            return ChallengeState.LOCKED
        if now >= self.expires_at:
            return ChallengeState.EXPIRED
        return ChallengeState.OPEN

    def refusal(self, now: datetime) -> DomainError | None:
        """Why no code is accepted now (None: the right code would be)."""
        refused = _REFUSALS.get(self.state(now))
        return refused() if refused else None

    def resend_wait(self, now: datetime) -> int:
        """Whole seconds until a new code may be sent (0: now)."""
        left = (self.sent_at + RESEND_AFTER - now).total_seconds()
        return max(0, int(-(-left // 1)))

    def resend_refusal(self, now: datetime) -> DomainError | None:
        """Why no new code is sent now: a spent or locked challenge, every code sent, or too soon."""
        state = self.state(now)
        if state == ChallengeState.USED:
            return TwoFactorCodeUsed()
        if state == ChallengeState.LOCKED or self.sends >= MAX_SENDS:
            return TwoFactorLocked()
        wait = self.resend_wait(now)
        return TwoFactorResendTooSoon(wait) if wait else None

    class CodeResent(AuditedAggregate.Event):
        code_hash: str
        hash_key: str
        sent_at: datetime

    @event(CodeResent)
    def resend(self, code_hash: str, hash_key: str, sent_at: datetime) -> None:
        """A new code replaces the old one, with a new expiry; the wrong tries so far still count."""
        self.code_hash = code_hash
        self.hash_key = hash_key
        self.sent_at = sent_at
        self.expires_at = sent_at + CODE_TTL
        self.sends += 1

    class CodeFailed(AuditedAggregate.Event):
        pass

    @event(CodeFailed)
    def code_failed(self) -> None:
        self.failures += 1

    class Verified(AuditedAggregate.Event):
        pass

    @event(Verified)
    def verify(self) -> None:
        """The code was right: the challenge is spent (appended with the session it opens)."""
        self.verified = True

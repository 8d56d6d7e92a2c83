"""The refusals of two-factor sign-in (``domain/two_factor``), in the error catalogue like ``errors``' own."""

from __future__ import annotations

from uuid import UUID

from bemtevi.domain.errors import DomainError


class TwoFactorRequired(DomainError):
    """Not a failure: the password was right and a code was mailed; the answer names the challenge."""

    code, message, status = "two_factor_required", "A verification code was sent to your e-mail", 401

    def __init__(self, challenge_id: UUID, resend_after: int) -> None:
        super().__init__()
        self.challenge_id = str(challenge_id)
        self.resend_after = resend_after


class TwoFactorCodeInvalid(DomainError):
    code, message, status = "two_factor_code_invalid", "Invalid verification code", 400


class TwoFactorCodeExpired(DomainError):
    code, message, status = "two_factor_code_expired", "The verification code has expired: ask for a new one", 400


class TwoFactorCodeUsed(DomainError):
    code, message, status = "two_factor_code_used", "The verification code was already used: sign in again", 409


class TwoFactorLocked(DomainError):
    code, message, status = "two_factor_locked", "Too many attempts with this code: sign in again", 403


class TwoFactorChallengeNotFound(DomainError):
    code, message, status = "two_factor_challenge_not_found", "Sign-in not found: sign in again", 404


class TwoFactorResendTooSoon(DomainError):
    code, message, status = "two_factor_resend_too_soon", "Wait a few seconds before asking for a new code", 429

    def __init__(self, resend_after: int) -> None:
        super().__init__()
        self.resend_after = resend_after

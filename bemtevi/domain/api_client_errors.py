"""The refusals API clients meet (tokens, access, limits, idempotency keys), in the error catalogue like
``errors``' own."""

from __future__ import annotations

from bemtevi.domain.errors import DomainError, Unauthorized


class ApiTokenNotFound(DomainError):
    code, message, status = "api_token_not_found", "API token not found", 404


class ApiTokenInvalid(DomainError):
    """No token, a malformed one, an unknown access key or a wrong secret (a regenerated one's old secret)."""

    code, message, status = "api_token_invalid", "Invalid API token", 401


class ApiTokenInactive(DomainError):
    code, message, status = "api_token_inactive", "This API token is inactive", 401


class ApiAccessDisabled(DomainError):
    """The group's customer form has API access off: its tokens are refused (its users keep the panel)."""

    code, message, status = "api_access_disabled", "API access is not enabled for this group", 403


class PanelAccessDisabled(DomainError):
    """The group's customer form has panel access off: its users stay out of the panel (its tokens work)."""

    code, message, status = "panel_access_disabled", "Panel access is not enabled for this group", 403


class SessionPanelAccessDisabled(Unauthorized):
    """An open session of a group whose panel access was turned off since."""

    code, message = PanelAccessDisabled.code, PanelAccessDisabled.message


class TokenQueryNotAllowed(DomainError):
    code, message, status = "token_query_not_allowed", "This API token may not run this query type", 403


class RateLimited(DomainError):
    """A token's requests per second or per day are used up; ``retry_after``: seconds until one is free."""

    code, message, status = "rate_limited", "Too many requests for this API token; try again later", 429

    def __init__(self, retry_after: int = 1, *, field: str | None = None) -> None:
        super().__init__(field=field)
        self.retry_after = retry_after
        # Headers the answer carries besides Retry-After (the limits' policy).
        self.headers: dict[str, str] = {}


class IdempotencyKeyReused(DomainError):
    code, message, status = (
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request",
        422,
    )


class IdempotencyInProgress(DomainError):
    code, message, status = (
        "idempotency_in_progress",
        "A request with this Idempotency-Key is still being processed; try again shortly",
        409,
    )

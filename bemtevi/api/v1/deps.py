"""The public API's caller: the access token of ``Authorization: Bearer <accessToken>``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from bemtevi.api.access_log import note_tenant
from bemtevi.api.route_handler import ANSWER_HEADERS
from bemtevi.commands.api_tokens import ApiCaller
from bemtevi.commands.rate_limits import limit_header, policy_header
from bemtevi.domain.api_client_errors import ApiTokenInvalid, RateLimited

# Declares the scheme in the schema (the docs' "Authorize"); the check is ``api_caller``'s.
_bearer = HTTPBearer(auto_error=False, description="The access token shown once when it was generated")


async def api_caller(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> ApiCaller:
    if credentials is None:
        raise ApiTokenInvalid()
    platform: Any = request.app.state.platform  # the Platform (api takes it from app.state, never builds it)
    caller = platform.api_tokens.authenticate(credentials.credentials)
    note_tenant(request.scope, caller.principal.group_id)
    limits = caller.limits
    try:
        remaining = platform.api_limits.admit(caller.token_id, limits.per_second, limits.per_day)
    except RateLimited as refused:
        refused.headers = {"RateLimit-Policy": _policy(limits.per_second, limits.per_day)}
        raise
    if remaining:
        # The IETF ``RateLimit`` and ``RateLimit-Policy`` headers of the answer, whatever it is.
        request.scope[ANSWER_HEADERS] = [
            (b"ratelimit-policy", policy_header(remaining).encode()),
            (b"ratelimit", limit_header(remaining).encode()),
        ]
    return caller


def _policy(per_second: int | None, per_day: int | None) -> str:
    quotas = [(name, q, w) for name, q, w in (("second", per_second, 1), ("day", per_day, 86_400)) if q]
    return ", ".join(f'"{name}";q={q};w={w}' for name, q, w in quotas)


CallerDep = Annotated[ApiCaller, Depends(api_caller)]

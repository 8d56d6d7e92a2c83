"""The public API's caller: the access token of ``Authorization: Bearer <accessToken>``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPBearer

from bemtevi.api.access_log import note_tenant
from bemtevi.api.deps import bearer_token
from bemtevi.api.route_handler import ANSWER_HEADERS
from bemtevi.commands.api_tokens import ApiCaller
from bemtevi.commands.rate_limits import policy_header
from bemtevi.domain.api_client_errors import ApiTokenInvalid, RateLimited
from bemtevi.domain.errors import Unauthorized


class ApiCallerScheme(HTTPBearer):
    """The caller of a public API request, from its access token (``Authorization: Bearer <accessToken>``, read as
    the panel reads its bearer token: ``bemtevi.api.deps.bearer_token``), admitted by its rate limits. An
    ``HTTPBearer`` so the schema declares the scheme (the docs' "Authorize"), under HTTPBearer's own name; one
    dependency, so a request solves one level for its caller."""

    async def __call__(self, request: Request) -> ApiCaller:  # type: ignore[override]
        try:
            token = bearer_token(request)
        except Unauthorized:
            raise ApiTokenInvalid() from None
        platform: Any = request.app.state.platform  # the Platform (api takes it from app.state, never builds it)
        caller: ApiCaller = platform.api_tokens.authenticate(token)
        note_tenant(request.scope, caller.principal.group_id)
        limits = caller.limits
        try:
            remaining = platform.api_limits.admit(caller.token_id, limits.per_second, limits.per_day)
        except RateLimited as refused:
            refused.headers = {"RateLimit-Policy": policy_header(limits.per_second, limits.per_day)}
            raise
        if remaining:
            # The IETF ``RateLimit`` and ``RateLimit-Policy`` headers of the answer, whatever it is.
            request.scope[ANSWER_HEADERS] = [
                (b"ratelimit-policy", policy_header(limits.per_second, limits.per_day).encode()),
                (b"ratelimit", remaining.encode()),
            ]
        return caller


api_caller = ApiCallerScheme(
    scheme_name="HTTPBearer", auto_error=False, description="The access token shown once when it was generated"
)


CallerDep = Annotated[ApiCaller, Depends(api_caller)]

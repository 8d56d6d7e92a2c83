"""The public API's caller: the access token of ``Authorization: Bearer <accessToken>``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from bemtevi.api.access_log import note_tenant
from bemtevi.commands.api_tokens import ApiCaller
from bemtevi.domain.errors import ApiTokenInvalid

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
    return caller


CallerDep = Annotated[ApiCaller, Depends(api_caller)]

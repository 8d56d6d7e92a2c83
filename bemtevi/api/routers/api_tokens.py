"""API tokens of the caller's group (the api-query screen): list, generate, edit, regenerate, activate and
inactivate. Owners and admins only (the command checks the role); the secret is answered once."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends

from bemtevi.api.api_token_schemas import (
    ApiTokenForm,
    ApiTokenListResponse,
    ApiTokenRow,
    IssuedTokenResponse,
    TokenLimitsBody,
)
from bemtevi.api.credit_schemas import PositionResponse
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, wait_for_position
from bemtevi.commands.api_tokens import IssuedToken
from bemtevi.domain.api_client_errors import ApiTokenNotFound
from bemtevi.domain.api_tokens import TokenForm, TokenLimits
from bemtevi.domain.principals import Principal
from bemtevi.projections.api_tokens import tokens_of_group
from bemtevi.projections.base import SAO_PAULO

router = APIRouter(tags=["api-tokens"])
SCREEN = "api-query"
Manager = Annotated[Principal, Depends(allowed_route(SCREEN))]


def _token_id(value: str) -> UUID:
    try:
        return UUID(value)
    except ValueError:
        raise ApiTokenNotFound() from None


def _form(body: ApiTokenForm) -> TokenForm:
    return TokenForm(body.name, tuple(body.queryTypes), TokenLimits(body.limits.perSecond, body.limits.perDay))


def _issued(issued: IssuedToken) -> IssuedTokenResponse:
    return IssuedTokenResponse(
        id=str(issued.token_id),
        accessKey=issued.access_key,
        accessToken=issued.access_token,
        position=issued.position,
    )


def _row(row: dict[str, Any]) -> ApiTokenRow:
    return ApiTokenRow(
        id=row["token_id"],
        name=row["name"],
        accessKey=row["access_key"],
        status="active" if row["active"] else "inactive",
        queryTypes=row["query_types"],
        limits=TokenLimitsBody(perSecond=row["per_second"], perDay=row["per_day"]),
        createdBy=row["created_by"],
        createdByName=row["created_by_name"],
        createdAt=row["created_at"],
        regeneratedAt=row["regenerated_at"],
        lastUsedAt=row["last_used_at"],
        usedToday=row["used_today"],
        used30Days=row["used_30_days"],
        credits30Days=row["credits_30_days"],
    )


@router.get("/api-tokens", response_model=ApiTokenListResponse)
def list_tokens(principal: Manager, platform: PlatformDep, position: PositionQuery = None) -> ApiTokenListResponse:
    up_to_date = wait_for_position(platform, position)
    today = datetime.now(SAO_PAULO).date()
    rows = tokens_of_group(platform.store.cursor(), str(principal.group_id), today)
    ceiling = platform.api_tokens.ceiling
    return ApiTokenListResponse(
        data=[_row(r) for r in rows],
        limits=TokenLimitsBody(perSecond=ceiling.per_second, perDay=ceiling.per_day),
        upToDate=up_to_date,
    )


@router.post("/api-tokens", status_code=201, response_model=IssuedTokenResponse)
def generate_token(body: ApiTokenForm, principal: Manager, platform: PlatformDep) -> IssuedTokenResponse:
    return _issued(platform.api_tokens.generate(principal, _form(body)))


@router.put("/api-tokens/{token_id}", response_model=PositionResponse)
def edit_token(token_id: str, body: ApiTokenForm, principal: Manager, platform: PlatformDep) -> PositionResponse:
    return PositionResponse(position=platform.api_tokens.edit(principal, _token_id(token_id), _form(body)))


@router.post("/api-tokens/{token_id}/regenerate", response_model=IssuedTokenResponse)
def regenerate_token(token_id: str, principal: Manager, platform: PlatformDep) -> IssuedTokenResponse:
    return _issued(platform.api_tokens.regenerate(principal, _token_id(token_id)))


@router.post("/api-tokens/{token_id}/activate", response_model=PositionResponse)
def activate_token(token_id: str, principal: Manager, platform: PlatformDep) -> PositionResponse:
    return PositionResponse(position=platform.api_tokens.set_active(principal, _token_id(token_id), True))


@router.post("/api-tokens/{token_id}/inactivate", response_model=PositionResponse)
def inactivate_token(token_id: str, principal: Manager, platform: PlatformDep) -> PositionResponse:
    return PositionResponse(position=platform.api_tokens.set_active(principal, _token_id(token_id), False))

"""Two-factor sign-in: the mailed code's check and resend (public), and a group's setting (signed in).

``POST /api/auth/auth`` answers 401 ``two_factor_required`` with a ``challengeId`` for a user of a group that
requires a code; the code from the mail, with that id, answers here what a sign-in answers. API tokens (/api/v1)
are not signed in with a password and never meet a code.
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.bounds import Key
from bemtevi.api.credit_schemas import PositionResponse
from bemtevi.api.deps import PlatformDep, allowed_any_route, client_address
from bemtevi.api.routers.auth import login_response
from bemtevi.api.schemas import ErrorResponse, Locale, LoginResponse
from bemtevi.commands.brand import CUSTOMERS_ROUTE
from bemtevi.domain.errors import GroupNotFound
from bemtevi.domain.principals import Principal

auth_router = APIRouter(prefix="/auth/two-factor", tags=["auth"])
group_router = APIRouter(prefix="/group", tags=["two-factor"])
# One's own group (my-account, for its owner or admin) or a customer's (its form): the command decides.
SettingEditor = Annotated[Principal, Depends(allowed_any_route("my-account", CUSTOMERS_ROUTE))]

_ERRORS: dict[int | str, dict[str, object]] = {
    code: {"model": ErrorResponse} for code in (400, 401, 403, 404, 409, 429)
}


class TwoFactorCodeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    challengeId: UUID
    code: Key = Field(min_length=1, description="The code from the mail (6 digits)")


class TwoFactorResendRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    challengeId: UUID
    locale: Locale = "pt-BR"


class TwoFactorChallenge(BaseModel):
    message: str
    challengeId: str
    resendAfter: int = Field(description="Seconds until another code may be asked for")
    position: int


class TwoFactorSetting(BaseModel):
    groupId: str
    enabled: bool


class TwoFactorSettingRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool


@auth_router.post("", response_model=LoginResponse, responses=_ERRORS)
def verify_two_factor(body: TwoFactorCodeRequest, request: Request, platform: PlatformDep) -> LoginResponse:
    """The code of the challenge: the session, once (``two_factor_code_invalid``, ``two_factor_code_expired``,
    ``two_factor_code_used``, ``two_factor_locked`` after too many wrong codes)."""
    return login_response(platform.two_factor.verify(body.challengeId, body.code, client_address(request)))


@auth_router.post("/resend", response_model=TwoFactorChallenge, responses=_ERRORS)
def resend_two_factor(body: TwoFactorResendRequest, platform: PlatformDep) -> TwoFactorChallenge:
    """A new code replaces the challenge's (``two_factor_resend_too_soon`` before ``resendAfter``)."""
    sent = platform.two_factor.resend(body.challengeId, body.locale)
    return TwoFactorChallenge(
        message="A verification code was sent to your e-mail",
        challengeId=str(sent.id),
        resendAfter=sent.resend_after,
        position=sent.position,
    )


def _uuid(group_id: str) -> UUID:
    try:
        return UUID(group_id)
    except ValueError as e:
        raise GroupNotFound() from e


@group_router.get("/{group_id}/two-factor", response_model=TwoFactorSetting, responses=_ERRORS)
def two_factor_setting(group_id: str, principal: SettingEditor, platform: PlatformDep) -> TwoFactorSetting:
    """Whether the group's users sign in with a mailed code (read from the group itself: always current)."""
    return TwoFactorSetting(groupId=group_id, enabled=platform.two_factor.setting(principal, _uuid(group_id)))


@group_router.put("/{group_id}/two-factor", response_model=PositionResponse, responses=_ERRORS)
def change_two_factor_setting(
    group_id: str, body: TwoFactorSettingRequest, principal: SettingEditor, platform: PlatformDep
) -> PositionResponse:
    return PositionResponse(position=platform.two_factor.change_setting(principal, _uuid(group_id), body.enabled))

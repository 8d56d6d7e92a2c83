"""POST /api/auth/auth (sign in) and /api/auth/auth/logout (the token stops working)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from bemtevi.api.deps import FirstAccessPrincipalDep, PlatformDep, client_address
from bemtevi.api.schemas import AuthUser, LoginRequest, LoginResponse, LogoutRequest, MessageResponse
from bemtevi.commands.identity import SignedIn
from bemtevi.commands.two_factor import ChallengeSent
from bemtevi.domain.two_factor_errors import TwoFactorRequired

router = APIRouter(prefix="/auth", tags=["auth"])


@router.post("/auth", response_model=LoginResponse)
def sign_in(body: LoginRequest, request: Request, platform: PlatformDep) -> LoginResponse:
    """The session; for a user of a group that requires two-factor sign-in, 401 ``two_factor_required`` with
    ``challengeId`` instead: a code went to the user's e-mail, and ``POST /auth/two-factor`` answers the session."""
    outcome = platform.two_factor.sign_in(
        body.email, body.password, body.domain_url, client_address(request), body.locale
    )
    return login_response(outcome)


def login_response(outcome: SignedIn | ChallengeSent) -> LoginResponse:
    """What every way of signing in answers (password, Google, a new account, a two-factor code)."""
    if isinstance(outcome, ChallengeSent):
        raise TwoFactorRequired(outcome.id, outcome.resend_after)
    user, group = outcome.user, outcome.group
    return LoginResponse(
        data=AuthUser(
            id=str(user.id),
            uniqueKey=user.unique_key,
            groupId=str(group.id),
            groupUniqueKey=group.unique_key,
            name=user.name,
            email=user.email,
            role=user.role.value,
            status=user.status.value,
        ),
        token=outcome.token,
        position=outcome.position,
    )


@router.post("/auth/logout", response_model=MessageResponse)
def sign_out(body: LogoutRequest, principal: FirstAccessPrincipalDep, platform: PlatformDep) -> MessageResponse:
    position = platform.identity.sign_out(principal)
    return MessageResponse(message="Logged out", position=position)

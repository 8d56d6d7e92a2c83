"""POST /api/auth/auth (sign in) and /api/auth/auth/logout (the token stops working)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from bemtevi.api.deps import FirstAccessPrincipalDep, PlatformDep, client_address
from bemtevi.api.schemas import AuthUser, LoginRequest, LoginResponse, LogoutRequest, MessageResponse
from bemtevi.commands.identity import SignedIn

router = APIRouter(prefix="/auth", tags=["auth"])


@router.post("/auth", response_model=LoginResponse)
def sign_in(body: LoginRequest, request: Request, platform: PlatformDep) -> LoginResponse:
    signed_in = platform.identity.sign_in(body.email, body.password, body.domain_url, client_address(request))
    return login_response(signed_in)


def login_response(signed_in: SignedIn) -> LoginResponse:
    """What every way of signing in answers (password, Google, a new account)."""
    user, group = signed_in.user, signed_in.group
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
        token=signed_in.token,
        position=signed_in.position,
    )


@router.post("/auth/logout", response_model=MessageResponse)
def sign_out(body: LogoutRequest, principal: FirstAccessPrincipalDep, platform: PlatformDep) -> MessageResponse:
    position = platform.identity.sign_out(principal)
    return MessageResponse(message="Logged out", position=position)

"""POST /api/auth/auth (sign in) and /api/auth/auth/logout (the token stops working)."""

from __future__ import annotations

from fastapi import APIRouter

from bemtevi.api.deps import PlatformDep, PrincipalDep
from bemtevi.api.schemas import AuthUser, LoginRequest, LoginResponse, LogoutRequest, MessageResponse

router = APIRouter(prefix="/auth", tags=["auth"])


@router.post("/auth", response_model=LoginResponse)
def sign_in(body: LoginRequest, platform: PlatformDep) -> LoginResponse:
    signed_in = platform.identity.sign_in(body.email, body.password, body.domain_url)
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
def sign_out(body: LogoutRequest, principal: PrincipalDep, platform: PlatformDep) -> MessageResponse:
    position = platform.identity.sign_out(principal)
    return MessageResponse(message="Logged out", position=position)

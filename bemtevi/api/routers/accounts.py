"""Ways into an account: create one, Google sign-in, forgot password, first access.

All public (no session) except first access, which is the one call a user at first access may
make besides logout. Every answer that could tell whether an e-mail is registered is the same
for known and unknown ones.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from bemtevi.api.bounds import CompanyName, Email, HostName, Key, Password, PersonName, Phone, Token
from bemtevi.api.deps import FirstAccessPrincipalDep, PlatformDep, client_address, wait_for_position
from bemtevi.api.routers.auth import login_response
from bemtevi.api.schemas import ErrorResponse, Locale, LoginResponse, MessageResponse
from bemtevi.commands.accounts import SignUpForm

router = APIRouter(prefix="/auth", tags=["accounts"])


class CreateAccountRequest(BaseModel):
    name: PersonName = Field(min_length=1)
    lastName: PersonName = Field(min_length=1)
    email: Email = Field(min_length=1)
    companyName: CompanyName = Field(min_length=1)
    phone: Phone = Field(min_length=1)
    password: Password = Field(min_length=1)
    confirmation: Password = Field(min_length=1)
    acceptTerms: bool
    domain_url: HostName | None = None
    locale: Locale = "pt-BR"


class GoogleSignInRequest(BaseModel):
    credential: Token = Field(min_length=1)
    domain_url: HostName | None = None
    locale: Locale = "pt-BR"


class AuthConfig(BaseModel):
    googleClientId: str | None


class RecoveryRequest(BaseModel):
    email: Email = Field(min_length=1)
    domain_url: HostName | None = None
    locale: Locale = "pt-BR"


class RecoveryTicketData(BaseModel):
    id: str
    uniqueKey: str


class RecoveryResponse(BaseModel):
    message: str
    data: RecoveryTicketData


class VerifyCodeRequest(BaseModel):
    code: Key = Field(min_length=1)
    uniqueKey: Key = Field(min_length=1)
    id: UUID


class RedefinePasswordRequest(VerifyCodeRequest):
    password: Password = Field(min_length=1)
    confirmation: Password = Field(min_length=1)


class FirstAccessRequest(BaseModel):
    password: Password = Field(min_length=1)
    confirmation: Password = Field(min_length=1)


_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse},
    401: {"model": ErrorResponse},
    403: {"model": ErrorResponse},
    404: {"model": ErrorResponse},
    409: {"model": ErrorResponse},
    422: {"model": ErrorResponse},
    429: {"model": ErrorResponse},
}


@router.get("/config", response_model=AuthConfig)
def auth_config(platform: PlatformDep) -> AuthConfig:
    """What the sign-in page may offer: Google sign-in only when a client id is configured."""
    return AuthConfig(googleClientId=platform.settings.google_client_id or None)


@router.post("/create-account", response_model=LoginResponse, responses=_ERRORS)
def create_account(body: CreateAccountRequest, platform: PlatformDep) -> LoginResponse:
    """A new company with its owner; the owner is signed in at once."""
    signed_in = platform.accounts.create_account(
        SignUpForm(
            name=body.name,
            last_name=body.lastName,
            email=body.email,
            company_name=body.companyName,
            phone=body.phone,
            password=body.password,
            confirmation=body.confirmation,
            accept_terms=body.acceptTerms,
            domain_url=body.domain_url,
            locale=body.locale,
        )
    )
    # The web app asks for the new user's menu next: let the read side have them first.
    wait_for_position(platform, signed_in.position)
    return login_response(signed_in)


@router.post("/google", response_model=LoginResponse, responses=_ERRORS)
def google_sign_in(body: GoogleSignInRequest, platform: PlatformDep) -> LoginResponse:
    """Like a sign-in with a password, two-factor code included when the user's group requires it."""
    user, group = platform.accounts.google_user(body.credential, body.domain_url)
    return login_response(platform.two_factor.admit(user, group, body.locale))


@router.post("/password-recovery", response_model=RecoveryResponse, responses=_ERRORS)
def request_recovery(body: RecoveryRequest, request: Request, platform: PlatformDep) -> RecoveryResponse:
    ticket = platform.accounts.request_recovery(body.email, body.domain_url, body.locale, client_address(request))
    return RecoveryResponse(
        message="If the e-mail is registered, a code was sent to it",
        data=RecoveryTicketData(id=str(ticket.id), uniqueKey=ticket.unique_key),
    )


@router.post("/verify-code", response_model=MessageResponse, responses=_ERRORS)
def verify_code(body: VerifyCodeRequest, request: Request, platform: PlatformDep) -> MessageResponse:
    position = platform.accounts.verify_code(body.code, body.uniqueKey, body.id, client_address(request))
    return MessageResponse(message="Code active", position=position)


@router.post("/redefine-password", response_model=MessageResponse, responses=_ERRORS)
def redefine_password(body: RedefinePasswordRequest, request: Request, platform: PlatformDep) -> MessageResponse:
    position = platform.accounts.redefine_password(
        body.code, body.uniqueKey, body.id, body.password, body.confirmation, client_address(request)
    )
    return MessageResponse(message="Password redefined", position=position)


@router.post("/first-access", response_model=MessageResponse, responses=_ERRORS)
def first_access(
    body: FirstAccessRequest, principal: FirstAccessPrincipalDep, platform: PlatformDep
) -> MessageResponse:
    """A user at first access chooses their password; every other call answers
    ``first_access_required`` until then."""
    position = platform.identity.choose_first_password(principal, body.password, body.confirmation)
    return MessageResponse(message="Password changed", position=position)

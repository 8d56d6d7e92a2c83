"""Request and response models at the API edge (field names as the specification's calls use)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema

from bemtevi.api.bounds import (
    DocumentText,
    Email,
    HostName,
    Key,
    Password,
    PurposeText,
    Token,
    purpose_field,
)
from bemtevi.api.error_codes import api_error_codes

_UTC_TEXT = "%04d-%02d-%02dT%02d:%02d:%02dZ"


def utc_text(moment: datetime) -> str:
    """How the API writes every moment: ISO 8601 in UTC to the second, with its offset ('Z').
    A naive value is a UTC wall time (what the read models keep)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return _UTC_TEXT % (moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second)


# Every time an answer carries: written by ``utc_text``, a ``date-time`` in the schema.
UtcDateTime = Annotated[
    datetime,
    PlainSerializer(utc_text, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "format": "date-time", "description": "UTC, e.g. 2024-06-01T15:30:00Z"}),
]


Locale = Literal["pt-BR", "en-US"]


class LoginRequest(BaseModel):
    email: Email = Field(min_length=1)
    password: Password = Field(min_length=1)
    domain_url: HostName | None = None
    locale: Locale = Field(default="pt-BR", description="The language of the mail with a two-factor code")


class AuthUser(BaseModel):
    id: str
    uniqueKey: str
    groupId: str
    groupUniqueKey: str
    name: str
    email: str
    role: str
    status: str


class LoginResponse(BaseModel):
    data: AuthUser
    token: str
    position: int


class LogoutRequest(BaseModel):
    token: Token | None = None


class MessageResponse(BaseModel):
    message: str
    position: int | None = None


class RolesRequest(BaseModel):
    user_id: Key = Field(min_length=1)
    user_unique_key: Key = Field(min_length=1)
    group_id: Key = Field(min_length=1)


class MenuEntryModel(BaseModel):
    name: str
    label: str
    icon: str
    route: str | None
    active_routes: list[str]
    children: list[MenuEntryModel]


class GroupPublicData(BaseModel):
    id: str | None
    uniqueKey: str | None
    name: str | None
    domainUrl: str | None
    appTitle: str | None
    primaryColor: str | None
    secondaryColor: str | None
    lighterColor: str | None
    horizontalLogo: str | None
    iconogram: str | None
    loginBanner: str | None
    advancedQueryBanner: str | None
    contactEmail: str | None = None
    contactPhone: str | None = None
    contactAddress: str | None = Field(default=None, description="Address or opening hours, as the customer wrote it")
    aboutText: str | None = Field(default=None, description="The customer's own words for its About page")
    isMainDomain: bool = False
    whiteLabel: bool = Field(
        default=False,
        description="A customer's white label: its pages name the customer only (its contact data or neutral texts)",
    )


class RolesData(BaseModel):
    group: GroupPublicData
    roles: list[MenuEntryModel]


class RolesResponse(BaseModel):
    data: RolesData


class PublicDataRequest(BaseModel):
    domain_url: HostName | None = None
    group_id: Key | None = None
    group_unique_key: Key | None = None


class PublicDataResponse(BaseModel):
    data: GroupPublicData


class ConsultationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    document: DocumentText = Field(min_length=1, description="CPF (11 digits) or CNPJ (14 digits), punctuation allowed")
    query_type: Key | None = Field(default=None, description="Query type key; the document's default if absent")
    purpose: PurposeText | None = purpose_field()


class ConsultationData(BaseModel):
    id: str
    document: str
    documentType: Literal["cpf", "cnpj"]
    queryType: str
    status: Literal["done", "not_found", "failed"]
    credits: int
    createdAt: UtcDateTime
    result: dict[str, Any] | None


class ConsultationResponse(BaseModel):
    data: ConsultationData
    position: int


class ErrorItem(BaseModel):
    property: str
    isNotEmpty: str | None = None
    isEnum: str | None = None
    constraint: str | None = None


# Every code an error answer may carry (the web app translates each; its client is generated from
# this schema). Built from the error catalogue, so not a literal enum for mypy.
ErrorCode = StrEnum("ErrorCode", [(code, code) for code in api_error_codes()])  # type: ignore[misc]


class ErrorResponse(BaseModel):
    statusCode: int
    message: str = Field(description="The error in English, for API clients; screens translate the code")
    code: ErrorCode
    field: str | None = None
    errors: list[ErrorItem] | None = None
    minutes: int | None = Field(default=None, description="too_many_attempts: when to try again")
    limit: int | None = Field(default=None, description="text_too_long: the field's most characters")
    expectedWidth: int | None = Field(default=None, description="image_wrong_size: the width the image must have")
    expectedHeight: int | None = Field(default=None, description="image_wrong_size: the height the image must have")
    challengeId: str | None = Field(
        default=None, description="two_factor_required: the sign-in waiting for the mailed code (POST /auth/two-factor)"
    )
    resendAfter: int | None = Field(
        default=None, description="two_factor_required, two_factor_resend_too_soon: seconds until a new code is sent"
    )

"""Request and answer models of the API tokens' management (the api-query screen)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from bemtevi.api.bounds import LIST_MAX, Key, ShortText
from bemtevi.api.schemas import UtcDateTime

# A limit a token may be set to (the server refuses one above what the group allows).
RateLimit = Annotated[int, Field(ge=1, le=1_000_000_000)]


class TokenLimitsBody(BaseModel):
    perSecond: RateLimit | None = Field(default=None, description="Requests per second; empty: the most allowed")
    perDay: RateLimit | None = Field(default=None, description="Requests per day; empty: the most allowed")


class ApiTokenForm(BaseModel):
    name: ShortText
    queryTypes: Annotated[list[Key], Field(max_length=LIST_MAX, description="Query type keys the token may run")]
    limits: TokenLimitsBody = TokenLimitsBody()


class ApiTokenRow(BaseModel):
    id: str
    name: str
    accessKey: str
    status: str = Field(description="active or inactive")
    queryTypes: list[str]
    limits: TokenLimitsBody
    createdBy: str | None
    createdByName: str | None
    createdAt: UtcDateTime
    regeneratedAt: UtcDateTime | None
    lastUsedAt: UtcDateTime | None
    usedToday: int = Field(description="Lookups today (São Paulo time)")
    used30Days: int = Field(description="Lookups in the last 30 days")
    credits30Days: int = Field(description="API credits charged in the last 30 days")


class ApiTokenListResponse(BaseModel):
    data: list[ApiTokenRow]
    limits: TokenLimitsBody = Field(description="The most a token of this group may be set to")
    upToDate: bool


class IssuedTokenResponse(BaseModel):
    """The secret is in ``accessToken``, shown this once: only its keyed hash is kept."""

    id: str
    accessKey: str
    accessToken: str = Field(description="Send as `Authorization: Bearer <accessToken>`; shown only once")
    position: int

"""Request and response models at the API edge (field names as the specification's calls use)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class LoginRequest(BaseModel):
    email: str = Field(min_length=1)
    password: str = Field(min_length=1)
    domain_url: str | None = None


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
    token: str | None = None


class MessageResponse(BaseModel):
    message: str
    position: int | None = None


class RolesRequest(BaseModel):
    user_id: str = Field(min_length=1)
    user_unique_key: str = Field(min_length=1)
    group_id: str = Field(min_length=1)


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
    isMainDomain: bool = False


class RolesData(BaseModel):
    group: GroupPublicData
    roles: list[MenuEntryModel]


class RolesResponse(BaseModel):
    data: RolesData


class PublicDataRequest(BaseModel):
    domain_url: str | None = None
    group_id: str | None = None
    group_unique_key: str | None = None


class PublicDataResponse(BaseModel):
    data: GroupPublicData


class ConsultationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    document: str = Field(min_length=1, description="CPF (11 digits) or CNPJ (14 digits), punctuation allowed")
    query_type: str | None = Field(default=None, description="Query type key; the document's default if absent")


class ConsultationData(BaseModel):
    id: str
    document: str
    documentType: Literal["cpf", "cnpj"]
    queryType: str
    status: Literal["done", "not_found", "failed"]
    credits: int
    createdAt: str
    result: dict[str, Any] | None


class ConsultationResponse(BaseModel):
    data: ConsultationData
    position: int


class DayCount(BaseModel):
    day: str
    count: int


class CreditBalance(BaseModel):
    used: int
    limit: int | None


class RecentConsultation(BaseModel):
    id: str
    document: str
    documentType: str
    queryType: str
    status: str
    credits: int
    createdAt: str


class DashboardData(BaseModel):
    consultationsTotal: int
    consultationsToday: int
    byDay: list[DayCount]
    credits: dict[str, CreditBalance]
    recent: list[RecentConsultation]
    position: int
    upToDate: bool


class DashboardResponse(BaseModel):
    data: DashboardData


class ErrorItem(BaseModel):
    property: str
    isNotEmpty: str | None = None
    isEnum: str | None = None
    constraint: str | None = None


class ErrorResponse(BaseModel):
    statusCode: int
    message: str
    code: str
    field: str | None = None
    errors: list[ErrorItem] | None = None

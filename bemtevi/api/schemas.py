"""Request and response models at the API edge (field names as the specification's calls use)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.errors import api_error_codes


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


# -- credits -------------------------------------------------------------------------------------

CategoryName = Literal["unit", "advanced", "batch", "api"]


class CategoryFigures(BaseModel):
    category: CategoryName
    unlimited: bool
    limit: int | None
    used: int
    reserved: int
    granted: int = Field(description="Given to child groups")
    available: int | None = Field(description="What may still be spent or granted; null when unlimited")


class GroupBalances(BaseModel):
    id: str
    name: str
    type: str
    active: bool = True
    categories: list[CategoryFigures]


class BalancesData(BaseModel):
    group: GroupBalances
    children: list[GroupBalances]
    position: int
    upToDate: bool


class BalancesResponse(BaseModel):
    data: BalancesData


class Movement(BaseModel):
    position: int
    createdAt: str = Field(description="UTC, 'YYYY-MM-DD HH:MM:SS'")
    groupId: str
    groupName: str | None
    category: CategoryName
    kind: Literal["reservation", "settlement", "release", "limit_change", "grant", "grant_received"]
    amount: int
    reason: str | None
    reasonId: str | None
    actorId: str | None
    actorName: str | None
    counterpartyGroupId: str | None
    counterpartyName: str | None
    limit: int | None
    used: int
    reserved: int
    granted: int
    balance: int | None = Field(description="Available after the movement; null when unlimited")


class HistoryResponse(BaseModel):
    data: list[Movement]
    total: int
    page: int
    perPage: int
    upToDate: bool


class ConsumptionDay(BaseModel):
    day: str
    category: CategoryName
    credits: int


class ConsumptionResponse(BaseModel):
    data: list[ConsumptionDay]


class GrantRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    groupId: UUID
    category: CategoryName
    amount: int = Field(description="Credits to give the child group; negative takes unused credits back")


class LimitRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    groupId: UUID
    category: CategoryName
    limit: int | None = Field(ge=0, description="null: unlimited (only under an unlimited parent)")


class PositionResponse(BaseModel):
    position: int


# -- customers -----------------------------------------------------------------------------------


class CustomerQuantities(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unit: int = Field(0, ge=0, description="Manual (unit) query credits granted from the parent")
    batch: int = Field(0, ge=0, description="Enrichment credits")
    advanced: int = Field(0, ge=0, description="Advanced query credits")
    api: int = Field(0, ge=0, description="API query credits")


class CustomerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["white-label", "reseller", "company"]
    cnpj: str
    companyName: str
    tradeName: str
    personInCharge: str
    phone: str
    email: str = Field(description="The administrator's e-mail: the owner user signs in with it")
    seller: str | None = None
    defaultQuery: bool
    consultProtest: bool
    quantities: CustomerQuantities
    enabledQueryTypes: list[str]
    panelAccess: bool
    apiAccess: bool
    whiteLabelUrl: str | None = None


class RegisteredCustomerData(BaseModel):
    id: str
    ownerId: str
    ownerEmail: str
    generatedPassword: str = Field(description="Shown once; the owner chooses a new one at first access")


class RegisteredCustomerResponse(BaseModel):
    data: RegisteredCustomerData
    position: int


class CustomerSummary(BaseModel):
    id: str
    uniqueKey: str
    name: str
    type: str
    parentId: str | None
    parentName: str | None
    domainUrl: str | None
    cnpj: str | None
    tradeName: str | None = None
    personInCharge: str | None = None
    phone: str | None = None
    email: str | None = None
    seller: str | None = None
    defaultQuery: bool | None = None
    consultProtest: bool | None = None
    panelAccess: bool | None = None
    apiAccess: bool | None = None
    enabledQueryTypes: list[str]
    active: bool
    createdAt: str


class CustomerListResponse(BaseModel):
    data: list[CustomerSummary]
    total: int
    page: int
    perPage: int
    upToDate: bool

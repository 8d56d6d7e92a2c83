"""Request and response models at the API edge (field names as the specification's calls use)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema

from bemtevi.api.bounds import (
    LIST_MAX,
    CompanyName,
    CreditQuantity,
    Credits,
    DocumentText,
    Email,
    HostName,
    Key,
    Password,
    PersonName,
    Phone,
    Token,
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


class LoginRequest(BaseModel):
    email: Email = Field(min_length=1)
    password: Password = Field(min_length=1)
    domain_url: HostName | None = None


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
    isMainDomain: bool = False


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
    createdAt: UtcDateTime


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
    heldByStoppedServer: int = Field(
        default=0,
        description="Of `reserved`, what leases of a server that stopped hold (unit lookups, cluster mode): "
        "settled from the consultations it recorded, the rest back, by `heldUntil`",
    )
    heldUntil: UtcDateTime | None = Field(default=None, description="When `heldByStoppedServer` is back at the latest")


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
    createdAt: UtcDateTime
    groupId: str
    groupName: str | None
    category: CategoryName
    kind: Literal["opening", "reservation", "settlement", "release", "limit_change", "grant", "grant_received"]
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
    released: int = Field(description="What of its reservation a settlement gave back (0 otherwise)")
    change: int | None = Field(
        description="The movement's effect on the available balance (balance is the running sum); "
        "null for a limit change to or from unlimited"
    )


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


class StatementCategory(BaseModel):
    category: CategoryName
    openingBalance: int | None = Field(description="Available before the period; null while unlimited")
    received: int = Field(description="Opened with or received from the parent")
    returned: int = Field(description="Taken back by the parent")
    granted: int = Field(description="Granted to customers")
    takenBack: int = Field(description="Taken back from customers")
    charged: int = Field(description="Reserved or charged for work")
    released: int = Field(description="Given back by settlements and releases")
    limitChanges: int = Field(description="Net change of limits set outright")
    closingBalance: int | None = Field(description="Available at the end of the period; null while unlimited")
    consumed: int = Field(description="Settled (used) in the period")
    lines: int = Field(description="Balance history lines in the period")


class StatementData(BaseModel):
    groupId: str
    groupName: str | None
    periodStart: date = Field(description="First day (America/Sao_Paulo)")
    periodEnd: date = Field(description="Last day, inclusive (America/Sao_Paulo)")
    categories: list[StatementCategory]


class StatementResponse(BaseModel):
    data: StatementData


class GrantRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    groupId: UUID
    category: CategoryName
    amount: Credits = Field(description="Credits to give the child group; negative takes unused credits back")


class LimitRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    groupId: UUID
    category: CategoryName
    limit: CreditQuantity | None = Field(description="null: unlimited (only under an unlimited parent)")


class PositionResponse(BaseModel):
    position: int


# -- customers -----------------------------------------------------------------------------------


class CustomerQuantities(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unit: CreditQuantity = Field(0, description="Manual (unit) query credits granted from the parent")
    batch: CreditQuantity = Field(0, description="Enrichment credits")
    advanced: CreditQuantity = Field(0, description="Advanced query credits")
    api: CreditQuantity = Field(0, description="API query credits")


class CustomerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["white-label", "reseller", "company"]
    cnpj: DocumentText
    companyName: CompanyName
    tradeName: CompanyName
    personInCharge: PersonName
    phone: Phone
    email: Email = Field(description="The administrator's e-mail: the owner user signs in with it")
    seller: PersonName | None = None
    defaultQuery: bool
    consultProtest: bool
    quantities: CustomerQuantities
    enabledQueryTypes: list[Key] = Field(max_length=LIST_MAX)
    enabledLayouts: list[Key] = Field(default_factory=list, max_length=LIST_MAX)
    panelAccess: bool
    apiAccess: bool
    whiteLabelUrl: HostName | None = None


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
    createdAt: UtcDateTime


class CustomerListResponse(BaseModel):
    data: list[CustomerSummary]
    total: int
    page: int
    perPage: int
    upToDate: bool


# -- the dashboard's charts --------------------------------------------------------------------


class UsageDay(BaseModel):
    day: str = Field(description="A São Paulo calendar day, YYYY-MM-DD")
    consultations: int
    credits: int


class UsageShare(BaseModel):
    key: str = Field(description="The query type's key or the channel (panel, api, batch) as recorded")
    consultations: int
    credits: int


class UsageData(BaseModel):
    firstDay: str
    lastDay: str
    scope: Literal["group", "subtree"]
    consultations: int
    credits: int
    byDay: list[UsageDay] = Field(description="Every day of the period, oldest first, zero included")
    byQueryType: list[UsageShare]
    byChannel: list[UsageShare]
    balances: list[CategoryFigures] = Field(description="The group's credits per category now")
    upToDate: bool


class UsageResponse(BaseModel):
    data: UsageData


class TopConsumer(BaseModel):
    groupId: str
    name: str
    type: str
    parentName: str | None
    consultations: int
    credits: int


class TopConsumersData(BaseModel):
    firstDay: str
    lastDay: str
    groups: list[TopConsumer] = Field(description="Busiest first; only groups that consulted in the period")
    upToDate: bool


class TopConsumersResponse(BaseModel):
    data: TopConsumersData

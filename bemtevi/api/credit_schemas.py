"""Request and response models of the credits' calls (balances, history, consumption, grants, limits)."""

from __future__ import annotations

from datetime import date
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.bounds import (
    CreditQuantity,
    Credits,
)
from bemtevi.api.schemas import UtcDateTime

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


class ChildStatement(BaseModel):
    groupId: str
    groupName: str | None
    categories: list[StatementCategory]


class MonthlyCloseData(BaseModel):
    groupId: str
    groupName: str | None
    month: str = Field(description="YYYY-MM (America/Sao_Paulo)")
    periodStart: date
    periodEnd: date
    children: list[ChildStatement] = Field(description="Each customer directly below the group, by name")
    totals: list[StatementCategory] = Field(
        description="Per category, the sums over the customers; a balance is null when any customer's is unlimited"
    )


class MonthlyCloseResponse(BaseModel):
    data: MonthlyCloseData


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

"""Request and response models of the credits' calls (balances, history, consumption, grants, limits)."""

from __future__ import annotations

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
    amount: Credits = Field(description="Credits to give the child group; negative takes unused credits back")


class LimitRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    groupId: UUID
    category: CategoryName
    limit: CreditQuantity | None = Field(description="null: unlimited (only under an unlimited parent)")


class PositionResponse(BaseModel):
    position: int

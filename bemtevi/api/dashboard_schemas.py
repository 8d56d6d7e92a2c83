"""Request and response models of the dashboard: its figures, recent lookups and charts (usage, top consumers)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from bemtevi.api.credit_schemas import CategoryFigures
from bemtevi.api.schemas import UtcDateTime


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


class BatchUsage(BaseModel):
    kind: Literal["batch", "manual"] = Field(description="batch: files the group sent; manual: enrichments")
    batches: int = Field(description="Files sent (deleted ones not counted)")
    records: int
    done: int = Field(description="Records enriched so far")
    credits: int = Field(description="Credits charged")


class DashboardData(BaseModel):
    consultationsTotal: int
    consultationsToday: int
    byDay: list[DayCount]
    credits: dict[str, CreditBalance]
    recent: list[RecentConsultation]
    batches: list[BatchUsage] = Field(description="Batch and manual-enrichment usage, both kinds always listed")
    position: int
    upToDate: bool


class DashboardResponse(BaseModel):
    data: DashboardData


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

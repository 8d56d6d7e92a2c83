"""Request and response models of the consultation report (GET /api/reports, /api/v1/reports)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

PeriodPreset = Literal["today", "yesterday", "last7Days", "last30Days", "thisMonth", "lastMonth", "custom"]
Interval = Literal["day", "week", "month"]
Dimension = Literal["category", "queryType", "supplier", "user", "channel", "found"]


class ReportRow(BaseModel):
    period: str = Field(description="The period's first São Paulo day, YYYY-MM-DD (a week starts on Monday)")
    key: str = Field(description="The dimension's value as recorded ('' when none: a batch's supplier, no user)")
    label: str = Field(description="A name for the key when it is an id (user) or a catalogue key (query type)")
    consultations: int = Field(description="Charged and not-found consultations")
    found: int
    credits: int


class ReportKey(BaseModel):
    key: str
    label: str
    consultations: int
    found: int
    credits: int


class ReportTotals(BaseModel):
    consultations: int
    found: int
    notFound: int
    credits: int


class ReportData(BaseModel):
    firstDay: str
    lastDay: str
    period: PeriodPreset
    interval: Interval
    groupBy: Dimension
    includeChildren: bool
    groups: int = Field(description="How many groups the report covers")
    series: list[ReportRow]
    keys: list[ReportKey] = Field(description="Each key's totals, busiest first")
    totals: ReportTotals
    upToDate: bool


class ReportResponse(BaseModel):
    data: ReportData

"""Schemas of the advanced query (issue 36): the form, a search's answer and a page of its list."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.bounds import Email, Phone, PurposeText, SearchText, ShortText, purpose_field


class AdvancedQueryForm(BaseModel):
    """At least one field filled (else ``advanced_criteria_required``); texts match partially, ignoring
    accents and case; phones with or without formatting; birth as YYYY-MM-DD or DD/MM/YYYY."""

    model_config = ConfigDict(extra="forbid")

    name: SearchText | None = None
    address: SearchText | None = None
    city: SearchText | None = None
    state: ShortText | None = Field(default=None, description="UF, two letters")
    telephone: Phone | None = None
    cellphone: Phone | None = None
    email: Email | None = None
    birth: ShortText | None = None


class OpenResultRequest(BaseModel):
    """Opening a match (optional body): what it is for, recorded with the consultation."""

    model_config = ConfigDict(extra="forbid")

    purpose: PurposeText | None = purpose_field()


class AdvancedSearchData(BaseModel):
    id: str
    total: int = Field(description="Matches listed (at most maxMatches)")
    capped: bool = Field(description="More matched than are listed: add criteria")
    maxMatches: int
    costPerResult: int = Field(description="Advanced credits charged for each result opened (the list is free)")
    available: int | None = Field(description="Advanced credits left; null: unlimited")


class AdvancedSearchResponse(BaseModel):
    data: AdvancedSearchData
    position: int


class AdvancedResultRow(BaseModel):
    """What a list shows before a result is opened and charged: no phone, e-mail, address or birth."""

    ref: int
    kind: Literal["cpf", "cnpj"]
    name: str
    maskedDocument: str
    city: str
    state: str


class AdvancedCriteriaData(BaseModel):
    name: str | None = None
    address: str | None = None
    city: str | None = None
    state: str | None = None
    telephone: str | None = None
    cellphone: str | None = None
    email: str | None = None
    birth: str | None = None


class AdvancedResultsResponse(BaseModel):
    data: list[AdvancedResultRow]
    total: int
    capped: bool
    page: int
    perPage: int
    costPerResult: int
    criteria: AdvancedCriteriaData

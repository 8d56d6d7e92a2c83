"""Request and response models of the customers' calls (register, edit, list)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.bounds import (
    LIST_MAX,
    CompanyName,
    CreditQuantity,
    DocumentText,
    Email,
    HostName,
    Key,
    PersonName,
    Phone,
)
from bemtevi.api.schemas import UtcDateTime


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
    locale: Literal["pt-BR", "en-US"] = Field(default="pt-BR", description="The language of the owner's invitation")


class RegisteredCustomerData(BaseModel):
    id: str
    uniqueKey: str
    ownerId: str
    ownerEmail: str
    invitationSentTo: str = Field(description="Where the owner's invitation (a link to choose a password) was sent")


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

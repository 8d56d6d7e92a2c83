"""Request and response shapes of customer editing, brands and the audit log."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from bemtevi.api.bounds import (
    LIST_MAX,
    TEXT_MAX,
    CompanyName,
    DocumentText,
    Email,
    HostName,
    Key,
    PersonName,
    Phone,
    ShortText,
)
from bemtevi.api.credit_schemas import CategoryFigures
from bemtevi.api.customer_schemas import CustomerSummary
from bemtevi.api.schemas import UtcDateTime
from bemtevi.projections.audit import audit_event_kinds


class Toggles(BaseModel):
    model_config = ConfigDict(extra="forbid")
    allowCreatedWhiteLabel: bool | None = None
    allowUploadingManualQueries: bool | None = None
    allowDeletedAndCancelled: bool | None = None

    def given(self) -> dict[str, bool]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class CustomerEditRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["white-label", "reseller", "company"]
    cnpj: DocumentText
    companyName: CompanyName
    tradeName: CompanyName
    personInCharge: PersonName
    phone: Phone
    email: Email = Field(description="The administrator's e-mail; must stay unused by other groups")
    seller: PersonName | None = None
    defaultQuery: bool
    consultProtest: bool
    enabledQueryTypes: list[Key] = Field(max_length=LIST_MAX)
    enabledLayouts: list[Key] | None = Field(default=None, max_length=LIST_MAX, description="null: unchanged")
    panelAccess: bool
    apiAccess: bool
    whiteLabelUrl: HostName | None = None
    toggles: Toggles | None = None


class BrandValues(BaseModel):
    appTitle: str | None = None
    primaryColor: str | None = None
    secondaryColor: str | None = None
    lighterColor: str | None = None
    horizontalLogo: str | None = None
    iconogram: str | None = None
    loginBanner: str | None = None
    advancedQueryBanner: str | None = None
    contactEmail: str | None = None
    contactPhone: str | None = None
    contactAddress: str | None = None
    aboutText: str | None = None


class CustomerDetail(CustomerSummary):
    """A customer as its edit form reads it: the list's fields and what only the form shows."""

    companyName: str
    toggles: dict[str, bool]
    brand: BrandValues
    resolvedBrand: BrandValues
    parentEnabledQueryTypes: list[str]
    enabledLayouts: list[str] = Field(description="Layout ids the customer may use")
    parentEnabledLayouts: list[str]
    parentToggles: dict[str, bool]
    credits: list[CategoryFigures]


class CustomerDetailResponse(BaseModel):
    data: CustomerDetail
    upToDate: bool


class StatusRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    active: bool


BrandText = Annotated[str, StringConstraints(max_length=4 * TEXT_MAX)]


class BrandRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    appTitle: ShortText | None = None
    primaryColor: ShortText | None = None
    secondaryColor: ShortText | None = None
    lighterColor: ShortText | None = None
    # Checked by the command, with a clear code each (invalid_email, invalid_phone, text_too_long);
    # the bound here only stops an absurd body before it is read into the command.
    contactEmail: BrandText | None = None
    contactPhone: BrandText | None = None
    contactAddress: BrandText | None = None
    aboutText: BrandText | None = None


class BrandResponse(BaseModel):
    own: BrandValues
    resolved: BrandValues
    groupId: str
    groupName: str
    upToDate: bool


class ImageUploaded(BaseModel):
    url: str
    position: int


class AuditChange(BaseModel):
    """One field an event changed: ``before`` is None when the event set it first (or for an image)."""

    field: str
    before: str | None
    after: str | None
    kind: Literal["value", "image"]


# Every kind of row the audit log can show ("Batch.Submitted"): the web app's generated client lists them and
# its test checks both languages have a sentence for each. Built from the read model, so not a literal for mypy.
AuditEventKind = StrEnum("AuditEventKind", [(kind, kind) for kind in audit_event_kinds()])  # type: ignore[misc]


class AuditActor(BaseModel):
    id: str
    name: str


class AuditRow(BaseModel):
    position: int
    createdAt: UtcDateTime
    tenantId: str
    tenantName: str | None
    actorId: str | None
    actorName: str | None
    actorEmail: str | None
    aggregateType: str
    eventType: str
    aggregateId: str
    targetType: (
        Literal[
            "user",
            "group",
            "email",
            "contact",
            "image",
            "document",
            "query_type",
            "layout",
            "supplier",
            "batch",
            "token",
        ]
        | None
    )
    targetId: str | None
    targetName: str | None
    changes: list[AuditChange]
    details: dict[str, str | None] = Field(
        description="Every field of the event a person may read, changed or not, ids as names: its sentence's words"
    )


class AuditResponse(BaseModel):
    data: list[AuditRow]
    total: int
    page: int
    perPage: int
    actors: list[AuditActor]
    types: list[str]
    kinds: list[AuditEventKind] = Field(description="Every kind of event the log can show (the filter's choices)")
    upToDate: bool


class DataSubjectConsultation(BaseModel):
    createdAt: UtcDateTime
    consultationId: str
    groupId: str
    groupName: str | None
    userId: str | None
    userName: str | None
    userEmail: str | None
    channel: str
    queryType: str
    status: str
    purpose: str | None = Field(None, description="What its user said the consultation was for; null: not said")
    keptUntil: UtcDateTime | None = Field(
        None, description="The consultation's result is still held (personal data) until then; null: none held"
    )
    batchId: str | None = Field(
        None, description="The batch the document was looked up in (channel batch; createdAt: its run's start)"
    )
    fileName: str | None = Field(None, description="The batch's file, as sent")
    origin: Literal["batch", "manual", "api"] | None = Field(
        None, description="How the batch came: a file sent on the panel, a manual enrichment, the public API"
    )


class DataSubjectResponse(BaseModel):
    document: str
    documentType: Literal["cpf", "cnpj"]
    data: list[DataSubjectConsultation]
    position: int = Field(description="The report's run, recorded in the audit log")


class SigningKeyResponse(BaseModel):
    algorithm: Literal["Ed25519"]
    keyId: str
    publicKeyPem: str = Field(description="SubjectPublicKeyInfo, PEM: verifies the X-Signature of a signed report")


class SignatureCheckResponse(BaseModel):
    valid: bool = Field(description="The file is, byte for byte, one the platform signed with this signature")
    algorithm: Literal["Ed25519"]
    keyId: str

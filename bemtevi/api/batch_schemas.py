"""Request and answer models of batches and manual enrichment (issue 18)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.bounds import KEY_MAX, PurposeText, purpose_field
from bemtevi.api.schemas import UtcDateTime

BatchStatusName = Literal["waiting", "processing", "available", "error", "canceled"]
BatchKindName = Literal["batch", "manual"]
ExtensionName = Literal["TXT", "CSV", "XLSX"]


class BatchLimits(BaseModel):
    """What one batch file may hold: its bytes and its records (both refused on upload past them)."""

    maxBytes: int
    maxRecords: int


class BatchUpload(BaseModel):
    """An uploaded file, checked and previewed: nothing is charged until it is submitted."""

    uploadId: str
    fileName: str
    extension: ExtensionName
    size: int
    encoding: str
    records: int
    validDocuments: int
    invalidDocuments: int
    foundInDataset: int
    creditsNeeded: int
    creditsAvailable: int | None = Field(description="The group's batch credits available; null: unlimited")
    unknownExitFields: list[str] = Field(description="Exit fields the enrichment cannot fill (they stay empty)")


class SubmitBatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    uploadId: str = Field(max_length=KEY_MAX)
    groupId: str | None = Field(
        default=None,
        max_length=KEY_MAX,
        description="Manual enrichment for this customer (the caller's group or below)",
    )
    observation: str | None = Field(default=None, max_length=500)
    webhookUrl: str | None = Field(default=None, max_length=2000)
    webhookSecret: str | None = Field(default=None, max_length=200)
    purpose: PurposeText | None = purpose_field()


class SubmittedBatch(BaseModel):
    id: str
    position: int


class BatchRow(BaseModel):
    id: str
    createdAt: UtcDateTime
    kind: BatchKindName
    status: BatchStatusName
    userId: str | None
    userName: str | None
    groupId: str
    groupName: str | None
    layoutId: str
    layoutName: str | None
    queryType: str | None
    observation: str
    fileName: str
    extension: str
    records: int
    done: int
    found: int
    invalid: int
    creditsReserved: int
    creditsCharged: int
    returnFileName: str | None
    message: str | None
    # A stable code for ``message`` (canceled_by_owner, canceled_by_super_admin, time_limit, processing_error,
    # ...): the web app shows it translated, and the message itself for a code it does not know.
    messageCode: str | None = None
    # Who canceled a canceled batch (the screens say "Canceled by <name>"); the role is null for a batch canceled
    # before it was recorded by someone other than a super-admin.
    canceledById: str | None = None
    canceledByName: str | None = None
    canceledByRole: Literal["user", "admin", "owner", "super-admin"] | None = None
    startedAt: UtcDateTime | None
    finishedAt: UtcDateTime | None
    # False once inactivated: shown as such, its return file not served until activated again.
    active: bool = True
    # What the caller may do with it now (the server's own rule: ``BatchCommands.allowed_actions``).
    canCancel: bool = False
    canDelete: bool = False
    canToggle: bool = Field(default=False, description="May activate or inactivate it (a batch that is over)")


class BatchActiveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    active: bool


class BatchListResponse(BaseModel):
    data: list[BatchRow]
    total: int
    page: int
    perPage: int
    upToDate: bool


class BatchResponse(BaseModel):
    data: BatchRow
    upToDate: bool

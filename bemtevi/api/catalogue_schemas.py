"""Request and answer models of the enrichment catalogue: query types and layouts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.bounds import LIST_MAX, ShortText, Text
from bemtevi.api.schemas import UtcDateTime

ComponentName = Literal["person", "company"]
FieldType = Literal["text", "number", "document", "date", "phone", "email"]
LayoutKind = Literal["delimited", "fixed"]
DirectionName = Literal["entry", "exit"]


class QueryTypeToggles(BaseModel):
    model_config = ConfigDict(extra="forbid")
    phone: bool = False
    cpf: bool = False
    cnpj: bool = False
    benefit: bool = False
    status: bool = False


class QueryTypeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: ShortText
    description: Text
    icon: ShortText
    badge: ShortText
    toggles: QueryTypeToggles
    default: bool = False
    component: ComponentName
    cacheDays: int | None = Field(default=None, ge=0, le=3650)
    validityDays: int | None = Field(default=None, ge=0, le=3650)


class QueryTypeView(BaseModel):
    key: str
    name: str
    description: str
    icon: str
    badge: str
    toggles: QueryTypeToggles
    component: str
    cacheDays: int
    validityDays: int
    default: bool
    active: bool
    createdAt: UtcDateTime
    updatedAt: UtcDateTime


class QueryTypeListResponse(BaseModel):
    data: list[QueryTypeView]
    total: int
    page: int
    perPage: int
    upToDate: bool


class QueryTypeResponse(BaseModel):
    data: QueryTypeView
    upToDate: bool


class EnabledQueryTypesResponse(BaseModel):
    data: list[QueryTypeView]
    usesDefault: bool = Field(
        description="The group's default query: a lookup naming no type runs its document's default one (each "
        "type's `default`); false: every lookup names its type"
    )
    upToDate: bool


class SavedResponse(BaseModel):
    id: str = Field(description="The query type's key, or the layout's id")
    position: int


class LayoutRowModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: ShortText
    type: FieldType
    order: int = Field(ge=0, le=10_000)
    format: ShortText = ""
    size: int | None = Field(default=None, ge=0, le=10_000)
    direction: DirectionName


class LayoutRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fileName: ShortText
    finalFileName: ShortText
    returnExtension: ShortText
    acceptedExtension: ShortText
    kind: LayoutKind
    delimiter: str = Field(default="", max_length=4)
    firstLine: bool = False
    table: ShortText
    rows: list[LayoutRowModel] = Field(max_length=LIST_MAX * 2)


class LayoutView(BaseModel):
    id: str
    fileName: str
    finalFileName: str
    returnExtension: str
    acceptedExtension: str
    kind: LayoutKind
    delimiter: str
    firstLine: bool
    table: str
    rows: list[LayoutRowModel]
    active: bool
    createdAt: UtcDateTime
    updatedAt: UtcDateTime
    groupId: str | None = Field(default=None, description="The group whose own layout it is; null: the platform's")
    ready: str | None = Field(default=None, description="A shipped ready layout's key (copy it to change it)")
    readyTitle: dict[str, str] | None = Field(default=None, description="A ready layout's title by language")
    copiedFrom: str | None = Field(default=None, description="The layout this one was copied from")


class LayoutListResponse(BaseModel):
    data: list[LayoutView]
    total: int
    page: int
    perPage: int
    upToDate: bool


class LayoutResponse(BaseModel):
    data: LayoutView
    upToDate: bool


class EnabledLayoutsResponse(BaseModel):
    data: list[LayoutView]
    upToDate: bool


class LayoutPreviewRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    layout: LayoutRequest
    sample: Text


class LayoutPreview(BaseModel):
    values: dict[str, str] = Field(description="The sample's values by entry row name")
    exitLine: str = Field(description="The line the exit rows write of those values")


class LayoutPreviewResponse(BaseModel):
    data: LayoutPreview


class ExitFieldView(BaseModel):
    key: str = Field(description="The catalogue's key of the field")
    name: str = Field(description="The name a layout's exit row gives it (pt-BR)")
    names: list[str] = Field(description="Every name the field is matched by (pt-BR and English)")
    label: dict[str, str] = Field(description="The field's label by language (pt-BR, en-US)")
    type: FieldType = Field(description="The row type the field is written as")
    format: str = Field(description="The row format the picker fills in (dates: dd/mm/aaaa)")
    size: int = Field(description="A width that holds the field in a fixed-width layout")
    appliesTo: Literal["person", "company", "both"]


class ExitFieldsResponse(BaseModel):
    data: list[ExitFieldView]


DemoKind = Literal["cpf", "cnpj"]


class LayoutRecordPreviewRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    layout: LayoutRequest
    kind: DemoKind = "cpf"


class LayoutRecordValue(BaseModel):
    name: str
    value: str


class LayoutRecordPreview(BaseModel):
    document: str = Field(description="The demo document shown (of the demo data; never a customer's)")
    found: bool
    values: list[LayoutRecordValue] = Field(description="Each exit row's value, in the exit rows' order")
    exitLine: str = Field(description="The line the exit rows write of that record")
    header: str | None = Field(description="The first line, if the layout names its columns")
    unknown: list[str] = Field(description="Exit rows naming no field of the catalogue (left empty)")
    charged: bool = Field(description="Always false: a preview costs no credit")


class LayoutRecordPreviewResponse(BaseModel):
    data: LayoutRecordPreview

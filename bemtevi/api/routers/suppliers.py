"""Suppliers (HTTP vendors): supplier-list and add-new-supplier (super-admin), and reopening a kept result.

Secrets are write-only: a request may carry ``password``/``token`` (None keeps the stored one, ""
clears it); every answer says only ``passwordSet``/``tokenSet``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field, StringConstraints

from bemtevi.api.bounds import KEY_MAX, LIST_MAX, SEARCH_MAX, SHORT_TEXT_MAX, TEXT_MAX
from bemtevi.api.credit_schemas import PositionResponse
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, wait_for_position
from bemtevi.api.paging import Page, paging
from bemtevi.api.schemas import ConsultationData, ErrorResponse, UtcDateTime
from bemtevi.domain.customers import without_protests
from bemtevi.domain.errors import DomainError, ResultExpired, SupplierNotFound
from bemtevi.domain.principals import Principal
from bemtevi.domain.vendors import DEFAULT_MAX_BODY_KB, AuthMethod, HttpMethod, InputType, VendorForm
from bemtevi.projections.consultations import consultation_of_group
from bemtevi.projections.suppliers import supplier_by_id, suppliers_page

router = APIRouter(tags=["suppliers"])

SupplierManager = Annotated[Principal, Depends(allowed_route("supplier-list"))]
ResultReader = Annotated[Principal, Depends(allowed_route("normal-query"))]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorResponse}, 403: {"model": ErrorResponse}}

Short = Annotated[str, StringConstraints(max_length=SHORT_TEXT_MAX)]
Url = Annotated[str, StringConstraints(max_length=TEXT_MAX)]
Secret = Annotated[str, StringConstraints(max_length=TEXT_MAX)]
Key = Annotated[str, StringConstraints(max_length=KEY_MAX)]
BODY_MAX = 8_000


class SupplierRequest(BaseModel):
    name: Short
    contact: Short
    url: Url
    server: Short
    port: int | None = Field(default=None, ge=0, le=100_000)
    route: Url
    httpMethod: HttpMethod = HttpMethod.GET
    authMethod: AuthMethod = AuthMethod.BEARER
    inputType: InputType = InputType.BOTH
    username: Short = ""
    password: Secret | None = None
    token: Secret | None = None
    prefix: Short = ""
    embeddedInUrlBase: bool = False
    baseComplement: Url = ""
    requestBody: Annotated[str, StringConstraints(max_length=BODY_MAX)] = ""
    allowedLayouts: Annotated[list[Key], Field(max_length=LIST_MAX)] = []
    allowedQueryTypes: Annotated[list[Key], Field(max_length=LIST_MAX)] = []
    cacheDays: int | None = Field(default=None, ge=-1, le=100_000)
    validityDays: int | None = Field(default=None, ge=-1, le=100_000)
    # The cap on a vendor's answer body, in KB (the form's rule gives the bounds' message).
    maxBodyKb: int = Field(default=DEFAULT_MAX_BODY_KB, ge=-1, le=1_000_000)

    def form(self) -> VendorForm:
        return VendorForm(
            name=self.name,
            contact=self.contact,
            url=self.url,
            server=self.server,
            port=self.port,
            route=self.route,
            http_method=self.httpMethod,
            auth_method=self.authMethod,
            input_type=self.inputType,
            username=self.username,
            prefix=self.prefix,
            embedded_in_url_base=self.embeddedInUrlBase,
            base_complement=self.baseComplement,
            request_body=self.requestBody,
            allowed_layouts=tuple(self.allowedLayouts),
            allowed_query_types=tuple(self.allowedQueryTypes),
            cache_days=self.cacheDays,
            validity_days=self.validityDays,
            max_body_kb=self.maxBodyKb,
            password=self.password,
            token=self.token,
        )


class SupplierData(BaseModel):
    id: str
    name: str
    contact: str
    url: str
    server: str
    port: int
    route: str
    httpMethod: HttpMethod
    authMethod: AuthMethod
    inputType: InputType
    username: str
    prefix: str
    passwordSet: bool
    tokenSet: bool
    embeddedInUrlBase: bool
    baseComplement: str
    requestBody: str
    allowedLayouts: list[str]
    allowedQueryTypes: list[str]
    cacheDays: int
    validityDays: int
    maxBodyKb: int
    active: bool
    createdAt: UtcDateTime
    updatedAt: UtcDateTime


class SupplierListResponse(BaseModel):
    data: list[SupplierData]
    total: int
    page: int
    perPage: int
    upToDate: bool


class SupplierResponse(BaseModel):
    data: SupplierData
    upToDate: bool


class SavedSupplierResponse(BaseModel):
    id: str
    position: int


class SupplierStatusRequest(BaseModel):
    active: bool


class KeptResultData(ConsultationData):
    supplier: str
    validUntil: UtcDateTime


class KeptResultResponse(BaseModel):
    data: KeptResultData


def _data(row: dict[str, Any]) -> SupplierData:
    c = row["config"]
    return SupplierData(
        id=row["supplier_id"],
        name=c["name"],
        contact=c["contact"],
        url=c["url"],
        server=c["server"],
        port=c["port"],
        route=c["route"],
        httpMethod=c["http_method"],
        authMethod=c["auth_method"],
        inputType=c["input_type"],
        username=c["username"],
        prefix=c["prefix"],
        passwordSet=row["password_set"],
        tokenSet=row["token_set"],
        embeddedInUrlBase=c["embedded_in_url_base"],
        baseComplement=c["base_complement"],
        requestBody=c["request_body"],
        allowedLayouts=c["allowed_layouts"],
        allowedQueryTypes=c["allowed_query_types"],
        cacheDays=c["cache_days"],
        validityDays=c["validity_days"],
        maxBodyKb=c.get("max_body_kb", DEFAULT_MAX_BODY_KB),
        active=row["active"],
        createdAt=row["created_at"],
        updatedAt=row["updated_at"],
    )


def _uuid(value: str, error: type[Exception] = SupplierNotFound) -> UUID:
    try:
        return UUID(value)
    except ValueError as e:
        raise error() from e


@router.get("/suppliers", response_model=SupplierListResponse, responses=NOT_FOUND)
def list_suppliers(
    principal: SupplierManager,
    platform: PlatformDep,
    page: Annotated[Page, Depends(paging(default_size=20, max_size=100))],
    search: Annotated[str, Query(max_length=SEARCH_MAX)] = "",
    position: PositionQuery = None,
) -> SupplierListResponse:
    up_to_date = wait_for_position(platform, position)
    rows, total = suppliers_page(platform.store.cursor(), search, offset=page.offset, limit=page.size)
    return SupplierListResponse(
        data=[_data(r) for r in rows], total=total, page=page.number, perPage=page.size, upToDate=up_to_date
    )


@router.post("/suppliers", response_model=SavedSupplierResponse, responses={**NOT_FOUND, 409: {"model": ErrorResponse}})
def add_supplier(body: SupplierRequest, principal: SupplierManager, platform: PlatformDep) -> SavedSupplierResponse:
    saved = platform.vendors.register(principal, body.form())
    return SavedSupplierResponse(id=str(saved.vendor_id), position=saved.position)


@router.get("/suppliers/{supplier_id}", response_model=SupplierResponse, responses=NOT_FOUND)
def get_supplier(
    supplier_id: str, principal: SupplierManager, platform: PlatformDep, position: PositionQuery = None
) -> SupplierResponse:
    up_to_date = wait_for_position(platform, position)
    row = supplier_by_id(platform.store.cursor(), str(_uuid(supplier_id)))
    if row is None:
        raise SupplierNotFound()
    return SupplierResponse(data=_data(row), upToDate=up_to_date)


@router.put(
    "/suppliers/{supplier_id}",
    response_model=SavedSupplierResponse,
    responses={**NOT_FOUND, 409: {"model": ErrorResponse}},
)
def edit_supplier(
    supplier_id: str, body: SupplierRequest, principal: SupplierManager, platform: PlatformDep
) -> SavedSupplierResponse:
    saved = platform.vendors.edit(principal, _uuid(supplier_id), body.form())
    return SavedSupplierResponse(id=str(saved.vendor_id), position=saved.position)


@router.post("/suppliers/{supplier_id}/status", response_model=PositionResponse, responses=NOT_FOUND)
def change_supplier_status(
    supplier_id: str, body: SupplierStatusRequest, principal: SupplierManager, platform: PlatformDep
) -> PositionResponse:
    return PositionResponse(position=platform.vendors.set_active(principal, _uuid(supplier_id), body.active).position)


@router.get("/consultations/{consultation_id}/result", response_model=KeptResultResponse, responses=NOT_FOUND)
def kept_result(
    consultation_id: str, principal: ResultReader, platform: PlatformDep, position: PositionQuery = None
) -> KeptResultResponse:
    """A lookup's result, reopened within its query type's validity, by the group that ran it.

    A vendor's result comes from the kept results; the local dataset's is read again from the dataset
    (it is not copied), for a consultation the read model shows as found within the validity."""
    wanted = _uuid(consultation_id, ResultExpired)
    kept = platform.kept_results.get(wanted)
    if kept is not None:
        if kept.group_id != principal.group_id:
            raise ResultExpired()
        return _kept_answer(
            principal,
            kept.consultation_id,
            kept.document,
            kept.document_type,
            kept.query_type,
            kept.result,
            kept.supplier,
            datetime.fromtimestamp(kept.created_at, UTC),
            datetime.fromtimestamp(kept.valid_until, UTC),
        )
    wait_for_position(platform, position)
    row = consultation_of_group(platform.store.cursor(), str(principal.group_id), str(wanted))
    if row is None or row["status"] != "done" or row["supplier"] != platform.supplier.name:
        raise ResultExpired()
    try:
        query_type = platform.query_types.get(row["query_type"])
    except DomainError:
        raise ResultExpired() from None
    created = row["created_at"].replace(tzinfo=UTC)
    valid_until = created + timedelta(days=query_type.validity_days)
    if valid_until <= datetime.now(UTC):
        raise ResultExpired()
    result = platform.supplier.lookup(row["document_type"], row["document"])
    if result is None:
        raise ResultExpired()
    kind, document, supplier = row["document_type"], row["document"], row["supplier"]
    return _kept_answer(principal, wanted, document, kind, row["query_type"], result, supplier, created, valid_until)


def _kept_answer(
    principal: Principal,
    consultation_id: UUID,
    document: str,
    document_type: str,
    query_type: str,
    result: dict[str, Any],
    supplier: str,
    created: datetime,
    valid_until: datetime,
) -> KeptResultResponse:
    kind: Literal["cpf", "cnpj"] = "cpf" if document_type == "cpf" else "cnpj"
    return KeptResultResponse(
        data=KeptResultData(
            id=str(consultation_id),
            document=document,
            documentType=kind,
            queryType=query_type,
            status="done",
            credits=1,
            createdAt=created,
            result=result if principal.consults_protests else without_protests(result),
            supplier=supplier,
            validUntil=valid_until,
        )
    )

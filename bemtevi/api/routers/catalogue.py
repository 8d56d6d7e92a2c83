"""The enrichment catalogue: query types (queries-list, add-new-query) and layouts (layout-list,
add-new-layout), managed by a super-admin; every signed-in user reads what their group may use."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query

from bemtevi.api.bounds import KEY_MAX, SEARCH_MAX
from bemtevi.api.catalogue_schemas import (
    EnabledLayoutsResponse,
    EnabledQueryTypesResponse,
    ExitFieldsResponse,
    ExitFieldView,
    LayoutListResponse,
    LayoutPreview,
    LayoutPreviewRequest,
    LayoutPreviewResponse,
    LayoutRecordPreview,
    LayoutRecordPreviewRequest,
    LayoutRecordPreviewResponse,
    LayoutRecordValue,
    LayoutRequest,
    LayoutResponse,
    LayoutView,
    QueryTypeListResponse,
    QueryTypeRequest,
    QueryTypeResponse,
    QueryTypeView,
    SavedResponse,
)
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_any_route, allowed_route, wait_for_position
from bemtevi.api.group_schemas import StatusRequest
from bemtevi.api.paging import Page, paging
from bemtevi.api.schemas import ErrorResponse
from bemtevi.commands.catalogue import demo_record_preview
from bemtevi.domain.enrichment_fields import FIELDS, FIXED_SIZES, LABELS, applies_to, default_format, row_type
from bemtevi.domain.errors import LayoutNotFound, QueryNotFound
from bemtevi.domain.layouts import LayoutRow, LayoutSpec, header_line, preview
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import QueryTypeForm
from bemtevi.domain.ready_layouts import BY_KEY
from bemtevi.domain.users import Role
from bemtevi.projections import enrichment

router = APIRouter(tags=["catalogue"])
KeyPath = Annotated[str, Path(max_length=KEY_MAX)]

_REFUSALS: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorResponse},
    404: {"model": ErrorResponse},
    409: {"model": ErrorResponse},
    422: {"model": ErrorResponse},
}


# -- query types -------------------------------------------------------------------------------


def _query_type_form(body: QueryTypeRequest) -> QueryTypeForm:
    return QueryTypeForm(
        name=body.name,
        description=body.description,
        icon=body.icon,
        badge=body.badge,
        toggles=body.toggles.model_dump(),
        default=body.default,
        component=body.component,
        cache_days=body.cacheDays,
        validity_days=body.validityDays,
    )


@router.get("/query-types", response_model=QueryTypeListResponse)
def list_query_types(
    principal: Annotated[Principal, Depends(allowed_route("queries-list"))],
    platform: PlatformDep,
    page: Annotated[Page, Depends(paging(default_size=20, max_size=100))],
    search: Annotated[str | None, Query(max_length=SEARCH_MAX)] = None,
    active: bool | None = None,
    position: PositionQuery = None,
) -> QueryTypeListResponse:
    up_to_date = wait_for_position(platform, position)
    rows, total = enrichment.query_types_page(
        platform.store.cursor(), search, active, offset=page.offset, limit=page.size
    )
    return QueryTypeListResponse(
        data=[QueryTypeView.model_validate(r) for r in rows],
        total=total,
        page=page.number,
        perPage=page.size,
        upToDate=up_to_date,
    )


@router.get("/query-types/enabled", response_model=EnabledQueryTypesResponse)
def enabled_query_types(
    principal: Annotated[Principal, Depends(allowed_any_route("normal-query", "add-new-customer", "api-query"))],
    platform: PlatformDep,
    position: PositionQuery = None,
) -> EnabledQueryTypesResponse:
    """The active query types the caller's group may run (what normal query offers, and what a
    customer registered by this group may be given)."""
    up_to_date = wait_for_position(platform, position)
    rows = enrichment.enabled_query_types(platform.store.cursor(), str(principal.group_id))
    return EnabledQueryTypesResponse(
        data=[QueryTypeView.model_validate(r) for r in rows],
        usesDefault=principal.uses_default_query,
        upToDate=up_to_date,
    )


@router.get("/query-types/{key}", response_model=QueryTypeResponse, responses={404: {"model": ErrorResponse}})
def get_query_type(
    key: KeyPath,
    principal: Annotated[Principal, Depends(allowed_any_route("queries-list", "add-new-query"))],
    platform: PlatformDep,
    position: PositionQuery = None,
) -> QueryTypeResponse:
    up_to_date = wait_for_position(platform, position)
    row = enrichment.query_type(platform.store.cursor(), key)
    if row is None:
        raise QueryNotFound(field="key")
    return QueryTypeResponse(data=QueryTypeView.model_validate(row), upToDate=up_to_date)


@router.post("/query-types", response_model=SavedResponse, responses=_REFUSALS)
def add_query_type(
    body: QueryTypeRequest,
    principal: Annotated[Principal, Depends(allowed_route("add-new-query"))],
    platform: PlatformDep,
) -> SavedResponse:
    saved = platform.catalogue.add_query_type(principal, _query_type_form(body))
    return SavedResponse(id=saved.id, position=saved.position)


@router.put("/query-types/{key}", response_model=SavedResponse, responses=_REFUSALS)
def edit_query_type(
    key: KeyPath,
    body: QueryTypeRequest,
    principal: Annotated[Principal, Depends(allowed_route("add-new-query"))],
    platform: PlatformDep,
) -> SavedResponse:
    saved = platform.catalogue.edit_query_type(principal, key, _query_type_form(body))
    return SavedResponse(id=saved.id, position=saved.position)


@router.post("/query-types/{key}/status", response_model=SavedResponse, responses=_REFUSALS)
def change_query_type_status(
    key: KeyPath,
    body: StatusRequest,
    principal: Annotated[Principal, Depends(allowed_route("queries-list"))],
    platform: PlatformDep,
) -> SavedResponse:
    saved = platform.catalogue.set_query_type_active(principal, key, body.active)
    return SavedResponse(id=saved.id, position=saved.position)


# -- layouts -----------------------------------------------------------------------------------


def _layout_spec(body: LayoutRequest) -> LayoutSpec:
    return LayoutSpec(
        file_name=body.fileName,
        final_file_name=body.finalFileName,
        return_extension=body.returnExtension,
        accepted_extension=body.acceptedExtension,
        kind=body.kind,
        delimiter=body.delimiter,
        first_line=body.firstLine,
        table=body.table,
        rows=tuple(LayoutRow(r.name, r.type, r.order, r.format, r.size, r.direction) for r in body.rows),
    )


def _viewer(principal: Principal) -> str | None:
    """Whose layouts a list shows: None for a super-admin (every one), else the caller's group."""
    return None if principal.role == Role.SUPER_ADMIN else str(principal.group_id)


def _layout_view(row: dict[str, Any]) -> LayoutView:
    ready = BY_KEY.get(row.get("ready") or "")
    title = {"pt-BR": ready.title_pt, "en-US": ready.title_en} if ready else None
    return LayoutView.model_validate({**row, "readyTitle": title})


@router.get("/layouts", response_model=LayoutListResponse)
def list_layouts(
    principal: Annotated[Principal, Depends(allowed_route("layout-list"))],
    platform: PlatformDep,
    page: Annotated[Page, Depends(paging(default_size=20, max_size=100))],
    search: Annotated[str | None, Query(max_length=SEARCH_MAX)] = None,
    active: bool | None = None,
    scope: Literal["mine", "ready"] | None = None,
    position: PositionQuery = None,
) -> LayoutListResponse:
    """The layouts the caller sees: a super-admin every one; an owner or an admin the ready layouts and
    their group's own (``scope`` narrows to either)."""
    up_to_date = wait_for_position(platform, position)
    rows, total = enrichment.layouts_page(
        platform.store.cursor(),
        search,
        active,
        offset=page.offset,
        limit=page.size,
        viewer_group=_viewer(principal),
        scope=scope,
    )
    return LayoutListResponse(
        data=[_layout_view(r) for r in rows],
        total=total,
        page=page.number,
        perPage=page.size,
        upToDate=up_to_date,
    )


@router.get("/layouts/enabled", response_model=EnabledLayoutsResponse)
def enabled_layouts(
    principal: Annotated[Principal, Depends(allowed_any_route("batch-query", "add-new-customer"))],
    platform: PlatformDep,
    position: PositionQuery = None,
) -> EnabledLayoutsResponse:
    """The active layouts the caller's group may use (enabled for it, and its own)."""
    up_to_date = wait_for_position(platform, position)
    rows = enrichment.enabled_layouts(platform.store.cursor(), str(principal.group_id))
    return EnabledLayoutsResponse(data=[_layout_view(r) for r in rows], upToDate=up_to_date)


@router.get("/layouts/exit-fields", response_model=ExitFieldsResponse)
def exit_fields(principal: Annotated[Principal, Depends(allowed_route("add-new-layout"))]) -> ExitFieldsResponse:
    """The exit fields a layout may use (what a batch fills), with the type and format the layout
    form's picker gives a row of each: a row named by any of ``names`` is filled with the field."""
    return ExitFieldsResponse(
        data=[
            ExitFieldView(
                key=f.key,
                name=f.names[0],
                names=list(f.names),
                label={"pt-BR": LABELS[f.key][0], "en-US": LABELS[f.key][1]},
                type=row_type(f),  # type: ignore[arg-type]
                format=default_format(f),
                size=FIXED_SIZES[f.key],
                appliesTo=applies_to(f),
            )
            for f in FIELDS
        ]
    )


@router.post(
    "/layouts/preview-record", response_model=LayoutRecordPreviewResponse, responses={422: {"model": ErrorResponse}}
)
def preview_layout_record(
    body: LayoutRecordPreviewRequest,
    principal: Annotated[Principal, Depends(allowed_route("add-new-layout"))],
    platform: PlatformDep,
) -> LayoutRecordPreviewResponse:
    """One record of the demo data written by the layout's exit rows, as a batch would write it. For the
    layout's author: no credit is charged and no consultation is recorded (the document is the demo
    data's, never one the caller chose)."""
    spec = _layout_spec(body.layout).codec_validated()
    preview = demo_record_preview(platform.supplier, spec, body.kind)
    shown = preview.shown
    return LayoutRecordPreviewResponse(
        data=LayoutRecordPreview(
            document=preview.document,
            found=preview.found,
            values=[LayoutRecordValue(name=n, value=v) for n, v in shown.values],
            exitLine=shown.exit_line,
            header=header_line(spec, "exit") if spec.first_line else None,
            unknown=list(shown.unknown),
            charged=False,
        )
    )


@router.post("/layouts/preview", response_model=LayoutPreviewResponse, responses={422: {"model": ErrorResponse}})
def preview_layout(
    body: LayoutPreviewRequest,
    principal: Annotated[Principal, Depends(allowed_route("add-new-layout"))],
) -> LayoutPreviewResponse:
    """The form's live preview: the sample line read by the entry rows and written by the exit rows,
    or the first broken rule of what reading a line needs (kind, delimiter, rows: saving checks those
    and the file's names)."""
    shown = preview(_layout_spec(body.layout).codec_validated(), body.sample)
    return LayoutPreviewResponse(data=LayoutPreview(values=shown.values, exitLine=shown.exit_line))


@router.get("/layouts/{layout_id}", response_model=LayoutResponse, responses={404: {"model": ErrorResponse}})
def get_layout(
    layout_id: KeyPath,
    principal: Annotated[Principal, Depends(allowed_any_route("layout-list", "add-new-layout"))],
    platform: PlatformDep,
    position: PositionQuery = None,
) -> LayoutResponse:
    up_to_date = wait_for_position(platform, position)
    row = enrichment.layout(platform.store.cursor(), layout_id, _viewer(principal))
    if row is None:
        raise LayoutNotFound(field="id")
    return LayoutResponse(data=_layout_view(row), upToDate=up_to_date)


@router.post("/layouts", response_model=SavedResponse, responses=_REFUSALS)
def add_layout(
    body: LayoutRequest,
    principal: Annotated[Principal, Depends(allowed_route("add-new-layout"))],
    platform: PlatformDep,
) -> SavedResponse:
    saved = platform.catalogue.add_layout(principal, _layout_spec(body))
    return SavedResponse(id=saved.id, position=saved.position)


@router.post("/layouts/{layout_id}/copy", response_model=SavedResponse, responses=_REFUSALS)
def copy_layout(
    layout_id: KeyPath,
    principal: Annotated[Principal, Depends(allowed_route("add-new-layout"))],
    platform: PlatformDep,
) -> SavedResponse:
    """A ready layout copied into the caller's group's own layouts (an independent layout to edit)."""
    saved = platform.catalogue.copy_layout(principal, layout_id)
    return SavedResponse(id=saved.id, position=saved.position)


@router.put("/layouts/{layout_id}", response_model=SavedResponse, responses=_REFUSALS)
def edit_layout(
    layout_id: KeyPath,
    body: LayoutRequest,
    principal: Annotated[Principal, Depends(allowed_route("add-new-layout"))],
    platform: PlatformDep,
) -> SavedResponse:
    saved = platform.catalogue.edit_layout(principal, layout_id, _layout_spec(body))
    return SavedResponse(id=saved.id, position=saved.position)


@router.post("/layouts/{layout_id}/status", response_model=SavedResponse, responses=_REFUSALS)
def change_layout_status(
    layout_id: KeyPath,
    body: StatusRequest,
    principal: Annotated[Principal, Depends(allowed_route("layout-list"))],
    platform: PlatformDep,
) -> SavedResponse:
    saved = platform.catalogue.set_layout_active(principal, layout_id, body.active)
    return SavedResponse(id=saved.id, position=saved.position)

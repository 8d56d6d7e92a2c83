"""The audit log: every change with who made it, for which tenant and when; filters and the export (CSV or XLSX).

Admins and owners read their own group's log and their subtree's; the super-admin (at the root)
reads everything. A group outside one's subtree is 'not found'. The data-subject report, under the same path,
is ``routers.data_subject``'s.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response

from bemtevi.api.audit_export import audit_table, export_language
from bemtevi.api.bounds import KEY_MAX, SHORT_TEXT_MAX
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, on_the_loop, wait_for_position
from bemtevi.api.exports import file_response
from bemtevi.api.group_schemas import (
    AuditActor,
    AuditEventKind,
    AuditResponse,
    AuditRow,
)
from bemtevi.api.paging import Page, ordering, paging
from bemtevi.api.schemas import ErrorResponse
from bemtevi.bootstrap import Platform
from bemtevi.domain.errors import GroupNotFound, InvalidData
from bemtevi.domain.principals import Principal
from bemtevi.projections.audit_queries import AUDIT_ORDER, audit_actors, audit_page, audit_types
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.credit_queries import subtree_ids

router = APIRouter(prefix="/audit", tags=["audit"])

AuditReader = Annotated[Principal, Depends(allowed_route("audit-log"))]
# The super-admin and the data-protection officer: the only menus with the report's screen.
DataSubjectReader = Annotated[Principal, Depends(allowed_route("data-subject-report"))]

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


class AuditFilters:
    def __init__(
        self,
        group_id: Annotated[str | None, Query(max_length=KEY_MAX)] = None,
        user_id: Annotated[str | None, Query(max_length=KEY_MAX)] = None,
        type: Annotated[str | None, Query(max_length=SHORT_TEXT_MAX)] = None,
        target: Annotated[
            str | None, Query(max_length=SHORT_TEXT_MAX, description="The target's id or part of its name")
        ] = None,
        start: Annotated[date | None, Query(alias="from")] = None,
        end: Annotated[date | None, Query(alias="to")] = None,
        children: Annotated[bool, Query(description="Include the group's subtree")] = False,
    ) -> None:
        if start and end and start > end:
            raise InvalidData("Invalid date", field="from")
        self.group_id = group_id
        self.user_id = user_id or None
        self.type = type or None
        self.target = (target or "").strip() or None
        self.start = _midnight_utc(start) if start else None
        self.end = _midnight_utc(end + timedelta(days=1)) if end else None
        self.children = children


def _midnight_utc(day: date) -> datetime:
    """A São Paulo calendar day's start as UTC wall time (the read model keeps UTC)."""
    return datetime.combine(day, time(), SAO_PAULO).astimezone(UTC).replace(tzinfo=None)


def _groups(platform: Platform, principal: Principal, filters: AuditFilters) -> list[str]:
    cur = platform.store.cursor()
    mine = subtree_ids(cur, str(principal.group_id))
    group_id = filters.group_id or str(principal.group_id)
    if group_id not in mine:
        raise GroupNotFound()
    if filters.children:
        return subtree_ids(cur, group_id)
    return [group_id]


def _rows(
    platform: Platform, groups: list[str], filters: AuditFilters, **page: Any
) -> tuple[list[dict[str, Any]], int]:
    return audit_page(
        platform.store.cursor(),
        groups,
        user_id=filters.user_id,
        event_type=filters.type,
        target=filters.target,
        start=filters.start,
        end=filters.end,
        **page,
    )


@router.get("", response_model=AuditResponse, responses={404: {"model": ErrorResponse}})
def audit_log(
    principal: AuditReader,
    platform: PlatformDep,
    filters: Annotated[AuditFilters, Depends(on_the_loop(AuditFilters))],
    page: Annotated[Page, Depends(paging(default_size=50, max_size=200))],
    order: Annotated[str | None, Depends(ordering(AUDIT_ORDER))],
    position: PositionQuery = None,
) -> AuditResponse:
    up_to_date = wait_for_position(platform, position)
    groups = _groups(platform, principal, filters)
    rows, total = _rows(platform, groups, filters, order=order, offset=page.offset, limit=page.size)
    return AuditResponse(
        data=[AuditRow.model_validate(r) for r in rows],
        total=total,
        page=page.number,
        perPage=page.size,
        types=audit_types(platform.store.cursor()),
        kinds=list(AuditEventKind),
        actors=[AuditActor.model_validate(a) for a in audit_actors(platform.store.cursor(), groups)],
        upToDate=up_to_date,
    )


@router.get(
    "/export",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}, XLSX: {}}}, 404: {"model": ErrorResponse}},
)
def export_audit(
    request: Request,
    principal: AuditReader,
    platform: PlatformDep,
    filters: Annotated[AuditFilters, Depends(on_the_loop(AuditFilters))],
    order: Annotated[str | None, Depends(ordering(AUDIT_ORDER))],
    lang: Annotated[
        str | None, Query(max_length=KEY_MAX, description="pt-BR or en-US; by default the Accept-Language's")
    ] = None,
    format: Annotated[Literal["csv", "xlsx"], Query()] = "csv",
) -> Response:
    """The rows as the screen says them (one sentence each, names for ids) in the person's language, CSV (';',
    UTF-8) or XLSX, named audit_dd-mm-yyyy_hh-mm-ss, times in São Paulo and in UTC."""
    groups = _groups(platform, principal, filters)
    rows, _ = _rows(platform, groups, filters, order=order, limit=None)
    language = export_language(lang, request.headers.get("accept-language"))
    header, table = audit_table(rows, language)
    return file_response(header, table, format, "audit")

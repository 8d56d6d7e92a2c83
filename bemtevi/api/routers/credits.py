"""Credits: the balances view, the balance history for finance (with CSV/XLSX export), grants and limits."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response

from bemtevi.api.credit_schemas import (
    BalancesData,
    BalancesResponse,
    CategoryName,
    ConsumptionDay,
    ConsumptionResponse,
    GrantRequest,
    HistoryResponse,
    LimitRequest,
    Movement,
    PositionResponse,
)
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, wait_for_position
from bemtevi.api.exports import XLSX, Cell, ExportLanguage, SpreadsheetFormat, file_response
from bemtevi.api.paging import Page, ordering, paging
from bemtevi.api.schemas import ErrorResponse
from bemtevi.domain.errors import GroupNotFound
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import Category
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.credit_queries import (
    HISTORY_ORDER,
    StoppedLeaseTimes,
    balances_view,
    daily_consumption,
    movement_history,
    subtree_ids,
)

router = APIRouter(prefix="/credits", tags=["credits"])

BalancesReader = Annotated[Principal, Depends(allowed_route("balances"))]
HistoryReader = Annotated[Principal, Depends(allowed_route("balance-history"))]


def _sao_paulo_midnight_utc(day: date) -> datetime:
    return datetime.combine(day, time(), SAO_PAULO).astimezone(UTC).replace(tzinfo=None)


def _utc_bounds(start: date | None, end: date | None) -> tuple[datetime | None, datetime | None]:
    """São Paulo calendar days [start, end] as a UTC range (end inclusive); the read model keeps UTC."""
    lower = _sao_paulo_midnight_utc(start) if start else None
    upper = _sao_paulo_midnight_utc(end + timedelta(days=1)) if end else None
    return lower, upper


def _visible_groups(platform: PlatformDep, principal: Principal, group_id: UUID | None) -> list[str]:
    """The groups whose movements the caller may read: its own subtree, or one group inside it."""
    cur = platform.store.cursor()
    subtree = subtree_ids(cur, str(principal.group_id))
    if group_id is None:
        return subtree
    if str(group_id) not in subtree:
        # Outside the caller's subtree: not found, so ids of other tenants reveal nothing.
        raise GroupNotFound()
    return [str(group_id)]


@router.get("/balances", response_model=BalancesResponse)
def balances(principal: BalancesReader, platform: PlatformDep, position: PositionQuery = None) -> BalancesResponse:
    up_to_date = wait_for_position(platform, position)
    settings = platform.settings
    stopped = StoppedLeaseTimes.of(
        settings.ledger_lease_seconds, settings.ledger_abandon_seconds, settings.reservation_sweep_seconds
    )
    view = balances_view(platform.store.cursor(), str(principal.group_id), stopped)
    return BalancesResponse(
        data=BalancesData.model_validate({**view, "position": platform.projector.position, "upToDate": up_to_date})
    )


class HistoryFilters:
    def __init__(
        self,
        start: Annotated[date | None, Query(alias="from", description="First day (America/Sao_Paulo)")] = None,
        end: Annotated[date | None, Query(alias="to", description="Last day, inclusive (America/Sao_Paulo)")] = None,
        category: Annotated[CategoryName | None, Query()] = None,
        group_id: Annotated[
            UUID | None, Query(alias="groupId", description="One group of the caller's subtree")
        ] = None,
    ) -> None:
        self.start, self.end = _utc_bounds(start, end)
        self.category = category
        self.group_id = group_id


def _movements(
    platform: PlatformDep,
    principal: Principal,
    filters: HistoryFilters,
    order: str | None,
    *,
    offset: int = 0,
    limit: int | None,
) -> tuple[list[dict[str, Any]], int]:
    """The movements the filters select in the groups the caller may see (the screen's page, or all of them for
    the export), and how many there are."""
    groups = _visible_groups(platform, principal, filters.group_id)
    return movement_history(
        platform.store.cursor(),
        groups,
        start=filters.start,
        end=filters.end,
        category=filters.category,
        order=order,
        offset=offset,
        limit=limit,
    )


@router.get("/history", response_model=HistoryResponse, responses={404: {"model": ErrorResponse}})
def history(
    principal: HistoryReader,
    platform: PlatformDep,
    filters: Annotated[HistoryFilters, Depends()],
    page: Annotated[Page, Depends(paging(default_size=50, max_size=500))],
    order: Annotated[str | None, Depends(ordering(HISTORY_ORDER))],
    position: PositionQuery = None,
) -> HistoryResponse:
    up_to_date = wait_for_position(platform, position)
    rows, total = _movements(platform, principal, filters, order, offset=page.offset, limit=page.size)
    return HistoryResponse(
        data=[Movement.model_validate(row) for row in rows],
        total=total,
        page=page.number,
        perPage=page.size,
        upToDate=up_to_date,
    )


EXPORT_LABELS: dict[str, dict[str, Any]] = {
    "pt-BR": {
        "base": "historico_saldos",
        "columns": (
            "Data/hora",
            "Grupo",
            "Categoria",
            "Movimento",
            "Quantidade",
            "Saldo disponível",
            "Limite",
            "Usuário",
            "Grupo relacionado",
            "Motivo",
            "Referência",
            "Variação do saldo",
            "Liberado",
        ),
        "kinds": {
            "opening": "Crédito inicial",
            "reservation": "Reserva",
            "settlement": "Consumo",
            "release": "Liberação",
            "limit_change": "Alteração de limite",
            "grant": "Crédito concedido",
            "grant_received": "Crédito recebido",
        },
        "categories": {
            "unit": "Consulta unitária",
            "advanced": "Consulta avançada",
            "batch": "Enriquecimento",
            "api": "API",
        },
        "reasons": {
            "consultation": "Consulta",
            "batch": "Lote",
            "block": "Bloco de consultas",
            "lease": "Bloco de consultas",
        },
        "unlimited": "Ilimitado",
    },
    "en-US": {
        "base": "balance_history",
        "columns": (
            "Date/time",
            "Group",
            "Category",
            "Movement",
            "Amount",
            "Available balance",
            "Limit",
            "User",
            "Related group",
            "Reason",
            "Reference",
            "Balance change",
            "Released",
        ),
        "kinds": {
            "opening": "Opening credits",
            "reservation": "Reservation",
            "settlement": "Settlement",
            "release": "Release",
            "limit_change": "Limit change",
            "grant": "Credits granted",
            "grant_received": "Credits received",
        },
        "categories": {"unit": "Unit query", "advanced": "Advanced query", "batch": "Enrichment", "api": "API"},
        "reasons": {
            "consultation": "Query",
            "batch": "Batch",
            "block": "Block of queries",
            "lease": "Block of queries",
        },
        "unlimited": "Unlimited",
    },
}


def _export_rows(rows: list[dict[str, Any]], labels: dict[str, Any]) -> Iterator[list[Cell]]:
    for row in rows:
        local = row["createdAt"].replace(tzinfo=UTC).astimezone(SAO_PAULO)
        yield [
            local.strftime("%d/%m/%Y %H:%M:%S"),
            row["groupName"] or row["groupId"],
            labels["categories"].get(row["category"], row["category"]),
            labels["kinds"].get(row["kind"], row["kind"]),
            row["amount"],
            labels["unlimited"] if row["balance"] is None else row["balance"],
            labels["unlimited"] if row["limit"] is None else row["limit"],
            row["actorName"] or "-",
            row["counterpartyName"] or "-",
            labels["reasons"].get(row["reason"], "-") if row["reason"] else "-",
            row["reasonId"] or "-",
            "-" if row["change"] is None else row["change"],
            row["released"],
        ]


@router.get(
    "/history/export",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}, XLSX: {}}}, 404: {"model": ErrorResponse}},
)
def export_history(
    principal: HistoryReader,
    platform: PlatformDep,
    filters: Annotated[HistoryFilters, Depends()],
    order: Annotated[str | None, Depends(ordering(HISTORY_ORDER))],
    format: SpreadsheetFormat = "csv",
    lang: ExportLanguage = "pt-BR",
) -> Response:
    rows, _ = _movements(platform, principal, filters, order, limit=None)
    labels = EXPORT_LABELS[lang]
    return file_response(labels["columns"], _export_rows(rows, labels), format, labels["base"])


@router.get("/consumption", response_model=ConsumptionResponse, responses={404: {"model": ErrorResponse}})
def consumption(
    principal: HistoryReader,
    platform: PlatformDep,
    filters: Annotated[HistoryFilters, Depends()],
) -> ConsumptionResponse:
    groups = _visible_groups(platform, principal, filters.group_id)
    today = datetime.now(SAO_PAULO).date()
    default_start, default_end = _utc_bounds(today - timedelta(days=29), today)
    rows = daily_consumption(
        platform.store.cursor(),
        groups,
        filters.start or default_start,  # type: ignore[arg-type]
        filters.end or default_end,  # type: ignore[arg-type]
        filters.category,
    )
    return ConsumptionResponse(data=[ConsumptionDay.model_validate(r) for r in rows])


@router.post(
    "/grants",
    response_model=PositionResponse,
    responses={403: {"model": ErrorResponse}, 404: {"model": ErrorResponse}, 409: {"model": ErrorResponse}},
)
def grant(body: GrantRequest, principal: BalancesReader, platform: PlatformDep) -> PositionResponse:
    position = platform.credits.grant(principal, body.groupId, Category(body.category), body.amount)
    return PositionResponse(position=position)


@router.put(
    "/limits",
    response_model=PositionResponse,
    responses={403: {"model": ErrorResponse}, 404: {"model": ErrorResponse}, 409: {"model": ErrorResponse}},
)
def set_limit(body: LimitRequest, principal: BalancesReader, platform: PlatformDep) -> PositionResponse:
    position = platform.credits.set_limit(principal, body.groupId, Category(body.category), body.limit)
    return PositionResponse(position=position)

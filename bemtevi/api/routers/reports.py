"""The consultation report (GET /api/reports) and its export (GET /api/reports/export, CSV or XLSX).

Who sees what: the reports screen's users see their own group; those who may see the group's customers
(the customers screen) may add every group below theirs, to any depth. Never a group above or beside the
caller's. The public API answers the same report to a token's group (``api/v1/routes.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response

from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, on_the_loop, wait_for_position
from bemtevi.api.exports import XLSX, Cell, ExportLanguage, SpreadsheetFormat, file_response
from bemtevi.api.report_schemas import Dimension, Interval, PeriodPreset, ReportData, ReportResponse
from bemtevi.api.schemas import ErrorResponse
from bemtevi.domain.errors import AccessDenied, InvalidPeriod
from bemtevi.domain.menus import may_open
from bemtevi.domain.principals import Principal
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.credit_queries import subtree_ids
from bemtevi.projections.report_queries import consultation_report

router = APIRouter(tags=["reports"])

ReportReader = Annotated[Principal, Depends(allowed_route("reports"))]
MAX_PERIOD_DAYS = 366
# Days a report may ask for: no consultation is older than the product, and the day after the last must exist.
EARLIEST_DAY = date(2000, 1, 1)
LATEST_DAY = date(2999, 12, 31)


def period_days(preset: str, start: date | None, end: date | None, today: date) -> tuple[date, date]:
    """A preset's São Paulo days [first, last], or the custom range (both days required)."""
    if preset == "custom":
        if start is None or end is None:
            raise InvalidPeriod("A custom period needs its first and last day", field="from")
        first, last = start, end
    elif preset == "today":
        first = last = today
    elif preset == "yesterday":
        first = last = today - timedelta(days=1)
    elif preset in ("last7Days", "last30Days"):
        first, last = today - timedelta(days=6 if preset == "last7Days" else 29), today
    elif preset == "thisMonth":
        first, last = today.replace(day=1), today
    else:  # lastMonth
        last = today.replace(day=1) - timedelta(days=1)
        first = last.replace(day=1)
    if first > last:
        raise InvalidPeriod("The period ends before it starts", field="from")
    if first < EARLIEST_DAY or last > LATEST_DAY:
        raise InvalidPeriod(f"The period must lie between {EARLIEST_DAY} and {LATEST_DAY}", field="from")
    if (last - first).days + 1 > MAX_PERIOD_DAYS:
        raise InvalidPeriod(f"The period is longer than {MAX_PERIOD_DAYS} days", field="from")
    return first, last


class ReportFilters:
    def __init__(
        self,
        period: Annotated[PeriodPreset, Query(description="A preset, or custom with from and to")] = "last30Days",
        start: Annotated[date | None, Query(alias="from", description="custom: first day (America/Sao_Paulo)")] = None,
        end: Annotated[date | None, Query(alias="to", description="custom: last day, inclusive")] = None,
        interval: Annotated[Interval, Query(description="Rows per day, week (from Monday) or month")] = "day",
        groupBy: Annotated[Dimension, Query(description="The dimension each row is counted by")] = "category",
        includeChildren: Annotated[bool, Query(description="Add every group below the caller's")] = False,
    ) -> None:
        # Days given without a preset mean a custom range.
        self.period = "custom" if period == "last30Days" and (start or end) else period
        self.first, self.last = period_days(self.period, start, end, datetime.now(SAO_PAULO).date())
        self.interval = interval
        self.group_by = groupBy
        self.include_children = includeChildren


FiltersQuery = Annotated[ReportFilters, Depends(on_the_loop(ReportFilters))]


def may_include_children(principal: Principal) -> bool:
    return may_open(principal.role, "customer-list")


def build_report(
    platform: Any, principal: Principal, filters: ReportFilters, children_allowed: bool, up_to_date: bool = True
) -> ReportData:
    if filters.include_children and not children_allowed:
        raise AccessDenied()
    cur = platform.store.cursor()
    group_id = str(principal.group_id)
    groups = subtree_ids(cur, group_id) if filters.include_children else [group_id]
    figures = consultation_report(cur, groups, filters.first, filters.last, filters.interval, filters.group_by)
    labels = figures["labels"]
    totals = figures["totals"]
    return ReportData.model_validate(
        {
            "firstDay": filters.first.isoformat(),
            "lastDay": filters.last.isoformat(),
            "period": filters.period,
            "interval": filters.interval,
            "groupBy": filters.group_by,
            "includeChildren": filters.include_children,
            "groups": len(groups),
            "series": [
                {**row, "period": row["period"].isoformat(), "label": labels.get(row["key"], row["key"])}
                for row in figures["series"]
            ],
            "keys": [{**row, "label": labels.get(row["key"], row["key"])} for row in figures["keys"]],
            "totals": {**totals, "notFound": totals["consultations"] - totals["found"]},
            "upToDate": up_to_date,
        }
    )


@router.get("/reports", response_model=ReportResponse, responses={403: {"model": ErrorResponse}})
def report(
    principal: ReportReader, platform: PlatformDep, filters: FiltersQuery, position: PositionQuery = None
) -> ReportResponse:
    """Charged and not-found consultations (panel, API, batch records) per period and one dimension."""
    up_to_date = wait_for_position(platform, position)
    return ReportResponse(data=build_report(platform, principal, filters, may_include_children(principal), up_to_date))


EXPORT_LABELS: dict[str, dict[str, Any]] = {
    "pt-BR": {
        "base": "relatorio",
        "columns": ["Período", "{dimension}", "Consultas", "Encontradas", "Não encontradas", "Créditos"],
        "dimensions": {
            "category": "Categoria",
            "queryType": "Tipo de consulta",
            "supplier": "Fornecedor",
            "user": "Usuário",
            "channel": "Canal",
            "found": "Resultado",
        },
        "values": {
            "unit": "Unitária",
            "advanced": "Avançada",
            "batch": "Lote",
            "api": "API",
            "panel": "Painel",
            "found": "Encontrada",
            "not_found": "Não encontrada",
        },
    },
    "en-US": {
        "base": "report",
        "columns": ["Period", "{dimension}", "Consultations", "Found", "Not found", "Credits"],
        "dimensions": {
            "category": "Category",
            "queryType": "Query type",
            "supplier": "Supplier",
            "user": "User",
            "channel": "Channel",
            "found": "Result",
        },
        "values": {
            "unit": "Unit",
            "advanced": "Advanced",
            "batch": "Batch",
            "api": "API",
            "panel": "Panel",
            "found": "Found",
            "not_found": "Not found",
        },
    },
}
TRANSLATED_KEYS = frozenset({"category", "channel", "found"})


def _export_rows(data: ReportData, labels: dict[str, Any]) -> Iterator[list[Cell]]:
    translate = data.groupBy in TRANSLATED_KEYS
    for r in data.series:
        yield [
            date.fromisoformat(r.period).strftime("%d/%m/%Y"),
            (labels["values"].get(r.key, r.key) if translate else r.label) or "-",
            r.consultations,
            r.found,
            r.consultations - r.found,
            r.credits,
        ]


def export_response(data: ReportData, format: Literal["csv", "xlsx"], lang: str) -> Response:
    labels = EXPORT_LABELS[lang]
    dimension = labels["dimensions"][data.groupBy]
    header = [c.format(dimension=dimension) for c in labels["columns"]]
    return file_response(header, _export_rows(data, labels), format, labels["base"])


@router.get(
    "/reports/export",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}, XLSX: {}}}, 403: {"model": ErrorResponse}},
)
def export_report(
    principal: ReportReader,
    platform: PlatformDep,
    filters: FiltersQuery,
    format: SpreadsheetFormat = "csv",
    lang: ExportLanguage = "pt-BR",
) -> Response:
    """The report's rows as a file: `;` CSV (UTF-8) or XLSX."""
    data = build_report(platform, principal, filters, may_include_children(principal))
    return export_response(data, format, lang)

"""A group's finance statement for a period (the balance history summed per category), a reseller's monthly close
over its customers, and their exports."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response

from bemtevi.api.credit_schemas import (
    MonthlyCloseData,
    MonthlyCloseResponse,
    StatementCategory,
    StatementData,
    StatementResponse,
)
from bemtevi.api.deps import PlatformDep, PositionQuery, wait_for_position
from bemtevi.api.exports import XLSX, Cell, ExportLanguage, SpreadsheetFormat, file_response
from bemtevi.api.routers.credits import EXPORT_LABELS, HistoryReader, _visible_groups
from bemtevi.api.schemas import ErrorResponse
from bemtevi.domain.errors import InvalidData
from bemtevi.domain.principals import Principal
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.statements import group_name, monthly_close, statement

router = APIRouter(prefix="/credits", tags=["credits"])


class StatementPeriod:
    """A group of the caller's subtree (its own by default) and São Paulo days, this month by default."""

    def __init__(
        self,
        start: Annotated[date | None, Query(alias="from", description="First day (America/Sao_Paulo)")] = None,
        end: Annotated[date | None, Query(alias="to", description="Last day, inclusive (America/Sao_Paulo)")] = None,
        group_id: Annotated[
            UUID | None, Query(alias="groupId", description="One group of the caller's subtree")
        ] = None,
    ) -> None:
        today = datetime.now(SAO_PAULO).date()
        self.end = end or today
        self.start = start or self.end.replace(day=1)
        if self.start > self.end:
            raise InvalidData("The period must start before it ends", field="from")
        self.group_id = group_id


def _statement(platform: PlatformDep, principal: Principal, period: StatementPeriod) -> StatementData:
    [group_id] = _visible_groups(platform, principal, period.group_id or principal.group_id)
    cur = platform.store.cursor()
    return StatementData(
        groupId=group_id,
        groupName=group_name(cur, group_id),
        periodStart=period.start,
        periodEnd=period.end,
        categories=statement(cur, group_id, period.start, period.end),  # type: ignore[arg-type]
    )


@router.get("/statement", response_model=StatementResponse, responses={404: {"model": ErrorResponse}})
def finance_statement(
    principal: HistoryReader,
    platform: PlatformDep,
    period: Annotated[StatementPeriod, Depends()],
    position: PositionQuery = None,
) -> StatementResponse:
    """The finance statement of a group for a period, per category: opening balance, the period's grants,
    take-backs, charges, releases and limit changes, closing balance (the opening plus those)."""
    wait_for_position(platform, position)
    return StatementResponse(data=_statement(platform, principal, period))


class CloseMonth:
    """A São Paulo calendar month (this one by default) of a group of the caller's subtree (its own by default)."""

    def __init__(
        self,
        month: Annotated[
            str | None,
            Query(
                max_length=7,
                pattern=r"^(19[7-9]\d|2\d{3})-(0[1-9]|1[0-2])$",  # 1970-2999: the bounds of every month exist
                description="YYYY-MM (America/Sao_Paulo)",
            ),
        ] = None,
        group_id: Annotated[
            UUID | None, Query(alias="groupId", description="The reseller, one group of the caller's subtree")
        ] = None,
    ) -> None:
        first = date.fromisoformat(f"{month}-01") if month else datetime.now(SAO_PAULO).date().replace(day=1)
        following = date(first.year + first.month // 12, first.month % 12 + 1, 1)
        self.start, self.end = first, following - timedelta(days=1)
        self.group_id = group_id


def _monthly_close(platform: PlatformDep, principal: Principal, month: CloseMonth) -> MonthlyCloseData:
    [group_id] = _visible_groups(platform, principal, month.group_id or principal.group_id)
    cur = platform.store.cursor()
    close = monthly_close(cur, group_id, month.start, month.end)
    return MonthlyCloseData(
        groupId=group_id,
        groupName=group_name(cur, group_id),
        month=month.start.strftime("%Y-%m"),
        periodStart=month.start,
        periodEnd=month.end,
        children=close["children"],
        totals=close["totals"],
    )


@router.get("/monthly-close", response_model=MonthlyCloseResponse, responses={404: {"model": ErrorResponse}})
def reseller_monthly_close(
    principal: HistoryReader,
    platform: PlatformDep,
    month: Annotated[CloseMonth, Depends()],
    position: PositionQuery = None,
) -> MonthlyCloseResponse:
    """A reseller's monthly close: the finance statement of each customer directly below it for the month, per
    category, and the totals over them (each statement reconciles: closing = opening + the month's flows)."""
    wait_for_position(platform, position)
    return MonthlyCloseResponse(data=_monthly_close(platform, principal, month))


STATEMENT_LABELS: dict[str, dict[str, Any]] = {
    "pt-BR": {
        "base": "extrato_financeiro",
        "columns": {
            "category": "Categoria",
            "openingBalance": "Saldo inicial",
            "received": "Recebidos do grupo superior",
            "returned": "Recolhidos pelo grupo superior",
            "granted": "Concedidos a clientes",
            "takenBack": "Recolhidos de clientes",
            "charged": "Cobrados",
            "released": "Liberados",
            "limitChanges": "Alterações de limite",
            "closingBalance": "Saldo final",
            "consumed": "Consumidos",
            "lines": "Movimentações",
        },
    },
    "en-US": {
        "base": "finance_statement",
        "columns": {
            "category": "Category",
            "openingBalance": "Opening balance",
            "received": "Received from the parent",
            "returned": "Taken back by the parent",
            "granted": "Granted to customers",
            "takenBack": "Taken back from customers",
            "charged": "Charged",
            "released": "Released",
            "limitChanges": "Limit changes",
            "closingBalance": "Closing balance",
            "consumed": "Consumed",
            "lines": "Movements",
        },
    },
}


def _figures_row(figures: StatementCategory, lang: str) -> list[Cell]:
    """A statement's line for one category as the files write it: its category's name, then its figures (a
    balance of an unlimited account as the word for it)."""
    row = figures.model_dump()
    labels = EXPORT_LABELS[lang]
    cells: list[Cell] = [labels["categories"][row["category"]]]
    for name in list(STATEMENT_LABELS[lang]["columns"])[1:]:  # the figures, after the category
        cells.append(labels["unlimited"] if row[name] is None else row[name])
    return cells


CLOSE_LABELS = {
    "pt-BR": {"base": "fechamento_mensal", "customer": "Cliente", "total": "Total dos clientes"},
    "en-US": {"base": "monthly_close", "customer": "Customer", "total": "Customers' total"},
}


def _close_rows(close: MonthlyCloseData, lang: str) -> Iterator[list[Cell]]:
    """One line per customer and category, then the customers' total per category."""
    for child in close.children:
        for figures in child.categories:
            yield [child.groupName or child.groupId, *_figures_row(figures, lang)]
    for figures in close.totals:
        yield [CLOSE_LABELS[lang]["total"], *_figures_row(figures, lang)]


@router.get(
    "/monthly-close/export",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}, XLSX: {}}}, 404: {"model": ErrorResponse}},
)
def export_monthly_close(
    principal: HistoryReader,
    platform: PlatformDep,
    month: Annotated[CloseMonth, Depends()],
    format: SpreadsheetFormat = "csv",
    lang: ExportLanguage = "pt-BR",
) -> Response:
    """The monthly close as a file (`;` CSV, UTF-8, or XLSX): one line per customer and category with the
    screen's figures, then the totals over the customers per category."""
    close = _monthly_close(platform, principal, month)
    labels = CLOSE_LABELS[lang]
    header = [labels["customer"], *STATEMENT_LABELS[lang]["columns"].values()]
    return file_response(header, _close_rows(close, lang), format, f"{labels['base']}_{close.month}")


@router.get(
    "/statement/export",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}, 404: {"model": ErrorResponse}},
)
def export_statement(
    principal: HistoryReader,
    platform: PlatformDep,
    period: Annotated[StatementPeriod, Depends()],
    lang: ExportLanguage = "pt-BR",
) -> Response:
    data = _statement(platform, principal, period)
    labels = STATEMENT_LABELS[lang]
    rows = (_figures_row(figures, lang) for figures in data.categories)
    return file_response(list(labels["columns"].values()), rows, "csv", labels["base"])

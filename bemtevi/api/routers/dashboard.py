"""The dashboard: the signed-in tenant's counts, its batches' and enrichments' too (GET /api/dashboard), and its charts
(GET /api/dashboard/usage, GET /api/dashboard/top-consumers), from the read models.

Who sees what: every user their own group; an owner (and the super-admin) may also ask for the
subtree below their group, and sees which groups below it consume most. Never a group above or
beside the caller's.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from bemtevi.api.dashboard_schemas import (
    DashboardData,
    DashboardResponse,
    TopConsumersData,
    TopConsumersResponse,
    UsageData,
    UsageResponse,
)
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, on_the_loop, wait_for_position
from bemtevi.api.schemas import ErrorResponse
from bemtevi.domain.errors import AccessDenied, InvalidData
from bemtevi.domain.principals import Principal
from bemtevi.domain.users import Role
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.batches import batch_usage
from bemtevi.projections.consultations import recent_consultations, top_consumers, usage_in_period, usage_summary
from bemtevi.projections.credit_queries import balances_of, figures_by_group, subtree_ids

router = APIRouter(tags=["dashboard"])

DashboardReader = Annotated[Principal, Depends(allowed_route("dashboard"))]

# The period a chart may cover: a year and a day (a leap year's whole year, both ends included).
MAX_PERIOD_DAYS = 366
DEFAULT_PERIOD_DAYS = 30
TOP_CONSUMERS_MAX = 50
SUBTREE_ROLES = frozenset({Role.OWNER, Role.SUPER_ADMIN})


@router.get("/dashboard", response_model=DashboardResponse)
def dashboard(principal: DashboardReader, platform: PlatformDep, position: PositionQuery = None) -> DashboardResponse:
    up_to_date = wait_for_position(platform, position)
    cur = platform.store.cursor()
    group_id = str(principal.group_id)
    summary = usage_summary(cur, group_id, datetime.now(SAO_PAULO).date())
    return DashboardResponse(
        data=DashboardData.model_validate(
            {
                **summary,
                "credits": balances_of(cur, group_id),
                "recent": recent_consultations(cur, group_id),
                "batches": batch_usage(cur, group_id),
                "position": platform.projector.position,
                "upToDate": up_to_date,
            }
        )
    )


class Period:
    """São Paulo calendar days [first, last]; by default the last 30 days up to today."""

    def __init__(
        self,
        start: Annotated[date | None, Query(alias="from", description="First day (America/Sao_Paulo)")] = None,
        end: Annotated[date | None, Query(alias="to", description="Last day, inclusive (America/Sao_Paulo)")] = None,
    ) -> None:
        self.last = end or datetime.now(SAO_PAULO).date()
        self.first = start or self.last - timedelta(days=DEFAULT_PERIOD_DAYS - 1)
        if self.first > self.last:
            raise InvalidData("The period ends before it starts", field="from")
        if (self.last - self.first).days + 1 > MAX_PERIOD_DAYS:
            raise InvalidData(f"The period is longer than {MAX_PERIOD_DAYS} days", field="from")


PeriodQuery = Annotated[Period, Depends(on_the_loop(Period))]


@router.get("/dashboard/usage", response_model=UsageResponse, responses={403: {"model": ErrorResponse}})
def dashboard_usage(
    principal: DashboardReader,
    platform: PlatformDep,
    period: PeriodQuery,
    subtree: Annotated[
        bool, Query(description="Owners and the super-admin: include every group below the caller's")
    ] = False,
    position: PositionQuery = None,
) -> UsageResponse:
    """Consultations per day, query type and channel over the period, and the credits per category now."""
    if subtree and principal.role not in SUBTREE_ROLES:
        raise AccessDenied()
    up_to_date = wait_for_position(platform, position)
    cur = platform.store.cursor()
    group_id = str(principal.group_id)
    groups = subtree_ids(cur, group_id) if subtree else [group_id]
    figures = usage_in_period(cur, groups, period.first, period.last)
    return UsageResponse(
        data=UsageData.model_validate(
            {
                **figures,
                "firstDay": period.first.isoformat(),
                "lastDay": period.last.isoformat(),
                "scope": "subtree" if subtree else "group",
                "balances": figures_by_group(cur, [group_id])[group_id],
                "upToDate": up_to_date,
            }
        )
    )


@router.get("/dashboard/top-consumers", response_model=TopConsumersResponse, responses={403: {"model": ErrorResponse}})
def dashboard_top_consumers(
    principal: DashboardReader,
    platform: PlatformDep,
    period: PeriodQuery,
    limit: Annotated[int, Query(ge=1, le=TOP_CONSUMERS_MAX, description="How many groups")] = 10,
    position: PositionQuery = None,
) -> TopConsumersResponse:
    """Owners and the super-admin: the groups below theirs that consulted most in the period."""
    if principal.role not in SUBTREE_ROLES:
        raise AccessDenied()
    up_to_date = wait_for_position(platform, position)
    rows = top_consumers(platform.store.cursor(), str(principal.group_id), period.first, period.last, limit)
    return TopConsumersResponse(
        data=TopConsumersData.model_validate(
            {
                "firstDay": period.first.isoformat(),
                "lastDay": period.last.isoformat(),
                "groups": rows,
                "upToDate": up_to_date,
            }
        )
    )

"""GET /api/dashboard: the signed-in tenant's counts, from the read models."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends

from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, wait_for_position
from bemtevi.api.schemas import DashboardData, DashboardResponse
from bemtevi.commands.identity import Principal
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.consultations import recent_consultations, usage_summary
from bemtevi.projections.credits import balances_of

router = APIRouter(tags=["dashboard"])


@router.get("/dashboard", response_model=DashboardResponse)
def dashboard(
    principal: Annotated[Principal, Depends(allowed_route("dashboard"))],
    platform: PlatformDep,
    position: PositionQuery = None,
) -> DashboardResponse:
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
                "position": platform.projector.position,
                "upToDate": up_to_date,
            }
        )
    )

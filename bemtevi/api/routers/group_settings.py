"""A group's purpose setting: whether each of its consultations must say what it is for (LGPD art. 6 I).

Read by the screens that look up (the unit query, batches, the advanced query: the field is then required), and
set by the group's owners and admins or those of a group above it (the users screen's people: they say what their
users must do). Off by default."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.bounds import KEY_MAX
from bemtevi.api.credit_schemas import PositionResponse
from bemtevi.api.deps import PlatformDep, allowed_any_route, allowed_route
from bemtevi.api.schemas import ErrorResponse
from bemtevi.domain.consultations import PURPOSE_MAX
from bemtevi.domain.errors import GroupNotFound
from bemtevi.domain.principals import Principal

router = APIRouter(prefix="/group", tags=["groups"])
Reader = Annotated[
    Principal,
    Depends(allowed_any_route("normal-query", "batch-query", "advanced-query", "manual-enrichment", "users")),
]
Setter = Annotated[Principal, Depends(allowed_route("users"))]


class PurposeSetting(BaseModel):
    groupId: str
    purposeRequired: bool = Field(description="Each consultation of the group must say its purpose")
    purposeMaxLength: int = Field(description="The longest purpose recorded, in characters")


class PurposeSettingRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    purposeRequired: bool


@router.get("/purpose-setting", response_model=PurposeSetting, responses={404: {"model": ErrorResponse}})
def purpose_setting(
    principal: Reader,
    platform: PlatformDep,
    group_id: Annotated[UUID | None, Query(alias="groupId", description="The caller's group or one below it")] = None,
) -> PurposeSetting:
    target = group_id or principal.group_id
    required = platform.customers.purpose_required(principal, target)
    return PurposeSetting(groupId=str(target), purposeRequired=required, purposeMaxLength=PURPOSE_MAX)


@router.put(
    "/{group_id}/purpose-setting",
    response_model=PositionResponse,
    responses={403: {"model": ErrorResponse}, 404: {"model": ErrorResponse}},
)
def set_purpose_setting(
    group_id: Annotated[str, Path(max_length=KEY_MAX)],
    body: PurposeSettingRequest,
    principal: Setter,
    platform: PlatformDep,
) -> PositionResponse:
    try:
        target = UUID(group_id)
    except ValueError:
        raise GroupNotFound() from None  # not a group's id: as another tenant's, not found
    return PositionResponse(position=platform.customers.require_purpose(principal, target, body.purposeRequired))

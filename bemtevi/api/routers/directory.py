"""Menus and brands: /api/user-roles/get-user-roles-by-id and /api/group/groups-get-public-data."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from bemtevi.api.deps import PlatformDep, PositionQuery, PrincipalDep, bearer_token, wait_for_position
from bemtevi.api.schemas import (
    GroupPublicData,
    MenuEntryModel,
    PublicDataRequest,
    PublicDataResponse,
    RolesData,
    RolesRequest,
    RolesResponse,
)
from bemtevi.bootstrap import Platform
from bemtevi.domain.errors import AccessDenied, DomainError, GroupNotFound, UserNotFound
from bemtevi.domain.hosts import domain_candidates
from bemtevi.domain.menus import menu_for
from bemtevi.domain.principals import ROOT_GROUP_ID
from bemtevi.domain.users import Role
from bemtevi.projections import directory

router = APIRouter(tags=["directory"])


def _public(platform: Platform, data: dict[str, Any] | None, host: str | None) -> GroupPublicData:
    values = data or directory.group_by_id(platform.store.cursor(), str(ROOT_GROUP_ID)) or {}
    is_main = any(c in platform.settings.main_domain_set for c in domain_candidates(host))
    return GroupPublicData(
        id=values.get("id"),
        uniqueKey=values.get("uniqueKey"),
        name=values.get("name"),
        domainUrl=values.get("domainUrl"),
        appTitle=values.get("appTitle"),
        primaryColor=values.get("primaryColor"),
        secondaryColor=values.get("secondaryColor"),
        lighterColor=values.get("lighterColor"),
        horizontalLogo=values.get("horizontalLogo"),
        iconogram=values.get("iconogram"),
        loginBanner=values.get("loginBanner"),
        advancedQueryBanner=values.get("advancedQueryBanner"),
        contactEmail=values.get("contactEmail"),
        contactPhone=values.get("contactPhone"),
        contactAddress=values.get("contactAddress"),
        aboutText=values.get("aboutText"),
        isMainDomain=is_main,
        whiteLabel=bool(values.get("whiteLabel")),
    )


@router.post("/user-roles/get-user-roles-by-id", response_model=RolesResponse)
def roles_by_id(body: RolesRequest, principal: PrincipalDep, platform: PlatformDep) -> RolesResponse:
    # A user reads their own menu; reading another user's belongs to user management.
    if body.user_id != str(principal.user_id) and principal.role != Role.SUPER_ADMIN:
        raise AccessDenied()
    cur = platform.store.cursor()
    user = directory.user_by_id(cur, body.user_id)
    if user is None or user["unique_key"] != body.user_unique_key or user["group_id"] != body.group_id:
        raise UserNotFound()
    group = directory.group_by_id(cur, user["group_id"])
    return RolesResponse(
        data=RolesData(
            group=_public(platform, group, None),
            roles=[MenuEntryModel.model_validate(e.as_dict()) for e in menu_for(Role(user["role"]))],
        )
    )


@router.post("/group/groups-get-public-data", response_model=PublicDataResponse)
def public_data(
    body: PublicDataRequest, request: Request, platform: PlatformDep, position: PositionQuery = None
) -> PublicDataResponse:
    # A client that has just saved a brand names the save's position, so the brand it applies is the saved one.
    wait_for_position(platform, position)
    cur = platform.store.cursor()
    host = body.domain_url or request.headers.get("host")
    if body.group_id:
        # By id only for a signed-in caller, and only with the matching unique key.
        principal = platform.identity.authenticate(bearer_token(request))
        group = directory.group_by_id(cur, body.group_id)
        if group is None or group["uniqueKey"] != body.group_unique_key:
            raise GroupNotFound()
        # A caller sees its own group and the groups below it, never above or beside.
        if str(principal.group_id) not in directory.ancestor_ids(cur, body.group_id):
            raise AccessDenied()
        return PublicDataResponse(data=_public(platform, group, host))
    try:
        group = directory.group_by_domain(cur, domain_candidates(host))
    except DomainError:
        group = None
    return PublicDataResponse(data=_public(platform, group, host))

"""Users of a group (screen ``users``) and the caller's own account (``my-account``,
``edit-my-profile``): thin mapping onto commands/users.py and projections/users.py."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from bemtevi.api.bounds import KEY_MAX, SEARCH_MAX
from bemtevi.api.credit_schemas import PositionResponse
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, wait_for_position
from bemtevi.api.paging import Page, ordering, paging
from bemtevi.api.schemas import ErrorResponse
from bemtevi.api.user_schemas import (
    AddedUserData,
    AddedUserResponse,
    AddUserRequest,
    ChangePasswordRequest,
    EditUserRequest,
    PreferencesRequest,
    SessionRow,
    SessionsResponse,
    UserDetail,
    UserDetailResponse,
    UserDetailsRequest,
    UserListResponse,
    UserStatusRequest,
    UserSummary,
)
from bemtevi.bootstrap import Platform
from bemtevi.domain.errors import GroupNotFound, ImageTooLarge, UserNotFound
from bemtevi.domain.principals import Principal
from bemtevi.domain.profiles import PHOTO_MAX_BYTES, UserDetails
from bemtevi.domain.users import Role
from bemtevi.projections.users import USERS_ORDER, open_sessions, user_detail, user_photo, users_of_group

router = APIRouter(tags=["users"])

UsersManager = Annotated[Principal, Depends(allowed_route("users"))]
AccountOwner = Annotated[Principal, Depends(allowed_route("my-account"))]
ProfileEditor = Annotated[Principal, Depends(allowed_route("edit-my-profile"))]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorResponse}, 403: {"model": ErrorResponse}}


def _uuid(value: str, error: type[Exception] = UserNotFound) -> UUID:
    try:
        return UUID(value)
    except ValueError as e:
        raise error() from e


def _details(body: UserDetailsRequest) -> UserDetails:
    return UserDetails(
        name=body.name,
        cpf=body.cpf,
        functions=body.functions,
        phone=body.phone,
        social_profile=body.socialProfile,
        biography=body.biography,
        user_name=body.userName,
    )


def _visible_detail(platform: Platform, principal: Principal, user_id: UUID) -> dict[str, Any]:
    """The user's detail row if the caller is that user or manages them; 404 otherwise."""
    row = user_detail(platform.store.cursor(), str(user_id))
    if row is None or row["status"] == "archived":
        raise UserNotFound()
    if user_id == principal.user_id:
        return row
    if not platform.users.manages_group(principal, UUID(row["groupId"])):
        raise UserNotFound()
    if row["role"] == Role.SUPER_ADMIN and principal.role != Role.SUPER_ADMIN:
        raise UserNotFound()
    return row


# The photo routes read the raw body themselves; the schema still says what it is, so the
# generated web client sends the file as the body.
PHOTO_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            t: {"schema": {"type": "string", "format": "binary"}} for t in ("image/png", "image/jpeg", "image/webp")
        },
    }
}


async def _read_upload(request: Request) -> bytes:
    """The raw image body, refused as soon as it reaches the limit (never read whole first)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) >= PHOTO_MAX_BYTES:
        raise ImageTooLarge(field="photo")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size >= PHOTO_MAX_BYTES:
            raise ImageTooLarge(field="photo")
        chunks.append(chunk)
    return b"".join(chunks)


# -- users of a group ----------------------------------------------------------------------------


@router.get("/users", response_model=UserListResponse, responses=NOT_FOUND)
def list_users(
    principal: UsersManager,
    platform: PlatformDep,
    page: Annotated[Page, Depends(paging(default_size=20, max_size=100, size_name="page_size"))],
    order: Annotated[str | None, Depends(ordering(USERS_ORDER))],
    group_id: Annotated[str | None, Query(max_length=KEY_MAX)] = None,
    search: Annotated[str | None, Query(max_length=SEARCH_MAX)] = None,
    position: PositionQuery = None,
) -> UserListResponse:
    target = _uuid(group_id, GroupNotFound) if group_id else principal.group_id
    platform.users.require_group(principal, target)
    up_to_date = wait_for_position(platform, position)
    rows, total = users_of_group(
        platform.store.cursor(),
        str(target),
        search,
        offset=page.offset,
        limit=page.size,
        include_super_admins=principal.role == Role.SUPER_ADMIN,
        order=order,
    )
    return UserListResponse(
        data=[UserSummary.model_validate(r) for r in rows],
        total=total,
        page=page.number,
        pageSize=page.size,
        upToDate=up_to_date,
    )


@router.post("/users", response_model=AddedUserResponse, responses={**NOT_FOUND, 409: {"model": ErrorResponse}})
def add_user(body: AddUserRequest, principal: UsersManager, platform: PlatformDep) -> AddedUserResponse:
    group_id = _uuid(body.groupId, GroupNotFound) if body.groupId else principal.group_id
    added = platform.users.add(principal, group_id, body.email, Role(body.role), _details(body))
    return AddedUserResponse(
        data=AddedUserData(id=str(added.user_id), email=added.email, generatedPassword=added.generated_password),
        position=added.position,
    )


@router.get("/users/{user_id}", response_model=UserDetailResponse, responses=NOT_FOUND)
def get_user(
    user_id: str, principal: UsersManager, platform: PlatformDep, position: PositionQuery = None
) -> UserDetailResponse:
    up_to_date = wait_for_position(platform, position)
    row = _visible_detail(platform, principal, _uuid(user_id))
    return UserDetailResponse(data=UserDetail.model_validate(row), upToDate=up_to_date)


@router.put("/users/{user_id}", response_model=PositionResponse, responses=NOT_FOUND)
def edit_user(user_id: str, body: EditUserRequest, principal: UsersManager, platform: PlatformDep) -> PositionResponse:
    return PositionResponse(position=platform.users.edit(principal, _uuid(user_id), Role(body.role), _details(body)))


@router.post("/users/{user_id}/status", response_model=PositionResponse, responses=NOT_FOUND)
def change_user_status(
    user_id: str, body: UserStatusRequest, principal: UsersManager, platform: PlatformDep
) -> PositionResponse:
    return PositionResponse(position=platform.users.set_active(principal, _uuid(user_id), body.active))


@router.delete("/users/{user_id}", response_model=PositionResponse, responses=NOT_FOUND)
def archive_user(user_id: str, principal: UsersManager, platform: PlatformDep) -> PositionResponse:
    return PositionResponse(position=platform.users.archive(principal, _uuid(user_id)))


@router.put("/users/{user_id}/photo", response_model=PositionResponse, responses=NOT_FOUND, openapi_extra=PHOTO_BODY)
async def upload_user_photo(
    user_id: str, request: Request, principal: UsersManager, platform: PlatformDep
) -> PositionResponse:
    target = _uuid(user_id)
    await run_in_threadpool(platform.users.check_editable, principal, target)
    upload = await _read_upload(request)
    position = await run_in_threadpool(platform.users.change_photo, principal, target, upload)
    return PositionResponse(position=position)


@router.get(
    "/users/{user_id}/photo", response_class=Response, responses={200: {"content": {"image/webp": {}}}, **NOT_FOUND}
)
def get_photo(user_id: str, principal: AccountOwner, platform: PlatformDep, position: PositionQuery = None) -> Response:
    """A user's photo, for that user and whoever manages them."""
    wait_for_position(platform, position)
    target = _uuid(user_id)
    _visible_detail(platform, principal, target)
    photo = user_photo(platform.store.cursor(), str(target))
    if photo is None:
        raise UserNotFound("Photo not found")
    content_type, digest, data = photo
    return Response(
        content=data,
        media_type=content_type,
        headers={"Cache-Control": "private, max-age=300", "ETag": f'"{digest}"'},
    )


# -- my account ----------------------------------------------------------------------------------


@router.get("/me", response_model=UserDetailResponse)
def my_account(principal: AccountOwner, platform: PlatformDep, position: PositionQuery = None) -> UserDetailResponse:
    up_to_date = wait_for_position(platform, position)
    row = user_detail(platform.store.cursor(), str(principal.user_id))
    if row is None:  # signed in before the read side caught up with the registration
        up_to_date = wait_for_position(platform, platform.app.max_position())
        row = user_detail(platform.store.cursor(), str(principal.user_id))
    if row is None:
        raise UserNotFound()
    return UserDetailResponse(data=UserDetail.model_validate(row), upToDate=up_to_date)


@router.put("/me/profile", response_model=PositionResponse)
def edit_my_profile(body: UserDetailsRequest, principal: ProfileEditor, platform: PlatformDep) -> PositionResponse:
    return PositionResponse(position=platform.users.change_details(principal, principal.user_id, _details(body)))


@router.put(
    "/me/photo", response_model=PositionResponse, responses={413: {"model": ErrorResponse}}, openapi_extra=PHOTO_BODY
)
async def upload_my_photo(request: Request, principal: ProfileEditor, platform: PlatformDep) -> PositionResponse:
    upload = await _read_upload(request)
    position = await run_in_threadpool(platform.users.change_photo, principal, principal.user_id, upload)
    return PositionResponse(position=position)


@router.post("/me/password", response_model=PositionResponse, responses={422: {"model": ErrorResponse}})
def change_my_password(body: ChangePasswordRequest, principal: AccountOwner, platform: PlatformDep) -> PositionResponse:
    position = platform.users.change_password(principal, body.currentPassword, body.newPassword, body.confirmation)
    return PositionResponse(position=position)


@router.put("/me/preferences", response_model=PositionResponse)
def change_my_preferences(body: PreferencesRequest, principal: AccountOwner, platform: PlatformDep) -> PositionResponse:
    return PositionResponse(position=platform.users.change_preferences(principal, body.preferences))


@router.get("/me/sessions", response_model=SessionsResponse)
def my_sessions(principal: AccountOwner, platform: PlatformDep, position: PositionQuery = None) -> SessionsResponse:
    up_to_date = wait_for_position(platform, position)
    rows = open_sessions(platform.store.cursor(), str(principal.user_id))
    current = str(principal.session_id)
    return SessionsResponse(data=[SessionRow(**row, current=row["id"] == current) for row in rows], upToDate=up_to_date)


@router.post("/me/sessions/sign-out-others", response_model=PositionResponse)
def sign_out_other_sessions(principal: AccountOwner, platform: PlatformDep) -> PositionResponse:
    # Sessions opened since the read model last caught up are included: wait for the log first.
    wait_for_position(platform, platform.app.max_position())
    rows = open_sessions(platform.store.cursor(), str(principal.user_id))
    return PositionResponse(position=platform.users.sign_out_sessions(principal, [UUID(r["id"]) for r in rows]))

"""Brands: a group's title, colours and images (section 3), with the parent-then-default fallback.

Images are public (the login page shows them before anyone signs in), like the public data
that points at them; everything else needs a session and the group within one's own subtree.
"""

from __future__ import annotations

import json
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from bemtevi.api.bounds import KEY_MAX
from bemtevi.api.credit_schemas import PositionResponse
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_any_route, wait_for_position
from bemtevi.api.group_schemas import BrandRequest, BrandResponse, BrandValues, ImageUploaded
from bemtevi.api.schemas import ErrorResponse
from bemtevi.commands.brand import CUSTOMERS_ROUTE, OWN_BRAND_ROUTE
from bemtevi.domain.brand import BRAND_FIELDS, IMAGE_SIZES, MAX_IMAGE_BYTES, Brand
from bemtevi.domain.errors import AccessDenied, GroupNotFound, InvalidData
from bemtevi.domain.menus import may_open
from bemtevi.domain.principals import Principal
from bemtevi.projections import directory

router = APIRouter(prefix="/group", tags=["brand"])
# One's own brand or a customer's: the command decides which screen applies to the target.
BrandEditor = Annotated[Principal, Depends(allowed_any_route(OWN_BRAND_ROUTE, CUSTOMERS_ROUTE))]

_ERRORS: dict[int | str, dict[str, object]] = {
    403: {"model": ErrorResponse},
    404: {"model": ErrorResponse},
    422: {"model": ErrorResponse},
}


def _uuid(group_id: str) -> UUID:
    try:
        return UUID(group_id)
    except ValueError as e:
        raise GroupNotFound() from e


def _kind(kind: str) -> str:
    if kind not in IMAGE_SIZES:
        raise GroupNotFound("Unknown brand image")
    return kind


@router.get("/{group_id}/brand", response_model=BrandResponse, responses=_ERRORS)
def brand_of(
    group_id: str,
    principal: BrandEditor,
    platform: PlatformDep,
    position: PositionQuery = None,
) -> BrandResponse:
    """The group's own values (what the form edits) and the brand as it shows (with fallbacks)."""
    _uuid(group_id)
    up_to_date = wait_for_position(platform, position)
    cur = platform.store.cursor()
    if str(principal.group_id) not in directory.ancestor_ids(cur, group_id):
        raise GroupNotFound()
    own_group = group_id == str(principal.group_id)
    if not may_open(principal.role, OWN_BRAND_ROUTE if own_group else CUSTOMERS_ROUTE):
        raise AccessDenied()
    rows = cur.execute("SELECT name, brand FROM groups WHERE group_id = ?", [group_id]).fetchall()
    row = rows[0] if rows else None
    resolved = directory.group_by_id(cur, group_id)
    if row is None or resolved is None:
        raise GroupNotFound()
    own = Brand.from_dict(json.loads(row[1])).as_dict()
    return BrandResponse(
        own=BrandValues.model_validate(own),
        resolved=BrandValues.model_validate({k: resolved.get(k) for k in BRAND_FIELDS}),
        groupId=group_id,
        groupName=row[0],
        upToDate=up_to_date,
    )


@router.put("/{group_id}/brand", response_model=PositionResponse, responses=_ERRORS)
def change_brand(group_id: str, body: BrandRequest, principal: BrandEditor, platform: PlatformDep) -> PositionResponse:
    values = body.model_dump(exclude_unset=True)
    return PositionResponse(position=platform.brand.change(principal, _uuid(group_id), values))


@router.put(
    "/{group_id}/brand/{kind}",
    response_model=ImageUploaded,
    responses=_ERRORS,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in ("image/png", "image/jpeg")},
        }
    },
)
async def upload_image(
    group_id: str, kind: str, request: Request, principal: BrandEditor, platform: PlatformDep
) -> ImageUploaded:
    """The image's bytes as the body, read only once the group may be branded by the caller;
    its real type and exact size are checked from its header, then it is decoded."""
    target, image_kind = _uuid(group_id), _kind(kind)
    await run_in_threadpool(platform.brand.check_editable, principal, target)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_IMAGE_BYTES:
            raise InvalidData("The image exceeds 2MB", field=image_kind)
    if not data:
        raise InvalidData("Invalid data structure: missing required fields", field=image_kind)
    url, position = await run_in_threadpool(platform.brand.upload, principal, target, image_kind, bytes(data))
    return ImageUploaded(url=url, position=position)


@router.delete("/{group_id}/brand/{kind}", response_model=PositionResponse, responses=_ERRORS)
def remove_image(group_id: str, kind: str, principal: BrandEditor, platform: PlatformDep) -> PositionResponse:
    return PositionResponse(position=platform.brand.remove(principal, _uuid(group_id), _kind(kind)))


@router.get(
    "/{group_id}/brand/{kind}",
    responses={200: {"content": {"image/png": {}, "image/jpeg": {}, "image/webp": {}}}, 404: {"model": ErrorResponse}},
    response_class=Response,
)
def image(
    group_id: str,
    kind: str,
    platform: PlatformDep,
    v: Annotated[str | None, Query(max_length=KEY_MAX, description="The image's digest")] = None,
) -> Response:
    """The group's image, else its nearest ancestor's; 404 means the product's default applies."""
    _uuid(group_id)
    _kind(kind)
    # An address with a digest names the content itself (the public data hands these out).
    digest = v if v and len(v) == 64 else None
    if digest is None:
        resolved = directory.group_by_id(platform.store.cursor(), group_id)
        url = (resolved or {}).get(kind)
        if not url or "?v=" not in url:
            raise GroupNotFound("No image: the default applies")
        digest = url.rsplit("?v=", 1)[1]
    stored = platform.brand.image(digest)
    if stored is None:
        raise GroupNotFound("No image: the default applies")
    # An address with the content's digest never changes; without it, the brand may change.
    immutable = v == stored.digest
    cache = "public, max-age=31536000, immutable" if immutable else "public, max-age=60"
    return Response(
        content=stored.data,
        media_type=stored.content_type,
        headers={"Cache-Control": cache, "ETag": f'"{stored.digest}"'},
    )

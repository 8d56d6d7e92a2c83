"""Batches and manual enrichment (issue 18): upload and free preview, submit (credits reserved then),
list and detail (tenant-scoped: another tenant's batch is a 404 on every route), cancel, delete, and
the sent and returned files.

The upload's body is the file itself (as the photo routes take theirs), read as it arrives and
spooled to disk past 1 MB, refused at ``BEMTEVI_BATCH_MAX_BYTES``, and past ``BEMTEVI_BATCH_MAX_RECORDS``
records while it is read; the layout and the file's name are query parameters.
"""

from __future__ import annotations

import tempfile
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from bemtevi.api.batch_schemas import (
    BatchActiveRequest,
    BatchLimits,
    BatchListResponse,
    BatchResponse,
    BatchRow,
    BatchUpload,
    SubmitBatchRequest,
    SubmittedBatch,
)
from bemtevi.api.bounds import KEY_MAX
from bemtevi.api.credit_schemas import PositionResponse
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_any_route, wait_for_position
from bemtevi.api.paging import Page, ordering, paging
from bemtevi.api.schemas import ErrorResponse
from bemtevi.commands.batch_uploads import CHUNK
from bemtevi.domain.batch_errors import BatchInactive, BatchNotFound, FileTooLarge, ReturnNotReady, UploadNotFound
from bemtevi.domain.batches import BatchStatus
from bemtevi.domain.errors import GroupNotFound
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role
from bemtevi.projections.batches import BATCHES_ORDER, batch_row, batches_page
from bemtevi.projections.credit_queries import subtree_ids

router = APIRouter(tags=["batches"])

# Who works with batches: the batch-query screen, and the manual enrichment screens.
BatchUser = Annotated[
    Principal, Depends(allowed_any_route("batch-query", "manual-enrichment", "new-manual-enrichment"))
]
_REFUSALS: dict[int | str, dict[str, Any]] = {
    402: {"model": ErrorResponse},
    403: {"model": ErrorResponse},
    404: {"model": ErrorResponse},
    409: {"model": ErrorResponse},
    413: {"model": ErrorResponse},
    422: {"model": ErrorResponse},
    429: {"model": ErrorResponse},
}
UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    }
}


def _batch_id(value: str) -> UUID:
    try:
        return UUID(value)
    except ValueError as e:
        raise BatchNotFound() from e


@router.get("/batches/limits", response_model=BatchLimits, responses={403: {"model": ErrorResponse}})
def batch_limits(principal: BatchUser, platform: PlatformDep) -> BatchLimits:
    """What one file may hold (the upload screen shows it): bytes, and records counted while it is read."""
    return BatchLimits(maxBytes=platform.batches.uploads.max_bytes, maxRecords=platform.batches.uploads.max_records)


@router.post(
    "/batches/uploads", status_code=201, response_model=BatchUpload, responses=_REFUSALS, openapi_extra=UPLOAD_BODY
)
async def upload_batch_file(
    request: Request,
    principal: BatchUser,
    platform: PlatformDep,
    layoutId: Annotated[str, Query(min_length=1, max_length=KEY_MAX)],
    fileName: Annotated[str, Query(min_length=1, max_length=255)],
    queryType: Annotated[str | None, Query(max_length=KEY_MAX)] = None,
) -> BatchUpload:
    """Check and preview a file (records read, valid documents, found in the dataset, credits
    needed): free, nothing reserved. Submit it with ``POST /batches`` and its ``uploadId``."""
    return await upload_preview(request, principal, platform, layoutId, fileName, queryType, Category.BATCH)


async def upload_preview(
    request: Request,
    principal: Principal,
    platform: Any,
    layoutId: str,
    fileName: str,
    queryType: str | None,
    category: Category,
) -> BatchUpload:
    """The upload's check and preview, with the credits available in ``category`` (the account a submit of it
    would reserve on: the public API's batches are charged to the API credits)."""
    batches = platform.batches
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > batches.uploads.max_bytes:
        raise FileTooLarge(field="file")
    await run_in_threadpool(batches.uploads.require_uploadable, principal, layoutId)
    with tempfile.SpooledTemporaryFile(max_size=CHUNK, dir=str(batches.files.spool_dir())) as spool:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > batches.uploads.max_bytes:
                raise FileTooLarge(field="file")
            spool.write(chunk)
        spool.seek(0)
        chunks = iter(lambda: spool.read(CHUNK), b"")
        uploaded = await run_in_threadpool(batches.uploads.upload, principal, layoutId, chunks, fileName, queryType)
    shown = uploaded.preview
    return BatchUpload(
        uploadId=str(uploaded.upload_id),
        fileName=uploaded.file_name,
        extension=uploaded.check.extension,
        size=uploaded.check.size,
        encoding=uploaded.check.encoding,
        records=shown.records,
        validDocuments=shown.valid_documents,
        invalidDocuments=shown.invalid_documents,
        foundInDataset=shown.found_in_dataset,
        creditsNeeded=shown.credits_needed,
        creditsAvailable=await run_in_threadpool(batches.available_credits, principal.group_id, category),
        unknownExitFields=list(shown.unknown_exit_fields),
    )


@router.post("/batches", status_code=201, response_model=SubmittedBatch, responses=_REFUSALS)
def submit_batch(body: SubmitBatchRequest, principal: BatchUser, platform: PlatformDep) -> SubmittedBatch:
    """Submit an uploaded file: its credits (one per valid document) are reserved now, charged for
    the records found when it finishes, the rest released."""
    return submit_upload(body, principal, platform, Category.BATCH)


def submit_upload(body: SubmitBatchRequest, principal: Principal, platform: Any, category: Category) -> SubmittedBatch:
    """Submit as the panel does, charged to ``category`` (BATCH from the panel, API from the public API)."""
    try:
        upload_id = UUID(body.uploadId)
    except ValueError as e:
        raise UploadNotFound(field="uploadId") from e
    group_id = None
    if body.groupId:
        try:
            group_id = UUID(body.groupId)
        except ValueError as e:
            raise GroupNotFound(field="groupId") from e
    submitted = platform.batches.submit(
        principal,
        upload_id,
        group_id=group_id,
        observation=body.observation,
        webhook_url=body.webhookUrl,
        webhook_secret=body.webhookSecret,
        category=category,
        purpose=body.purpose,
    )
    return SubmittedBatch(id=str(submitted.batch_id), position=submitted.position)


@router.get("/batches", response_model=BatchListResponse, responses={404: {"model": ErrorResponse}})
def list_batches(
    principal: BatchUser,
    platform: PlatformDep,
    page: Annotated[Page, Depends(paging(default_size=20, max_size=100))],
    order: Annotated[str | None, Depends(ordering(BATCHES_ORDER))],
    status: BatchStatus | None = None,
    kind: Literal["batch", "manual"] | None = None,
    scope: Literal["own", "subtree"] = "own",
    position: PositionQuery = None,
) -> BatchListResponse:
    """The group's batches; ``scope=subtree`` adds its customers' for owners, admins and super-admins."""
    up_to_date = wait_for_position(platform, position)
    cur = platform.store.cursor()
    own = str(principal.group_id)
    if scope == "subtree" and principal.role in (Role.OWNER, Role.ADMIN, Role.SUPER_ADMIN):
        groups = subtree_ids(cur, own)
    else:
        groups = [own]
    rows, total = batches_page(
        cur,
        groups,
        status=status.value if status else None,
        kind=kind,
        order=order,
        offset=page.offset,
        limit=page.size,
    )
    return BatchListResponse(
        data=[BatchRow.model_validate(r) for r in platform.batches.allowed_actions(principal, rows)],
        total=total,
        page=page.number,
        perPage=page.size,
        upToDate=up_to_date,
    )


def _visible_row(platform: Any, principal: Principal, batch_id: UUID) -> dict[str, Any]:
    """The batch's row if the caller may see it (the write side decides); a 404 otherwise."""
    platform.batches.visible_batch(principal, batch_id)
    row = batch_row(platform.store.cursor(), str(batch_id))
    if row is None:
        raise BatchNotFound()
    return row


@router.get("/batches/{batch_id}", response_model=BatchResponse, responses={404: {"model": ErrorResponse}})
def get_batch(
    batch_id: str, principal: BatchUser, platform: PlatformDep, position: PositionQuery = None
) -> BatchResponse:
    up_to_date = wait_for_position(platform, position)
    row = _visible_row(platform, principal, _batch_id(batch_id))
    (row,) = platform.batches.allowed_actions(principal, [row])
    return BatchResponse(data=BatchRow.model_validate(row), upToDate=up_to_date)


@router.post("/batches/{batch_id}/cancel", response_model=PositionResponse, responses=_REFUSALS)
def cancel_batch(batch_id: str, principal: BatchUser, platform: PlatformDep) -> PositionResponse:
    """Cancel a waiting or processing batch (its reservation released; not undoable)."""
    return PositionResponse(position=platform.batches.cancel(principal, _batch_id(batch_id)))


@router.delete("/batches/{batch_id}", response_model=PositionResponse, responses=_REFUSALS)
def delete_batch(batch_id: str, principal: BatchUser, platform: PlatformDep) -> PositionResponse:
    """Delete a batch that is over, with its files (not undoable)."""
    return PositionResponse(position=platform.batches.delete(principal, _batch_id(batch_id)))


@router.post("/batches/{batch_id}/status", response_model=PositionResponse, responses=_REFUSALS)
def change_batch_status(
    batch_id: str, body: BatchActiveRequest, principal: BatchUser, platform: PlatformDep
) -> PositionResponse:
    """Activate or inactivate a batch that is over (an inactive one's return file is not served)."""
    return PositionResponse(position=platform.batches.set_active(principal, _batch_id(batch_id), body.active))


_FILE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
    404: {"model": ErrorResponse},
}


@router.get("/batches/{batch_id}/file", response_class=FileResponse, responses=_FILE_RESPONSES)
def download_sent_file(batch_id: str, principal: BatchUser, platform: PlatformDep) -> FileResponse:
    """The file as it was sent."""
    batch = platform.batches.visible_batch(principal, _batch_id(batch_id))
    path = platform.batches.files.sent_file(batch)
    if not path.is_file():
        raise BatchNotFound("The sent file is not on this server")
    return FileResponse(path, filename=batch.file_name, media_type="application/octet-stream")


@router.get("/batches/{batch_id}/return", response_class=FileResponse, responses=_FILE_RESPONSES)
def download_return_file(batch_id: str, principal: BatchUser, platform: PlatformDep) -> FileResponse:
    """The return file, once the batch is available (404 ``return_not_ready`` before)."""
    batch = platform.batches.visible_batch(principal, _batch_id(batch_id))
    path = platform.batches.files.return_file(batch)
    if batch.status != BatchStatus.AVAILABLE or path is None or not path.is_file():
        raise ReturnNotReady()
    if not batch.active:
        raise BatchInactive()
    name = platform.batches.return_download_name(batch)
    return FileResponse(path, filename=name, media_type="application/octet-stream")

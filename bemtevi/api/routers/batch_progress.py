"""A batch's live progress (issue 18): ``GET /api/batches/{id}/progress``, server-sent events.

``event: progress`` with ``data: {status, records, done, found, invalid, etaSeconds}`` at once, then every
``BEMTEVI_BATCH_PROGRESS_SECONDS`` (1 s) from the read model (the runner records progress about that often), and
the stream is closed after the first event with a terminal status. Bearer auth and the tenant rule as every batch
route (another tenant's batch: 404 before the stream starts); the web app reads it with fetch, not EventSource,
to send the Authorization header. ``etaSeconds``: the records left at the rate since the first start (null
before any record is done, 0 once over).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Annotated, Any
from uuid import UUID

import orjson
from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from bemtevi.api.deps import PlatformDep, allowed_any_route
from bemtevi.api.schemas import ErrorResponse
from bemtevi.domain.batch_errors import BatchNotFound
from bemtevi.domain.batches import TERMINAL_STATUSES
from bemtevi.domain.principals import Principal
from bemtevi.projections.batches import batch_row

router = APIRouter(tags=["batches"])

BatchUser = Annotated[
    Principal, Depends(allowed_any_route("batch-query", "manual-enrichment", "new-manual-enrichment"))
]
_TERMINAL = frozenset(s.value for s in TERMINAL_STATUSES)


def progress_data(row: dict[str, Any], now: datetime) -> dict[str, Any]:
    """One event's data from the batch's read model row."""
    records, done = int(row["records"] or 0), int(row["done"] or 0)
    status = str(row["status"])
    eta: float | None = None
    started = row.get("startedAt")
    if status in _TERMINAL:
        eta = 0
    elif done > 0 and isinstance(started, datetime):
        elapsed = (now - (started if started.tzinfo else started.replace(tzinfo=UTC))).total_seconds()
        eta = round(max(0.0, (records - done) * elapsed / done), 1)
    return {
        "status": status,
        "records": records,
        "done": done,
        "found": int(row["found"] or 0),
        "invalid": int(row["invalid"] or 0),
        "etaSeconds": eta,
    }


async def progress_events(
    read: Callable[[], dict[str, Any] | None], interval: float, max_seconds: float = 7200.0
) -> AsyncIterator[bytes]:
    """``event: progress`` at once and every ``interval``, until a terminal status (or the batch is gone)."""
    loop = asyncio.get_running_loop()
    ends = loop.time() + max_seconds
    unseen_until = loop.time() + 10.0  # a batch just submitted reaches the read model within moments
    while True:
        row = await run_in_threadpool(read)
        if row is None:
            if loop.time() >= unseen_until:
                return  # deleted, or this replica does not follow the log
            await asyncio.sleep(0.05)
            continue
        data = progress_data(row, datetime.now(UTC))
        yield b"event: progress\ndata: " + orjson.dumps(data) + b"\n\n"
        if data["status"] in _TERMINAL or loop.time() >= ends:
            return
        await asyncio.sleep(interval)


@router.get(
    "/batches/{batch_id}/progress",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}},
        404: {"model": ErrorResponse},
    },
)
def batch_progress(batch_id: str, principal: BatchUser, platform: PlatformDep) -> StreamingResponse:
    """Live progress of a batch as server-sent events, closed once the batch is over."""
    try:
        batch_uuid = UUID(batch_id)
    except ValueError as e:
        raise BatchNotFound() from e
    platform.batches.visible_batch(principal, batch_uuid)  # 404 for another tenant's, before any byte
    key = str(batch_uuid)

    def read() -> dict[str, Any] | None:
        return batch_row(platform.store.cursor(), key)

    return StreamingResponse(
        progress_events(read, platform.settings.batch_progress_seconds),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )

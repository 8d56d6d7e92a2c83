"""The mail outbox (super-admin): what the product sent, kept or failed to send."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, wait_for_position
from bemtevi.api.paging import Page, ordering, paging
from bemtevi.api.schemas import UtcDateTime
from bemtevi.domain.principals import Principal
from bemtevi.projections.mail import OUTBOX_ORDER, outbox_page

router = APIRouter(prefix="/mail", tags=["mail"])


class OutboxMail(BaseModel):
    id: str
    to: str
    subject: str
    # None for a recovery code that reached the user's inbox: nobody else needs to read it.
    text: str | None
    reason: str
    status: str
    attempts: int
    lastError: str | None
    time: UtcDateTime
    updatedAt: UtcDateTime


class OutboxResponse(BaseModel):
    data: list[OutboxMail]
    total: int
    page: int
    perPage: int
    upToDate: bool


@router.get("/outbox", response_model=OutboxResponse)
def outbox(
    principal: Annotated[Principal, Depends(allowed_route("mail-outbox"))],
    platform: PlatformDep,
    page: Annotated[Page, Depends(paging(default_size=20, max_size=100))],
    order: Annotated[str | None, Depends(ordering(OUTBOX_ORDER))],
    position: PositionQuery = None,
) -> OutboxResponse:
    up_to_date = wait_for_position(platform, position)
    rows, total = outbox_page(
        platform.store.cursor(), str(principal.group_id), offset=page.offset, limit=page.size, order=order
    )
    return OutboxResponse(
        data=[
            OutboxMail(
                id=r["mail_id"],
                to=r["recipient"],
                subject=r["subject"],
                text=None if r["status"] == "sent" and r["reason"] == "password-recovery" else r["body"],
                reason=r["reason"],
                status=r["status"],
                attempts=r["attempts"],
                lastError=r["last_error"],
                time=r["queued_at"],
                updatedAt=r["updated_at"],
            )
            for r in rows
        ],
        total=total,
        page=page.number,
        perPage=page.size,
        upToDate=up_to_date,
    )

"""POST /api/contact: the public site's contact and trial form (no session needed)."""

from __future__ import annotations

import threading

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from bemtevi.api.deps import PlatformDep
from bemtevi.api.errors import error_body
from bemtevi.api.rate_limit import SlidingWindowLimiter
from bemtevi.api.schemas import ErrorResponse
from bemtevi.bootstrap import Platform
from bemtevi.domain.contact_requests import MESSAGE_MAX, NAME_MAX, ContactForm
from bemtevi.domain.errors import TooManyContactRequests

router = APIRouter(tags=["contact"])

_limiter_lock = threading.Lock()


class ContactRequestBody(BaseModel):
    # Emptiness and formats are the domain's rules (ContactForm.problems); here only sizes.
    name: str = Field(max_length=NAME_MAX)
    document: str = Field(max_length=32)
    email: str = Field(max_length=254)
    phone: str | None = Field(default=None, max_length=32)
    service: str = Field(max_length=40)
    message: str = Field(max_length=MESSAGE_MAX)
    # The site the form was sent from (window.location.host); the Host header when absent.
    domain_url: str | None = Field(default=None, max_length=253)


class ContactAccepted(BaseModel):
    position: int


def _limiter(request: Request, platform: Platform) -> SlidingWindowLimiter:
    """One limiter per application instance, made on first use."""
    state = request.app.state
    with _limiter_lock:
        limiter: SlidingWindowLimiter | None = getattr(state, "contact_limiter", None)
        if limiter is None:
            limiter = SlidingWindowLimiter(
                platform.settings.contact_rate_limit, platform.settings.contact_rate_window_seconds
            )
            state.contact_limiter = limiter
    return limiter


@router.post(
    "/contact",
    status_code=202,
    response_model=ContactAccepted,
    responses={400: {"model": ErrorResponse}, 429: {"model": ErrorResponse}},
)
def send_contact(body: ContactRequestBody, request: Request, platform: PlatformDep) -> ContactAccepted | JSONResponse:
    form = ContactForm(
        name=body.name,
        document=body.document,
        email=body.email,
        service=body.service,
        message=body.message,
        phone=body.phone,
    )
    problems = form.problems()
    if problems:
        items = [{"property": p.field, p.kind: p.message} for p in problems]
        return JSONResponse(error_body(400, problems[0].message, "invalid_data", errors=items), status_code=400)
    client = request.client.host if request.client else "unknown"
    limiter = _limiter(request, platform)
    if not limiter.allow(client):
        refusal = TooManyContactRequests()
        return JSONResponse(
            error_body(refusal.status, refusal.message, refusal.code),
            status_code=refusal.status,
            headers={"Retry-After": str(limiter.retry_after(client))},
        )
    received = platform.contact.receive(form, body.domain_url or request.headers.get("host"))
    return ContactAccepted(position=received.position)

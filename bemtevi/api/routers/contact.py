"""POST /api/contact: the public site's contact and trial form (no session needed)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from bemtevi.api.bounds import DocumentText, Email, HostName, Key, Phone
from bemtevi.api.deps import PlatformDep
from bemtevi.api.errors import error_body
from bemtevi.api.schemas import ErrorResponse
from bemtevi.domain.contact_requests import MESSAGE_MAX, NAME_MAX, ContactForm
from bemtevi.domain.errors import TooManyContactRequests

router = APIRouter(tags=["contact"])


class ContactRequestBody(BaseModel):
    # Emptiness and formats are the domain's rules (ContactForm.problems); here only sizes.
    name: str = Field(max_length=NAME_MAX)
    document: DocumentText
    email: Email
    phone: Phone | None = None
    service: Key
    message: str = Field(max_length=MESSAGE_MAX)
    # The site the form was sent from (window.location.host); the Host header when absent.
    domain_url: HostName | None = None


class ContactAccepted(BaseModel):
    position: int


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
    # Counted where every API process sees it (Platform.contact_throttle); refused sends are not counted.
    limit = [(f"contact:address:{client}", platform.settings.contact_rate_limit)]
    wait = platform.contact_throttle.wait_seconds(limit)
    if wait > 0:
        refusal = TooManyContactRequests()
        return JSONResponse(
            error_body(refusal.status, refusal.message, refusal.code),
            status_code=refusal.status,
            headers={"Retry-After": str(int(wait) + 1)},
        )
    platform.contact_throttle.record(limit[0][0])
    received = platform.contact.receive(form, body.domain_url or request.headers.get("host"))
    return ContactAccepted(position=received.position)

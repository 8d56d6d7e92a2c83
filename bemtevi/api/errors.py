"""Error answers in the specification's shape (section 8): message, code, optional errors list."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from bemtevi.api.error_codes import http_error_code
from bemtevi.api.route_handler import add_answer_headers
from bemtevi.api.schemas import ErrorResponse
from bemtevi.commands.ledger import LedgerUnavailable
from bemtevi.domain.api_client_errors import RateLimited
from bemtevi.domain.errors import CreditsUnavailable, DomainError

log = logging.getLogger(__name__)

FALLBACK_MESSAGE = "An unexpected error has occurred. Please try again later."

# Every /api operation documents its refusals with the one error shape: request validation is
# 400 (``errors`` names each refused field), and any other refusal or failure has its own status
# with the same body ("default"). FastAPI's own 422 ``HTTPValidationError`` is never answered, so
# it is not documented either (FastAPI leaves it out when a "default" answer is declared).
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Invalid request: `errors` lists each refused field"},
    "default": {
        "model": ErrorResponse,
        "description": "Refused or failed: `statusCode`, `message` and a stable `code`",
    },
}


def error_body(status: int, message: str, code: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"statusCode": status, "message": message, "code": code}
    body.update({k: v for k, v in extra.items() if v is not None})
    return body


def _validation_item(error: dict[str, Any]) -> dict[str, str]:
    location = [str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path")]
    prop = ".".join(location) or "body"
    kind = error.get("type", "")
    if kind in {"missing", "string_too_short", "too_short"}:
        return {"property": prop, "isNotEmpty": f"{prop} should not be empty"}
    if kind in {"enum", "literal_error"}:
        return {"property": prop, "isEnum": f"{prop} must be a valid enum value"}
    return {"property": prop, "constraint": f"{prop}: {error.get('msg', 'invalid value')}"}


def domain_error_response(exc: DomainError) -> JSONResponse:
    minutes = getattr(exc, "minutes", None)  # TooManyAttempts: when to try again
    headers = {"Retry-After": str(minutes * 60)} if minutes is not None else None
    return JSONResponse(
        error_body(
            exc.status,
            exc.message,
            exc.code,
            field=exc.field,
            minutes=minutes,
            limit=getattr(exc, "limit", None),
            expectedWidth=getattr(exc, "expected_width", None),
            expectedHeight=getattr(exc, "expected_height", None),
            challengeId=getattr(exc, "challenge_id", None),
            resendAfter=getattr(exc, "resend_after", None),
        ),
        status_code=exc.status,
        headers=headers,
    )


def ledger_unavailable_response(exc: LedgerUnavailable) -> JSONResponse:
    """503 ``credits_unavailable``: the ledger did not answer in time (cluster mode: its workers or the broker
    being started again), and the request was not decided; the client may try again."""
    log.warning("%s", exc)
    return domain_error_response(CreditsUnavailable())


def install_error_handlers(app: FastAPI) -> None:
    """The error answers of an app's requests, with the headers the request's dependencies asked for (the
    public API's rate-limit headers once a token was admitted: ``add_answer_headers``)."""

    @app.exception_handler(DomainError)
    async def domain_error(request: Request, exc: DomainError) -> Response:
        return add_answer_headers(request.scope, domain_error_response(exc))

    @app.exception_handler(RateLimited)
    async def rate_limited(_: Request, exc: RateLimited) -> JSONResponse:
        response = domain_error_response(exc)
        response.headers["Retry-After"] = str(exc.retry_after)
        for name, value in exc.headers.items():
            response.headers[name] = value
        return response

    @app.exception_handler(LedgerUnavailable)
    async def ledger_unavailable(request: Request, exc: LedgerUnavailable) -> Response:
        return add_answer_headers(request.scope, ledger_unavailable_response(exc))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        items = [_validation_item(e) for e in exc.errors()]
        first = items[0] if items else {}
        message = first.get("isNotEmpty") or first.get("isEnum") or first.get("constraint") or "Invalid data"
        answer = JSONResponse(error_body(400, message, "invalid_data", errors=items), status_code=400)
        return add_answer_headers(request.scope, answer)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) else f"Request failed with status code {exc.status_code}"
        answer = JSONResponse(
            error_body(exc.status_code, message, http_error_code(exc.status_code)),
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )
        return add_answer_headers(request.scope, answer)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return JSONResponse(error_body(500, FALLBACK_MESSAGE, "unexpected_error"), status_code=500)

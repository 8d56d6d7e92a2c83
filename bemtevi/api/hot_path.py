"""The unit lookup served without FastAPI's per-request machinery.

``POST /api/consultations`` is the product's hot path (API clients call it in loops). Through
FastAPI's routing, dependency solving and response validation, about half of a lookup's CPU went
to the framework, and the server is one process bound by one interpreter lock. This ASGI
middleware answers that one route itself with the same steps the route declares (bearer token,
session, the role's permission for ``normal-query``, the request model, the lookup), the same
answer's bytes (``consultation_json``) and the same error answers (it sits in front of the
framework's error middleware, so it also gives the app's answer to an unexpected error itself);
anything it does not decide on its own (a body that does not validate) goes on to the FastAPI
route with the body replayed, so the canonical answer stays the route's.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bemtevi.api.access_log import note_tenant
from bemtevi.api.deps import token_of
from bemtevi.api.errors import FALLBACK_MESSAGE, domain_error_response, error_body, ledger_unavailable_response
from bemtevi.api.routers.consultations import LOOKUP_PATH, LOOKUP_ROUTE, consultation_json
from bemtevi.api.schemas import ConsultationRequest
from bemtevi.bootstrap import Platform
from bemtevi.commands.ledger import LedgerUnavailable
from bemtevi.domain.errors import AccessDenied, DomainError
from bemtevi.domain.menus import may_open

_JSON_HEADERS = [(b"content-type", b"application/json")]
_UNEXPECTED = bytes(JSONResponse(error_body(500, FALLBACK_MESSAGE, "unexpected_error"), status_code=500).body)

log = logging.getLogger(__name__)


class HotLookupMiddleware:
    def __init__(self, app: ASGIApp, platform: Platform, prefix: str = "/api") -> None:
        self.app = app
        self.platform = platform
        self.path = prefix + LOOKUP_PATH

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        try:
            principal = self.platform.identity.authenticate(_bearer_token(scope))
            note_tenant(scope, principal.group_id)
            if not may_open(principal.role, LOOKUP_ROUTE):
                raise AccessDenied()
            try:
                document, query_type = read_request(body)
            except ValidationError:
                await self.app(scope, _replay(body), send)
                return
            outcome = await self.platform.consultations.run_unit_query_async(principal, document, query_type)
            payload = consultation_json(outcome)
        except DomainError as exc:
            await domain_error_response(exc)(scope, _replay(body), send)
            return
        except LedgerUnavailable as exc:
            await ledger_unavailable_response(exc)(scope, _replay(body), send)
            return
        except Exception:
            # The app's own handler's answer: this path runs outside the framework's error middleware.
            log.exception("unexpected error in %s", self.path)
            await _answer(send, 500, _UNEXPECTED)
            return
        await _answer(send, 200, payload)


def read_request(body: bytes) -> tuple[str, str | None]:
    """The document and query type of a request body, as ``ConsultationRequest`` reads them;
    ``ValidationError`` when the route would refuse the body.

    A plain body (an object with a non-empty string ``document`` and maybe a string or null
    ``query_type``, nothing else) is read by orjson, for some 40% of the CPU of the model; any
    other body, valid or not, is left to the model. tests/api/test_hot_path.py compares the two.
    """
    try:
        fields = orjson.loads(body)
    except orjson.JSONDecodeError:
        fields = None
    if type(fields) is dict:
        document = fields.get("document")
        query_type = fields.get("query_type")
        if (
            type(document) is str
            and document
            and (query_type is None or type(query_type) is str)
            and len(fields) == 1 + ("query_type" in fields)
        ):
            return document, query_type
    request = ConsultationRequest.model_validate_json(body)
    return request.document, request.query_type


async def _answer(send: Send, status: int, payload: bytes) -> None:
    headers = [*_JSON_HEADERS, (b"content-length", b"%d" % len(payload))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


def _bearer_token(scope: Scope) -> str:
    authorization = next((value for name, value in scope["headers"] if name == b"authorization"), b"")
    return token_of(authorization.decode("latin-1"))


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            message: dict[str, Any] = {"type": "http.request", "body": body, "more_body": False}
            return message
        return {"type": "http.disconnect"}

    return receive

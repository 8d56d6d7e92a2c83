"""The public API's application, mounted at /api/v1: its own OpenAPI schema (/api/v1/openapi.json), the same
error shapes as the panel's API, and the rate limits' headers."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bemtevi.api.errors import ERROR_RESPONSES, domain_error_response, install_error_handlers
from bemtevi.api.routing import QuickRoute, RouteIndex, include_flat
from bemtevi.api.v1 import routes
from bemtevi.api.v1.deps import RATE_LIMIT_KEY
from bemtevi.commands.rate_limits import limit_header, policy_header
from bemtevi.domain.api_client_errors import RateLimited

PREFIX = "/api/v1"
DESCRIPTION = """Lookups of people and companies by CPF/CNPJ, batches and balances, for API clients.

Authenticate with the access token shown once when the token was generated (api-query screen):
`Authorization: Bearer <accessToken>`. Lookups are charged to the group's API credits; every refusal
answers `{statusCode, message, code}` with a stable `code`.

A lookup or a batch may say what it is for (`purpose`, LGPD art. 6 I): it is recorded with each consultation and
shown to the data subject in the data-subject report. A group may require it: without one, such a group's lookups
and batches are refused with `purpose_required` (422)."""


def create_v1_app(platform: Any) -> FastAPI:
    v1 = FastAPI(
        title="Public API",  # no platform name: a white-label customer's API clients read it
        version="1.0.0",
        description=DESCRIPTION,
        openapi_url="/openapi.json",
        docs_url=None,
        redoc_url=None,
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )
    v1.state.platform = platform
    install_error_handlers(v1)

    @v1.exception_handler(RateLimited)
    async def rate_limited(_: Request, exc: RateLimited) -> JSONResponse:
        response = domain_error_response(exc)
        response.headers["Retry-After"] = str(exc.retry_after)
        for name, value in exc.headers.items():
            response.headers[name] = value
        return response

    # Routed as the panel's API is (``bemtevi.api.routing``): FastAPI's own per-request solving made a token
    # lookup cost half as much again as the panel's.
    v1.router.route_class = QuickRoute
    include_flat(v1, routes.router, prefix="", responses=ERROR_RESPONSES)
    v1.add_middleware(RateLimitHeaders)
    v1.router.middleware_stack = RouteIndex(v1.router, v1.router.middleware_stack)
    return v1


class RateLimitHeaders:
    """Adds the IETF ``RateLimit`` and ``RateLimit-Policy`` headers to an admitted request's answer (the routes
    return their own responses, which FastAPI's injected response headers do not reach)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            remaining = scope.get(RATE_LIMIT_KEY)
            if message["type"] == "http.response.start" and remaining:
                headers = list(message.get("headers", []))
                headers.append((b"ratelimit-policy", policy_header(remaining).encode()))
                headers.append((b"ratelimit", limit_header(remaining).encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def v1_openapi_document(platform: Any) -> dict[str, Any]:
    """The public API's schema, with its paths as clients call them (under /api/v1)."""
    document = create_v1_app(platform).openapi()
    document["servers"] = [{"url": PREFIX}]
    return document

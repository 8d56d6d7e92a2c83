"""The public API's application, mounted at /api/v1: its own OpenAPI schema (/api/v1/openapi.json) and the same
error shapes as the panel's API. Its routes answer in the panel's application (``include_v1_routes``)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from bemtevi.api.errors import ERROR_RESPONSES, install_error_handlers
from bemtevi.api.routing import QuickRoute, RouteIndex, include_flat
from bemtevi.api.v1 import routes

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
    # Routed as the panel's API is (``bemtevi.api.routing``): FastAPI's own per-request solving made a token
    # lookup cost half as much again as the panel's.
    v1.router.route_class = QuickRoute
    include_flat(v1, routes.router, prefix="", responses=ERROR_RESPONSES)
    v1.router.middleware_stack = RouteIndex(v1.router, v1.router.middleware_stack)
    return v1


def include_v1_routes(app: FastAPI) -> None:
    """The public API's routes in ``app``'s own list (under /api/v1, left out of ``app``'s schema): a request
    then crosses the one middleware stack of the process, not the mounted app's too. The mounted app
    (``create_v1_app``) answers its schema and whatever these routes do not match (404, 405, redirects)."""
    include_flat(app, routes.router, prefix=PREFIX, responses=ERROR_RESPONSES, in_schema=False)


def v1_openapi_document(platform: Any) -> dict[str, Any]:
    """The public API's schema, with its paths as clients call them (under /api/v1)."""
    document = create_v1_app(platform).openapi()
    document["servers"] = [{"url": PREFIX}]
    return document

"""The public API's application, mounted at /api/v1: its own OpenAPI schema (/api/v1/openapi.json), the same
error shapes as the panel's API, and the rate limits' headers."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from bemtevi.api.errors import ERROR_RESPONSES, install_error_handlers
from bemtevi.api.v1 import routes

PREFIX = "/api/v1"
DESCRIPTION = """Lookups of people and companies by CPF/CNPJ, batches and balances, for API clients.

Authenticate with the access token shown once when the token was generated (api-query screen):
`Authorization: Bearer <accessToken>`. Lookups are charged to the group's API credits; every refusal
answers `{statusCode, message, code}` with a stable `code`."""


def create_v1_app(platform: Any) -> FastAPI:
    v1 = FastAPI(
        title="Bemtevi public API",
        version="1.0.0",
        description=DESCRIPTION,
        openapi_url="/openapi.json",
        docs_url=None,
        redoc_url=None,
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )
    v1.state.platform = platform
    install_error_handlers(v1)
    v1.include_router(routes.router, responses=ERROR_RESPONSES)
    return v1


def v1_openapi_document(platform: Any) -> dict[str, Any]:
    """The public API's schema, with its paths as clients call them (under /api/v1)."""
    document = create_v1_app(platform).openapi()
    document["servers"] = [{"url": PREFIX}]
    return document

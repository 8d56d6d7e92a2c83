"""The FastAPI application: routers under /api, error shapes, and the web app at /."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from types import SimpleNamespace
from typing import Any, cast

from fastapi import APIRouter, FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from bemtevi.api.access_log import AccessLog
from bemtevi.api.errors import ERROR_RESPONSES, install_error_handlers
from bemtevi.api.hot_path import HotLookupMiddleware
from bemtevi.api.routers import accounts as accounts_router
from bemtevi.api.routers import audit as audit_router
from bemtevi.api.routers import auth, consultations, contact, credits, customers, dashboard, directory
from bemtevi.api.routers import batch_progress as batch_progress_router
from bemtevi.api.routers import batches as batches_router
from bemtevi.api.routers import brand as brand_router
from bemtevi.api.routers import catalogue as catalogue_router
from bemtevi.api.routers import mail as mail_router
from bemtevi.api.routers import suppliers as suppliers_router
from bemtevi.api.routers import users as users_router
from bemtevi.api.static import mount_api_docs, mount_webapp
from bemtevi.bootstrap import Platform
from bemtevi.infra.settings import Settings


class BemteviAPI(FastAPI):
    """FastAPI with the product's own ASGI layers in front of everything the framework does per
    request: the access log (``bemtevi.api.access_log``), then the hot lookup path.

    ``add_middleware`` would place them inside FastAPI's telemetry check and the error middleware,
    which then ran on every lookup; the hot path answers its own errors (``bemtevi.api.hot_path``)
    and hands every other request to the framework unchanged.
    """

    front_layers: Sequence[Callable[[ASGIApp], ASGIApp]] = ()  # the outermost first
    _front: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._front is None:
            front: ASGIApp = partial(FastAPI.__call__, self)
            for layer in reversed(self.front_layers):
                front = layer(front)
            self._front = front
        await self._front(scope, receive, send)


def create_app(platform: Platform) -> BemteviAPI:
    app = BemteviAPI(
        title="Bemtevi API",
        version="0.1.0",
        description="Consultas e enriquecimento de dados de pessoas e empresas.",
        docs_url=None,  # mount_api_docs: Swagger UI from the product's files, not a CDN
        openapi_url="/api/openapi.json",
        redoc_url=None,
    )
    app.state.platform = platform
    install_error_handlers(app)
    api = APIRouter(prefix="/api", responses=ERROR_RESPONSES)
    api.include_router(auth.router)
    api.include_router(accounts_router.router)
    api.include_router(mail_router.router)
    api.include_router(directory.router)
    api.include_router(consultations.router)
    api.include_router(dashboard.router)
    api.include_router(credits.router)
    api.include_router(customers.router)
    api.include_router(brand_router.router)
    api.include_router(audit_router.router)
    api.include_router(contact.router)
    api.include_router(users_router.router)
    api.include_router(catalogue_router.router)
    api.include_router(suppliers_router.router)
    api.include_router(batches_router.router)
    api.include_router(batch_progress_router.router)

    @api.get("/health", tags=["health"])
    def health() -> dict[str, object]:
        projector = platform.projector
        return {
            "status": "ok" if projector.error is None else "degraded",
            "position": platform.app.max_position(),
            "projected": projector.position,
        }

    app.include_router(api)
    layers: list[Callable[[ASGIApp], ASGIApp]] = []
    if platform.settings.access_log:
        layers.append(AccessLog)
    if platform.settings.hot_lookup_path:
        layers.append(lambda stack: HotLookupMiddleware(stack, platform=platform))
    app.front_layers = layers
    mount_api_docs(app, platform.settings.webapp_dist)
    mount_webapp(app, platform.settings.webapp_dist)
    return app


def openapi_document() -> dict[str, Any]:
    """The API's OpenAPI schema without a platform: building the routes only needs the settings
    (no store, projector or supplier is opened). The web client is generated from it."""
    return create_app(cast(Platform, SimpleNamespace(settings=Settings()))).openapi()

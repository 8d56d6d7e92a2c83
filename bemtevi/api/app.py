"""The FastAPI application: routers under /api, error shapes, and the web app at /."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from types import SimpleNamespace
from typing import Any, cast

from fastapi import APIRouter, FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from bemtevi.api.access_log import AccessLog
from bemtevi.api.errors import ERROR_RESPONSES, install_error_handlers
from bemtevi.api.routers import accounts as accounts_router
from bemtevi.api.routers import advanced_queries as advanced_router
from bemtevi.api.routers import api_tokens as api_tokens_router
from bemtevi.api.routers import audit as audit_router
from bemtevi.api.routers import auth, consultations, contact, credits, customers, dashboard, directory, statements
from bemtevi.api.routers import batch_progress as batch_progress_router
from bemtevi.api.routers import batches as batches_router
from bemtevi.api.routers import brand as brand_router
from bemtevi.api.routers import catalogue as catalogue_router
from bemtevi.api.routers import data_subject as data_subject_router
from bemtevi.api.routers import group_settings as group_settings_router
from bemtevi.api.routers import mail as mail_router
from bemtevi.api.routers import reports as reports_router
from bemtevi.api.routers import suppliers as suppliers_router
from bemtevi.api.routers import two_factor as two_factor_router
from bemtevi.api.routers import users as users_router
from bemtevi.api.routing import QuickRoute, RouteDispatch, RouteIndex, include_flat
from bemtevi.api.static import mount_api_docs, mount_webapp
from bemtevi.api.v1.app import PREFIX as V1_PREFIX
from bemtevi.api.v1.app import create_v1_app, include_v1_routes
from bemtevi.bootstrap import Platform
from bemtevi.infra.settings import Settings

# The API's routers, in the order their routes are matched (under /api, after them GET /api/health).
API_ROUTERS: tuple[APIRouter, ...] = (
    auth.router,
    accounts_router.router,
    two_factor_router.auth_router,
    mail_router.router,
    directory.router,
    consultations.router,
    dashboard.router,
    reports_router.router,
    credits.router,
    statements.router,
    customers.router,
    brand_router.router,
    two_factor_router.group_router,
    group_settings_router.router,
    audit_router.router,
    data_subject_router.router,
    contact.router,
    users_router.router,
    catalogue_router.router,
    suppliers_router.router,
    batches_router.router,
    batch_progress_router.router,
    api_tokens_router.router,
    advanced_router.router,
)


class BemteviAPI(FastAPI):
    """FastAPI with the product's own ASGI layers in front of everything the framework does per
    request: the access log (``bemtevi.api.access_log``), then the planned routes' dispatch
    (``bemtevi.api.routing.RouteDispatch``).

    ``add_middleware`` would place them inside FastAPI's telemetry check and the error middleware,
    which then ran on every request.
    """

    front_layers: Sequence[Callable[[ASGIApp], ASGIApp]] = ()  # the outermost first
    dispatch: RouteDispatch | None = None  # planned routes answered without the framework's stack
    _front: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._front is None:
            front: ASGIApp = self.dispatch or partial(FastAPI.__call__, self)
            for layer in reversed(self.front_layers):
                front = layer(front)
            self._front = front
        await self._front(scope, receive, send)


def create_app(platform: Platform) -> BemteviAPI:
    app = BemteviAPI(
        title="Consultation API",  # no platform name: a white-label customer's users read these docs
        version="0.1.0",
        description="Consultas e enriquecimento de dados de pessoas e empresas.",
        docs_url=None,  # mount_api_docs: Swagger UI from the product's files, not a CDN
        openapi_url="/api/openapi.json",
        redoc_url=None,
        # No OpenTelemetry in the product: without these, FastAPI asks OpenTelemetry's global providers
        # on every request whether one was configured since.
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )
    # Every route of the app a QuickRoute, those added after these too (the docs page, the web app's).
    app.router.route_class = QuickRoute
    app.state.platform = platform
    install_error_handlers(app)
    health_router = APIRouter(tags=["health"])

    @health_router.get("/health")
    def health() -> dict[str, object]:
        projector = platform.projector
        return {
            "status": "ok" if projector.error is None else "degraded",
            "position": platform.app.max_position(),
            "projected": projector.position,
        }

    for router in (*API_ROUTERS, health_router):
        include_flat(app, router, prefix="/api", responses=ERROR_RESPONSES)
    layers: list[Callable[[ASGIApp], ASGIApp]] = []
    if platform.settings.access_log:
        layers.append(AccessLog)
    app.front_layers = layers
    # The public API for token holders: its routes here, and its application (its schema, its paths that none
    # of them matches) mounted, before the web app's catch-all.
    include_v1_routes(app)
    app.mount(V1_PREFIX, create_v1_app(platform))
    mount_api_docs(app, platform.settings.webapp_dist)
    mount_webapp(app, platform.settings.webapp_dist)
    index = RouteIndex(app.router, app.router.middleware_stack)
    app.router.middleware_stack = index
    app.dispatch = RouteDispatch(app, index, partial(FastAPI.__call__, app))
    return app


def openapi_document() -> dict[str, Any]:
    """The API's OpenAPI schema without a platform: building the routes only needs the settings
    (no store, projector or supplier is opened). The web client is generated from it."""
    return create_app(cast(Platform, SimpleNamespace(settings=Settings()))).openapi()


def closes_on_shutdown(api: FastAPI, platform: Platform, ready_fd: int | None = None) -> FastAPI:
    """Close the platform (the writer's last chores, the projector, the stores) in the app's
    shutdown: uvicorn re-raises SIGTERM/SIGINT once it has stopped, which ends the process before
    a ``finally`` after ``uvicorn.run`` could run. ``ready_fd``: told once the app has started."""
    serving = api.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[Any]:
        async with serving(app) as state:
            if ready_fd is not None:
                os.write(ready_fd, b"ready\n")
                os.close(ready_fd)
            yield state
        platform.close()

    api.router.lifespan_context = lifespan
    return api

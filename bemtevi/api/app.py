"""The FastAPI application: routers under /api, error shapes, and the web app at /."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, FastAPI
from starlette.types import ASGIApp

from bemtevi.api.errors import install_error_handlers
from bemtevi.api.hot_path import HotLookupMiddleware
from bemtevi.api.routers import accounts as accounts_router
from bemtevi.api.routers import audit as audit_router
from bemtevi.api.routers import auth, consultations, contact, credits, customers, dashboard, directory
from bemtevi.api.routers import brand as brand_router
from bemtevi.api.routers import mail as mail_router
from bemtevi.api.routers import users as users_router
from bemtevi.api.static import mount_webapp
from bemtevi.bootstrap import Platform


class BemteviAPI(FastAPI):
    """FastAPI with the hot lookup path in front of the framework's own middleware.

    ``add_middleware`` would place it inside the error and telemetry middleware, which then run on
    every lookup; the hot path answers its own errors (``bemtevi.api.hot_path``).
    """

    hot_path: Callable[[ASGIApp], ASGIApp] | None = None

    def build_middleware_stack(self) -> ASGIApp:
        stack = super().build_middleware_stack()
        return self.hot_path(stack) if self.hot_path is not None else stack


def create_app(platform: Platform) -> BemteviAPI:
    app = BemteviAPI(
        title="Bemtevi API",
        version="0.1.0",
        description="Consultas e enriquecimento de dados de pessoas e empresas.",
        docs_url="/api/docs",
        openapi_url="/api/openapi.json",
        redoc_url=None,
    )
    app.state.platform = platform
    install_error_handlers(app)
    api = APIRouter(prefix="/api")
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

    @api.get("/health", tags=["health"])
    def health() -> dict[str, object]:
        projector = platform.projector
        return {
            "status": "ok" if projector.error is None else "degraded",
            "position": platform.app.max_position(),
            "projected": projector.position,
        }

    app.include_router(api)
    if platform.settings.hot_lookup_path:
        app.hot_path = lambda stack: HotLookupMiddleware(stack, platform=platform)
    mount_webapp(app, platform.settings.webapp_dist)
    return app

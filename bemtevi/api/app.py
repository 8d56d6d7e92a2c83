"""The FastAPI application: routers under /api, error shapes, and the web app at /."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from functools import partial
from inspect import iscoroutinefunction
from types import SimpleNamespace
from typing import Any, cast

from fastapi import APIRouter, FastAPI, params
from fastapi.dependencies.utils import get_typed_return_annotation, get_typed_signature
from fastapi.routing import APIRoute
from fastapi.telemetry._api import _route_selected
from starlette._utils import get_route_path
from starlette.concurrency import run_in_threadpool
from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from bemtevi.api.access_log import AccessLog
from bemtevi.api.errors import ERROR_RESPONSES, install_error_handlers
from bemtevi.api.route_handler import RouteHandler, plan_of
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
from bemtevi.api.static import mount_api_docs, mount_webapp
from bemtevi.api.v1.app import PREFIX as V1_PREFIX
from bemtevi.api.v1.app import create_v1_app
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
    request: the access log (``bemtevi.api.access_log``).

    ``add_middleware`` would place them inside FastAPI's telemetry check and the error middleware,
    which then ran on every request.
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
    # The public API for token holders: its own application and schema, before the web app's catch-all.
    app.mount(V1_PREFIX, create_v1_app(platform))
    mount_api_docs(app, platform.settings.webapp_dist)
    mount_webapp(app, platform.settings.webapp_dist)
    app.router.middleware_stack = RouteIndex(app.router, app.router.middleware_stack)
    return app


def include_flat(app: FastAPI, router: APIRouter, *, prefix: str, responses: dict[int | str, dict[str, Any]]) -> None:
    """``app.include_router(router, prefix=prefix, responses=responses)``, with the router's routes added to the
    app's own list, as FastAPI did before 0.116.

    FastAPI now keeps an included router as a node of the app's routes and matches a request through each
    node (twice per node, with its scope bookkeeping): with the API's 16 routers, finding a route cost more CPU
    than most routes spend answering. A flat list is matched by one regular expression per route. The OpenAPI
    schema is the same (tests/api/test_api_docs.py compares it with the included routers')."""
    for route in router.routes:
        if not isinstance(route, APIRoute):
            raise TypeError(f"only API routes are included flat, not {route!r}")
        app.router.add_api_route(
            prefix + route.path,
            route.endpoint if iscoroutinefunction(route.endpoint) else on_a_worker(route.endpoint),
            response_model=route.response_model,
            status_code=route.status_code,
            tags=route.tags,
            dependencies=route.dependencies,
            summary=route.summary,
            description=route.description,
            response_description=route.response_description,
            responses={**responses, **route.responses},
            deprecated=route.deprecated,
            methods=route.methods,
            operation_id=route.operation_id,
            response_model_include=route.response_model_include,
            response_model_exclude=route.response_model_exclude,
            response_model_by_alias=route.response_model_by_alias,
            response_model_exclude_unset=route.response_model_exclude_unset,
            response_model_exclude_defaults=route.response_model_exclude_defaults,
            response_model_exclude_none=route.response_model_exclude_none,
            include_in_schema=route.include_in_schema,
            response_class=route.response_class,
            name=route.name,
            callbacks=route.callbacks,
            openapi_extra=route.openapi_extra,
            generate_unique_id_function=route.generate_unique_id_function,
            strict_content_type=route.strict_content_type,
            route_class_override=QuickRoute,
        )


class QuickRoute(APIRoute):
    """An API route that refuses a path not starting with its pattern's literal start (the whole path for a
    route without parameters) before matching: a request is matched against the routes in order, and
    FastAPI's ``matches`` (the scope bookkeeping, then the regular expression) for each of the ~100 routes
    cost a route near the end as much CPU as its own work. The pattern cannot match such a path anyway.

    Its requests are answered by a ``RouteHandler`` (``bemtevi.api.route_handler``), FastAPI's steps planned
    once for the route, when the route uses only what a plan covers."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **options: Any) -> None:
        super().__init__(path, endpoint, **options)
        body_is_form = self.body_field is not None and isinstance(self.body_field.field_info, params.Form)
        streamed = self.is_sse_stream or self.is_json_stream
        plan = None if body_is_form or streamed else plan_of(self.dependant)
        if plan is not None:
            self.app = RouteHandler(self, plan, self.app)
        literal, parameter, _ = self.path_format.partition("{")
        self._exact = None if parameter else literal
        self._start = literal

    def may_match(self, path: str) -> bool:
        """False when this route's pattern cannot match ``path`` (a path as ``get_route_path`` gives it)."""
        return path == self._exact if self._exact is not None else path.startswith(self._start)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and not self.may_match(get_route_path(scope)):
            return Match.NONE, {}
        return super().matches(scope)


class RouteIndex:
    """The router's first step: the route a request matches fully, found among the routes whose literal start
    (``QuickRoute``) the path has, in the routes' order; anything else (no full match: a wrong method, a
    redirect, not found; websockets, the lifespan) goes on to the router's own walk (``app``).

    The router asks each of the ~80 routes in turn: a route near the end (``/api/me``, ``/api/health``) cost
    as much CPU to find as to answer, however quickly each route refuses. The candidates of a path are kept
    (a bounded number of paths) until the router's list of routes changes. Cost to a reader: FastAPI's walk
    has a twin for its common case; the first full match is the same, as the routes are asked in order."""

    MAX_PATHS = 4096

    def __init__(self, router: APIRouter, app: ASGIApp) -> None:
        self.router = router
        self.app = app
        self._routes: list[BaseRoute] = []
        self._candidates: dict[str, tuple[BaseRoute, ...]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            found = self.full_match(scope)
            if found is not None:
                route, child_scope = found
                # What the router does with a full match (APIRouter.app).
                if "router" not in scope:
                    scope["router"] = self.router
                scope.update(child_scope)
                _route_selected(scope=scope, path=getattr(route, "path_format", None), mount=isinstance(route, Mount))
                await route.handle(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def full_match(self, scope: Scope) -> tuple[BaseRoute, Scope] | None:
        """The first route matching ``scope`` fully, and its child scope; None when none does."""
        routes = self.router.routes
        if routes != self._routes:  # compares the routes by identity first: cheap while unchanged
            self._routes = list(routes)
            self._candidates = {}
        path = get_route_path(scope)
        candidates = self._candidates.get(path)
        if candidates is None:
            if len(self._candidates) >= self.MAX_PATHS:
                self._candidates = {}
            candidates = self._candidates[path] = tuple(
                route for route in self._routes if not isinstance(route, QuickRoute) or route.may_match(path)
            )
        for route in candidates:
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                return route, child_scope
        return None


def on_a_worker(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """A blocking route as a coroutine that runs it on a worker thread: one hop to the thread pool per
    request. FastAPI hops for a plain ``def`` route, then hops again to validate its answer; here the
    answer is validated on the event loop (pydantic's core, no I/O). Same parameters, so the same schema."""
    returns = get_typed_return_annotation(endpoint)
    signature = get_typed_signature(endpoint).replace(
        return_annotation=inspect.Signature.empty if returns is None else returns
    )

    async def run(**values: Any) -> Any:
        return await run_in_threadpool(endpoint, **values)

    # Not functools.wraps: FastAPI unwraps ``__wrapped__`` to decide whether a route is a coroutine.
    run.__signature__ = signature  # type: ignore[attr-defined]
    for name in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(run, name, getattr(endpoint, name))
    return run


def openapi_document() -> dict[str, Any]:
    """The API's OpenAPI schema without a platform: building the routes only needs the settings
    (no store, projector or supplier is opened). The web client is generated from it."""
    return create_app(cast(Platform, SimpleNamespace(settings=Settings()))).openapi()

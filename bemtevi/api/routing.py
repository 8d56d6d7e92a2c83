"""How the API's applications route a request: a flat list of routes (``include_flat``), each refusing a path
it cannot match before matching (``QuickRoute``) and answered by a planned handler (``route_handler``), found
through an index of candidates (``RouteIndex``), and a planned route's request answered straight from the app's
front (``RouteDispatch``); blocking routes run on a worker thread (``on_a_worker``).
The panel's API and the public API (``/api/v1``) are routed alike."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from inspect import iscoroutinefunction
from typing import Any

from fastapi import FastAPI, params
from fastapi.dependencies.utils import get_typed_return_annotation, get_typed_signature
from fastapi.routing import APIRoute, APIRouter, _get_scope_effective_route_context, request_response
from fastapi.telemetry._api import _route_selected
from starlette._exception_handler import _lookup_exception_handler
from starlette._utils import get_route_path, is_async_callable
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ASGIApp, ExceptionHandler, Receive, Scope, Send

from bemtevi.api.request_body import PlannedRequest
from bemtevi.api.route_handler import RouteHandler, add_answer_headers, plan_of


def include_flat(
    app: FastAPI,
    router: APIRouter,
    *,
    prefix: str,
    responses: dict[int | str, dict[str, Any]],
    in_schema: bool = True,
) -> None:
    """``app.include_router(router, prefix=prefix, responses=responses)``, with the router's routes added to the
    app's own list, as FastAPI did before 0.116; ``in_schema=False`` leaves them out of the app's schema.

    FastAPI now keeps an included router as a node of the app's routes and matches a request through each
    node (twice per node, with its scope bookkeeping): with the API's 16 routers, finding a route cost more CPU
    than most routes spend answering. A flat list is matched by one regular expression per route. The OpenAPI
    schema is the same (tests/api/test_api_docs.py compares it with the included routers').

    A route is built once per process (``_BUILT``): a second app (a test's, the schema's) gets the first one's
    routes rebound to it (``QuickRoute.rebound``). Building them is most of an app's making: pydantic makes a
    validator for each of a route's parameters and answers."""
    plain = not (app.router.dependencies or app.router.responses or app.router.tags or app.router.callbacks)
    for route in router.routes:
        if not isinstance(route, APIRoute):
            raise TypeError(f"only API routes are included flat, not {route!r}")
        builds: dict[tuple[str, bool], tuple[object, QuickRoute]] = route.__dict__.setdefault(_BUILT, {})
        built = builds.get((prefix, in_schema))
        if plain and built is not None and built[0] is responses:
            app.router.routes.append(built[1].rebound(app.router.dependency_overrides_provider))
            app.router._mark_routes_changed()
            continue
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
            include_in_schema=route.include_in_schema and in_schema,
            response_class=route.response_class,
            name=route.name,
            callbacks=route.callbacks,
            openapi_extra=route.openapi_extra,
            generate_unique_id_function=route.generate_unique_id_function,
            strict_content_type=route.strict_content_type,
            route_class_override=QuickRoute,
        )
        added = app.router.routes[-1]
        if plain and isinstance(added, QuickRoute):
            builds[(prefix, in_schema)] = (responses, added)


# The attribute of a router's route holding what ``include_flat`` built of it, per prefix and schema flag.
_BUILT = "_bemtevi_flat_builds"


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
        self.plan = None if body_is_form or streamed else plan_of(self.dependant)
        if self.plan is not None:
            self.app = RouteHandler(self, self.plan, self.app)
        self._start, self._exact = _literal_of(self.path_format)

    def rebound(self, overrides_provider: Any) -> QuickRoute:
        """This route in another app: what was built of it (its dependency tree, its fields) shared, its
        handlers its own, reading that app's dependency overrides."""
        route = copy.copy(self)
        route.dependency_overrides_provider = overrides_provider
        route.app = request_response(route.get_route_handler())
        if self.plan is not None:
            route.app = RouteHandler(route, self.plan, route.app)
        return route

    def may_match(self, path: str) -> bool:
        """False when this route's pattern cannot match ``path`` (a path as ``get_route_path`` gives it)."""
        return _may_start(path, self._start, self._exact)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http":
            path = get_route_path(scope)
            if not self.may_match(path):
                return Match.NONE, {}
            if self._exact is not None and _get_scope_effective_route_context(scope) is None:
                # The path is the route's whole pattern: what ``Route.matches`` and ``APIRoute.matches`` give,
                # without the regular expression.
                child_scope = {"endpoint": self.endpoint, "path_params": dict(scope.get("path_params", {}))}
                child_scope["route"] = self
                allowed = not self.methods or scope["method"] in self.methods
                return (Match.FULL if allowed else Match.PARTIAL), child_scope
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
            found = scope.pop(_FOUND, None) or self.full_match(scope)
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
            candidates = self._candidates[path] = tuple(route for route in self._routes if _may_match(route, path))
        for route in candidates:
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                return route, child_scope
        return None


# Where ``RouteDispatch`` leaves the route it found for the router (``RouteIndex``), when it does not answer itself.
_FOUND = "bemtevi.found_route"


class RouteDispatch:
    """The app's step after its own front layers (the access log): a request that a planned route answers
    (``RouteHandler``) is answered here, with the app's error handlers, instead of going through Starlette's
    stack (its server-error and exception middlewares, FastAPI's telemetry check and exit stack, the router,
    the route's two ``handle``): for a small route those layers cost about as much CPU as the route itself.
    Anything else goes on to the app as before (``framework``), with the route found handed to the router.

    Errors get the answers the two middlewares give: the app's handler of an ``HTTPException``'s status, else
    of the error's nearest class that has one; without one, the app's handler of unexpected errors (500),
    whose answer is sent and the error raised again for the server to log. Requests of an app with middleware
    added, in debug mode, with FastAPI's telemetry on or a ``root_path`` take the whole stack.

    Cost to a reader: the requests of the API skip the framework's error layers and have their twin here
    (tests/api/test_route_path.py sends the same requests, errors included, both ways)."""

    def __init__(self, app: FastAPI, index: RouteIndex, framework: ASGIApp) -> None:
        self.app = app
        self.index = index
        self.framework = framework
        self._handlers: tuple[dict[Any, ExceptionHandler], dict[int, ExceptionHandler], ExceptionHandler] | None
        self._handlers = None
        self._direct: bool | None = None

    def direct(self) -> bool:
        """Whether this app's requests may skip its middleware stack (nothing in it but the framework's own):
        decided at the first request, as the stack is built then."""
        if self._direct is None:
            app = self.app
            self._direct = not (app.user_middleware or app.debug or app.root_path or app._native_telemetry.enabled())
        return self._direct

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.direct():
            found = self.index.full_match(scope)
            if found is not None:
                route, child_scope = found
                handler = getattr(route, "app", None)
                if isinstance(handler, RouteHandler) and handler.planned():
                    # What Starlette, the router and the route put in the scope on the way (RouteIndex.__call__;
                    # FastAPI's telemetry being off, it has no request to name the route to).
                    scope["app"] = self.app
                    scope.setdefault("router", self.app.router)
                    scope.update(child_scope)
                    await self.answer(handler, scope, receive, send)
                    return
                scope[_FOUND] = found
        await self.framework(scope, receive, send)

    async def answer(self, handler: RouteHandler, scope: Scope, receive: Receive, send: Send) -> None:
        request = PlannedRequest(scope, receive, send)
        try:
            response = add_answer_headers(scope, await handler.answer(request))
        except Exception as exc:
            error_response = await self.error_answer(request, exc, send)
            if error_response is None:
                return
            response = error_response
        try:
            await response(scope, receive, send)
        except Exception as exc:
            # Once an answer has started, the server-error middleware calls its handler (it logs) and re-raises.
            await self._call(self.handlers()[2], request, exc)
            raise

    async def error_answer(self, request: Request, exc: Exception, send: Send) -> Response | None:
        """The answer to an error a route raised (``ExceptionMiddleware``); for an unexpected error, the
        server-error middleware's: its answer sent, then the error raised again."""
        exception_handlers, status_handlers, unexpected = self.handlers()
        handler = status_handlers.get(exc.status_code) if isinstance(exc, HTTPException) else None
        if handler is None:
            handler = _lookup_exception_handler(exception_handlers, exc)
        if handler is None:
            response = await self._call(unexpected, request, exc)
            await response(request.scope, request.receive, send)
            raise exc
        response = await self._call(handler, request, exc)
        exc.__traceback__ = None  # as Starlette: a reused error instance would gather tracebacks
        return response

    def handlers(self) -> tuple[dict[Any, ExceptionHandler], dict[int, ExceptionHandler], ExceptionHandler]:
        """The app's error handlers as its middleware stack splits them (``build_middleware_stack``): by class,
        by status, and the one of unexpected errors; read once, as the stack is built once."""
        if self._handlers is None:
            unexpected: ExceptionHandler | None = None
            others: dict[Any, ExceptionHandler] = {}
            for key, value in self.app.exception_handlers.items():
                if key in (500, Exception):
                    unexpected = value
                else:
                    others[key] = value
            middleware = ExceptionMiddleware(self.framework, handlers=others)
            fallback = ServerErrorMiddleware(self.framework).error_response
            self._handlers = (middleware._exception_handlers, middleware._status_handlers, unexpected or fallback)
        return self._handlers

    @staticmethod
    async def _call(handler: ExceptionHandler, request: Request, exc: Exception) -> Any:
        if is_async_callable(handler):
            return await handler(request, exc)  # type: ignore[arg-type]
        return await run_in_threadpool(handler, request, exc)  # type: ignore[arg-type]


def _may_match(route: BaseRoute, path: str) -> bool:
    """False when ``route`` cannot match ``path``: a ``QuickRoute`` knows; a plain route (FastAPI's schema route)
    cannot match a path not starting with its pattern's literal start, nor another path when it has no
    parameters (``QuickRoute.may_match``)."""
    if isinstance(route, QuickRoute):
        return route.may_match(path)
    if type(route) is Route:
        return _may_start(path, *_literal_of(route.path_format))
    return True


def _literal_of(path_format: str) -> tuple[str, str | None]:
    """A route pattern's literal start, and the whole pattern when it has no parameters (else None)."""
    literal, parameter, _ = path_format.partition("{")
    return literal, None if parameter else literal


def _may_start(path: str, start: str, exact: str | None) -> bool:
    """False when a pattern of literal start ``start`` (``exact``: its whole, without parameters) cannot match."""
    return path == exact if exact is not None else path.startswith(start)


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

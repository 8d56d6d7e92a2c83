"""The ordinary route path: what FastAPI does per request for every route (bench/routes.py measures it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import anyio.to_thread
import pytest
from api_client import ApiClient
from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Query
from fastapi.dependencies.utils import request_params_to_args
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import AliasChoices
from starlette.datastructures import Headers, QueryParams
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.routing import Match
from support import examples, platform_of, sign_in

from bemtevi.api.app import API_ROUTERS, create_app
from bemtevi.api.errors import ERROR_RESPONSES
from bemtevi.api.route_handler import Plan, RouteHandler, plan_of
from bemtevi.api.route_params import Params
from bemtevi.api.routing import QuickRoute, RouteIndex, include_flat
from bemtevi.domain.errors import AccessDenied


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of what each request ran on a worker thread (FastAPI and Starlette go through anyio's)."""
    seen: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counting(func: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(getattr(getattr(func, "func", func), "__name__", repr(func)))
        return await run_sync(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    yield seen


@pytest.fixture
def shared_client(module_api: tuple[TestClient, Any]) -> Iterator[TestClient]:
    """The module's one client, for the tests that change nothing the others look at (a lookup, a sign-in):
    a platform and its app cost more to build than these tests take."""
    client = module_api[0]
    yield client
    client.app.dependency_overrides = {}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "path",
    ["/api/me", "/api/users?page=1&page_size=5&order=-name", "/api/health", "/api/audit?page=1", "/api/dashboard"],
)
def test_a_blocking_route_goes_to_a_worker_thread_once_per_request(
    shared_client: TestClient, hops: list[str], path: str
) -> None:
    """Its answer is validated on the event loop, and its paging, order and permission dependencies run
    there too: each hop to the thread pool waits for two thread wake-ups on a busy machine."""
    client = shared_client
    headers = sign_in(client)
    hops.clear()
    answer = client.get(path, headers=headers)
    assert answer.status_code == 200, answer.text
    assert len(hops) == 1, hops


def test_an_async_route_stays_on_the_event_loop(shared_client: TestClient, hops: list[str]) -> None:
    client = shared_client
    headers = sign_in(client)
    hops.clear()
    assert client.post("/api/consultations", json={"document": "52998224725"}, headers=headers).status_code == 200
    assert hops == []


def test_the_schema_is_the_one_the_routers_included_under_api_give() -> None:
    """The routes are added to the app's own list (``include_flat``) instead of included routers: the
    OpenAPI schema, which the web client is generated from, is the same."""
    settings = SimpleNamespace(webapp_dist=Path("missing"), access_log=False)
    flat = create_app(SimpleNamespace(settings=settings)).openapi()  # type: ignore[arg-type]
    nested = FastAPI(title=flat["info"]["title"], version=flat["info"]["version"], openapi_url="/api/openapi.json")
    api = APIRouter(prefix="/api", responses=ERROR_RESPONSES)
    for router in API_ROUTERS:
        api.include_router(router)
    nested.include_router(api)
    included = nested.openapi()
    assert {p: v for p, v in flat["paths"].items() if p != "/api/health"} == included["paths"]
    assert list(flat["paths"])[:-1] == list(included["paths"])
    assert flat["components"] == included["components"]


@pytest.fixture
def solved_by_fastapi(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths whose dependencies FastAPI's own handler solved (``solve_dependencies``, per request)."""
    import fastapi.routing

    seen: list[str] = []
    solve = fastapi.routing.solve_dependencies

    async def counting(**kwargs: Any) -> Any:
        seen.append(kwargs["request"].url.path)
        return await solve(**kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counting)
    yield seen


def test_every_route_is_answered_by_its_planned_handler(client: TestClient, solved_by_fastapi: list[str]) -> None:
    """Signed-in reads, a write with a body, a query and a path parameter, a refused request and a route added
    to the app after it was built: none goes through FastAPI's per-request solving (bemtevi.api.route_handler)."""
    headers = sign_in(client)

    async def added(item: int, size: int = 1) -> dict[str, int]:
        return {"item": item, "size": size}

    app: FastAPI = client.app  # type: ignore[assignment]
    app.add_api_route("/added/{item}", added, methods=["GET"])
    app.router.routes.insert(0, app.router.routes.pop())  # in front of the web app's catch-all
    solved_by_fastapi.clear()
    assert client.get("/api/me", headers=headers).status_code == 200
    assert client.post("/api/consultations", json={"document": "52998224725"}, headers=headers).status_code == 200
    assert client.get("/api/users?page=1&page_size=5&order=-name", headers=headers).status_code == 200
    assert client.get("/api/me").status_code == 401
    assert client.get("/added/3?size=2").json() == {"item": 3, "size": 2}
    assert solved_by_fastapi == []


# Requests whose answers (status, body) must be the same through the planned handler and FastAPI's own.
SAME_ANSWERS: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", "/api/me", {}),
    ("GET", "/api/health", {}),
    ("GET", "/api/users?page=0", {}),
    ("GET", "/api/users?page=x&page_size=1000&order=nope", {}),
    ("GET", "/api/users?page=1&page_size=5&order=-name", {}),
    ("POST", "/api/consultations", {"json": {"document": "52998224725"}}),
    ("POST", "/api/consultations", {"json": {"document": "123"}}),
    ("POST", "/api/consultations", {"json": {}}),
    ("POST", "/api/consultations", {"json": [1, 2]}),
    ("POST", "/api/consultations", {"content": b"{not json"}),
    ("POST", "/api/consultations", {"content": b'{"document":"52998224725"}'}),
    ("POST", "/api/consultations", {"content": b"", "headers": {"content-type": "application/json"}}),
    ("POST", "/api/consultations", {"content": b'{"document":1}', "headers": {"content-type": "text/plain"}}),
    (
        "POST",
        "/api/consultations",
        {"json": {"document": "52998224725"}, "headers": {"content-type": "application/vnd.x+json; charset=utf-8"}},
    ),
    ("POST", "/api/auth/auth", {"json": {"email": "nobody", "password": ""}}),
    ("GET", "/api/catalogue/query-types/" + "k" * 500, {}),
    ("DELETE", "/api/me", {}),
]


@pytest.mark.parametrize(
    ("method", "path", "options"), SAME_ANSWERS, ids=[f"{m} {p[:60]} {o}" for m, p, o in SAME_ANSWERS]
)
def test_the_planned_handler_answers_as_fastapis_own(
    shared_client: TestClient, method: str, path: str, options: dict[str, Any]
) -> None:
    """With any dependency override set the route takes FastAPI's own handler: both give the same answer."""
    client = shared_client
    headers = sign_in(client)
    options = {**options, "headers": {**headers, **options.get("headers", {})}}
    _wait_for_read_models(client)  # the health answer says how far they are: the same only once they are caught up
    answers = []
    for overrides in ({}, {_never_used: _never_used}):
        client.app.dependency_overrides = overrides  # type: ignore[attr-defined]
        answer = client.request(method, path, **options)
        body = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else answer.text
        if isinstance(body, dict) and isinstance(body.get("data"), dict):
            body["data"].pop("id", None)  # each lookup has its own
            body["data"].pop("createdAt", None)
            body.pop("position", None)
        answers.append((answer.status_code, body))
    assert answers[0] == answers[1]


async def _raising(kind: str) -> dict[str, str]:
    if kind == "http":
        raise HTTPException(status_code=418, detail="short and stout", headers={"X-Kind": "http"})
    if kind == "domain":
        raise AccessDenied()
    if kind == "unexpected":
        raise RuntimeError("boom")
    return {"kind": kind}


@pytest.mark.parametrize("kind", ["http", "domain", "unexpected", "none"])
def test_a_planned_routes_errors_are_answered_as_the_frameworks_middleware_answers_them(
    shared_client: TestClient, kind: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A planned route's request skips the framework's middleware stack (``RouteDispatch``); with a dependency
    override set it goes through it. Both give the same answer to an ``HTTPException`` (its status and
    headers), a refusal, an unexpected error (500, logged, raised again to the server) and no error."""
    app: FastAPI = shared_client.app  # type: ignore[assignment]
    if not any(getattr(route, "path", None) == "/raising/{kind}" for route in app.router.routes):
        app.add_api_route("/raising/{kind}", _raising, methods=["GET"])
        app.router.routes.insert(0, app.router.routes.pop())  # in front of the web app's catch-all
    through_stack: list[str] = []
    call = ExceptionMiddleware.__call__

    async def counting(self: ExceptionMiddleware, scope: Any, receive: Any, send: Any) -> None:
        through_stack.append(scope["path"])
        await call(self, scope, receive, send)

    monkeypatch.setattr(ExceptionMiddleware, "__call__", counting)
    client = ApiClient(app, raise_server_exceptions=False)
    answers = []
    try:
        for overrides in ({}, {_never_used: _never_used}):
            app.dependency_overrides = overrides
            caplog.clear()
            answer = client.get(f"/raising/{kind}")
            logged = [r.getMessage() for r in caplog.records if r.name == "bemtevi.api.errors"]
            answers.append((answer.status_code, answer.headers.get("x-kind"), answer.text, logged))
            if kind == "unexpected":
                with pytest.raises(RuntimeError, match="boom"):
                    shared_client.get(f"/raising/{kind}")
    finally:
        app.dependency_overrides = {}
    assert answers[0] == answers[1]
    assert answers[0][0] == {"http": 418, "domain": 403, "unexpected": 500, "none": 200}[kind]
    assert answers[0][3] == (["unhandled error"] if kind == "unexpected" else [])
    assert through_stack == [f"/raising/{kind}"] * (2 if kind == "unexpected" else 1)  # the overridden requests


_SOLVED: list[str] = []


async def _shared() -> str:
    _SOLVED.append("shared")
    return "shared"


async def _first(value: Annotated[str, Depends(_shared)]) -> str:
    return value


async def _second(value: Annotated[str, Depends(_shared)]) -> str:
    return value


async def _uncached(value: Annotated[str, Depends(_shared, use_cache=False)]) -> str:
    return value


async def _twice_and_once_more(
    first: Annotated[str, Depends(_first)],
    second: Annotated[str, Depends(_second)],
    uncached: Annotated[str, Depends(_uncached)],
) -> dict[str, int]:
    return {"solved": len(_SOLVED)}


async def _once(value: Annotated[str, Depends(_shared)]) -> dict[str, int]:
    return {"solved": len(_SOLVED)}


def test_a_dependency_used_twice_is_solved_once_a_request_as_fastapi_solves_it(shared_client: TestClient) -> None:
    """FastAPI solves a dependency two others share once per request (unless one asks ``use_cache=False``); a
    planned route keeps that cache only when a dependency repeats in its tree, and solves the same calls."""
    app: FastAPI = shared_client.app  # type: ignore[assignment]
    for path, endpoint in (("/shared-dependency", _twice_and_once_more), ("/single-dependency", _once)):
        if not any(getattr(route, "path", None) == path for route in app.router.routes):
            app.add_api_route(path, endpoint, methods=["GET"])
            app.router.routes.insert(0, app.router.routes.pop())  # in front of the web app's catch-all
    handlers = {route.path: route.app for route in app.router.routes if isinstance(route, QuickRoute)}
    assert isinstance(handlers["/shared-dependency"], RouteHandler) and handlers["/shared-dependency"].caches
    assert isinstance(handlers["/single-dependency"], RouteHandler) and not handlers["/single-dependency"].caches
    solved = []
    try:
        for overrides in ({}, {_never_used: _never_used}):  # planned, then FastAPI's own handler
            app.dependency_overrides = overrides
            for path in ("/shared-dependency", "/single-dependency"):
                _SOLVED.clear()
                answer = shared_client.get(path)
                assert answer.status_code == 200, answer.text
                solved.append(answer.json()["solved"])
    finally:
        app.dependency_overrides = {}
    assert solved == [2, 1, 2, 1]


def _wait_for_read_models(client: TestClient) -> None:
    platform = platform_of(client)
    assert platform.projector.wait_for(platform.app.max_position(), 20.0), "the read models did not catch up"


def _never_used() -> None:
    raise AssertionError("no route depends on this")


def _app_routes_index() -> tuple[FastAPI, RouteIndex]:
    settings = SimpleNamespace(webapp_dist=Path("missing"), access_log=False)
    app = create_app(SimpleNamespace(settings=settings))  # type: ignore[arg-type]
    index = app.router.middleware_stack
    assert isinstance(index, RouteIndex)
    return app, index


_APP, _INDEX = _app_routes_index()
_STARTS = sorted({getattr(r, "path_format", "/").partition("{")[0] for r in _APP.router.routes})


@settings(max_examples=examples(400), deadline=None)
@given(
    start=st.sampled_from(_STARTS),
    rest=st.sampled_from(["", "x", "/", "1", "/x", "/1/x", "3fa85f64-5717-4562-b3fc-2c963f66afa6", "a/b/c"]),
    method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]),
)
def test_the_route_index_finds_the_route_the_router_walk_finds(start: str, rest: str, method: str) -> None:
    """For any path and method, the first route the router's walk matches fully (ordering matters: the web
    app's catch-all matches everything) is the one the index finds, with the same path parameters."""
    path = start + rest
    scope = {"type": "http", "path": path, "root_path": "", "method": method, "headers": []}
    walked = next(
        (
            (route, child)
            for route in _APP.router.routes
            for match, child in [route.matches(scope)]
            if match is Match.FULL
        ),
        None,
    )
    found = _INDEX.full_match(scope)
    assert (walked and walked[0], walked and walked[1].get("path_params")) == (
        found and found[0],
        found and found[1].get("path_params"),
    )


def _params_of_the_app() -> list[tuple[str, Params]]:
    """Every route's planned parameters of each source (its own and its dependencies'), the public API's too."""
    found: list[tuple[str, Params]] = []

    def walk(name: str, plan: Plan) -> None:
        for source in ("path_params", "query_params", "header_params", "cookie_params"):
            params = getattr(plan, source)
            if params is not None:
                found.append((f"{name} {source}", params))
        for step in plan.steps:
            walk(name, step.plan)

    for route in _APP.router.routes:
        handler = getattr(route, "app", None)
        if isinstance(handler, RouteHandler):
            walk(f"{sorted(route.methods)} {route.path}", handler.plan)  # type: ignore[attr-defined]
    return found


async def _kinds_the_app_does_not_use(
    item: int,
    tags: Annotated[list[str], Query()] = [],  # noqa: B006 (FastAPI copies the default)
    choice: Annotated[int | None, Query(validation_alias=AliasChoices("first", "second"))] = None,
    x_trace: Annotated[str | None, Header()] = None,
    x_many: Annotated[list[int] | None, Header()] = None,
    needed: Annotated[str, Header(alias="Needed-Key", min_length=2)] = "",
) -> None:
    """Sequences, alias choices, converted and required headers: none of the app's routes has one yet."""


_OTHER_PLAN = plan_of(APIRoute("/other/{item}", _kinds_the_app_does_not_use).dependant)
assert _OTHER_PLAN is not None
_PARAMS = _params_of_the_app()
_OTHER_PARAMS = [
    (f"other {s}", p) for s in ("path_params", "query_params", "header_params") if (p := getattr(_OTHER_PLAN, s))
]


def _keys_of(params: Params) -> list[str]:
    keys = [key for field in params.fields for key in (field.alias, field.name, field.alias.lower())]
    return [*keys, "first", "second", "x-trace", "x-many", "other"]


@settings(max_examples=600, deadline=None)
@given(
    params=st.sampled_from(_PARAMS) | st.sampled_from(_OTHER_PARAMS),
    picks=st.lists(
        st.tuples(
            st.integers(0, 1000),
            st.sampled_from(["", "1", "0", "-3", "x", "abc", "k" * 300, "2026-11-28", "true", "cpf-complete", " a "]),
        ),
        max_size=6,
    ),
)
def test_planned_parameters_read_as_fastapis_own(params: tuple[str, Params], picks: list[tuple[int, str]]) -> None:
    """Path, query, header and cookie parameters read by their plan give FastAPI's values and errors, for any
    keys present (each parameter's, other case, repeated, unknown) and any values."""
    _, planned = params
    keys = _keys_of(planned)
    pairs = [(keys[n % len(keys)], value) for n, value in picks]
    for received in (
        dict(pairs),
        QueryParams(pairs),
        Headers(raw=[(key.lower().encode("latin-1"), value.encode("latin-1")) for key, value in pairs]),
    ):
        assert planned.read(received) == request_params_to_args(planned.fields, received)


def test_the_public_apis_lookup_has_its_header_planned() -> None:
    """Idempotency-Key, read on every lookup, is read by its plan."""
    names = [name for name, params in _PARAMS if params.planned is not None]
    assert "['POST'] /api/v1/lookups header_params" in names


def _who() -> str:
    return "the route's own"


def test_each_app_of_a_process_shares_the_built_routes_and_reads_its_own_dependency_overrides() -> None:
    """A route is built once per process; a second app (a test's, the schema's) gets it rebound, and a
    dependency override set on one app changes that app's answers only."""
    router = APIRouter()

    @router.get("/who")
    def who(name: Annotated[str, Depends(_who)]) -> dict[str, str]:
        return {"name": name}

    first, second = FastAPI(), FastAPI()
    for app in (first, second):
        app.router.route_class = QuickRoute
        include_flat(app, router, prefix="/api", responses=ERROR_RESPONSES)
    one, two = first.router.routes[-1], second.router.routes[-1]
    assert isinstance(one, QuickRoute) and isinstance(two, QuickRoute)
    assert one is not two and one.dependant is two.dependant and one.response_field is two.response_field
    second.dependency_overrides = {_who: lambda: "overridden"}
    with ApiClient(first) as client_one, ApiClient(second) as client_two:
        assert client_one.get("/api/who").json() == {"name": "the route's own"}
        assert client_two.get("/api/who").json() == {"name": "overridden"}
        second.dependency_overrides = {}
        assert client_two.get("/api/who").json() == {"name": "the route's own"}

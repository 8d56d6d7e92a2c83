"""The ordinary route path: what FastAPI does per request for every route (bench/routes.py measures it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio.to_thread
import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient
from support import sign_in

from bemtevi.api.app import API_ROUTERS, create_app
from bemtevi.api.errors import ERROR_RESPONSES


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


@pytest.mark.parametrize(
    "path",
    ["/api/me", "/api/users?page=1&page_size=5&order=-name", "/api/health", "/api/audit?page=1", "/api/dashboard"],
)
def test_a_blocking_route_goes_to_a_worker_thread_once_per_request(
    client: TestClient, hops: list[str], path: str
) -> None:
    """Its answer is validated on the event loop, and its paging, order and permission dependencies run
    there too: each hop to the thread pool waits for two thread wake-ups on a busy machine."""
    headers = sign_in(client)
    hops.clear()
    answer = client.get(path, headers=headers)
    assert answer.status_code == 200, answer.text
    assert len(hops) == 1, hops


def test_an_async_route_stays_on_the_event_loop(client: TestClient, hops: list[str]) -> None:
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

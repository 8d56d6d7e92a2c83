"""The server says what it answers: one structured line per request on stderr (method, path,
status, duration, tenant), nothing secret in it, and a quiet stop on SIGTERM or Ctrl-C."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_client import ApiClient
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from support import ADMIN_EMAIL, ADMIN_PASSWORD, KNOWN_CPF, running_server, sign_in

from bemtevi.api.access_log import AccessLog, LineBuffer, logged_path
from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform

RECOVERY_CODE = "740318"
QUERY_SECRET = "query-secret-5f1c"


def request_lines(text: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == "request"]


@pytest.mark.e2e
@pytest.mark.parametrize("stop", ["SIGTERM", "Ctrl-C"])
def test_each_request_is_logged_and_the_server_stops_quietly(tmp_path: Path, dataset_path: Path, stop: str) -> None:
    env = {
        "BEMTEVI_VAR_DIR": str(tmp_path / "var"),
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ADMIN_EMAIL": ADMIN_EMAIL,
        "BEMTEVI_ADMIN_PASSWORD": ADMIN_PASSWORD,
    }
    log = tmp_path / "server.log"
    with running_server(env, log, ctrl_c=stop == "Ctrl-C") as url:
        assert httpx.get(f"{url}/api/health", params={"token": QUERY_SECRET}).status_code == 200
        signed_in = httpx.post(
            f"{url}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "domain_url": "localhost"}
        ).json()
        token, tenant = signed_in["token"], signed_in["data"]["groupId"]
        auth = {"Authorization": f"Bearer {token}"}
        assert httpx.post(f"{url}/api/consultations", json={"document": KNOWN_CPF}, headers=auth).status_code == 200
        assert httpx.get(f"{url}/api/dashboard", params={"position": 1}, headers=auth).status_code == 200
        assert httpx.get(f"{url}/api/dashboard", headers={"Authorization": "Bearer not-a-token"}).status_code == 401
        # A web page whose path carries a recovery code (the link of the recovery mail).
        httpx.get(f"{url}/verify-code/{RECOVERY_CODE}/a-unique-key/an-id")

    text = log.read_text()
    lines = request_lines(text)
    seen = {(line["method"], line["path"], line["status"]): line for line in lines}
    for line in lines:
        assert set(line) >= {"event", "level", "timestamp", "method", "path", "status", "ms"}, line
        assert isinstance(line["ms"], float) and line["ms"] >= 0
    assert seen[("POST", "/api/consultations", 200)]["tenant"] == tenant
    assert seen[("GET", "/api/dashboard", 200)]["tenant"] == tenant
    assert "tenant" not in seen[("GET", "/api/health", 200)]
    assert "tenant" not in seen[("POST", "/api/auth/auth", 200)]
    assert "tenant" not in seen[("GET", "/api/dashboard", 401)]
    assert ("GET", "/verify-code/*", 200) in seen
    # Nothing secret: no token, password, query string or code from a path.
    for secret in (token, "not-a-token", ADMIN_PASSWORD, QUERY_SECRET, f"/{RECOVERY_CODE}"):
        assert secret not in text, secret
    assert "ERROR" not in text and "Traceback" not in text, text


@pytest.mark.e2e
def test_the_access_log_can_be_turned_off(tmp_path: Path, dataset_path: Path) -> None:
    env = {
        "BEMTEVI_VAR_DIR": str(tmp_path / "var"),
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "BEMTEVI_ACCESS_LOG": "false",
    }
    log = tmp_path / "server.log"
    with running_server(env, log) as url:
        assert httpx.get(f"{url}/api/health").status_code == 200
    assert request_lines(log.read_text()) == []


# -- in process ----------------------------------------------------------------------------------


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="/?#"), min_size=1, max_size=12), max_size=5))
def test_a_web_page_is_logged_by_its_route_name_only(segments: list[str]) -> None:
    path = "/" + "/".join(segments)
    logged = logged_path(path)
    if path.startswith(("/api/", "/assets/")):
        assert logged == path or (len(path) > 200 and logged.endswith("*"))
    elif len(segments) > 1:
        # Route parameters (codes, documents, names) never reach the log: only the route's name.
        assert logged == f"/{segments[0]}/*"
    else:
        assert logged == path
    assert len(logged) <= 201


def test_the_api_puts_no_secret_in_a_path(client: TestClient) -> None:
    """What lets the access log write the API's paths as they are. (A query type's ``{key}`` is its public
    name, e.g. ``person-complete``; an API key would be ``api_key``; an API token's ``{token_id}`` is its public
    access key, never its secret.)"""
    secret = re.compile(r"token(?!_id$)|password|secret|code|^(?!key$).*key", re.IGNORECASE)
    paths = [getattr(route, "path", "") for route in client.app.routes]  # type: ignore[attr-defined]
    assert "/api/consultations" in paths  # the walk sees the API's routes
    for path in paths:
        if path.startswith("/api"):
            assert not any(secret.search(name) for name in re.findall(r"{(\w+)", path)), path


def logged_lines(buffer: LineBuffer, out: Path) -> list[dict[str, Any]]:
    buffer.flush()
    return request_lines(out.read_text())


def test_the_tenant_of_a_signed_in_call_and_a_500_are_logged(sqlite_platform: Platform, tmp_path: Path) -> None:
    out = tmp_path / "access.log"
    with out.open("wb") as sink:
        buffer = LineBuffer(sink.fileno())
        sqlite_platform.settings.access_log = False  # replaced by the one writing to the test's file
        app = create_app(sqlite_platform)
        app.front_layers = [lambda stack: AccessLog(stack, buffer), *app.front_layers]

        @app.get("/api/boom", include_in_schema=False)
        def boom() -> None:
            raise RuntimeError("boom")

        app.router.routes.insert(0, app.router.routes.pop())  # ahead of the web app's catch-all

        with ApiClient(app, raise_server_exceptions=False) as client:
            headers = sign_in(client)
            tenant = client.get("/api/me", headers=headers).json()["data"]["groupId"]
            assert client.get("/api/dashboard", headers=headers).status_code == 200
            assert client.post("/api/consultations", headers=headers, json={"document": KNOWN_CPF}).status_code == 200
            assert client.get("/api/boom").status_code == 500
        lines = logged_lines(buffer, out)
    seen = {(line["method"], line["path"]): line for line in lines}
    assert seen[("GET", "/api/dashboard")]["tenant"] == tenant
    assert seen[("POST", "/api/consultations")]["tenant"] == tenant
    assert seen[("GET", "/api/boom")]["status"] == 500 and "tenant" not in seen[("GET", "/api/boom")]

"""Every /api endpoint declares its permission: walked over the app's own routes.

A public endpoint must be listed here on purpose; a signed-in-only endpoint too; an endpoint of the public API
(/api/v1) depends on its token's caller; every other endpoint depends on ``allowed_route(<screen>)`` (or
``allowed_any_route``) for screens some role's menu has, and a user whose menu lacks that screen gets 403 from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from uuid import uuid4

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient
from support import sign_in

from bemtevi.api.app import create_app
from bemtevi.api.deps import current_principal
from bemtevi.api.v1.app import PREFIX as V1_PREFIX
from bemtevi.api.v1.deps import api_caller
from bemtevi.domain.groups import GroupType
from bemtevi.domain.menus import ALWAYS_ALLOWED_ROUTES, active_routes, menu_for
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role

# Reachable without signing in: sign-in and account recovery, the brand of a site, the contact form,
# the API's documentation page (its schema, /api/openapi.json, is public as FastAPI serves it), the check of
# a signed report.
PUBLIC = {
    ("GET", "/api/docs"),
    ("POST", "/api/auth/auth"),
    ("GET", "/api/auth/config"),
    ("POST", "/api/auth/create-account"),
    ("POST", "/api/auth/google"),
    ("POST", "/api/auth/password-recovery"),
    ("POST", "/api/auth/verify-code"),
    ("POST", "/api/auth/redefine-password"),
    ("POST", "/api/auth/two-factor"),
    ("POST", "/api/auth/two-factor/resend"),
    ("POST", "/api/group/groups-get-public-data"),
    ("GET", "/api/group/{group_id}/brand/{kind}"),
    ("POST", "/api/contact"),
    ("GET", "/api/health"),
    # A signed report's receiver has no account: the platform's public key and the check of a file.
    ("GET", "/api/audit/data-subject/signing-key"),
    ("POST", "/api/audit/data-subject/verify"),
}
# For any signed-in user, whatever their menu: logout, choosing the first password, one's own menu.
SIGNED_IN = {
    ("POST", "/api/auth/auth/logout"),
    ("POST", "/api/auth/first-access"),
    ("POST", "/api/user-roles/get-user-roles-by-id"),
}


def _calls(dependant: Any) -> Iterator[Callable[..., Any]]:
    for dependency in dependant.dependencies:
        yield dependency.call
        yield from _calls(dependency)


def api_endpoints(app: FastAPI) -> list[tuple[str, str, list[str], list[Callable[..., Any]]]]:
    """(method, path, declared screens, dependency callables) of every /api endpoint."""
    found = []
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        path = context.path or ""  # the full path, prefixes of the including routers applied
        if not isinstance(route, APIRoute) or not path.startswith("/api"):
            continue
        calls = list(_calls(route.dependant))
        screens = [screen for c in calls for screen in getattr(c, "allowed_routes", ())]
        for method in sorted(route.methods - {"HEAD", "OPTIONS"}):
            found.append((method, path, screens, calls))
    return found


@pytest.fixture(scope="module")
def app() -> FastAPI:
    # The routes only: no platform is needed to walk them.
    settings = SimpleNamespace(webapp_dist=Path("missing"), access_log=False)
    return create_app(SimpleNamespace(settings=settings))  # type: ignore[arg-type]


def test_the_walk_sees_the_routers(app: FastAPI) -> None:
    paths = {path for _, path, _, _ in api_endpoints(app)}
    assert {"/api/users", "/api/customers", "/api/consultations", "/api/me", "/api/health", "/api/v1/lookups"} <= paths


def test_every_non_public_endpoint_declares_a_screen_of_some_menu(app: FastAPI) -> None:
    menu_routes = set(ALWAYS_ALLOWED_ROUTES)
    for role in Role:
        menu_routes |= set(active_routes(menu_for(role)))
    missing, unknown, unauthenticated, tokenless = [], [], [], []
    for method, path, screens, calls in api_endpoints(app):
        key = (method, path)
        if key in PUBLIC:
            continue
        if path.startswith(V1_PREFIX + "/"):  # the public API's: for token holders, no screen of the panel
            if api_caller not in calls or screens:
                tokenless.append(key)
            continue
        if key in SIGNED_IN:
            if not any(getattr(c, "__name__", "").endswith("principal") for c in calls):
                unauthenticated.append(key)
            continue
        if not screens:
            missing.append(key)
        unknown += [(key, s) for s in screens if s not in menu_routes]
    assert not missing, f"endpoints without allowed_route(...): {missing}"
    assert not unknown, f"allowed_route(...) naming a screen no menu has: {unknown}"
    assert not unauthenticated, f"signed-in endpoints without a principal: {unauthenticated}"
    assert not tokenless, f"public API endpoints without the token's caller: {tokenless}"
    assert current_principal is not None


def test_a_user_whose_menu_lacks_a_screen_gets_403_from_its_api(client: TestClient) -> None:
    platform = client.app.state.platform  # type: ignore[attr-defined]
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa Limitada", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID
    )
    platform.identity.register_user(
        SYSTEM, group_id=group_id, name="Usuária", email="usuaria@limitada.com.br", password="S3nha!forte"
    )
    headers = sign_in(client, "usuaria@limitada.com.br", "S3nha!forte")
    allowed = set(ALWAYS_ALLOWED_ROUTES) | set(active_routes(menu_for(Role.USER)))
    checked = []
    for method, path, screens, _ in api_endpoints(client.app):  # type: ignore[arg-type]
        if not screens or any(s in allowed for s in screens):
            continue
        url = re.sub(r"\{[^}]+\}", str(uuid4()), path)
        response = client.request(method, url, headers=headers, json={})
        assert response.status_code == 403, (method, path, response.status_code, response.text)
        checked.append((method, path))
    assert ("GET", "/api/users") in checked and ("POST", "/api/customers") in checked

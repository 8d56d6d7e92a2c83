"""Tenant isolation: with another tenant's ids, every endpoint answers 403/404 and never its data.

The endpoints are found by walking the application's routes (through its OpenAPI description,
which lists every included route with its path and query parameters): each one that takes a
group or user id is called by tenant A's owner with tenant B's ids. A new endpoint is covered
the day it is added.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from customers_support import customer, edit_body, owner_headers, register
from fastapi.testclient import TestClient
from PIL import Image
from support import sign_in

from bemtevi.bootstrap import Platform

pytestmark = pytest.mark.backends("sqlite")

# Public by design: a brand image shows on the tenant's own login page before anyone signs in
# (as the public data that points at it does); it answers image bytes or 404, never records.
PUBLIC_ROUTES = {("GET", "/api/group/{group_id}/brand/{kind}")}
ID_NAMES = {"group_id": "group", "groupId": "group", "user_id": "user", "userId": "user"}


def _png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "#ff0000").save(buffer, format="PNG")
    return buffer.getvalue()


def _bodies(victim_group: str, victim_user: str) -> dict[tuple[str, str], Any]:
    """Valid bodies, so a refusal comes from the tenant check, not from validation."""
    return {
        ("PUT", "/api/customers/{group_id}"): edit_body(customer(9), companyName="Tomada Ltda"),
        ("POST", "/api/customers/{group_id}/status"): {"active": False},
        ("PUT", "/api/group/{group_id}/brand"): {"primaryColor": "#000000", "appTitle": "Tomada"},
        ("PUT", "/api/group/{group_id}/two-factor"): {"enabled": True},
        ("PUT", "/api/group/{group_id}/purpose-setting"): {"purposeRequired": True},
        ("POST", "/api/users/{user_id}/status"): {"active": False},
        ("PUT", "/api/users/{user_id}"): {"name": "Tomado", "cpf": "52998224725", "functions": "x", "role": "user"},
        ("POST", "/api/users"): {
            "groupId": victim_group,
            "name": "Intruso",
            "cpf": "52998224725",
            "functions": "x",
            "email": "intruso@intruso.com.br",
            "role": "admin",
        },
        ("POST", "/api/credits/grants"): {"groupId": victim_group, "category": "unit", "amount": 1},
        ("PUT", "/api/credits/limits"): {"groupId": victim_group, "category": "unit", "limit": 1},
        ("POST", "/api/user-roles/get-user-roles-by-id"): {
            "user_id": victim_user,
            "user_unique_key": "x",
            "group_id": victim_group,
        },
    }


def _routes(api: TestClient) -> list[tuple[str, str, list[tuple[str, str]]]]:
    schema = api.app.openapi()  # type: ignore[attr-defined]
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            params = [(p["name"], p["in"]) for p in operation.get("parameters", [])]
            found.append((method.upper(), path, params))
    return found


def test_another_tenants_ids_get_403_or_404_and_never_its_data(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    a = register(api, admin, customer(1, "white-label", whiteLabelUrl="a.example.com"))["data"]
    b = register(api, admin, customer(2, "white-label", whiteLabelUrl="b.example.com"))["data"]
    a_owner = owner_headers(api, a["ownerEmail"])
    b_owner = owner_headers(api, b["ownerEmail"])
    b_child = register(api, b_owner, customer(3))["data"]
    done = api.put(f"/api/group/{b['id']}/brand", headers=b_owner, json={"appTitle": "Marca Secreta B"})
    assert done.status_code == 200
    secrets = [b["id"], "Empresa Número 2", b["ownerEmail"], "Marca Secreta B", b_child["id"], b_child["ownerEmail"]]

    bodies = _bodies(b["id"], b["ownerId"])
    checked = 0
    for victim_group, victim_user in [(b["id"], b["ownerId"]), (b_child["id"], b_child["ownerId"])]:
        for method, path, params in _routes(api):
            id_params = [(n, where) for n, where in params if n in ID_NAMES]
            body = bodies.get((method, path))
            if not id_params and body is None:
                continue
            if (method, path) in PUBLIC_ROUTES:
                continue
            values = {"group": victim_group, "user": victim_user}
            url = path
            query: dict[str, str] = {}
            for name, where in params:
                if name in ID_NAMES:
                    value = values[ID_NAMES[name]]
                    if where == "path":
                        url = url.replace("{" + name + "}", value)
                    else:
                        query[name] = value
            url = url.replace("{kind}", "horizontalLogo")
            assert "{" not in url, url
            if isinstance(body, dict) and "groupId" in body:
                body = {**body, "groupId": victim_group}
            kwargs: dict[str, Any] = {"params": query, "headers": a_owner}
            if path.endswith("/brand/{kind}") and method == "PUT":
                kwargs["content"] = _png(208, 68)
                kwargs["headers"] = {**a_owner, "Content-Type": "image/png"}
            elif path.endswith("/photo") and method == "PUT":
                kwargs["content"] = _png(64, 64)
                kwargs["headers"] = {**a_owner, "Content-Type": "image/png"}
            elif method in ("POST", "PUT"):
                kwargs["json"] = body if body is not None else {}
            response = api.request(method, url, **kwargs)
            checked += 1
            assert response.status_code in (403, 404), (method, url, response.status_code, response.text)
            text = response.content.decode("utf-8", "replace")
            for secret in secrets:
                assert secret not in text, (method, url, secret)

    assert checked >= 12
    # Nothing of B changed.
    b_response = api.get(f"/api/customers/{b['id']}", headers=admin)
    assert b_response.status_code == 200, b_response.text
    b_view = b_response.json()["data"]
    assert (b_view["companyName"], b_view["active"]) == ("Empresa Número 2 Ltda", True)
    assert b_view["resolvedBrand"]["appTitle"] == "Marca Secreta B"
    assert b_view["resolvedBrand"]["primaryColor"] == "#034507"
    # Listings of A never show B.
    for path in ("/api/customers", "/api/audit", "/api/credits/balances", "/api/credits/history", "/api/users"):
        response = api.get(path, headers=a_owner, params={"perPage": 100} if "users" not in path else {})
        text = response.text
        assert all(secret not in text for secret in secrets), path


def test_a_reseller_sees_its_own_subtree_and_nothing_above_or_beside(api: TestClient) -> None:
    admin = sign_in(api)
    reseller = register(api, admin, customer(1, "reseller"))["data"]
    sibling = register(api, admin, customer(2, "reseller"))["data"]
    r_owner = owner_headers(api, reseller["ownerEmail"])
    child = register(api, r_owner, customer(3))["data"]
    company_owner = owner_headers(api, child["ownerEmail"])
    last = register(api, r_owner, customer(4, "reseller"))
    grandchild = last["data"]
    seen = api.get(f"/api/customers/{reseller['id']}", headers=admin, params={"position": last["position"]})
    root_id = seen.json()["data"]["parentId"]

    listed = api.get("/api/customers", headers=r_owner).json()
    assert {c["id"] for c in listed["data"]} == {child["id"], grandchild["id"]}
    for below in (child["id"], grandchild["id"]):
        assert api.get(f"/api/customers/{below}", headers=r_owner).status_code == 200
        assert api.get(f"/api/group/{below}/brand", headers=r_owner).status_code == 200
        assert api.get("/api/audit", headers=r_owner, params={"group_id": below}).status_code == 200
    for other in (root_id, sibling["id"], reseller["id"]):
        assert api.get(f"/api/customers/{other}", headers=r_owner).status_code == 404
        refused = api.post(f"/api/customers/{other}/status", headers=r_owner, json={"active": False})
        assert refused.status_code == 404
    for other in (root_id, sibling["id"]):
        assert api.get("/api/audit", headers=r_owner, params={"group_id": other}).status_code == 404
        assert api.get(f"/api/group/{other}/brand", headers=r_owner).status_code == 404
    # The company below sees neither its parent nor its sibling.
    for other in (reseller["id"], grandchild["id"], sibling["id"]):
        assert api.get(f"/api/customers/{other}", headers=company_owner).status_code in (403, 404)
    assert re.fullmatch(r"[0-9a-f-]{36}", root_id)

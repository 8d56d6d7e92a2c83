"""Bounded input at the API edge: what a request may carry is bounded in the schema, and anything
beyond the bounds is refused as invalid input (400 ``invalid_data``), never a server error."""

from __future__ import annotations

from typing import Any

import pytest
from customers_support import customer
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import api_schema, examples, sign_in

from bemtevi.api.bounds import PAGE_MAX
from bemtevi.bootstrap import Platform

SCHEMA = api_schema()
# The page size's name is part of each list's contract (the users list had it first).
SIZE_NAMES = {"perPage", "page_size"}
ABSURD = [0, -1, PAGE_MAX + 1, 2**63 - 1, 2**63, 2**64, 10**30]


def _query(operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "query"}


def _bounds(parameter: dict[str, Any]) -> tuple[int | None, int | None]:
    schema = parameter["schema"]
    return schema.get("minimum"), schema.get("maximum")


LISTS = sorted(path for path, item in SCHEMA["paths"].items() if "page" in _query(item.get("get", {})))
# Lists of one resource (a search's results): their schema is checked; their pages are the advanced query's tests'.
TOP_LISTS = [path for path in LISTS if "{" not in path]


def test_the_lists_are_found() -> None:
    assert LISTS == [
        "/api/advanced-queries/{search_id}/results",
        "/api/audit",
        "/api/batches",
        "/api/credits/history",
        "/api/customers",
        "/api/layouts",
        "/api/mail/outbox",
        "/api/query-types",
        "/api/suppliers",
        "/api/users",
    ]


@pytest.mark.parametrize("path", LISTS)
def test_every_list_bounds_its_page_and_page_size_in_the_schema(path: str) -> None:
    query = _query(SCHEMA["paths"][path]["get"])
    assert _bounds(query["page"]) == (1, PAGE_MAX)
    (size_name,) = SIZE_NAMES & query.keys()
    low, high = _bounds(query[size_name])
    assert low == 1 and high is not None and high <= 500


def _size_name(path: str) -> str:
    (name,) = SIZE_NAMES & _query(SCHEMA["paths"][path]["get"]).keys()
    return name


def _refused(response: Any, prop: str) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "invalid_data"
    assert [e["property"] for e in body["errors"]] == [prop]


@pytest.mark.parametrize("path", TOP_LISTS)
def test_a_page_out_of_bounds_is_invalid_input_never_a_server_error(
    refusing_client: tuple[TestClient, Platform], path: str
) -> None:
    client, _ = refusing_client
    admin = sign_in(client)
    size = _size_name(path)
    for value in ABSURD:
        _refused(client.get(path, headers=admin, params={"page": value}), "page")
        _refused(client.get(path, headers=admin, params={size: value}), size)
    # The last page there may be, at the largest size, is an empty page.
    high = _bounds(_query(SCHEMA["paths"][path]["get"])[size])[1]
    last = client.get(path, headers=admin, params={"page": PAGE_MAX, size: high})
    assert last.status_code == 200, last.text
    assert last.json()["data"] == [] and last.json()["page"] == PAGE_MAX


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(TOP_LISTS), page=st.integers())
def test_any_page_number_answers_a_page_or_invalid_input(
    refusing_client: tuple[TestClient, Platform], path: str, page: int
) -> None:
    client, _ = refusing_client
    response = client.get(path, headers=sign_in(client), params={"page": page})
    if 1 <= page <= PAGE_MAX:
        assert response.status_code == 200, response.text
    else:
        _refused(response, "page")


# -- every text, list and number of every request is bounded --------------------------------------

# Strings bounded by their format or values; raw uploads (``format: binary``) are bounded by the
# routes that read them (image sizes), not by a JSON schema.
BOUNDED_FORMATS = {"uuid", "date", "date-time", "binary"}


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMA["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def unbounded(schema: dict[str, Any], where: str) -> list[str]:
    """Where ``schema`` lets a request carry something of any size."""
    schema = _resolve(schema)
    found: list[str] = []
    for key in ("anyOf", "oneOf", "allOf"):
        for part in schema.get(key, []):
            found += unbounded(part, where)
    kind = schema.get("type")
    if "enum" in schema or "const" in schema:
        return found
    if kind == "string" and "maxLength" not in schema and schema.get("format") not in BOUNDED_FORMATS:
        found.append(f"{where}: string without maxLength")
    if kind == "integer" and ("minimum" not in schema or "maximum" not in schema):
        found.append(f"{where}: integer without minimum and maximum")
    if kind == "array":
        if "maxItems" not in schema:
            found.append(f"{where}: array without maxItems")
        found += unbounded(schema.get("items", {}), f"{where}[]")
    if kind == "object" or "properties" in schema:
        for name, prop in schema.get("properties", {}).items():
            found += unbounded(prop, f"{where}.{name}")
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            if "maxProperties" not in schema:
                found.append(f"{where}: object without maxProperties")
            found += unbounded(schema.get("propertyNames", {"type": "string"}), f"{where} (keys)")
            found += unbounded(extra, f"{where}{{}}")
    return found


def test_every_text_list_and_number_a_request_carries_is_bounded() -> None:
    found: list[str] = []
    for path, item in SCHEMA["paths"].items():
        for method, operation in item.items():
            label = f"{method.upper()} {path}"
            for parameter in operation.get("parameters", []):
                if parameter["in"] != "path":  # path ids are parsed by their routes (404 otherwise)
                    found += unbounded(parameter["schema"], f"{label} ?{parameter['name']}")
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                found += unbounded(content["application/json"]["schema"], f"{label} body")
    assert found == []


def test_a_one_megabyte_company_name_is_refused_and_nothing_is_written(client: TestClient) -> None:
    platform = client.app.state.platform  # type: ignore[attr-defined]
    admin = sign_in(client)
    before = platform.app.max_position()
    for field in ("companyName", "tradeName", "personInCharge", "seller"):
        response = client.post("/api/customers", headers=admin, json=customer(1, **{field: "x" * 1_000_000}))
        _refused(response, field)
    assert platform.app.max_position() == before
    assert client.get("/api/customers", headers=admin).json()["total"] == 0

"""The catalogue's API: query types and layouts, their rules and messages, who may see them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import BASIC_QUERY_TYPE as QUERY_TYPE
from support import KNOWN_CPF, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.store import ReadStore
from bemtevi.streams.projector import Projector

LAYOUT: dict[str, Any] = {
    "fileName": "clientes",
    "finalFileName": "clientes_enriquecidos",
    "returnExtension": "csv",
    "acceptedExtension": "txt",
    "kind": "fixed",
    "delimiter": "",
    "firstLine": False,
    "table": "pessoas",
    "rows": [
        {"name": "cpf", "type": "document", "order": 1, "format": "", "size": 11, "direction": "entry"},
        {"name": "nome", "type": "text", "order": 2, "format": "", "size": 10, "direction": "entry"},
        {"name": "nome", "type": "text", "order": 1, "format": "", "size": 12, "direction": "exit"},
        {"name": "cpf", "type": "document", "order": 2, "format": "", "size": 11, "direction": "exit"},
    ],
}


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    return dict(response.json())


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = dict(response.json())
    assert body["code"] == code, body
    return body


def test_a_super_admin_adds_edits_and_inactivates_a_query_type(client: TestClient) -> None:
    admin = sign_in(client)
    saved = ok(client.post("/api/query-types", headers=admin, json=QUERY_TYPE))
    assert saved["id"] == "pessoa-fisica-basica"
    listed = ok(client.get("/api/query-types", headers=admin, params={"position": saved["position"]}))
    assert [q["key"] for q in listed["data"]] == ["cpf-complete", "cnpj-complete", "pessoa-fisica-basica"]
    assert [q["default"] for q in listed["data"]] == [True, True, False]
    edited = ok(client.put("/api/query-types/pessoa-fisica-basica", headers=admin, json={**QUERY_TYPE, "cacheDays": 3}))
    one = ok(
        client.get("/api/query-types/pessoa-fisica-basica", headers=admin, params={"position": edited["position"]})
    )
    assert one["data"]["cacheDays"] == 3
    off = ok(client.post("/api/query-types/pessoa-fisica-basica/status", headers=admin, json={"active": False}))
    refused(
        client.post(
            "/api/consultations", headers=admin, json={"document": KNOWN_CPF, "query_type": "pessoa-fisica-basica"}
        ),
        403,
        "query_type_inactive",
    )
    inactive = ok(client.get("/api/query-types", headers=admin, params={"active": False, "position": off["position"]}))
    assert [q["key"] for q in inactive["data"]] == ["pessoa-fisica-basica"]
    # The normal query offers only the active types the group has enabled.
    enabled = ok(client.get("/api/query-types/enabled", headers=admin, params={"position": off["position"]}))
    assert [q["key"] for q in enabled["data"]] == ["cpf-complete", "cnpj-complete"]


def test_the_query_type_rules_answer_the_specifications_messages(client: TestClient) -> None:
    admin = sign_in(client)
    refused(client.post("/api/query-types", headers=admin, json={**QUERY_TYPE, "name": "ab"}), 422, "name_too_short")
    body = refused(
        client.post("/api/query-types", headers=admin, json={**QUERY_TYPE, "badge": " "}), 422, "required_field"
    )
    assert body["field"] == "badge"
    refused(
        client.post("/api/query-types", headers=admin, json={**QUERY_TYPE, "cacheDays": 31}),
        422,
        "cache_exceeds_validity",
    )
    body = refused(
        client.post("/api/query-types", headers=admin, json={**QUERY_TYPE, "validityDays": None}), 422, "required_field"
    )
    assert body["field"] == "validityDays"
    seeded = ok(client.get("/api/query-types/cpf-complete", headers=admin))["data"]
    body = refused(
        client.put("/api/query-types/cpf-complete", headers=admin, json={**_form(seeded), "default": False}),
        409,
        "default_query_required",
    )
    assert body["message"] == "At least one default query required"
    refused(
        client.post("/api/query-types/cpf-complete/status", headers=admin, json={"active": False}),
        409,
        "default_query_required",
    )
    refused(client.get("/api/query-types/nada", headers=admin), 404, "query_not_found")


def _form(view: dict[str, Any]) -> dict[str, Any]:
    return {k: view[k] for k in QUERY_TYPE}


def test_layouts_are_saved_previewed_and_given_to_customers_from_the_root(client: TestClient) -> None:
    admin = sign_in(client)
    shown = ok(
        client.post("/api/layouts/preview", headers=admin, json={"layout": LAYOUT, "sample": "01234567890Ana Souza"})
    )
    assert shown["data"] == {
        "values": {"cpf": "01234567890", "nome": "Ana Souza"},
        "exitLine": "Ana Souza   01234567890",
    }
    # The preview works before the file is named; it needs only what reading a line needs.
    unnamed = {**LAYOUT, "fileName": "", "table": ""}
    assert ok(client.post("/api/layouts/preview", headers=admin, json={"layout": unnamed, "sample": "1"}))["data"]
    sizeless = {**LAYOUT, "rows": [{**LAYOUT["rows"][0], "size": None}]}
    body = refused(
        client.post("/api/layouts/preview", headers=admin, json={"layout": sizeless, "sample": ""}),
        422,
        "required_field",
    )
    assert body["field"] == "rows.0.size"
    saved = ok(client.post("/api/layouts", headers=admin, json=LAYOUT))
    listed = ok(client.get("/api/layouts", headers=admin, params={"position": saved["position"], "scope": "mine"}))
    assert [(row["id"], row["rows"][0]["size"]) for row in listed["data"]] == [(saved["id"], 11)]
    edited = ok(client.put(f"/api/layouts/{saved['id']}", headers=admin, json={**LAYOUT, "table": "empresas"}))
    one = ok(client.get(f"/api/layouts/{saved['id']}", headers=admin, params={"position": edited["position"]}))
    assert one["data"]["table"] == "empresas"
    enabled = ok(client.get("/api/layouts/enabled", headers=admin, params={"position": edited["position"]}))
    assert [layout["id"] for layout in enabled["data"] if not layout["ready"]] == [saved["id"]]
    off = ok(client.post(f"/api/layouts/{saved['id']}/status", headers=admin, json={"active": False}))
    after = ok(client.get("/api/layouts/enabled", headers=admin, params={"position": off["position"]}))["data"]
    assert [layout["id"] for layout in after if not layout["ready"]] == []


def test_another_tenant_and_a_non_admin_get_nothing_of_the_catalogue(
    sqlite_platform: Platform, client: TestClient
) -> None:
    admin = sign_in(client)
    ok(client.post("/api/query-types", headers=admin, json=QUERY_TYPE))
    layout = ok(client.post("/api/layouts", headers=admin, json=LAYOUT))
    registered = register(
        client, admin, customer(7, "white-label", whiteLabelUrl="marca7.com.br", enabledQueryTypes=["cpf-complete"])
    )
    owner = owner_headers(client, registered["data"]["ownerEmail"])
    for method, path, body in [
        ("get", "/api/query-types", None),
        ("get", "/api/query-types/cpf-complete", None),
        ("post", "/api/query-types", QUERY_TYPE),
        ("put", "/api/query-types/cpf-complete", QUERY_TYPE),
        ("post", "/api/query-types/cpf-complete/status", {"active": False}),
    ]:
        response = client.request(method, path, headers=owner, json=body)
        refused(response, 403, "access_denied")
    # Layouts: an owner keeps its group's own, and sees none of the platform's but the ready ones.
    for method, path, body in [
        ("get", f"/api/layouts/{layout['id']}", None),
        ("put", f"/api/layouts/{layout['id']}", LAYOUT),
        ("post", f"/api/layouts/{layout['id']}/status", {"active": False}),
        ("post", f"/api/layouts/{layout['id']}/copy", None),
    ]:
        refused(client.request(method, path, headers=owner, json=body), 404, "layout_not_found")
    seen = ok(client.get("/api/layouts", headers=owner, params={"position": sqlite_platform.app.max_position()}))
    assert seen["data"] and all(row["ready"] for row in seen["data"])
    # What its group may use: only its own enabled, active types; no layout was given to it.
    position = sqlite_platform.app.max_position()
    enabled = ok(client.get("/api/query-types/enabled", headers=owner, params={"position": position}))
    assert [q["key"] for q in enabled["data"]] == ["cpf-complete"]
    assert ok(client.get("/api/layouts/enabled", headers=owner))["data"] == []


def test_the_catalogue_lists_replay_to_what_following_the_log_built(
    sqlite_platform: Platform, client: TestClient, tmp_path: Path
) -> None:
    admin = sign_in(client)
    ok(client.post("/api/query-types", headers=admin, json={**QUERY_TYPE, "default": True}))
    ok(
        client.put(
            "/api/query-types/pessoa-fisica-basica", headers=admin, json={**QUERY_TYPE, "default": True, "cacheDays": 1}
        )
    )
    layout = ok(client.post("/api/layouts", headers=admin, json=LAYOUT))
    last = ok(client.post(f"/api/layouts/{layout['id']}/status", headers=admin, json={"active": False}))
    assert sqlite_platform.projector.wait_for(last["position"], timeout=10)
    tables = {"query_types": "key", "layouts": "layout_id", "group_layouts": "group_id, layout_id"}

    def rows(store: ReadStore) -> dict[str, list[Any]]:
        cur = store.cursor()
        return {t: cur.execute(f"SELECT * FROM {t} ORDER BY {o}").fetchall() for t, o in tables.items()}

    incremental = rows(sqlite_platform.store)
    assert [(r[0], r[3]) for r in incremental["query_types"]][:2] == [("cnpj-complete", True), ("cpf-complete", False)]
    for page_size in (1, 2, 7):
        store = ReadStore(tmp_path / f"replay-{page_size}.duckdb")
        try:
            Projector(
                sqlite_platform.app,
                store,
                all_read_models(sqlite_platform.batches.files.looked_up),
                page_size=page_size,
            ).catch_up()
            assert rows(store) == incremental
        finally:
            store.close()


def test_customers_get_layouts_never_beyond_their_parents(sqlite_platform: Platform, client: TestClient) -> None:
    admin = sign_in(client)
    first = ok(client.post("/api/layouts", headers=admin, json=LAYOUT))["id"]
    second = ok(client.post("/api/layouts", headers=admin, json={**LAYOUT, "fileName": "empresas"}))["id"]
    reseller = register(client, admin, customer(11, "reseller", enabledLayouts=[first, second]))
    reseller_id = reseller["data"]["id"]
    owner = owner_headers(client, reseller["data"]["ownerEmail"])
    position = sqlite_platform.app.max_position()
    enabled = ok(client.get("/api/layouts/enabled", headers=owner, params={"position": position}))
    assert [layout["id"] for layout in enabled["data"]] == [first, second]
    # Its own customer gets only what the reseller has; asking for another layout is refused.
    refused(
        client.post("/api/customers", headers=owner, json=customer(12, enabledLayouts=["nao-existe"])),
        403,
        "layout_not_allowed",
    )
    child = register(client, owner, customer(12, enabledLayouts=[first, second]))
    # The root narrows the reseller: the narrowing is carried down to the reseller's customer.
    detail = ok(client.get(f"/api/customers/{reseller_id}", headers=admin, params={"position": position}))["data"]
    edit = {k: v for k, v in customer(11, "reseller").items() if k != "quantities"}
    saved = client.put(f"/api/customers/{reseller_id}", headers=admin, json={**edit, "enabledLayouts": [second]})
    assert saved.status_code == 200, saved.text
    assert detail["enabledLayouts"] == sorted([first, second])
    after = ok(
        client.get(
            f"/api/customers/{child['data']['id']}", headers=owner, params={"position": saved.json()["position"]}
        )
    )["data"]
    assert after["enabledLayouts"] == [second]
    assert after["parentEnabledLayouts"] == [second]

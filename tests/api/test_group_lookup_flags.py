"""The customer form's lookup flags a user notices in a lookup's answer: "consult protest" (a group without it
gets no protests section, in the panel, its reopened result and the public API, at the same price) and
"default query" (a group without it chooses the type of each lookup); and a group that is not there."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from customers_support import customer, edit_body, owner_headers, register
from fastapi.testclient import TestClient
from support import BASIC_QUERY_TYPE, KNOWN_CNPJ, KNOWN_CPF, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.query_types import Category


def _customer(api: TestClient, n: int, **changes: Any) -> tuple[dict[str, Any], str, dict[str, str]]:
    values: dict[str, Any] = {"apiAccess": True, "quantities": {"unit": 5, "batch": 0, "advanced": 0, "api": 5}}
    values.update(changes)
    body = customer(n, **values)
    data = register(api, sign_in(api), body)["data"]
    return body, data["id"], owner_headers(api, f"dono{n}@empresa{n}.com.br")


def _lookup(api: TestClient, headers: dict[str, str], document: str, **more: Any) -> dict[str, Any]:
    answer = api.post("/api/consultations", headers=headers, json={"document": document, **more})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _used(platform: Platform, group_id: str, category: Category) -> int:
    return platform.app.get(credit_account_id(UUID(group_id), category), CreditAccount).used


def test_a_group_that_does_not_consult_protests_sees_none_and_pays_the_same(
    platform: Platform, api: TestClient
) -> None:
    _, without_id, without = _customer(api, 71, consultProtest=False)
    _, with_id, with_ = _customer(api, 72, consultProtest=True)
    for document in (KNOWN_CPF, KNOWN_CNPJ):
        shown = _lookup(api, with_, document)["data"]
        hidden = _lookup(api, without, document)
        assert shown["status"] == hidden["data"]["status"] == "done"
        assert "protests" in shown["result"]
        assert "protests" not in hidden["data"]["result"]
        # Everything else of the report is the same.
        assert hidden["data"]["result"] == {k: v for k, v in shown["result"].items() if k != "protests"}
        reopened = api.get(
            f"/api/consultations/{hidden['data']['id']}/result",
            headers=without,
            params={"position": hidden["position"]},
        )
        assert reopened.status_code == 200, reopened.text
        assert "protests" not in reopened.json()["data"]["result"]
    # A lookup costs one credit either way: protests are not priced apart.
    assert _used(platform, without_id, Category.UNIT) == _used(platform, with_id, Category.UNIT) == 2


def test_the_public_api_answers_no_protests_to_a_group_that_does_not_consult_them(api: TestClient) -> None:
    _, _, owner = _customer(api, 73, consultProtest=False)
    created = api.post("/api/api-tokens", headers=owner, json={"name": "ERP", "queryTypes": ["cpf-complete"]})
    assert created.status_code == 201, created.text
    bearer = {"Authorization": f"Bearer {created.json()['accessToken']}"}
    found = api.post("/api/v1/lookups", headers=bearer, json={"document": KNOWN_CPF})
    assert found.status_code == 200, found.text
    assert "protests" not in found.json()["data"]["result"]
    reopened = api.get(
        f"/api/v1/lookups/{found.json()['data']['id']}", headers=bearer, params={"position": found.json()["position"]}
    )
    assert reopened.status_code == 200, reopened.text
    assert "protests" not in reopened.json()["data"]["result"]


def test_turning_protests_on_shows_them_from_the_next_lookup(api: TestClient) -> None:
    body, group_id, owner = _customer(api, 74, consultProtest=False)
    assert "protests" not in _lookup(api, owner, KNOWN_CPF)["data"]["result"]
    edited = api.put(f"/api/customers/{group_id}", headers=sign_in(api), json=edit_body(body, consultProtest=True))
    assert edited.status_code == 200, edited.text
    assert "protests" in _lookup(api, owner, KNOWN_CPF)["data"]["result"]


def _refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = dict(response.json())
    assert body["code"] == code, body
    return body


def test_a_group_set_to_use_a_default_query_must_be_given_one(api: TestClient) -> None:
    admin = sign_in(api)
    assert api.post("/api/query-types", headers=admin, json=BASIC_QUERY_TYPE).status_code == 200
    only_basic = customer(75, enabledQueryTypes=["pessoa-fisica-basica"], defaultQuery=True)
    body = _refused(api.post("/api/customers", headers=admin, json=only_basic), 409, "default_query_required")
    assert (body["message"], body["field"]) == ("At least one default query required", "enabledQueryTypes")
    allowed = register(api, admin, {**only_basic, "defaultQuery": False})["data"]
    edited = api.put(f"/api/customers/{allowed['id']}", headers=admin, json=edit_body(only_basic, defaultQuery=True))
    _refused(edited, 409, "default_query_required")


def test_a_group_without_a_default_query_names_the_type_of_each_lookup(api: TestClient) -> None:
    _, _, owner = _customer(api, 76, defaultQuery=False)
    enabled = api.get("/api/query-types/enabled", headers=owner)
    assert enabled.json()["usesDefault"] is False
    unnamed = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF})
    body = _refused(unnamed, 404, "default_query_not_found")
    assert body["message"] == "Default query not found"
    assert _lookup(api, owner, KNOWN_CPF, query_type="cpf-complete")["data"]["status"] == "done"
    _, _, usual = _customer(api, 77)
    assert api.get("/api/query-types/enabled", headers=usual).json()["usesDefault"] is True
    assert _lookup(api, usual, KNOWN_CPF)["data"]["queryType"] == "cpf-complete"


def test_a_group_that_is_not_there_is_said_in_the_specifications_words(api: TestClient) -> None:
    missing = api.get("/api/customers/00000000-0000-4000-8000-000000000000", headers=sign_in(api))
    body = _refused(missing, 404, "group_not_found")
    assert body["message"] == "Group does not exist"


def test_the_public_api_refuses_an_unnamed_lookup_of_a_group_without_a_default_query(
    platform: Platform, api: TestClient
) -> None:
    _, group_id, owner = _customer(api, 78, defaultQuery=False)
    created = api.post("/api/api-tokens", headers=owner, json={"name": "ERP", "queryTypes": ["cpf-complete"]})
    assert created.status_code == 201, created.text
    bearer = {"Authorization": f"Bearer {created.json()['accessToken']}"}
    unnamed = api.post("/api/v1/lookups", headers=bearer, json={"document": KNOWN_CPF})
    body = _refused(unnamed, 404, "default_query_not_found")
    assert (body["message"], body.get("field")) == ("Default query not found", "queryType")
    # Refused before anything is charged; naming the type, the same token's lookup runs.
    assert _used(platform, group_id, Category.API) == 0
    named = api.post("/api/v1/lookups", headers=bearer, json={"document": KNOWN_CPF, "queryType": "cpf-complete"})
    assert named.status_code == 200, named.text
    assert named.json()["data"]["queryType"] == "cpf-complete"
    assert _used(platform, group_id, Category.API) == 1

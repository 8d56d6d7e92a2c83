"""Suppliers through the API: super-admin only, the specification's validation messages, secrets
write-only (never answered, never in the event store's plain text or the audit log), reopening a
kept result only by the group that ran it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient
from support import KNOWN_CPF, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role
from bemtevi.infra.suppliers import http as http_supplier
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer

TOKEN = "tok-Segredo-9f8e7d"
PASSWORD = "Strong!pass1"


def body(port: int = 8900, **changes: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "name": "Vendor Brasil",
        "contact": "suporte@vendor.example",
        "url": "http://vendor.example",
        "server": "127.0.0.1",
        "port": port,
        "route": "/v1/consulta/{document}",
        "httpMethod": "GET",
        "authMethod": "bearer",
        "inputType": "both",
        "token": TOKEN,
        "allowedQueryTypes": ["cpf-complete"],
        "allowedLayouts": [],
        "cacheDays": 30,
        "validityDays": 90,
    }
    values.update(changes)
    return values


@pytest.fixture
def admin(client: TestClient) -> dict[str, str]:
    return sign_in(client)


def company_user(platform: Platform, client: TestClient, name: str, role: Role = Role.OWNER) -> dict[str, str]:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name=name, group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=10
    )
    email = f"{group_id.hex[:10]}@empresa.com"
    platform.identity.register_user(
        SYSTEM, group_id=group_id, name="Dona Teste", email=email, password=PASSWORD, role=role
    )
    return sign_in(client, email, PASSWORD)


def test_super_admin_adds_edits_lists_and_inactivates_a_supplier(client: TestClient, admin: dict[str, str]) -> None:
    added = client.post("/api/suppliers", json=body(), headers=admin)
    assert added.status_code == 200, added.text
    supplier_id, position = added.json()["id"], added.json()["position"]

    listed = client.get(f"/api/suppliers?position={position}", headers=admin)
    assert listed.status_code == 200 and TOKEN not in listed.text
    row = listed.json()["data"][0]
    assert row["name"] == "Vendor Brasil" and row["tokenSet"] is True and row["passwordSet"] is False
    assert row["active"] is True and "token" not in row and row["route"] == "/v1/consulta/{document}"

    # An edit without the token keeps the stored one; the answer never shows it.
    edited = client.put(f"/api/suppliers/{supplier_id}", json=body(name="Vendor Sul", token=None), headers=admin)
    assert edited.status_code == 200, edited.text
    detail = client.get(f"/api/suppliers/{supplier_id}?position={edited.json()['position']}", headers=admin)
    assert detail.json()["data"]["name"] == "Vendor Sul" and detail.json()["data"]["tokenSet"] is True

    off = client.post(f"/api/suppliers/{supplier_id}/status", json={"active": False}, headers=admin)
    assert off.status_code == 200
    detail = client.get(f"/api/suppliers/{supplier_id}?position={off.json()['position']}", headers=admin)
    assert detail.json()["data"]["active"] is False


@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [
        ({"contact": " "}, "invalid_data", "contact"),
        ({"url": ""}, "invalid_data", "url"),
        ({"server": ""}, "invalid_data", "server"),
        ({"port": None}, "invalid_data", "port"),
        ({"route": ""}, "invalid_data", "route"),
        ({"token": ""}, "bearer_token_required", "token"),
        ({"authMethod": "basic", "username": ""}, "invalid_data", "username"),
        ({"authMethod": "basic", "username": "ana", "password": ""}, "invalid_data", "password"),
        ({"authMethod": "prefix", "prefix": ""}, "invalid_data", "prefix"),
        ({"authMethod": "token", "token": ""}, "invalid_data", "token"),
        ({"httpMethod": "POST", "requestBody": '{"documento": '}, "invalid_request_body", "requestBody"),
        ({"cacheDays": 91}, "cache_exceeds_validity", "cacheDays"),
        ({"name": "ab"}, "invalid_data", "name"),
        ({"maxBodyKb": 0}, "invalid_data", "maxBodyKb"),
        ({"maxBodyKb": 16 * 1024 + 1}, "invalid_data", "maxBodyKb"),
    ],
)
def test_validation_messages(
    refusing_client: tuple[TestClient, Platform], changes: dict[str, Any], code: str, field: str
) -> None:
    client, platform = refusing_client
    admin = sign_in(client)
    before = platform.app.max_position()
    answer = client.post("/api/suppliers", json=body(**changes), headers=admin)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == code and answer.json()["field"] == field
    assert platform.app.max_position() == before  # nothing saved


def test_the_answer_size_cap_is_a_setting_of_its_own(
    client: TestClient, sqlite_platform: Platform, admin: dict[str, str]
) -> None:
    added = client.post("/api/suppliers", json=body(), headers=admin)
    supplier_id = added.json()["id"]
    detail = client.get(f"/api/suppliers/{supplier_id}?position={added.json()['position']}", headers=admin)
    assert detail.json()["data"]["maxBodyKb"] == 1024  # 1 MB unless set
    edited = client.put(f"/api/suppliers/{supplier_id}", json=body(maxBodyKb=4096), headers=admin)
    assert edited.status_code == 200, edited.text
    detail = client.get(f"/api/suppliers/{supplier_id}?position={edited.json()['position']}", headers=admin)
    assert detail.json()["data"]["maxBodyKb"] == 4096
    lookups = sqlite_platform.consultations.vendor_lookups
    assert lookups is not None
    (config,) = lookups.vendors_for("cpf-complete", "cpf")
    assert config.max_body_kb == 4096  # what the adapter caps the answers at


def test_a_second_supplier_with_the_same_name_is_refused(client: TestClient, admin: dict[str, str]) -> None:
    assert client.post("/api/suppliers", json=body(), headers=admin).status_code == 200
    again = client.post("/api/suppliers", json=body(name=" vendor  BRASIL "), headers=admin)
    assert again.status_code == 409 and again.json()["field"] == "name"


def test_only_the_super_admin_manages_suppliers(
    client: TestClient, sqlite_platform: Platform, admin: dict[str, str]
) -> None:
    supplier_id = client.post("/api/suppliers", json=body(), headers=admin).json()["id"]
    for role in (Role.OWNER, Role.ADMIN, Role.USER):
        other = company_user(sqlite_platform, client, f"Empresa {role.value}", role)
        assert client.get("/api/suppliers", headers=other).status_code == 403
        assert client.post("/api/suppliers", json=body(name="Outro"), headers=other).status_code == 403
        assert client.put(f"/api/suppliers/{supplier_id}", json=body(), headers=other).status_code == 403
        status = client.post(f"/api/suppliers/{supplier_id}/status", json={"active": False}, headers=other)
        assert status.status_code == 403


def test_secrets_are_sealed_in_the_event_store_and_absent_from_the_audit_log(
    client: TestClient, sqlite_platform: Platform, admin: dict[str, str]
) -> None:
    added = client.post(
        "/api/suppliers", json=body(authMethod="basic", username="ana", password="s3nha-Secreta"), headers=admin
    )
    assert added.status_code == 200
    position = added.json()["position"]
    stored = sqlite_platform.app.recorder.select_notifications(start=1, limit=100_000)
    states = b"".join(n.state for n in stored)
    assert b"s3nha-Secreta" not in states and TOKEN.encode() not in states
    audit = client.get(f"/api/audit?position={position}&perPage=100", headers=admin)
    assert audit.status_code == 200, audit.text
    assert "s3nha" not in audit.text and "secrets_sealed" not in audit.text and "gAAAA" not in audit.text


@pytest.fixture
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(SimulatorConfig()) as server:
        yield server


def test_a_result_is_reopened_by_its_group_only(
    client: TestClient, sqlite_platform: Platform, simulator: SimulatorServer
) -> None:
    owner = company_user(sqlite_platform, client, "Empresa Dona")
    looked = client.post("/api/consultations", json={"document": KNOWN_CPF}, headers=owner)
    assert looked.status_code == 200, looked.text
    consultation_id, position = looked.json()["data"]["id"], looked.json()["position"]
    reopened = client.get(f"/api/consultations/{consultation_id}/result?position={position}", headers=owner)
    assert reopened.status_code == 200, reopened.text
    data = reopened.json()["data"]
    assert data["result"] == looked.json()["data"]["result"] and data["supplier"] == "local"
    assert data["validUntil"] > data["createdAt"]
    stranger = company_user(sqlite_platform, client, "Empresa Outra")
    refused = client.get(f"/api/consultations/{consultation_id}/result?position={position}", headers=stranger)
    assert refused.status_code == 404 and refused.json()["code"] == "result_expired"
    assert client.get("/api/consultations/not-an-id/result", headers=owner).status_code == 404


def test_a_vendor_result_is_reopened_from_the_kept_results(
    client: TestClient, sqlite_platform: Platform, simulator: SimulatorServer, admin: dict[str, str]
) -> None:
    simulator.config.expected_authorization = f"Bearer {TOKEN}"
    assert client.post("/api/suppliers", json=body(port=simulator.port), headers=admin).status_code == 200
    owner = company_user(sqlite_platform, client, "Empresa Vendor")
    cpf = "39053344705"
    assert sqlite_platform.supplier.lookup("cpf", cpf) is None
    looked = client.post("/api/consultations", json={"document": cpf}, headers=owner)
    assert looked.status_code == 200, looked.text
    reopened = client.get(f"/api/consultations/{looked.json()['data']['id']}/result", headers=owner)
    assert reopened.status_code == 200, reopened.text
    assert reopened.json()["data"]["supplier"] == "Vendor Brasil"
    assert reopened.json()["data"]["result"] == looked.json()["data"]["result"]
    simulator.config.error_rate = 1.0  # the vendor down: a repeat is still answered, from the kept result
    again = client.post("/api/consultations", json={"document": cpf}, headers=owner)
    assert again.status_code == 200 and again.json()["data"]["result"] == looked.json()["data"]["result"]


def tenant(platform: Platform, client: TestClient, name: str) -> tuple[UUID, dict[str, str]]:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name=name, group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=10
    )
    email = f"{group_id.hex[:10]}@empresa.com"
    platform.identity.register_user(
        SYSTEM, group_id=group_id, name="Dona Teste", email=email, password=PASSWORD, role=Role.OWNER
    )
    return group_id, sign_in(client, email, PASSWORD)


def unit_credits(platform: Platform, group_id: UUID) -> tuple[int, int, int | None]:
    account = platform.app.get(credit_account_id(group_id, Category.UNIT), CreditAccount)
    return account.used, account.reserved, account.available


def test_a_vendor_value_that_cannot_map_is_dropped_and_the_lookup_answered(
    client: TestClient,
    sqlite_platform: Platform,
    simulator: SimulatorServer,
    admin: dict[str, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A year of 20 digits once escaped the mapping (OverflowError): 500, and the credit left reserved.
    simulator.config.expected_authorization = f"Bearer {TOKEN}"
    simulator.config.section_patch = {"nascimento": "01/01/99999999999999999999", "renda": {"valor": 1}}
    assert client.post("/api/suppliers", json=body(port=simulator.port), headers=admin).status_code == 200
    group_id, owner = tenant(sqlite_platform, client, "Empresa Datas")
    with caplog.at_level(logging.WARNING, logger="bemtevi.infra.suppliers.http"):
        looked = client.post("/api/consultations", json={"document": "39053344705"}, headers=owner)
    assert looked.status_code == 200, looked.text
    result = looked.json()["data"]["result"]
    assert result["name"] and result["birth_date"] is None and result["age"] is None and result["income"] is None
    assert unit_credits(sqlite_platform, group_id) == (1, 0, 9)
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "Vendor Brasil" in logged and "birth_date (not a valid date)" in logged and "income (not a number)" in logged


def test_anything_escaping_a_vendors_answer_releases_the_credit_and_answers_a_clear_code(
    client: TestClient,
    sqlite_platform: Platform,
    simulator: SimulatorServer,
    admin: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    simulator.config.expected_authorization = f"Bearer {TOKEN}"
    assert client.post("/api/suppliers", json=body(port=simulator.port), headers=admin).status_code == 200
    group_id, owner = tenant(sqlite_platform, client, "Empresa Falhas")

    def broken_mapping(*args: Any, **kwargs: Any) -> Any:  # a mapping bug, as the 20-digit year was
        raise OverflowError("signed integer is greater than maximum")

    monkeypatch.setattr(http_supplier, "map_record", broken_mapping)
    looked = client.post("/api/consultations", json={"document": "39053344705"}, headers=owner)
    assert looked.status_code == 502 and looked.json()["code"] == "supplier_failed", looked.text
    assert unit_credits(sqlite_platform, group_id) == (0, 0, 10)

    # Past the adapter: whatever escapes asking the suppliers still releases the credit held for it.
    lookups = sqlite_platform.consultations.vendor_lookups
    assert lookups is not None

    async def broken_asking(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug past the adapter")

    monkeypatch.setattr(lookups, "ask_async", broken_asking)
    looked = client.post("/api/consultations", json={"document": "39053344705"}, headers=owner)
    assert looked.status_code == 502 and looked.json()["code"] == "search_failed", looked.text
    assert unit_credits(sqlite_platform, group_id) == (0, 0, 10)

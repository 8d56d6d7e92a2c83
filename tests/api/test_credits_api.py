"""Credits through the HTTP API on SQLite and PostgreSQL: balances, grants, history, exports, isolation."""

from __future__ import annotations

import csv
import io
import re
from uuid import UUID

import pytest
from fastapi.testclient import TestClient
from python_calamine import CalamineWorkbook
from support import KNOWN_CPF, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role

PASSWORD = "Strong!pass1"


def group_with_owner(
    platform: Platform, name: str, parent: UUID, kind: GroupType, role: Role = Role.OWNER
) -> tuple[UUID, str]:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name=name, group_type=kind, parent_id=parent, unit_credit_limit=0
    )
    email = f"{role.value}@{name.lower().replace(' ', '')}.com.br"
    _, position = platform.identity.register_user(
        SYSTEM, group_id=group_id, name=f"Pessoa {name}", email=email, password=PASSWORD, role=role
    )
    assert platform.projector.wait_for(position, timeout=5)
    return group_id, email


@pytest.fixture
def tree(platform: Platform, api: TestClient) -> dict[str, object]:
    """Root → Revenda Sul (10 unit credits) → Loja Centro; and Outra Empresa beside them."""
    reseller, reseller_email = group_with_owner(platform, "Revenda Sul", ROOT_GROUP_ID, GroupType.RESELLER)
    company, company_email = group_with_owner(platform, "Loja Centro", reseller, GroupType.COMPANY)
    stranger, stranger_email = group_with_owner(platform, "Outra Empresa", ROOT_GROUP_ID, GroupType.COMPANY)
    admin = sign_in(api)
    response = api.put(
        "/api/credits/limits", headers=admin, json={"groupId": str(reseller), "category": "unit", "limit": 10}
    )
    assert response.status_code == 200, response.text
    assert platform.projector.wait_for(response.json()["position"], timeout=5)
    return {
        "reseller": str(reseller),
        "company": str(company),
        "stranger": str(stranger),
        "reseller_headers": sign_in(api, reseller_email, PASSWORD),
        "company_headers": sign_in(api, company_email, PASSWORD),
        "stranger_headers": sign_in(api, stranger_email, PASSWORD),
    }


def unit(figures: list[dict[str, object]]) -> dict[str, object]:
    return next(f for f in figures if f["category"] == "unit")


def test_a_reseller_grants_and_both_balances_show_it(api: TestClient, tree: dict[str, object]) -> None:
    headers = tree["reseller_headers"]
    granted = api.post(
        "/api/credits/grants", headers=headers, json={"groupId": tree["company"], "category": "unit", "amount": 4}
    )
    assert granted.status_code == 200, granted.text
    view = api.get(f"/api/credits/balances?position={granted.json()['position']}", headers=headers).json()["data"]
    assert view["upToDate"]
    assert unit(view["group"]["categories"]) == {
        "category": "unit",
        "unlimited": False,
        "limit": 10,
        "used": 0,
        "reserved": 0,
        "granted": 4,
        "available": 6,
        "heldByStoppedServer": 0,  # no lease of a stopped server (cluster mode) holds any
        "heldUntil": None,
    }
    [child] = view["children"]
    assert child["name"] == "Loja Centro" and unit(child["categories"])["limit"] == 4
    # A category never given shows no credits rather than nothing at all.
    assert {f["category"]: f["available"] for f in child["categories"]} == {
        "unit": 4,
        "advanced": 0,
        "batch": 0,
        "api": 0,
    }


def test_the_root_is_unlimited_and_says_so(api: TestClient, tree: dict[str, object]) -> None:
    view = api.get("/api/credits/balances", headers=sign_in(api)).json()["data"]
    assert all(f["unlimited"] and f["available"] is None for f in view["group"]["categories"])
    assert {c["name"] for c in view["children"]} >= {"Revenda Sul", "Outra Empresa"}


def test_refusals_carry_the_specification_messages_and_change_nothing(api: TestClient, tree: dict[str, object]) -> None:
    headers = tree["reseller_headers"]
    too_much = api.post(
        "/api/credits/grants", headers=headers, json={"groupId": tree["company"], "category": "unit", "amount": 11}
    )
    assert too_much.status_code == 409
    assert too_much.json()["message"] == "Not enough manual query to provide to this group"
    nothing = api.post(
        "/api/credits/grants", headers=headers, json={"groupId": tree["company"], "category": "api", "amount": 1}
    )
    assert nothing.json()["message"] == "Not enough API query to provide to this group"
    upwards = api.post(
        "/api/credits/grants",
        headers=tree["company_headers"],
        json={"groupId": tree["reseller"], "category": "unit", "amount": 1},
    )
    assert upwards.status_code == 403
    bad = api.post("/api/credits/grants", headers=headers, json={"groupId": tree["company"], "category": "gold"})
    assert bad.status_code == 400
    view = api.get("/api/credits/balances", headers=headers).json()["data"]
    assert unit(view["group"]["categories"])["available"] == 10


def test_history_lists_every_movement_with_its_running_balance(api: TestClient, tree: dict[str, object]) -> None:
    reseller = tree["reseller_headers"]
    api.post(
        "/api/credits/grants", headers=reseller, json={"groupId": tree["company"], "category": "unit", "amount": 2}
    )
    lookup = api.post("/api/consultations", headers=tree["company_headers"], json={"document": KNOWN_CPF})
    assert lookup.status_code == 200
    body = api.get(f"/api/credits/history?position={lookup.json()['position']}", headers=reseller).json()
    assert body["upToDate"] and body["total"] == 4
    rows = [(m["groupName"], m["kind"], m["amount"], m["balance"]) for m in body["data"]]
    # Newest first: the company's lookup (one line: the local dataset answers before it is charged, so
    # nothing is reserved), the grant on both sides, the root's limit change.
    assert rows == [
        ("Loja Centro", "settlement", 1, 1),
        ("Loja Centro", "grant_received", 2, 2),
        ("Revenda Sul", "grant", 2, 8),
        ("Revenda Sul", "limit_change", 10, 10),
    ]
    settlement, received, grant, _ = body["data"]
    assert settlement["reason"] == "consultation" and settlement["reasonId"] == lookup.json()["data"]["id"]
    assert settlement["actorName"] == "Pessoa Loja Centro"
    assert grant["actorName"] == "Pessoa Revenda Sul" and grant["counterpartyName"] == "Loja Centro"
    assert received["counterpartyName"] == "Revenda Sul"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", settlement["createdAt"])  # UTC, with its offset

    only_company = api.get(f"/api/credits/history?groupId={tree['company']}&perPage=1", headers=reseller).json()
    assert only_company["total"] == 2 and len(only_company["data"]) == 1
    second_page = api.get(f"/api/credits/history?groupId={tree['company']}&perPage=1&page=2", headers=reseller).json()
    assert [m["kind"] for m in second_page["data"]] == ["grant_received"]
    assert api.get("/api/credits/history?category=api", headers=reseller).json()["total"] == 0
    assert api.get("/api/credits/history?from=2000-01-01&to=2000-01-31", headers=reseller).json()["total"] == 0
    consumption = api.get("/api/credits/consumption", headers=reseller).json()["data"]
    assert [(d["category"], d["credits"]) for d in consumption] == [("unit", 1)]


def test_exports_are_semicolon_csv_and_xlsx_with_the_dated_name(api: TestClient, tree: dict[str, object]) -> None:
    reseller = tree["reseller_headers"]
    granted = api.post(
        "/api/credits/grants", headers=reseller, json={"groupId": tree["company"], "category": "unit", "amount": 3}
    )
    api.get(f"/api/credits/history?position={granted.json()['position']}", headers=reseller)
    exported = api.get("/api/credits/history/export?format=csv", headers=reseller)
    assert exported.status_code == 200
    name = re.search(r'filename="([^"]+)"', exported.headers["content-disposition"])
    assert name and re.fullmatch(r"historico_saldos_\d{2}-\d{2}-\d{4}_\d{2}-\d{2}-\d{2}\.csv", name.group(1))
    lines = list(csv.reader(io.StringIO(exported.content.decode("utf-8")), delimiter=";"))
    assert lines[0][:6] == ["Data/hora", "Grupo", "Categoria", "Movimento", "Quantidade", "Saldo disponível"]
    assert [line[3] for line in lines[1:]] == ["Crédito recebido", "Crédito concedido", "Alteração de limite"]
    assert re.fullmatch(r"\d{2}/\d{2}/\d{4} \d{2}:\d{2}:\d{2}", lines[1][0])

    english = api.get("/api/credits/history/export?format=xlsx&lang=en-US", headers=reseller)
    assert re.search(r'filename="balance_history_[\d_-]+\.xlsx"', english.headers["content-disposition"])
    sheet = CalamineWorkbook.from_filelike(io.BytesIO(english.content)).get_sheet_by_index(0).to_python()
    assert sheet[0][:4] == ["Date/time", "Group", "Category", "Movement"]
    assert [row[3] for row in sheet[1:]] == ["Credits received", "Credits granted", "Limit change"]
    assert [row[5] for row in sheet[1:]] == [3, 7, 10]


def test_no_tenant_reads_another_tenants_credits(api: TestClient, tree: dict[str, object]) -> None:
    stranger = tree["stranger_headers"]
    for path in (
        f"/api/credits/history?groupId={tree['company']}",
        f"/api/credits/history/export?groupId={tree['company']}",
        f"/api/credits/consumption?groupId={tree['reseller']}",
    ):
        response = api.get(path, headers=stranger)
        assert response.status_code == 404, path
        assert "Loja Centro" not in response.text and "Revenda Sul" not in response.text
    view = api.get("/api/credits/balances", headers=stranger).json()["data"]
    assert view["group"]["name"] == "Outra Empresa" and view["children"] == []
    assert api.get("/api/credits/history", headers=stranger).json()["total"] == 0
    # A company sees its own history, never its parent's.
    company = api.get(f"/api/credits/history?groupId={tree['reseller']}", headers=tree["company_headers"])
    assert company.status_code == 404
    grab = api.post(
        "/api/credits/grants", headers=stranger, json={"groupId": tree["company"], "category": "unit", "amount": 1}
    )
    assert grab.status_code == 403


def test_a_plain_user_has_no_financial_screens(platform: Platform, api: TestClient, tree: dict[str, object]) -> None:
    _, email = group_with_owner(platform, "Equipe Norte", UUID(str(tree["reseller"])), GroupType.COMPANY, Role.USER)
    headers = sign_in(api, email, PASSWORD)
    assert api.get("/api/credits/balances", headers=headers).status_code == 403
    assert api.get("/api/credits/history", headers=headers).status_code == 403
    assert api.get("/api/credits/balances").status_code == 401

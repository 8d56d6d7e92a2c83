"""The dashboard's charts through the HTTP API: usage per day, query type and channel, credits per
category, the subtree's top consumers, and who may see which groups."""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

import pytest
from fastapi.testclient import TestClient
from support import KNOWN_CNPJ, KNOWN_CPF, sign_in, super_admin

from bemtevi.bootstrap import Platform
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role
from bemtevi.projections.base import SAO_PAULO

PASSWORD = "Strong!pass1"


def person(platform: Platform, group_id: UUID, name: str, role: Role) -> tuple[UUID, str]:
    email = f"{role.value}@{name.lower().replace(' ', '')}.com.br"
    user_id, position = platform.identity.register_user(
        SYSTEM, group_id=group_id, name=f"Pessoa {name}", email=email, password=PASSWORD, role=role
    )
    assert platform.projector.wait_for(position, timeout=5)
    return user_id, email


# Every test reads the dashboards of one tree: the tree is built once, on one platform, for them all.
@pytest.fixture
def client(module_api: tuple[TestClient, Platform]) -> TestClient:
    return module_api[0]


@pytest.fixture(scope="module")
def tree(module_api: tuple[TestClient, Platform]) -> dict[str, object]:
    """Root → Revenda Sul (owner; 20 unit credits) → Loja Centro (owner, admin, user; 8 given) → Quiosque;
    Outra Empresa beside Revenda Sul. Lookups: Loja 2 CPF + 1 CNPJ on the panel and 1 CPF by API,
    Revenda 1, Quiosque 1, Outra 3."""
    client, platform = module_api
    register = platform.identity.register_group
    reseller, _ = register(SYSTEM, name="Revenda Sul", group_type=GroupType.RESELLER, parent_id=ROOT_GROUP_ID,
                           unit_credit_limit=20)  # fmt: skip
    shop, _ = register(SYSTEM, name="Loja Centro", group_type=GroupType.COMPANY, parent_id=reseller,
                       unit_credit_limit=8)  # fmt: skip
    kiosk, _ = register(SYSTEM, name="Quiosque", group_type=GroupType.COMPANY, parent_id=shop, unit_credit_limit=2)
    stranger, _ = register(SYSTEM, name="Outra Empresa", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID,
                           unit_credit_limit=5)  # fmt: skip
    reseller_owner_id, reseller_owner = person(platform, reseller, "Revenda Sul", Role.OWNER)
    shop_owner_id, shop_owner = person(platform, shop, "Loja Centro", Role.OWNER)
    _, shop_admin = person(platform, shop, "Loja Centro", Role.ADMIN)
    _, shop_user = person(platform, shop, "Loja Centro", Role.USER)
    _, kiosk_owner = person(platform, kiosk, "Quiosque", Role.OWNER)
    _, stranger_owner = person(platform, stranger, "Outra Empresa", Role.OWNER)
    headers = {
        name: sign_in(client, email, PASSWORD)
        for name, email in {
            "reseller": reseller_owner,
            "shop": shop_owner,
            "shop_admin": shop_admin,
            "shop_user": shop_user,
            "kiosk": kiosk_owner,
            "stranger": stranger_owner,
        }.items()
    }

    def lookup(who: str, document: str = KNOWN_CPF) -> int:
        response = client.post("/api/consultations", headers=headers[who], json={"document": document})
        assert response.status_code == 200, response.text
        return int(response.json()["position"])

    for who, document in [("shop", KNOWN_CPF), ("shop_user", KNOWN_CPF), ("shop", KNOWN_CNPJ), ("reseller", KNOWN_CPF)]:
        lookup(who, document)
    lookup("kiosk")
    for _ in range(3):
        lookup("stranger")
    # One lookup through the API channel, as an integration's key makes it.
    api_caller = Principal(user_id=shop_owner_id, group_id=shop, role=Role.OWNER, session_id=shop_owner_id)
    # Charged to the shop's API credits (issue 34), granted down the tree.
    platform.credits.set_limit(super_admin(platform), reseller, Category.API, 1)
    reseller_caller = Principal(user_id=reseller_owner_id, group_id=reseller, role=Role.OWNER, session_id=shop_owner_id)
    platform.credits.set_limit(reseller_caller, shop, Category.API, 1)
    outcome = platform.consultations.run_unit_query(api_caller, KNOWN_CPF, channel="api")
    assert platform.projector.wait_for(outcome.position, timeout=5)
    return {"headers": headers, "shop": str(shop), "kiosk": str(kiosk), "reseller": str(reseller)}


def today() -> str:
    return datetime.now(SAO_PAULO).date().isoformat()


def shares(rows: list[dict[str, object]]) -> dict[object, object]:
    return {row["key"]: row["consultations"] for row in rows}


def test_usage_counts_the_group_per_day_query_type_and_channel(client: TestClient, tree: dict) -> None:
    body = client.get("/api/dashboard/usage", headers=tree["headers"]["shop_admin"]).json()["data"]
    assert body["scope"] == "group" and body["lastDay"] == today()
    # The default period: the last 30 days, every day present, today holding the lookups.
    assert len(body["byDay"]) == 30 and body["byDay"][0]["day"] < body["byDay"][-1]["day"] == today()
    assert [d["consultations"] for d in body["byDay"][:-1]] == [0] * 29
    assert body["byDay"][-1] == {"day": today(), "consultations": 4, "credits": 4}
    assert body["consultations"] == 4 and body["credits"] == 4
    # Busiest first.
    assert body["byQueryType"] == [
        {"key": "cpf-complete", "consultations": 3, "credits": 3},
        {"key": "cnpj-complete", "consultations": 1, "credits": 1},
    ]
    assert shares(body["byChannel"]) == {"panel": 3, "api": 1}
    unit = next(f for f in body["balances"] if f["category"] == "unit")
    # 8 given to the shop, 2 of them given on to the kiosk, 3 used on the panel; the API's lookup is the API's.
    assert (unit["limit"], unit["used"], unit["reserved"], unit["granted"], unit["available"]) == (8, 3, 0, 2, 3)
    api = next(f for f in body["balances"] if f["category"] == "api")
    assert (api["limit"], api["used"]) == (1, 1)
    assert [f["category"] for f in body["balances"]] == ["unit", "advanced", "batch", "api"]


def test_an_owner_may_add_the_subtree_below_and_no_more(client: TestClient, tree: dict) -> None:
    headers = tree["headers"]
    shop = client.get("/api/dashboard/usage?subtree=true", headers=headers["shop"]).json()["data"]
    assert shop["scope"] == "subtree" and shop["consultations"] == 5  # the shop's 4 and the kiosk's 1
    reseller = client.get("/api/dashboard/usage?subtree=true", headers=headers["reseller"]).json()["data"]
    assert reseller["consultations"] == 6  # never Outra Empresa's 3, beside it
    kiosk = client.get("/api/dashboard/usage?subtree=true", headers=headers["kiosk"]).json()["data"]
    assert kiosk["consultations"] == 1  # never the parents' above it
    # Only owners (and the super-admin) see below their group.
    for who in ("shop_admin", "shop_user"):
        refused = client.get("/api/dashboard/usage?subtree=true", headers=headers[who])
        assert refused.status_code == 403 and refused.json()["code"] == "access_denied"
    root = client.get("/api/dashboard/usage?subtree=true", headers=sign_in(client)).json()["data"]
    assert root["consultations"] == 9


def test_top_consumers_rank_the_groups_below_by_consultations(client: TestClient, tree: dict) -> None:
    headers = tree["headers"]
    ranked = client.get("/api/dashboard/top-consumers", headers=headers["reseller"]).json()["data"]["groups"]
    assert [(g["name"], g["parentName"], g["consultations"], g["credits"]) for g in ranked] == [
        ("Loja Centro", "Revenda Sul", 4, 4),
        ("Quiosque", "Loja Centro", 1, 1),
    ]
    everyone = client.get("/api/dashboard/top-consumers?limit=2", headers=sign_in(client)).json()["data"]["groups"]
    assert [g["name"] for g in everyone] == ["Loja Centro", "Outra Empresa"]
    assert client.get("/api/dashboard/top-consumers", headers=headers["kiosk"]).json()["data"]["groups"] == []
    for who in ("shop_admin", "shop_user"):
        assert client.get("/api/dashboard/top-consumers", headers=headers[who]).status_code == 403


def test_another_tenant_gets_nothing_of_this_one(client: TestClient, tree: dict) -> None:
    stranger = tree["headers"]["stranger"]
    usage = client.get("/api/dashboard/usage?subtree=true", headers=stranger).json()["data"]
    assert usage["consultations"] == 3 and shares(usage["byChannel"]) == {"panel": 3}
    assert usage["byQueryType"] == [{"key": "cpf-complete", "consultations": 3, "credits": 3}]
    top = client.get("/api/dashboard/top-consumers", headers=stranger).json()["data"]
    assert top["groups"] == []
    # Nothing of Revenda Sul's tree, whatever the period.
    wide = client.get(f"/api/dashboard/usage?subtree=true&from={today()}&to={today()}", headers=stranger)
    assert wide.json()["data"]["consultations"] == 3


def test_the_period_is_chosen_and_bounded(client: TestClient, tree: dict) -> None:
    headers = tree["headers"]["shop"]
    day = datetime.now(SAO_PAULO).date()
    week = client.get(f"/api/dashboard/usage?from={day - timedelta(days=6)}&to={day}", headers=headers).json()
    assert [d["day"] for d in week["data"]["byDay"]] == [str(day - timedelta(days=n)) for n in range(6, -1, -1)]
    before = client.get(f"/api/dashboard/usage?from={day - timedelta(days=9)}&to={day - timedelta(days=1)}",
                        headers=headers).json()["data"]  # fmt: skip
    assert before["consultations"] == 0 and before["byQueryType"] == [] and before["byChannel"] == []
    backwards = client.get(f"/api/dashboard/usage?from={day}&to={day - timedelta(days=1)}", headers=headers)
    assert backwards.status_code == 422 and backwards.json()["code"] == "invalid_data"
    too_long = client.get(f"/api/dashboard/usage?from={day - timedelta(days=366)}&to={day}", headers=headers)
    assert too_long.status_code == 422
    year = client.get(f"/api/dashboard/usage?from={day - timedelta(days=365)}&to={day}", headers=headers)
    assert year.status_code == 200 and len(year.json()["data"]["byDay"]) == 366
    assert client.get("/api/dashboard/top-consumers?limit=51", headers=headers).status_code == 400

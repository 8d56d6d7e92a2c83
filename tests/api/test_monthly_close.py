"""A reseller's monthly close: each customer's finance statement for the month and the totals over them, as the
reseller's finance reads it; every statement reconciles (closing = opening + the month's flows)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient
from support import KNOWN_CPF, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.statements import reconciles

PASSWORD = "Strong!pass1"


def owner_of(
    platform: Platform, api: TestClient, name: str, parent: UUID, kind: GroupType
) -> tuple[str, dict[str, str]]:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name=name, group_type=kind, parent_id=parent, unit_credit_limit=0
    )
    email = f"dono@{group_id.hex[:12]}.com.br"
    _, position = platform.identity.register_user(
        SYSTEM, group_id=group_id, name=f"Dono {name}", email=email, password=PASSWORD, role=Role.OWNER
    )
    assert platform.projector.wait_for(position, timeout=5)
    return str(group_id), sign_in(api, email, PASSWORD)


def unit(categories: list[dict[str, Any]]) -> dict[str, Any]:
    return next(c for c in categories if c["category"] == "unit")


def test_a_reseller_closes_the_month_across_its_customers(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    reseller, reseller_headers = owner_of(platform, api, "Revenda Norte", ROOT_GROUP_ID, GroupType.RESELLER)
    limited = api.put("/api/credits/limits", headers=admin, json={"groupId": reseller, "category": "unit", "limit": 20})
    assert limited.status_code == 200, limited.text
    # Named so that the close lists them out of their creation order: by name.
    shop, shop_headers = owner_of(platform, api, "Loja Zeta", UUID(reseller), GroupType.COMPANY)
    office, _ = owner_of(platform, api, "Escritório Alfa", UUID(reseller), GroupType.COMPANY)
    stranger, stranger_headers = owner_of(platform, api, "Empresa Vizinha", ROOT_GROUP_ID, GroupType.COMPANY)
    for child, amount in ((shop, 6), (office, 3)):
        granted = api.post(
            "/api/credits/grants",
            headers=reseller_headers,
            json={"groupId": child, "category": "unit", "amount": amount},
        )
        assert granted.status_code == 200, granted.text
    looked = api.post("/api/consultations", headers=shop_headers, json={"document": KNOWN_CPF})
    assert looked.status_code == 200, looked.text

    month = datetime.now(SAO_PAULO).strftime("%Y-%m")
    answer = api.get(
        f"/api/credits/monthly-close?month={month}&position={looked.json()['position']}", headers=reseller_headers
    )
    assert answer.status_code == 200, answer.text
    close = answer.json()["data"]
    assert (close["groupId"], close["month"]) == (reseller, month)
    assert close["periodStart"] == f"{month}-01" and close["periodEnd"] > close["periodStart"]
    assert [c["groupName"] for c in close["children"]] == ["Escritório Alfa", "Loja Zeta"]  # never the neighbour
    by_name = {c["groupName"]: unit(c["categories"]) for c in close["children"]}
    assert (by_name["Loja Zeta"]["received"], by_name["Loja Zeta"]["charged"]) == (6, 1)
    assert by_name["Loja Zeta"]["closingBalance"] == 5
    assert (by_name["Escritório Alfa"]["received"], by_name["Escritório Alfa"]["closingBalance"]) == (3, 3)
    assert all(reconciles(category) for child in close["children"] for category in child["categories"])

    totals = unit(close["totals"])
    assert (totals["received"], totals["charged"], totals["closingBalance"]) == (9, 1, 8)
    assert totals["openingBalance"] == 0 and reconciles(totals)

    # A month before: nothing moved, the balances were nil.
    before = api.get("/api/credits/monthly-close?month=2020-01", headers=reseller_headers).json()["data"]
    assert all(unit(c["categories"])["lines"] == 0 for c in before["children"])
    assert before["periodEnd"] == "2020-01-31"

    # The super-admin closes any reseller's month; a company beside it cannot see it; a month is YYYY-MM.
    assert api.get(f"/api/credits/monthly-close?groupId={reseller}", headers=admin).status_code == 200
    refused = api.get(f"/api/credits/monthly-close?groupId={reseller}", headers=stranger_headers)
    assert refused.status_code == 404 and refused.json()["code"] == "group_not_found"
    for month in ("2026-13", "0000-01", "9999-12"):  # the last two once answered 500 (no year 0, no year 10000)
        wrong = api.get(f"/api/credits/monthly-close?month={month}", headers=reseller_headers)
        assert wrong.status_code == 400 and "month" in wrong.text, wrong.text
    assert stranger

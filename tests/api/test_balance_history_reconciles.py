"""The balance history reconciles, walked as finance reads it: a new customer's registration credits, a
batch's reservation and settlement, and what the super-admin granted."""

from __future__ import annotations

import csv
import io
import re
from typing import Any
from uuid import UUID, uuid4

from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.credits import ReasonKind
from bemtevi.domain.principals import SYSTEM
from bemtevi.domain.query_types import Category


def figures(view: dict[str, Any], category: str) -> dict[str, Any]:
    return dict(next(f for f in view["categories"] if f["category"] == category))


def test_a_new_customers_history_reconciles_with_its_balances(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    body = customer(35, quantities={"unit": 0, "batch": 500, "advanced": 0, "api": 0})
    registered = register(api, admin, body)
    group_id = UUID(registered["data"]["id"])
    granted = api.post(
        "/api/credits/grants", headers=admin, json={"groupId": str(group_id), "category": "unit", "amount": 910}
    )
    assert granted.status_code == 200, granted.text

    # A batch reserves 49 enrichment credits and is charged 48: one came back.
    batch = uuid4()
    platform.credits.reserve(SYSTEM, group_id, Category.BATCH, batch, 49, ReasonKind.BATCH)
    position = platform.credits.settle(SYSTEM, group_id, Category.BATCH, batch, 48)

    owner = owner_headers(api, registered["data"]["ownerEmail"])
    history = api.get(f"/api/credits/history?category=batch&position={position}", headers=owner).json()
    assert history["upToDate"]
    lines = [(m["kind"], m["amount"], m["released"], m["change"], m["balance"]) for m in reversed(history["data"])]
    # The registration's quantity is the first line; the reservation is the charge, its settlement gives
    # back what was not used: the balance never rises on a consumption it does not explain.
    assert lines == [
        ("opening", 500, 0, 500, 500),
        ("reservation", 49, 0, -49, 451),
        ("settlement", 48, 1, 1, 452),
    ]
    opening = history["data"][-1]

    # The balances screen's figures are the history's sums.
    view = api.get("/api/credits/balances", headers=owner).json()["data"]["group"]
    batch_figures = figures(view, "batch")
    assert batch_figures["available"] == sum(line[3] for line in lines) == 452
    assert batch_figures["used"] == 48 and batch_figures["limit"] == 500
    unit_lines = api.get("/api/credits/history?category=unit", headers=owner).json()["data"]
    assert [(m["kind"], m["change"], m["balance"]) for m in unit_lines] == [("grant_received", 910, 910)]
    assert figures(view, "unit")["available"] == 910

    # What the (unlimited) super-admin gave its customers shows as granted.
    root = api.get("/api/credits/balances", headers=admin).json()["data"]
    assert opening["counterpartyGroupId"] == root["group"]["id"]  # the credits came from the parent
    children = {c["id"]: c for c in root["children"]}
    for category in ("unit", "batch"):
        given = sum(figures(c, category)["limit"] or 0 for c in children.values())
        assert figures(root["group"], category)["granted"] == given
    assert figures(root["group"], "unit")["granted"] >= 910
    assert figures(root["group"], "batch")["granted"] >= 500


def test_the_finance_statement_of_a_period_and_its_csv(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    registered = register(api, admin, customer(36, quantities={"unit": 0, "batch": 500, "advanced": 0, "api": 0}))
    group_id = UUID(registered["data"]["id"])
    api.post("/api/credits/grants", headers=admin, json={"groupId": str(group_id), "category": "unit", "amount": 30})
    api.post("/api/credits/grants", headers=admin, json={"groupId": str(group_id), "category": "unit", "amount": -10})
    batch = uuid4()
    platform.credits.reserve(SYSTEM, group_id, Category.BATCH, batch, 49, ReasonKind.BATCH)
    position = platform.credits.settle(SYSTEM, group_id, Category.BATCH, batch, 48)
    owner = owner_headers(api, registered["data"]["ownerEmail"])

    body = api.get(f"/api/credits/statement?position={position}", headers=owner).json()["data"]
    assert body["groupId"] == str(group_id) and body["periodStart"][-2:] == "01"  # this month by default
    by_category = {c["category"]: c for c in body["categories"]}
    assert by_category["batch"] == {
        "category": "batch",
        "openingBalance": 0,
        "received": 500,
        "returned": 0,
        "granted": 0,
        "takenBack": 0,
        "charged": 49,
        "released": 1,
        "limitChanges": 0,
        "closingBalance": 452,
        "consumed": 48,
        "lines": 3,
    }
    assert (by_category["unit"]["received"], by_category["unit"]["returned"]) == (30, 10)
    assert by_category["unit"]["closingBalance"] == 20
    # The closing balance of a period is the next one's opening balance; a period before it all is empty.
    earlier = api.get("/api/credits/statement?from=2000-01-01&to=2000-01-31", headers=owner).json()["data"]
    assert {c["category"]: c["closingBalance"] for c in earlier["categories"]} == dict.fromkeys(
        ("unit", "advanced", "batch", "api"), 0
    )
    # The super-admin's statement of its customer, and its own: what it granted and took back.
    of_customer = api.get(f"/api/credits/statement?groupId={group_id}", headers=admin).json()["data"]
    assert of_customer["categories"] == body["categories"]
    root = {c["category"]: c for c in api.get("/api/credits/statement", headers=admin).json()["data"]["categories"]}
    assert (root["unit"]["granted"], root["unit"]["takenBack"]) == (30, 10) and root["unit"]["openingBalance"] is None
    # Another tenant's group is not found.
    stranger = register(api, admin, customer(37))
    assert api.get(f"/api/credits/statement?groupId={stranger['data']['id']}", headers=owner).status_code == 404

    exported = api.get("/api/credits/statement/export", headers=owner)
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    assert re.search(
        r'filename="extrato_financeiro_\d{2}-\d{2}-\d{4}_\d{2}-\d{2}-\d{2}\.csv"',
        exported.headers["content-disposition"],
    )
    lines = list(csv.reader(io.StringIO(exported.content.decode("utf-8")), delimiter=";"))
    assert lines[0][:2] == ["Categoria", "Saldo inicial"] and lines[0][-3] == "Saldo final"
    enrichment = next(line for line in lines if line[0] == "Enriquecimento")
    assert (enrichment[1], enrichment[-3]) == ("0", "452")
    english = api.get("/api/credits/statement/export?lang=en-US", headers=admin).content.decode("utf-8")
    assert english.splitlines()[0].startswith("Category;Opening balance") and "Unlimited" in english

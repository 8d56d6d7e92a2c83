"""Server-side sorting: every list's ``order`` sorts across pages, from an allow-list of columns."""

from __future__ import annotations

from typing import Any

import pytest
from customers_support import customer, register
from fastapi.testclient import TestClient
from support import sign_in

pytestmark = pytest.mark.backends("sqlite")


def pages(api: TestClient, headers: dict[str, str], path: str, size_name: str, **params: Any) -> list[dict[str, Any]]:
    """Pages 1 and 2 of two rows each, joined: what a user paging through a sorted grid sees."""
    rows: list[dict[str, Any]] = []
    for page in (1, 2):
        answer = api.get(path, headers=headers, params={"page": page, size_name: 2, **params})
        assert answer.status_code == 200, answer.text
        rows += answer.json()["data"]
    return rows


def test_every_list_sorts_across_pages_by_an_allowed_column_and_refuses_others(api: TestClient) -> None:
    admin = sign_in(api)
    names = ["Delta", "alfa", "Charlie", "bravo"]
    position = 0
    for n, name in enumerate(names, start=1):
        registered = register(api, admin, customer(20 + n, companyName=f"{name} Ltda"))
        position = max(position, registered["position"])
        granted = api.post(
            "/api/credits/grants",
            headers=admin,
            json={"groupId": registered["data"]["id"], "category": "unit", "amount": n * 3 % 7 + 1},
        )
        assert granted.status_code == 200, granted.text
        position = max(position, granted.json()["position"])
    wait = {"position": position}

    ascending = pages(api, admin, "/api/customers", "perPage", order="name", **wait)
    assert [r["name"] for r in ascending] == ["alfa Ltda", "bravo Ltda", "Charlie Ltda", "Delta Ltda"]
    descending = pages(api, admin, "/api/customers", "perPage", order="-name")
    assert [r["name"] for r in descending] == ["Delta Ltda", "Charlie Ltda", "bravo Ltda", "alfa Ltda"]

    amounts = [
        r["amount"] for r in pages(api, admin, "/api/credits/history", "perPage", order="-amount", children=True)
    ]
    assert amounts == sorted(amounts, reverse=True) and len(amounts) == 4

    users = pages(api, admin, "/api/users", "page_size", order="email")
    assert [u["email"] for u in users] == sorted(u["email"] for u in users)

    outbox = pages(api, admin, "/api/mail/outbox", "perPage", order="to")
    assert [m["to"].lower() for m in outbox] == sorted(m["to"].lower() for m in outbox)

    # Only the allow-list: a column that is not one, or SQL, is a 400 before any query runs.
    for path in ("/api/customers", "/api/credits/history", "/api/users", "/api/mail/outbox", "/api/audit"):
        for bad in ("password_hash", "name; DROP TABLE users", "--name", "1"):
            answer = api.get(path, headers=admin, params={"order": bad})
            assert answer.status_code == 400, (path, bad, answer.text)

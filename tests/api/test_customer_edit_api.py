"""Editing customers: every field, duplicates (also under concurrency), status, toggles and query types."""

from __future__ import annotations

import threading
from typing import Any

from customers_support import NEW_PASSWORD, cnpj, customer, edit_body, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CPF, sign_in

from bemtevi.bootstrap import Platform


def detail(api: TestClient, headers: dict[str, str], group_id: str, position: int | None = None) -> dict[str, Any]:
    params = {} if position is None else {"position": position}
    response = api.get(f"/api/customers/{group_id}", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return dict(response.json()["data"])


def edit(api: TestClient, headers: dict[str, str], group_id: str, body: dict[str, Any]) -> Any:
    return api.put(f"/api/customers/{group_id}", headers=headers, json=body)


def test_every_field_of_the_form_is_edited_and_read_back(api: TestClient) -> None:
    admin = sign_in(api)
    group_id = register(api, admin, customer(1))["data"]["id"]
    body = edit_body(
        customer(1),
        cnpj=cnpj(101),
        companyName="Empresa Renomeada Ltda",
        tradeName="Renomeada",
        personInCharge="Outra Pessoa",
        phone="(21) 98888-7777",
        email="novo.admin@renomeada.com.br",
        seller="Vendedor Norte",
        defaultQuery=False,
        consultProtest=True,
        enabledQueryTypes=["cpf-complete"],
        panelAccess=False,
        apiAccess=True,
        toggles={"allowUploadingManualQueries": False},
    )
    response = edit(api, admin, group_id, body)
    assert response.status_code == 200, response.text
    data = detail(api, admin, group_id, response.json()["position"])
    assert data["companyName"] == "Empresa Renomeada Ltda" and data["cnpj"] == cnpj(101).translate(
        str.maketrans("", "", "./-")
    )
    assert (data["tradeName"], data["personInCharge"], data["phone"]) == ("Renomeada", "Outra Pessoa", "21988887777")
    assert (data["email"], data["seller"], data["defaultQuery"], data["consultProtest"]) == (
        "novo.admin@renomeada.com.br",
        "Vendedor Norte",
        False,
        True,
    )
    assert data["enabledQueryTypes"] == ["cpf-complete"]
    assert (data["panelAccess"], data["apiAccess"]) == (False, True)
    assert data["toggles"]["allowUploadingManualQueries"] is False
    # The list shows the new name too.
    listed = api.get("/api/customers", headers=admin, params={"search": "Renomeada"}).json()
    assert [c["id"] for c in listed["data"]] == [group_id]


def test_changed_values_are_refused_when_another_holds_them_and_released_ones_are_free(api: TestClient) -> None:
    admin = sign_in(api)
    first = register(api, admin, customer(1))["data"]["id"]
    second = register(api, admin, customer(2, "white-label", whiteLabelUrl="dois.example.com"))["data"]["id"]
    for changes, message in [
        ({"cnpj": cnpj(1)}, "CNPJ already registered"),
        ({"companyName": "EMPRESA número 1 ltda"}, "Company name already registered"),
        ({"phone": customer(1)["phone"]}, "Phone already registered"),
        ({"email": customer(1)["email"]}, "Administrator email already registered"),
    ]:
        refused = edit(
            api, admin, second, edit_body(customer(2, "white-label"), whiteLabelUrl="dois.example.com", **changes)
        )
        assert refused.status_code == 409, changes
        assert refused.json()["message"] == message
    # The first gives up its CNPJ and domain-less name: the second may take them at once.
    moved = edit(api, admin, first, edit_body(customer(1), cnpj=cnpj(3), companyName="Primeira Nova Ltda"))
    assert moved.status_code == 200, moved.text
    took = edit(
        api, admin, second, edit_body(customer(2, "white-label"), whiteLabelUrl="outro.example.com", cnpj=cnpj(1))
    )
    assert took.status_code == 200, took.text
    # The released domain is free for a new customer; the new one is taken.
    register(api, admin, customer(4, "white-label", whiteLabelUrl="dois.example.com"))
    taken = api.post(
        "/api/customers", headers=admin, json=customer(5, "white-label", whiteLabelUrl="outro.example.com")
    )
    assert taken.status_code == 409 and taken.json()["message"] == "Domain already registered"
    # Keeping one's own values is not a duplicate.
    same = edit(api, admin, first, edit_body(customer(1), cnpj=cnpj(3), companyName="Primeira Nova Ltda"))
    assert same.status_code == 200, same.text


def test_two_customers_taking_one_cnpj_at_once_one_wins(api: TestClient) -> None:
    admin = sign_in(api)
    ids = [register(api, admin, customer(n))["data"]["id"] for n in (1, 2, 3, 4)]
    barrier = threading.Barrier(len(ids))
    results: list[int] = []

    def take(n: int, group_id: str) -> None:
        barrier.wait()
        results.append(edit(api, admin, group_id, edit_body(customer(n), cnpj=cnpj(99))).status_code)

    threads = [threading.Thread(target=take, args=(n, g)) for n, g in zip((1, 2, 3, 4), ids, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [200, 409, 409, 409]


def test_a_child_never_gets_more_than_its_parent(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    reseller = register(api, admin, customer(1, "reseller"))["data"]
    # The root has every toggle, so it may give the reseller the white-label one, or take it back.
    granted = edit(
        api, admin, reseller["id"], edit_body(customer(1, "reseller"), toggles={"allowCreatedWhiteLabel": True})
    )
    assert granted.status_code == 200  # the root has the toggle, so the reseller may get it
    narrowed = edit(
        api,
        admin,
        reseller["id"],
        edit_body(
            customer(1, "reseller"), enabledQueryTypes=["cpf-complete"], toggles={"allowCreatedWhiteLabel": False}
        ),
    )
    assert narrowed.status_code == 200
    owner = owner_headers(api, reseller["ownerEmail"])
    company = register(api, owner, customer(2, enabledQueryTypes=["cpf-complete"]))["data"]
    more = edit(api, owner, company["id"], edit_body(customer(2), enabledQueryTypes=["cpf-complete", "cnpj-complete"]))
    assert more.status_code == 403 and more.json()["code"] == "query_not_allowed"
    toggle = edit(
        api,
        owner,
        company["id"],
        edit_body(customer(2, enabledQueryTypes=["cpf-complete"]), toggles={"allowCreatedWhiteLabel": True}),
    )
    assert toggle.status_code == 403
    assert toggle.json()["message"] == "Parent group does not allow creating white-label companies"
    # ... and without the toggle, registering a white-label is refused too.
    wl = api.post("/api/customers", headers=owner, json=customer(3, "white-label", whiteLabelUrl="x.example.com"))
    assert wl.status_code == 403
    # The root takes manual upload away from the reseller: the company loses it too (carried down).
    cut = edit(
        api,
        admin,
        reseller["id"],
        edit_body(
            customer(1, "reseller"), enabledQueryTypes=["cpf-complete"], toggles={"allowUploadingManualQueries": False}
        ),
    )
    assert cut.status_code == 200
    data = detail(api, admin, company["id"], cut.json()["position"])
    assert data["toggles"]["allowUploadingManualQueries"] is False
    assert data["parentToggles"]["allowUploadingManualQueries"] is False
    back = edit(
        api,
        owner,
        company["id"],
        edit_body(customer(2, enabledQueryTypes=["cpf-complete"]), toggles={"allowUploadingManualQueries": True}),
    )
    assert back.status_code == 403 and back.json()["message"] == "Parent group does not allow Manual Query"


def test_an_inactive_customer_stops_its_users_sessions_and_lookups(api: TestClient) -> None:
    admin = sign_in(api)
    company = register(api, admin, customer(1, quantities={"unit": 5, "batch": 0, "advanced": 0, "api": 0}))["data"]
    owner = owner_headers(api, company["ownerEmail"])
    ok = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF})
    assert ok.status_code == 200, ok.text
    off = api.post(f"/api/customers/{company['id']}/status", headers=admin, json={"active": False})
    assert off.status_code == 200
    # The open session stops at once, lookups too, and signing in again is refused.
    stopped = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF})
    assert stopped.status_code == 401 and stopped.json()["message"] == "Group is inactive"
    assert stopped.json()["code"] == "group_inactive"
    again = api.post(
        "/api/auth/auth", json={"email": company["ownerEmail"], "password": NEW_PASSWORD, "domain_url": "localhost"}
    )
    assert again.status_code == 403 and again.json()["message"] == "Group is inactive"
    listed = api.get("/api/customers", headers=admin, params={"position": off.json()["position"]}).json()
    assert [c["active"] for c in listed["data"]] == [False]
    on = api.post(f"/api/customers/{company['id']}/status", headers=admin, json={"active": True})
    assert on.status_code == 200
    owner_headers(api, company["ownerEmail"], NEW_PASSWORD, first_access=False)
    # Nobody changes the status of their own group.
    mine = api.post(f"/api/customers/{company['id']}/status", headers=owner, json={"active": False})
    assert mine.status_code in (403, 404)

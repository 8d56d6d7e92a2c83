"""Registering and listing customers through the HTTP API, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

import pytest
from customers_support import cnpj, customer, owner_headers, register
from fastapi.testclient import TestClient
from support import saved_after, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.customers import CustomerForm
from bemtevi.domain.errors import DuplicateValue
from bemtevi.domain.groups import GroupType
from bemtevi.domain.passwords import NO_PASSWORD_HASH
from bemtevi.domain.principals import ROOT_GROUP_ID
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role, User, UserStatus


def account(platform: Platform, group_id: str, category: Category = Category.UNIT) -> CreditAccount:
    return platform.app.get(credit_account_id(UUID(group_id), category), CreditAccount)


def test_a_reseller_is_registered_with_its_owner_and_credits(platform: Platform, api: TestClient) -> None:
    body = register(api, sign_in(api), customer(1, "reseller", quantities={"unit": 100, "api": 5}))
    data = body["data"]
    # No password is made for the owner, nor handed to whoever registered it: the owner is invited by e-mail
    # and signs in only once they chose theirs from the invitation's link.
    assert "generatedPassword" not in data and data["invitationSentTo"] == "dono1@empresa1.com.br"
    owner = platform.app.get(UUID(data["ownerId"]), User)
    assert (owner.role, owner.status, owner.email) == (Role.OWNER, UserStatus.FIRST_ACCESS, "dono1@empresa1.com.br")
    assert owner.password_hash == NO_PASSWORD_HASH
    for guess in (NO_PASSWORD_HASH, "N0va!Senha"):
        refused = api.post("/api/auth/auth", json={"email": "dono1@empresa1.com.br", "password": guess})
        assert refused.status_code == 401, refused.text
    assert account(platform, data["id"]).limit == 100
    assert account(platform, data["id"], Category.API).limit == 5
    assert account(platform, data["id"], Category.BATCH).limit == 0

    # The owner follows the invitation, chooses a password and registers a company of its own, its credits
    # granted out of the reseller's.
    reseller = owner_headers(api, "dono1@empresa1.com.br")
    child = register(api, reseller, customer(2, quantities={"unit": 30}))["data"]
    assert account(platform, child["id"]).limit == 30
    assert account(platform, data["id"]).available == 70
    too_many = api.post("/api/customers", headers=reseller, json=customer(3, quantities={"unit": 71}))
    assert too_many.status_code == 409
    assert too_many.json()["message"] == "Not enough manual query to provide to this group"
    # Nothing of the refused customer was kept: its CNPJ is still free.
    register(api, reseller, customer(3, quantities={"unit": 70}))


@pytest.fixture(scope="module")
def customer_10(refusing_backend_api: tuple[TestClient, Platform]) -> tuple[TestClient, Platform]:
    """The refusals' platform with customer 10 registered, once for the module's duplicates."""
    api, _ = refusing_backend_api
    register(api, sign_in(api), customer(10))
    return refusing_backend_api


@pytest.mark.parametrize(
    ("changes", "message", "field"),
    [
        ({"cnpj": cnpj(10)}, "CNPJ already registered", "cnpj"),
        ({"companyName": "  empresa NÚMERO 10   ltda "}, "Company name already registered", "companyName"),
        ({"email": "DONO10@empresa10.com.br"}, "Administrator email already registered", "email"),
        ({"phone": "11 90010 0010"}, "Phone already registered", "phone"),
    ],
)
def test_values_already_registered_are_refused_with_their_message(
    customer_10: tuple[TestClient, Platform], changes: dict[str, Any], message: str, field: str
) -> None:
    api, platform = customer_10
    admin = sign_in(api)
    before = platform.app.max_position()
    response = api.post("/api/customers", headers=admin, json=customer(11, **changes))
    assert response.status_code == 409
    assert response.json()["message"] == message and response.json()["field"] == field
    assert saved_after(platform.app, before) == []  # nothing saved (customer 10's invitation may go meanwhile)


def test_a_white_label_needs_its_own_unused_url(api: TestClient) -> None:
    admin = sign_in(api)
    missing = api.post("/api/customers", headers=admin, json=customer(20, "white-label"))
    assert missing.status_code == 422 and missing.json()["field"] == "whiteLabelUrl"
    register(api, admin, customer(20, "white-label", whiteLabelUrl="https://consultas.parceiro.com.br/"))
    taken = api.post(
        "/api/customers", headers=admin, json=customer(21, "white-label", whiteLabelUrl="consultas.parceiro.com.br")
    )
    assert taken.status_code == 409 and taken.json()["message"] == "Domain already registered"


@pytest.mark.parametrize(
    ("changes", "status", "message"),
    [
        ({"cnpj": "11.222.333/0001-80"}, 422, "The informed document is invalid"),
        ({"enabledQueryTypes": []}, 422, "At least one default query required"),
        ({"panelAccess": False, "apiAccess": False}, 422, "Select at least one of panel or API"),
        ({"phone": "1234"}, 422, "Invalid phone"),
        ({"email": "dono@empresa"}, 422, "Invalid email"),
        ({"tradeName": "   "}, 422, "Invalid data structure: missing required fields"),
        ({"enabledQueryTypes": ["gold-query"]}, 403, "Group does not have permission for this query type"),
        ({"type": "partner"}, 400, None),
    ],
)
def test_the_form_rules_of_the_specification(
    refusing_backend_api: tuple[TestClient, Platform], changes: dict[str, Any], status: int, message: str | None
) -> None:
    api, platform = refusing_backend_api
    admin = sign_in(api)
    before = platform.app.max_position()
    response = api.post("/api/customers", headers=admin, json=customer(30, **changes))
    assert response.status_code == status, response.text
    if message:
        assert response.json()["message"] == message
    # Nothing saved (customer 10's invitation, registered on this platform earlier, may go meanwhile).
    assert saved_after(platform.app, before) == []


def test_who_may_register_what(api: TestClient) -> None:
    admin = sign_in(api)
    reseller = register(api, admin, customer(40, "reseller"))["data"]
    reseller_headers = owner_headers(api, reseller["ownerEmail"])
    refused = api.post(
        "/api/customers", headers=reseller_headers, json=customer(41, "white-label", whiteLabelUrl="x.br")
    )
    assert refused.status_code == 403
    company = register(api, reseller_headers, customer(42))["data"]
    company_headers = owner_headers(api, company["ownerEmail"])
    assert api.post("/api/customers", headers=company_headers, json=customer(43)).status_code == 403


def test_each_parent_lists_its_own_subtree_and_nothing_else(api: TestClient) -> None:
    admin = sign_in(api)
    north = register(api, admin, customer(50, "reseller", tradeName="Revenda Norte"))["data"]
    south = register(api, admin, customer(51, "reseller", tradeName="Revenda Sul"))["data"]
    north_headers = owner_headers(api, north["ownerEmail"])
    shop = register(api, north_headers, customer(52, tradeName="Loja Norte"))
    listed = api.get(f"/api/customers?position={shop['position']}", headers=north_headers).json()
    assert listed["upToDate"] and [c["tradeName"] for c in listed["data"]] == ["Loja Norte"]
    assert listed["data"][0]["parentName"] == "Empresa Número 50 Ltda"
    south_headers = owner_headers(api, south["ownerEmail"])
    assert api.get("/api/customers", headers=south_headers).json()["total"] == 0
    everything = api.get("/api/customers?perPage=100", headers=admin).json()
    assert {"Revenda Norte", "Revenda Sul", "Loja Norte"} <= {c["tradeName"] for c in everything["data"]}
    by_name = api.get("/api/customers?search=loja", headers=admin).json()["data"]
    assert [c["tradeName"] for c in by_name] == ["Loja Norte"]
    by_cnpj = api.get("/api/customers", params={"search": cnpj(51)}, headers=admin).json()["data"]
    assert [c["tradeName"] for c in by_cnpj] == ["Revenda Sul"]


def test_concurrent_registrations_of_one_cnpj_give_exactly_one_customer(platform: Platform) -> None:
    from bemtevi.domain.principals import Principal

    admin = Principal(user_id=UUID(int=1), group_id=ROOT_GROUP_ID, role=Role.SUPER_ADMIN, session_id=UUID(int=2))
    outcomes: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(6)

    def attempt(n: int) -> None:
        form = CustomerForm(
            group_type=GroupType.COMPANY,
            cnpj=cnpj(60),
            company_name=f"Concorrente {n}",
            trade_name=f"Concorrente {n}",
            person_in_charge="Pessoa",
            phone=f"1190000{n:04d}",
            email=f"c{n}@concorrente.com.br",
            default_query=True,
            consult_protest=False,
            enabled_query_types=("cpf-complete",),
            panel_access=True,
            api_access=True,
        )
        start.wait()
        try:
            platform.customers.register(admin, form)
            result = "registered"
        except DuplicateValue as e:
            result = e.message
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["CNPJ already registered"] * 5 + ["registered"]

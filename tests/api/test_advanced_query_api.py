"""The advanced query (issue 36) over HTTP: a search is free and recorded, its list shows only the list fields,
a result opened is charged one advanced credit once, and shows in the data-subject report."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from api_client import ApiClient
from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import BASIC_QUERY_TYPE, KNOWN_CPF, make_settings, sign_in

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform, build_platform

QUANTITIES = {"unit": 0, "batch": 0, "advanced": 2, "api": 0}


def _owner(api: TestClient, admin: dict[str, str], n: int, **changes: Any) -> dict[str, str]:
    body = customer(n, quantities=changes.pop("quantities", QUANTITIES), **changes)
    registered = register(api, admin, body)
    return owner_headers(api, registered["data"]["ownerEmail"])


def _advanced(api: TestClient, headers: dict[str, str], position: int = 0) -> dict[str, Any]:
    balances = api.get(f"/api/credits/balances?position={position}", headers=headers).json()["data"]["group"]
    return next(c for c in balances["categories"] if c["category"] == "advanced")


def _mangled(name: str) -> str:
    """The person's name as a customer might type it: upper case, no accents, first and last words only."""
    words = name.split()
    return f"{words[0]} {words[-1]}".upper().replace("É", "E").replace("Á", "A")


@pytest.fixture
def known(sqlite_platform: Platform) -> dict[str, Any]:
    person = sqlite_platform.supplier.lookup("cpf", KNOWN_CPF)
    assert person is not None
    return person


@pytest.fixture
def backend_client(platform: Platform) -> Iterator[TestClient]:
    """A client of a platform on either event store: on PostgreSQL its searches are PostgreSQL's index's."""
    with ApiClient(create_app(platform)) as test_client:
        yield test_client


def test_a_search_lists_only_list_fields_and_an_opened_result_is_charged_once(
    backend_client: TestClient, platform: Platform
) -> None:
    client = backend_client
    known = platform.supplier.lookup("cpf", KNOWN_CPF)
    assert known is not None
    admin = sign_in(client)
    owner = _owner(client, admin, 61)
    searched = client.post("/api/advanced-queries", headers=owner, json={"name": _mangled(known["name"])})
    assert searched.status_code == 200, searched.text
    search = searched.json()["data"]
    assert search["costPerResult"] == 1 and search["available"] == 2 and search["total"] >= 1

    listed = client.get(f"/api/advanced-queries/{search['id']}/results?perPage=100", headers=owner)
    assert listed.status_code == 200, listed.text
    rows = listed.json()["data"]
    row = next(r for r in rows if r["name"] == known["name"])
    assert set(row) == {"ref", "kind", "name", "maskedDocument", "city", "state"}
    assert KNOWN_CPF not in listed.text  # no document, phone or e-mail before the result is opened
    assert known["phones"][0]["number"] not in listed.text
    assert _advanced(client, owner, searched.json()["position"])["used"] == 0  # the list is free

    opened = client.post(f"/api/advanced-queries/{search['id']}/results/{row['ref']}", headers=owner)
    assert opened.status_code == 200, opened.text
    data = opened.json()["data"]
    assert data["document"] == KNOWN_CPF and data["status"] == "done" and data["result"]["name"] == known["name"]
    again = client.post(f"/api/advanced-queries/{search['id']}/results/{row['ref']}", headers=owner)
    assert again.status_code == 200 and again.json()["data"]["id"] == data["id"]
    figures = _advanced(client, owner, again.json()["position"])
    assert figures["used"] == 1 and figures["available"] == 1  # charged once, to the advanced credits

    # The opened result is a consultation of that CPF: the data-subject report lists it.
    report = client.get(
        f"/api/audit/data-subject?document={KNOWN_CPF}&position={again.json()['position']}", headers=admin
    )
    assert [r["channel"] for r in report.json()["data"]] == ["advanced"]
    if platform.settings.database_url:  # cluster mode: the one index every API process shares is PostgreSQL's
        with psycopg.connect(platform.settings.database_url) as con:
            assert con.execute("SELECT count(*) FROM bemtevi_search_entries").fetchone() == (2_400,)


def test_the_search_is_recorded_with_who_which_group_and_which_criteria(client: TestClient) -> None:
    admin = sign_in(client)
    owner = _owner(client, admin, 62)
    searched = client.post("/api/advanced-queries", headers=owner, json={"city": "São Paulo", "state": "sp"})
    assert searched.status_code == 200, searched.text
    audit = client.get(
        f"/api/audit?position={searched.json()['position']}&type=AdvancedSearch.Searched&children=true", headers=admin
    ).json()
    runs = [r for r in audit["data"] if r["aggregateType"] == "AdvancedSearch"]
    assert len(runs) == 1 and runs[0]["actorName"] and runs[0]["tenantName"] == "Empresa Número 62 Ltda"
    assert "sao paulo" in str(runs[0]) and "SP" in str(runs[0])


def test_refusals_an_empty_form_no_credits_and_no_configuration(client: TestClient) -> None:
    admin = sign_in(client)
    owner = _owner(client, admin, 63)
    empty = client.post("/api/advanced-queries", headers=owner, json={"name": "  ", "email": ""})
    assert empty.status_code == 422 and empty.json()["code"] == "advanced_criteria_required"

    broke = _owner(client, admin, 64, quantities={"unit": 5, "batch": 0, "advanced": 0, "api": 0})
    refused = client.post("/api/advanced-queries", headers=broke, json={"name": "Silva"})
    assert refused.status_code == 402 and refused.json()["message"] == "Not enough advanced query credits"

    # Only a type that is no document's default: an opened result would have no query type to run.
    basic = {**BASIC_QUERY_TYPE, "description": "Cadastro"}
    assert client.post("/api/query-types", headers=admin, json=basic).status_code == 200
    # Given no default type, so it may not use a default query (the customer form's rule).
    unconfigured = _owner(client, admin, 65, enabledQueryTypes=["pessoa-fisica-basica"], defaultQuery=False)
    refused = client.post("/api/advanced-queries", headers=unconfigured, json={"name": "Silva"})
    assert refused.status_code == 404
    assert refused.json()["message"] == "No advanced layout or query configuration found"


def test_the_last_credit_then_the_refusal_uncharged(client: TestClient, known: dict[str, Any]) -> None:
    admin = sign_in(client)
    owner = _owner(client, admin, 66, quantities={"unit": 0, "batch": 0, "advanced": 1, "api": 0})
    search = client.post("/api/advanced-queries", headers=owner, json={"state": "RJ"}).json()["data"]
    rows = client.get(f"/api/advanced-queries/{search['id']}/results?perPage=2", headers=owner).json()["data"]
    assert len(rows) == 2
    first = client.post(f"/api/advanced-queries/{search['id']}/results/{rows[0]['ref']}", headers=owner)
    assert first.status_code == 200
    second = client.post(f"/api/advanced-queries/{search['id']}/results/{rows[1]['ref']}", headers=owner)
    assert second.status_code == 402 and second.json()["message"] == "Not enough advanced query credits"
    assert _advanced(client, owner, first.json()["position"])["used"] == 1


def test_a_group_with_only_the_company_type_lists_only_companies(client: TestClient) -> None:
    admin = sign_in(client)
    owner = _owner(client, admin, 70, enabledQueryTypes=["cnpj-complete"])
    search = client.post("/api/advanced-queries", headers=owner, json={"state": "SP"}).json()["data"]
    rows = client.get(f"/api/advanced-queries/{search['id']}/results?perPage=100", headers=owner).json()["data"]
    assert rows and {r["kind"] for r in rows} == {"cnpj"}


def test_another_tenant_cannot_list_or_open_a_search(client: TestClient, known: dict[str, Any]) -> None:
    admin = sign_in(client)
    owner, other = _owner(client, admin, 67), _owner(client, admin, 68)
    search = client.post("/api/advanced-queries", headers=owner, json={"name": known["name"]}).json()["data"]
    rows = client.get(f"/api/advanced-queries/{search['id']}/results", headers=owner).json()["data"]
    listed = client.get(f"/api/advanced-queries/{search['id']}/results", headers=other)
    assert listed.status_code == 404 and listed.json()["code"] == "advanced_search_not_found"
    opened = client.post(f"/api/advanced-queries/{search['id']}/results/{rows[0]['ref']}", headers=other)
    assert opened.status_code == 404
    assert _advanced(client, other)["used"] == 0 and _advanced(client, owner)["used"] == 0


def test_a_row_not_of_the_search_is_not_opened(client: TestClient, known: dict[str, Any]) -> None:
    admin = sign_in(client)
    owner = _owner(client, admin, 69)
    search = client.post("/api/advanced-queries", headers=owner, json={"name": known["name"]}).json()["data"]
    rows = client.get(f"/api/advanced-queries/{search['id']}/results", headers=owner).json()["data"]
    stranger = max(r["ref"] for r in rows) + 1
    refused = client.post(f"/api/advanced-queries/{search['id']}/results/{stranger}", headers=owner)
    assert refused.status_code == 404 and _advanced(client, owner)["used"] == 0


def test_an_index_that_fails_is_the_search_error_to_the_customer_and_its_cause_in_the_log(
    tmp_path: Path, dataset_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    dataset = tmp_path / "dataset.duckdb"
    shutil.copy(dataset_path, dataset)
    platform = build_platform(make_settings(tmp_path / "var", dataset))
    try:
        with ApiClient(create_app(platform)) as api:
            owner = _owner(api, sign_in(api), 71)
            dataset.unlink()  # the index is built at the first search: nothing to build it from
            caplog.set_level("ERROR", logger="bemtevi.commands.advanced_queries")
            refused = api.post("/api/advanced-queries", headers=owner, json={"name": "Silva"})
    finally:
        platform.close()
    assert refused.status_code == 502 and refused.json()["message"] == "Error performing search"
    logged = [r for r in caplog.records if "the index failed" in r.getMessage()]
    assert logged and logged[0].exc_info is not None and "no dataset at" in str(logged[0].exc_info[1])

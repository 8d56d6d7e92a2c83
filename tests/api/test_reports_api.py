"""The consultation report (GET /api/reports, its export, /api/v1/reports): panel, API and batch records
counted per period and dimension, each group seeing its own subtree and never another tenant's."""

from __future__ import annotations

import io
import re
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from python_calamine import CalamineWorkbook
from support import KNOWN_CNPJ, KNOWN_CPF, sign_in
from test_batches_api import LAYOUT, _run, cpf, csv_of, ok, refused, upload

from bemtevi.bootstrap import Platform
from bemtevi.domain.principals import SYSTEM
from bemtevi.domain.users import Role
from bemtevi.projections.base import SAO_PAULO
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.report_queries import consultation_report
from bemtevi.projections.store import ReadStore
from bemtevi.streams.projector import Projector

NOT_FOUND_CPF = "00000000191"
DIMENSIONS = ("category", "queryType", "supplier", "user", "channel", "found")


def _company(client: TestClient, headers: dict[str, str], n: int, **quantities: int) -> tuple[str, dict[str, str]]:
    body = customer(n, "white-label", whiteLabelUrl=f"relatorio{n}.com.br", apiAccess=True)
    body["quantities"] = {"unit": 0, "batch": 0, "advanced": 0, "api": 0, **quantities}
    body["enabledLayouts"] = [LAYOUT_ID[0]] if LAYOUT_ID else []
    data = register(client, headers, body)["data"]
    return str(data["id"]), owner_headers(client, data["ownerEmail"])


LAYOUT_ID: list[str] = []


def _lookup(client: TestClient, headers: dict[str, str], document: str) -> int:
    return int(ok(client.post("/api/consultations", headers=headers, json={"document": document}))["position"])


# Every test reads the report of one world: the world is built once, on one platform, for them all.
@pytest.fixture
def client(module_api: tuple[TestClient, Platform]) -> TestClient:
    return module_api[0]


@pytest.fixture
def sqlite_platform(module_api: tuple[TestClient, Platform]) -> Platform:
    return module_api[1]


@pytest.fixture(scope="module")
def world(module_api: tuple[TestClient, Platform]) -> dict[str, Any]:
    """Company A (3 panel lookups, one not found; a batch of 2 records, 1 found; 1 API lookup) with its
    customer A1 (1 lookup) and A1's customer A2 (1 lookup); company B beside A (2 lookups)."""
    client, platform = module_api
    admin = sign_in(client)
    LAYOUT_ID[:] = [str(ok(client.post("/api/layouts", headers=admin, json=LAYOUT))["id"])]
    a, owner_a = _company(client, admin, 91, unit=10, batch=5, api=5)
    a1, owner_a1 = _company(client, owner_a, 92, unit=3)
    _, owner_a2 = _company(client, owner_a1, 93, unit=1)
    b, owner_b = _company(client, admin, 94, unit=5)
    for document in (KNOWN_CPF, KNOWN_CNPJ, NOT_FOUND_CPF):
        _lookup(client, owner_a, document)
    _lookup(client, owner_a1, KNOWN_CPF)
    _lookup(client, owner_a2, KNOWN_CPF)
    for _ in range(2):
        _lookup(client, owner_b, KNOWN_CPF)
    shown = ok(upload(client, owner_a, LAYOUT_ID[0], csv_of(cpf(71), cpf(72))), 201)
    batch = ok(client.post("/api/batches", headers=owner_a, json={"uploadId": shown["uploadId"]}), 201)
    _run(platform, batch["id"], found=1)
    token = ok(
        client.post("/api/api-tokens", headers=owner_a, json={"name": "ERP", "queryTypes": ["cpf-complete"]}), 201
    )
    bearer = {"Authorization": f"Bearer {token['accessToken']}"}
    ok(client.post("/api/v1/lookups", headers=bearer, json={"document": KNOWN_CPF}))
    platform.identity.register_user(
        SYSTEM, group_id=UUID(a), name="Usuária A", email="usuaria@relatorio91.com.br", password="Strong!pass1",
        role=Role.USER,
    )  # fmt: skip
    assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
    user_a = sign_in(client, "usuaria@relatorio91.com.br", "Strong!pass1")
    return {"a": a, "a1": a1, "b": b, "owner_a": owner_a, "owner_a1": owner_a1, "owner_b": owner_b,
            "user_a": user_a, "bearer": bearer}  # fmt: skip


def report(client: TestClient, headers: dict[str, str], path: str = "/api/reports", **params: Any) -> dict[str, Any]:
    return ok(client.get(path, headers=headers, params=params))["data"]


def by_key(data: dict[str, Any]) -> dict[str, int]:
    return {k["key"]: k["consultations"] for k in data["keys"]}


def test_a_group_sees_its_panel_api_and_batch_consultations(client: TestClient, world: dict[str, Any]) -> None:
    data = report(client, world["owner_a"], groupBy="channel")
    assert by_key(data) == {"panel": 3, "batch": 2, "api": 1}
    assert data["totals"] == {"consultations": 6, "found": 4, "notFound": 2, "credits": 4}
    assert data["groups"] == 1 and data["period"] == "last30Days" and data["interval"] == "day"
    assert by_key(report(client, world["owner_a"], groupBy="category")) == {"unit": 3, "batch": 2, "api": 1}
    assert by_key(report(client, world["owner_a"], groupBy="found")) == {"found": 4, "not_found": 2}
    users = report(client, world["owner_a"], groupBy="user")
    assert {k["label"] for k in users["keys"]} >= {"Responsável 91"}
    # A plain user of the group sees the group's report too, but never the customers below it.
    assert report(client, world["user_a"])["totals"]["consultations"] == 6
    refused(client.get("/api/reports", headers=world["user_a"], params={"includeChildren": True}), 403, "access_denied")


def test_children_to_any_depth_and_never_another_tenant(client: TestClient, world: dict[str, Any]) -> None:
    whole = report(client, world["owner_a"], includeChildren=True)
    assert whole["groups"] == 3 and whole["totals"]["consultations"] == 8  # A's 6, A1's 1, A2's 1
    # A1 sees itself and A2 below it, never A above it.
    assert report(client, world["owner_a1"], includeChildren=True)["totals"]["consultations"] == 2
    # B, beside A, sees only its own two; A never sees B's.
    assert report(client, world["owner_b"], includeChildren=True)["totals"]["consultations"] == 2
    for dimension in DIMENSIONS:
        for headers in (world["owner_a"], world["owner_b"]):
            rows = report(client, headers, groupBy=dimension, includeChildren=True, interval="month")
            assert sum(r["consultations"] for r in rows["series"]) == rows["totals"]["consultations"]


def test_the_public_api_answers_the_tokens_group(client: TestClient, world: dict[str, Any]) -> None:
    data = report(client, world["bearer"], "/api/v1/reports", groupBy="channel")
    assert by_key(data) == {"panel": 3, "batch": 2, "api": 1}
    assert report(client, world["bearer"], "/api/v1/reports", includeChildren=True)["totals"]["consultations"] == 8
    exported = client.get("/api/v1/reports/export", headers=world["bearer"], params={"format": "csv"})
    assert exported.status_code == 200 and exported.text.startswith("Período;Categoria;")


def test_periods_are_checked(client: TestClient, world: dict[str, Any]) -> None:
    headers = world["owner_a"]
    for params in ({"period": "custom", "from": "2026-01-01"}, {"from": "2026-02-01", "to": "2026-01-01"},
                   {"from": "2024-01-01", "to": "2026-01-01"},
                   # Days past which the São Paulo day's UTC bounds do not exist (a 500 before).
                   {"from": "9999-12-31", "to": "9999-12-31"}, {"from": "1999-12-31", "to": "2000-01-01"}):  # fmt: skip
        refused(client.get("/api/reports", headers=headers, params=params), 422, "invalid_period")
    refused(client.get("/api/reports", headers=headers, params={"groupBy": "group"}), 400, "invalid_data")
    assert report(client, headers, period="yesterday")["totals"]["consultations"] == 0
    assert report(client, headers, period="today")["totals"]["consultations"] == 6


def test_exports_are_csv_and_xlsx_named_by_the_spec(client: TestClient, world: dict[str, Any]) -> None:
    params = {"groupBy": "channel", "format": "csv"}
    response = client.get("/api/reports/export", headers=world["owner_a"], params=params)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    name = re.search(r'filename="([^"]+)"', response.headers["content-disposition"])
    assert name and re.fullmatch(r"relatorio_\d{2}-\d{2}-\d{4}_\d{2}-\d{2}-\d{2}\.csv", name.group(1))
    lines = response.content.decode("utf-8").splitlines()
    assert lines[0] == "Período;Canal;Consultas;Encontradas;Não encontradas;Créditos"
    assert sorted(line.split(";")[1] for line in lines[1:]) == ["API", "Lote", "Painel"]
    response = client.get(
        "/api/reports/export", headers=world["owner_a"], params={**params, "format": "xlsx", "lang": "en-US"}
    )
    assert response.status_code == 200
    assert re.search(r'filename="report_[\d_-]+\.xlsx"', response.headers["content-disposition"])
    rows = CalamineWorkbook.from_filelike(io.BytesIO(response.content)).get_sheet_by_index(0).to_python()
    assert rows[0] == ["Period", "Channel", "Consultations", "Found", "Not found", "Credits"]
    assert sorted(r[1] for r in rows[1:]) == ["API", "Batch", "Panel"]


@pytest.mark.parametrize("page_size", [1, 3, 1000])
def test_the_report_replays_to_what_was_followed(
    sqlite_platform: Platform, world: dict[str, Any], tmp_path: Path, page_size: int
) -> None:
    store = ReadStore(tmp_path / "replay.duckdb")
    try:
        Projector(
            sqlite_platform.app,
            store,
            all_read_models(sqlite_platform.batches.files.looked_up),
            page_size=page_size,
            batch_size=page_size,
        ).catch_up()
        query = "SELECT * FROM report_batches ORDER BY batch_id"
        assert store.cursor().execute(query).fetchall() == sqlite_platform.store.cursor().execute(query).fetchall()
        followed, replayed = sqlite_platform.store.cursor(), store.cursor()
        groups = [world["a"], world["a1"], world["b"]]
        first = last = datetime.now(SAO_PAULO).date()
        for dimension in DIMENSIONS:
            assert consultation_report(replayed, groups, first, last, "day", dimension) == consultation_report(
                followed, groups, first, last, "day", dimension
            )
    finally:
        store.close()

"""A batch's vendor answers are kept like a unit lookup's: a later lookup of one of its documents within the
cache days is answered from them (the vendor sees no new call), and ``query-result`` reopens them for the
batch's group only."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import sign_in, simulated_vendor, super_admin, unknown_cpfs
from test_batches_api import LAYOUT

from bemtevi.bootstrap import Platform
from bemtevi.bootstrap.batches import batch_runner
from bemtevi.commands.consultations import CACHE_SUPPLIER
from bemtevi.domain.batches import kept_result_id
from bemtevi.domain.consultations import Consultation
from bemtevi.infra.secrets import SecretBox
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer


@pytest.fixture
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(SimulatorConfig(expected_authorization="Bearer tok-123")) as server:
        yield server


def ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return dict(response.json())


def new_customer(client: TestClient, admin: dict[str, str], n: int, layout_id: str) -> tuple[UUID, dict[str, str]]:
    body = customer(n, "white-label", whiteLabelUrl=f"kept{n}.com.br", enabledLayouts=[layout_id])
    body["quantities"] = {**body["quantities"], "batch": 10, "unit": 10}
    registered = register(client, admin, body)
    headers = owner_headers(client, registered["data"]["ownerEmail"])
    return UUID(registered["data"]["id"]), headers


def test_a_batchs_vendor_answers_are_kept_and_answer_a_later_lookup_without_the_vendor(
    sqlite_platform: Platform, client: TestClient, simulator: SimulatorServer
) -> None:
    platform = sqlite_platform
    platform.vendors.register(super_admin(platform), simulated_vendor(simulator.port))
    admin = sign_in(client)
    layout_id = str(ok(client.post("/api/layouts", headers=admin, json=LAYOUT))["id"])
    group_id, owner = new_customer(client, admin, 71, layout_id)
    _other_group, stranger = new_customer(client, admin, 72, layout_id)
    documents = unknown_cpfs(platform.supplier, 3)  # only the HTTP supplier knows them

    shown = ok(
        client.post(
            "/api/batches/uploads",
            headers={**owner, "Content-Type": "application/octet-stream"},
            params={"layoutId": layout_id, "fileName": "lista.csv", "queryType": "cpf-complete"},
            content=("CPF\n" + "".join(f"{d}\n" for d in documents)).encode(),
        ),
        201,
    )
    batch_id = UUID(ok(client.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 201)["id"])

    lookups = platform.consultations.vendor_lookups
    assert lookups is not None
    runner = batch_runner(
        platform.settings,
        platform.app,
        platform.batches,
        SecretBox(platform.settings.vendor_secrets_key),
        threading.Event(),
        lookups,
    )
    assert runner.run(batch_id)
    assert simulator.app.stats["requests"] == 3
    returned = client.get(f"/api/batches/{batch_id}/return", headers=owner)
    assert returned.status_code == 200 and all(d in returned.text for d in documents)

    # Kept as a unit lookup keeps them: the query type's days, the batch's group, an id per batch record.
    kept = platform.kept_results.get(kept_result_id(batch_id, documents[0]))
    assert kept is not None and kept.group_id == group_id and kept.query_type == "cpf-complete"
    assert kept.supplier == "Simulado" and kept.result["cpf"] == documents[0]
    assert 29.9 < (kept.cache_until - kept.created_at) / 86_400 <= 30
    assert 89.9 < (kept.valid_until - kept.created_at) / 86_400 <= 90

    # A later lookup of one of the batch's documents: answered from the kept result, no vendor call.
    looked = ok(client.post("/api/consultations", headers=owner, json={"document": documents[1]}))["data"]
    assert looked["status"] == "done" and looked["result"]["cpf"] == documents[1]
    assert simulator.app.stats["requests"] == 3
    assert platform.app.get(UUID(looked["id"]), Consultation).supplier == CACHE_SUPPLIER

    # query-result reopens a batch record's kept result for the batch's group, and for no one else.
    reopened = ok(client.get(f"/api/consultations/{kept_result_id(batch_id, documents[2])}/result", headers=owner))
    assert reopened["data"]["document"] == documents[2]
    denied = client.get(f"/api/consultations/{kept_result_id(batch_id, documents[2])}/result", headers=stranger)
    assert denied.status_code == 404

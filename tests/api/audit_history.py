"""The customer's day the audit tests read back (the log's rows and its export): a white label registered with a
CPF layout, a batch of three CPFs sent and run by the system, seven batch credits granted, an API token made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CPF, cpf_layout, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.documents import cpf_check_digits

LAYOUT: dict[str, Any] = cpf_layout("CPF básico", final_file_name="cpf_basico_enriquecido")


def ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return dict(response.json())


def cpf(n: int) -> str:
    base = f"{n:09d}"
    return base + cpf_check_digits(base)


@dataclass(frozen=True)
class CustomerDay:
    admin: dict[str, str]  # the super-admin's headers
    body: dict[str, Any]  # the customer as registered
    registered: dict[str, Any]  # the registration's answer
    owner: dict[str, str]  # the customer's owner's headers
    batch_id: str
    token: dict[str, Any]  # the API token as created


def customer_day(platform: Platform, api: TestClient, number: int) -> CustomerDay:
    admin = sign_in(api)
    layout_id = ok(api.post("/api/layouts", headers=admin, json=LAYOUT))["id"]
    body = customer(
        number, "white-label", whiteLabelUrl=f"marca{number}.com.br", enabledLayouts=[layout_id], apiAccess=True
    )
    body["quantities"] = {"unit": 3, "batch": 10, "advanced": 0, "api": 5}
    registered = register(api, admin, body)["data"]
    owner = owner_headers(api, registered["ownerEmail"])
    # A batch: sent, then run by the system (started, progressed, finished).
    shown = ok(
        api.post(
            "/api/batches/uploads",
            headers={**owner, "Content-Type": "application/octet-stream"},
            params={"layoutId": layout_id, "fileName": "clientes.csv"},
            content=("CPF\n" + "".join(f"{d}\n" for d in (KNOWN_CPF, cpf(1), cpf(2)))).encode(),
        ),
        201,
    )
    batch_id = ok(api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 201)["id"]
    steps = platform.batches.steps
    steps.start(UUID(batch_id))
    steps.progress(UUID(batch_id), 2, 1, 0)
    steps.finish(UUID(batch_id), 3, 2, 0, "retorno.csv")
    # The root grants the customer more batch credits; the owner makes an API token.
    ok(
        api.post(
            "/api/credits/grants", headers=admin, json={"groupId": registered["id"], "category": "batch", "amount": 7}
        )
    )
    token = ok(api.post("/api/api-tokens", headers=owner, json={"name": "ERP", "queryTypes": ["cpf-complete"]}), 201)
    return CustomerDay(admin, body, registered, owner, batch_id, token)

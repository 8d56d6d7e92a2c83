"""Every time the API answers carries its UTC offset, and every answer fits its own schema
(``format: date-time`` included)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import jsonschema_rs
from customers_support import customer
from fastapi.testclient import TestClient
from support import KNOWN_CPF, api_schema, contact_form, platform_of, sign_in

from bemtevi.domain.mail import Mail

SCHEMA = api_schema()
# Anything that reads as a date and a time of day.
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def fits_schema(path: str, method: str, status: int, body: Any) -> None:
    schema = SCHEMA["paths"][path][method]["responses"][str(status)]["content"]["application/json"]["schema"]
    validator = jsonschema_rs.Draft202012Validator(
        {**schema, "components": SCHEMA["components"]}, validate_formats=True
    )
    errors = [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(body)]
    assert errors == [], f"{method.upper()} {path}"


LAYOUT = {
    "fileName": "clientes",
    "finalFileName": "retorno",
    "returnExtension": "csv",
    "acceptedExtension": "csv",
    "kind": "delimited",
    "delimiter": ";",
    "table": "pessoas",
    "rows": [{"name": "cpf", "type": "document", "order": 1, "direction": "entry"}],
}


def test_every_time_answered_carries_a_utc_offset_and_fits_the_schema(client: TestClient) -> None:
    platform = platform_of(client)
    login = client.post("/api/auth/auth", json={"email": "admin@bemtevi.local", "password": "Adm1n!secret"})
    admin = sign_in(client)
    group_id = client.post("/api/customers", headers=admin, json=customer(1)).json()["data"]["id"]
    grant = {"groupId": group_id, "category": "unit", "amount": 3}
    assert client.post("/api/credits/grants", headers=admin, json=grant).status_code == 200
    looked_up = client.post("/api/consultations", headers=admin, json={"document": KNOWN_CPF})
    assert looked_up.status_code == 200
    fits_schema("/api/consultations", "post", 200, looked_up.json())
    contact = contact_form()
    assert client.post("/api/contact", json=contact).status_code == 202
    layout = client.post("/api/layouts", headers=admin, json=LAYOUT)
    assert layout.status_code == 200, layout.text
    supplier = {
        "name": "Vendor Brasil",
        "contact": "suporte@vendor.example",
        "url": "http://vendor.example",
        "server": "127.0.0.1",
        "port": 8900,
        "route": "/v1/consulta/{document}",
        "authMethod": "bearer",
        "token": "tok-Segredo-9f8e7d",
        "allowedQueryTypes": ["cpf-complete"],
        "cacheDays": 30,
        "validityDays": 90,
    }
    added = client.post("/api/suppliers", headers=admin, json=supplier)
    assert added.status_code == 200, added.text
    # A batch, run to its end (its row has a creation, a start and a finish time).
    exit_row = {**LAYOUT["rows"][0], "direction": "exit"}
    batch_layout = client.post("/api/layouts", headers=admin, json={**LAYOUT, "rows": [*LAYOUT["rows"], exit_row]})
    assert batch_layout.status_code == 200, batch_layout.text
    shown = client.post(
        "/api/batches/uploads",
        headers={**admin, "Content-Type": "application/octet-stream"},
        params={"layoutId": batch_layout.json()["id"], "fileName": "lista.csv"},
        content=f"cpf\n{KNOWN_CPF}\n".encode(),
    )
    assert shown.status_code == 201, shown.text
    fits_schema("/api/batches/uploads", "post", 201, shown.json())
    made = client.post("/api/batches", headers=admin, json={"uploadId": shown.json()["uploadId"]})
    assert made.status_code == 201, made.text
    batch_id = UUID(made.json()["id"])
    platform.batches.steps.start(batch_id)
    platform.batches.steps.finish(batch_id, 1, 1, 0, "return.csv")
    searched = client.post("/api/advanced-queries", headers=admin, json={"state": "SP"})
    assert searched.status_code == 200, searched.text
    assert platform.projector.wait_for(platform.app.max_position(), 10)

    ids = {
        "group_id": group_id,
        "user_id": login.json()["data"]["id"],
        "key": "cpf-complete",
        "layout_id": layout.json()["id"],
        "supplier_id": added.json()["id"],
        "consultation_id": looked_up.json()["data"]["id"],
        "batch_id": str(batch_id),
        "search_id": searched.json()["data"]["id"],
    }
    times: list[str] = [looked_up.json()["data"]["createdAt"]]
    for path, item in SCHEMA["paths"].items():
        operation = item.get("get")
        if operation is None or not operation["responses"]["200"]["content"].get("application/json", {}).get("schema"):
            continue  # not a JSON answer (files, images)
        # A route answering about one document needs it.
        params = {"document": KNOWN_CPF} if path == "/api/audit/data-subject" else None
        response = client.get(path.format(**ids), headers=admin, params=params)
        assert response.status_code == 200, f"{path}: {response.text}"
        fits_schema(path, "get", 200, response.json())
        times += [text for text in strings(response.json()) if TIMESTAMP.match(text)]

    # The lists above had rows with times (a customer, movements, a lookup, mails, sessions, audit).
    assert len(times) > 20
    for text in times:
        assert datetime.fromisoformat(text).utcoffset() == timedelta(0), text


def test_the_mail_outbox_answers_when_a_mail_was_queued_in_utc(client: TestClient) -> None:
    platform = platform_of(client)
    admin = sign_in(client)
    assert client.post("/api/auth/password-recovery", json={"email": "admin@bemtevi.local"}).status_code == 200
    assert platform.projector.wait_for(platform.app.max_position(), 10)
    notifications = platform.app.recorder.select_notifications(1, 1000)
    queued = [e for e in map(platform.app.mapper.to_domain_event, notifications) if isinstance(e, Mail.Queued)]
    (mail,) = client.get("/api/mail/outbox", headers=admin).json()["data"]
    answered = datetime.fromisoformat(mail["time"])
    assert answered.tzinfo is not None
    assert abs(answered - queued[-1].timestamp.astimezone(UTC)) < timedelta(seconds=1)

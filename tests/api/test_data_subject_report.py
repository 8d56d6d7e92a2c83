"""The data-subject report (LGPD art. 18): every consultation of a CPF in every tenant, for the super-admin only;
each run is itself in the audit log."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import pytest
from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CPF, sign_in

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform


@pytest.fixture
def api(platform: Platform) -> Iterator[TestClient]:
    with TestClient(create_app(platform)) as client:
        yield client


def test_the_super_admin_sees_who_consulted_a_cpf_in_every_tenant_and_the_run_is_audited(api: TestClient) -> None:
    admin = sign_in(api)
    owners = []
    for n in (41, 42):
        registered = register(api, admin, customer(n, quantities={"unit": 5, "batch": 0, "advanced": 0, "api": 0}))
        owners.append(owner_headers(api, registered["data"]["ownerEmail"], registered["data"]["generatedPassword"]))
    for owner in owners:
        assert api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF}).status_code == 200
    last = api.post("/api/consultations", headers=owners[0], json={"document": "11144477735"})
    assert last.status_code == 200

    formatted = f"{KNOWN_CPF[:3]}.{KNOWN_CPF[3:6]}.{KNOWN_CPF[6:9]}-{KNOWN_CPF[9:]}"
    report = api.get(f"/api/audit/data-subject?document={formatted}&position={last.json()['position']}", headers=admin)
    assert report.status_code == 200, report.text
    body = report.json()
    assert body["document"] == KNOWN_CPF and body["documentType"] == "cpf"
    rows = body["data"]
    assert len({r["groupId"] for r in rows}) == 2  # both tenants
    assert all(r["userEmail"] and r["channel"] and r["queryType"] and r["createdAt"] for r in rows)
    assert len(rows) == 2  # the other CPF's consultation is not listed

    # The run is in the audit log: who read whose data.
    audit = api.get(f"/api/audit?position={body['position']}&type=DataSubjectReport.Requested", headers=admin).json()
    runs = [r for r in audit["data"] if r["aggregateType"] == "DataSubjectReport"]
    assert runs and runs[0]["eventType"].endswith("Requested") and runs[0]["actorName"]

    exported = api.get(f"/api/audit/data-subject/export?document={KNOWN_CPF}", headers=admin)
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(exported.content.decode("utf-8")), delimiter=";"))
    assert lines[0][:3] == ["Data/hora", "Empresa", "Usuário"] and len(lines) == 3

    # Only the super-admin; a document that is not a CPF or CNPJ is refused.
    assert api.get(f"/api/audit/data-subject?document={KNOWN_CPF}", headers=owners[0]).status_code == 403
    refused = api.get("/api/audit/data-subject?document=123", headers=admin)
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_document_type"

"""The data-subject report (LGPD art. 18): every consultation of a CPF in every tenant, for the super-admin and
the data-protection officer only; each run is itself in the audit log; it says which results are still held."""

from __future__ import annotations

import base64
import csv
import io
from datetime import datetime

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CPF, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.principals import ROOT_GROUP_ID
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer


def test_the_super_admin_sees_who_consulted_a_cpf_in_every_tenant_and_the_run_is_audited(api: TestClient) -> None:
    admin = sign_in(api)
    owners = []
    for n in (41, 42):
        registered = register(api, admin, customer(n, quantities={"unit": 5, "batch": 0, "advanced": 0, "api": 0}))
        owners.append(owner_headers(api, registered["data"]["ownerEmail"]))
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


OFFICER = {
    "name": "Encarregada de Dados",
    "email": "dpo@bemtevi.com.br",
    "cpf": "52998224725",
    "functions": "Encarregada (LGPD)",
    "role": "dpo",
}


def officer_headers(api: TestClient, admin: dict[str, str]) -> dict[str, str]:
    added = api.post("/api/users", headers=admin, json={**OFFICER, "groupId": str(ROOT_GROUP_ID)})
    assert added.status_code == 200, added.text
    return owner_headers(api, OFFICER["email"], added.json()["data"]["generatedPassword"])


def test_the_data_protection_officer_runs_the_report_and_a_plain_user_is_refused(api: TestClient) -> None:
    admin = sign_in(api)
    registered = register(api, admin, customer(43, quantities={"unit": 5, "batch": 0, "advanced": 0, "api": 0}))
    owner = owner_headers(api, registered["data"]["ownerEmail"])
    looked = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF})
    assert looked.status_code == 200
    plain = api.post(
        "/api/users",
        headers=owner,
        json={**OFFICER, "email": "simples@empresa43.com.br", "role": "user"},
    )
    assert plain.status_code == 200, plain.text
    user = owner_headers(api, "simples@empresa43.com.br", plain.json()["data"]["generatedPassword"])

    # The role belongs to the platform's own group only, and only the super-admin gives it.
    elsewhere = api.post("/api/users", headers=admin, json={**OFFICER, "groupId": registered["data"]["id"]})
    assert elsewhere.status_code == 422 and elsewhere.json()["code"] == "role_needs_platform_group"
    by_owner = api.post("/api/users", headers=owner, json={**OFFICER, "email": "dpo@empresa43.com.br"})
    assert by_owner.status_code == 403 and by_owner.json()["code"] == "access_denied"
    officer = officer_headers(api, admin)

    url = f"/api/audit/data-subject?document={KNOWN_CPF}&position={looked.json()['position']}"
    for refused in (user, owner):
        answer = api.get(url, headers=refused)
        assert answer.status_code == 403 and answer.json()["code"] == "access_denied"
        assert api.get(f"/api/audit/data-subject/export?document={KNOWN_CPF}", headers=refused).status_code == 403
    report = api.get(url, headers=officer)
    assert report.status_code == 200, report.text
    assert [r["groupId"] for r in report.json()["data"]] == [registered["data"]["id"]]
    assert api.get(f"/api/audit/data-subject/export?document={KNOWN_CPF}", headers=officer).status_code == 200

    # The officer reads the report, not the tenants' management or their audit log.
    assert api.get("/api/audit", headers=officer).json()["code"] == "access_denied"
    assert api.get("/api/users", headers=officer).status_code == 403


def test_the_report_says_which_results_are_still_held_and_until_when(api: TestClient, platform: Platform) -> None:
    admin = sign_in(api)
    with SimulatorServer(SimulatorConfig()) as vendor:
        vendor.config.expected_authorization = "Bearer tok-Segredo-9f8e7d"
        supplier = {
            "name": "Vendor Brasil",
            "contact": "suporte@vendor.example",
            "url": "http://vendor.example",
            "server": "127.0.0.1",
            "port": vendor.port,
            "route": "/v1/consulta/{document}",
            "httpMethod": "GET",
            "authMethod": "bearer",
            "inputType": "both",
            "token": "tok-Segredo-9f8e7d",
            "allowedQueryTypes": ["cpf-complete"],
            "allowedLayouts": [],
            "cacheDays": 30,
            "validityDays": 90,
        }
        assert api.post("/api/suppliers", json=supplier, headers=admin).status_code == 200
        cpf = "39053344705"  # not in the local dataset: the vendor answers, and its result is kept
        assert platform.supplier.lookup("cpf", cpf) is None
        looked = api.post("/api/consultations", headers=admin, json={"document": cpf})
        assert looked.status_code == 200, looked.text
    local = api.post("/api/consultations", headers=admin, json={"document": KNOWN_CPF})
    report = api.get(f"/api/audit/data-subject?document={cpf}&position={looked.json()['position']}", headers=admin)
    (row,) = report.json()["data"]
    assert row["keptUntil"] and row["keptUntil"] > row["createdAt"]
    held_days = (datetime.fromisoformat(row["keptUntil"]) - datetime.fromisoformat(row["createdAt"])).days
    assert 89 <= held_days <= 90  # the supplier's validity
    exported = api.get(f"/api/audit/data-subject/export?document={cpf}&lang=en-US", headers=admin)
    lines = list(csv.reader(io.StringIO(exported.content.decode("utf-8")), delimiter=";"))
    assert lines[0][-1] == "Result kept until" and lines[1][-1] != "-"
    # The local dataset's answer is not personal data the platform holds: nothing kept.
    other = api.get(f"/api/audit/data-subject?document={KNOWN_CPF}&position={local.json()['position']}", headers=admin)
    assert [r["keptUntil"] for r in other.json()["data"]] == [None]


def test_the_pdf_export_is_signed_and_a_changed_byte_no_longer_verifies(api: TestClient) -> None:
    admin = sign_in(api)
    looked = api.post("/api/consultations", headers=admin, json={"document": KNOWN_CPF})
    assert looked.status_code == 200
    exported = api.get(f"/api/audit/data-subject/export?document={KNOWN_CPF}&format=pdf&lang=en-US", headers=admin)
    assert exported.status_code == 200, exported.text
    assert exported.headers["content-type"] == "application/pdf" and exported.content.startswith(b"%PDF-")
    assert exported.headers["content-disposition"].endswith('.pdf"')
    pdf, signature = exported.content, exported.headers["x-signature"]
    assert exported.headers["x-signature-algorithm"] == "Ed25519"

    # Offline, with the platform's public key alone (what a receiver of the file does).
    key = api.get("/api/audit/data-subject/signing-key").json()
    assert key["keyId"] == exported.headers["x-signature-key-id"]
    public = serialization.load_pem_public_key(key["publicKeyPem"].encode())
    assert isinstance(public, Ed25519PublicKey)
    public.verify(base64.b64decode(signature), pdf)
    changed = bytearray(pdf)
    changed[len(changed) // 2] ^= 0x01
    with pytest.raises(InvalidSignature):
        public.verify(base64.b64decode(signature), bytes(changed))

    # Or through the platform's check, without signing in.
    def check(content: bytes, sig: str = signature) -> bool:
        answer = api.post(
            "/api/audit/data-subject/verify",
            params={"signature": sig},
            content=content,
            headers={"Content-Type": "application/pdf"},
        )
        assert answer.status_code == 200, answer.text
        return bool(answer.json()["valid"])

    assert check(pdf)
    assert not check(bytes(changed))
    assert not check(pdf + b"\n")
    assert not check(pdf, "not base64!")
    assert b"Data-subject report" in pdf  # the title, in the file's metadata

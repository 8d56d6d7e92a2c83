"""A consultation's purpose (LGPD art. 6 I): what its user said it was for, given with a unit lookup (panel and
public API), an advanced result opened or a batch submitted, recorded with it and shown to the data subject in the
data-subject report (screen, CSV and signed PDF). A group may require it; older consultations have none."""

from __future__ import annotations

import csv
import io
import zlib
from dataclasses import replace
from typing import Any
from uuid import UUID

import orjson
from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CNPJ, KNOWN_CPF, sign_in
from test_batches_api import csv_of, new_customer, new_layout, upload

from bemtevi.bootstrap import Platform
from bemtevi.domain.consultations import PURPOSE_MAX, Consultation
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.query_types import Category

QUANTITIES = {"unit": 5, "batch": 0, "advanced": 2, "api": 5}


def _company(api: TestClient, admin: dict[str, str], n: int) -> tuple[str, dict[str, str]]:
    data = register(api, admin, customer(n, apiAccess=True, quantities=QUANTITIES))["data"]
    return data["id"], owner_headers(api, data["ownerEmail"])


def _report(api: TestClient, admin: dict[str, str], document: str, position: int) -> list[dict[str, Any]]:
    answer = api.get(f"/api/audit/data-subject?document={document}&position={position}", headers=admin)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["data"])


def _pdf_text(content: bytes) -> str:
    """The text drawn on a PDF's pages (fpdf2 deflates each page's content stream)."""
    texts = []
    for chunk in content.split(b"stream\n")[1:]:
        body = chunk.split(b"\nendstream")[0]
        try:
            texts.append(zlib.decompress(body).decode("latin-1"))
        except zlib.error:
            continue
    return "".join(texts)


def test_a_purpose_given_with_a_lookup_shows_in_the_data_subject_report_screen_csv_and_pdf(api: TestClient) -> None:
    admin = sign_in(api)
    _, owner = _company(api, admin, 71)
    said = "  Análise de crédito\n do contrato 4512  "
    looked = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF, "purpose": said})
    assert looked.status_code == 200, looked.text
    bare = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF, "purpose": "   "})
    assert bare.status_code == 200, bare.text

    rows = _report(api, admin, KNOWN_CPF, bare.json()["position"])
    # Newest first; blanks folded, and a purpose of blanks only is none.
    assert [r["purpose"] for r in rows] == [None, "Análise de crédito do contrato 4512"]

    exported = api.get(f"/api/audit/data-subject/export?document={KNOWN_CPF}&lang=en-US", headers=admin)
    lines = list(csv.reader(io.StringIO(exported.content.decode("utf-8")), delimiter=";"))
    column = lines[0].index("Purpose")
    assert [line[column] for line in lines[1:]] == ["-", "Análise de crédito do contrato 4512"]
    pt = api.get(f"/api/audit/data-subject/export?document={KNOWN_CPF}", headers=admin)
    assert "Finalidade" in pt.content.decode("utf-8").splitlines()[0]

    pdf = api.get(f"/api/audit/data-subject/export?document={KNOWN_CPF}&format=pdf&lang=pt-BR", headers=admin)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    drawn = _pdf_text(pdf.content)
    assert "Finalidade" in drawn and "contrato 4512" in drawn


def test_the_public_api_and_an_advanced_result_record_their_purpose(api: TestClient, platform: Platform) -> None:
    admin = sign_in(api)
    _, owner = _company(api, admin, 72)
    created = api.post("/api/api-tokens", headers=owner, json={"name": "ERP", "queryTypes": ["cnpj-complete"]})
    assert created.status_code == 201, created.text
    bearer = {"Authorization": f"Bearer {created.json()['accessToken']}"}
    looked = api.post(
        "/api/v1/lookups", headers=bearer, json={"document": KNOWN_CNPJ, "purpose": "Cadastro de fornecedor"}
    )
    assert looked.status_code == 200, looked.text
    [row] = _report(api, admin, KNOWN_CNPJ, looked.json()["position"])
    assert (row["channel"], row["purpose"]) == ("api", "Cadastro de fornecedor")

    known = platform.supplier.lookup("cpf", KNOWN_CPF)
    assert known is not None
    search = api.post("/api/advanced-queries", headers=owner, json={"name": known["name"]}).json()["data"]
    listed = api.get(f"/api/advanced-queries/{search['id']}/results?perPage=100", headers=owner).json()["data"]
    ref = next(r["ref"] for r in listed if r["name"] == known["name"])
    opened = api.post(
        f"/api/advanced-queries/{search['id']}/results/{ref}", headers=owner, json={"purpose": "Prevenção à fraude"}
    )
    assert opened.status_code == 200, opened.text
    rows = _report(api, admin, KNOWN_CPF, opened.json()["position"])
    assert [(r["channel"], r["purpose"]) for r in rows] == [("advanced", "Prevenção à fraude")]
    # Opening without a body still works (the body is optional).
    again = api.post(f"/api/advanced-queries/{search['id']}/results/{ref}", headers=owner)
    assert again.status_code == 200, again.text


def test_a_group_that_requires_the_purpose_refuses_lookups_and_batches_without_one(
    api: TestClient, platform: Platform
) -> None:
    admin = sign_in(api)
    layout_id = new_layout(api, admin)
    group_id, owner = new_customer(api, admin, 73, layout_id, batch=10)
    granted = api.post(
        "/api/credits/grants", headers=admin, json={"groupId": group_id, "category": "unit", "amount": 3}
    )
    assert granted.status_code == 200, granted.text
    assert api.get("/api/group/purpose-setting", headers=owner).json() == {
        "groupId": group_id,
        "purposeRequired": False,
        "purposeMaxLength": PURPOSE_MAX,
    }
    changed = api.put(f"/api/group/{group_id}/purpose-setting", headers=owner, json={"purposeRequired": True})
    assert changed.status_code == 200, changed.text
    assert api.get("/api/group/purpose-setting", headers=owner).json()["purposeRequired"] is True
    unit = credit_account_id(UUID(group_id), Category.UNIT)
    before = platform.app.get(unit, CreditAccount).available

    for purpose in (None, "", " \n "):
        body = {"document": KNOWN_CPF} | ({} if purpose is None else {"purpose": purpose})
        refused = api.post("/api/consultations", headers=owner, json=body)
        assert (refused.status_code, refused.json()["code"], refused.json()["field"]) == (
            422,
            "purpose_required",
            "purpose",
        ), refused.text
    assert platform.app.get(unit, CreditAccount).available == before  # nothing charged, nothing held
    too_long = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF, "purpose": "x" * 201})
    assert (too_long.status_code, too_long.json()["code"]) == (422, "text_too_long")
    done = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF, "purpose": "Due diligence"})
    assert done.status_code == 200, done.text

    shown = upload(api, owner, layout_id, csv_of(KNOWN_CPF))
    assert shown.status_code == 201, shown.text
    upload_id = shown.json()["uploadId"]
    refused = api.post("/api/batches", headers=owner, json={"uploadId": upload_id})
    assert (refused.status_code, refused.json()["code"]) == (422, "purpose_required")
    submitted = api.post("/api/batches", headers=owner, json={"uploadId": upload_id, "purpose": " Recadastro anual "})
    assert submitted.status_code == 201, submitted.text
    assert platform.batches.batch(UUID(submitted.json()["id"])).purpose == "Recadastro anual"

    # Another tenant's owner can neither read nor change the setting; the group's plain user cannot change it.
    _, stranger = _company(api, admin, 74)
    assert api.get(f"/api/group/purpose-setting?groupId={group_id}", headers=stranger).status_code == 404
    taken = api.put(f"/api/group/{group_id}/purpose-setting", headers=stranger, json={"purposeRequired": False})
    assert taken.status_code == 404
    assert api.get("/api/group/purpose-setting", headers=owner).json()["purposeRequired"] is True


def test_a_consultation_recorded_before_purposes_existed_replays_and_reports_none(
    api: TestClient, platform: Platform
) -> None:
    admin = sign_in(api)
    _, owner = _company(api, admin, 75)
    first = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF, "purpose": "Novo"})
    assert first.status_code == 200
    # An older event: the same lookup's Recorded event as stored before the field existed, appended as another
    # consultation (its own id).
    recorded = platform.app.repository.event_store.get(UUID(first.json()["data"]["id"]))
    [stored] = [platform.app.mapper.to_stored_event(e) for e in recorded]
    state = orjson.loads(stored.state)
    assert state.pop("purpose") == "Novo"
    older_id = UUID(int=UUID(first.json()["data"]["id"]).int ^ 1)
    older = replace(stored, originator_id=older_id, state=orjson.dumps(state))
    platform.app.recorder.insert_events([older])

    replayed = platform.app.get(older_id, Consultation)
    assert replayed.purpose is None and replayed.document == KNOWN_CPF and replayed.credits == 1
    rows = _report(api, admin, KNOWN_CPF, platform.app.max_position())
    assert {(r["consultationId"], r["purpose"]) for r in rows} == {
        (str(older_id), None),
        (first.json()["data"]["id"], "Novo"),
    }

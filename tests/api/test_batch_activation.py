"""An enrichment (a batch) that is over can be inactivated and activated again (spec: "Enrichment can be activated
or inactivated"): by events its audit shows, listed as inactive, its return file not served meanwhile."""

from __future__ import annotations

from uuid import UUID

from fastapi.testclient import TestClient
from support import saved_after, sign_in
from test_batches_api import _run, cpf, csv_of, new_customer, new_layout, ok, refused, upload

from bemtevi.bootstrap import Platform


def test_an_enrichment_that_is_over_is_inactivated_and_activated_again(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    layout_id = new_layout(api, admin)
    _, owner = new_customer(api, admin, 31, layout_id, batch=10)
    shown = ok(upload(api, owner, layout_id, csv_of(cpf(31), cpf(32))), 201)
    made = ok(api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 201)
    batch_id = made["id"]
    listed = ok(api.get(f"/api/batches/{batch_id}", headers=owner, params={"position": made["position"]}))["data"]
    assert (listed["active"], listed["canToggle"]) == (True, False)
    # A running one is canceled, not inactivated.
    refused(api.post(f"/api/batches/{batch_id}/status", headers=owner, json={"active": False}), 409, "batch_still_open")

    _run(platform, batch_id, found=1)
    work = platform.batches.files.work_dir(UUID(batch_id))
    work.mkdir(parents=True)
    (work / "return.csv").write_text("CPF;NOME\n", encoding="utf-8")
    assert api.get(f"/api/batches/{batch_id}/return", headers=owner).status_code == 200

    off = ok(api.post(f"/api/batches/{batch_id}/status", headers=owner, json={"active": False}))
    rows = ok(api.get("/api/batches", headers=owner, params={"position": off["position"]}))["data"]
    assert [(r["id"], r["status"], r["active"], r["canToggle"]) for r in rows] == [(batch_id, "available", False, True)]
    refused(api.get(f"/api/batches/{batch_id}/return", headers=owner), 409, "batch_inactive")
    # The same state again appends nothing (the owner's invitation may be delivered meanwhile: not this request's).
    ok(api.post(f"/api/batches/{batch_id}/status", headers=owner, json={"active": False}))
    assert saved_after(platform.app, off["position"]) == []

    on = ok(api.post(f"/api/batches/{batch_id}/status", headers=owner, json={"active": True}))
    row = ok(api.get(f"/api/batches/{batch_id}", headers=owner, params={"position": on["position"]}))["data"]
    assert row["active"] is True
    assert api.get(f"/api/batches/{batch_id}/return", headers=owner).status_code == 200
    # Audited like every other toggle: who did it, in the audit's words.
    audit = ok(api.get("/api/audit", headers=owner, params={"position": on["position"], "perPage": 100}))["data"]
    mine = [(r["eventType"], r["changes"]) for r in audit if r["aggregateId"] == batch_id]
    assert {"Inactivated", "Activated"} <= {kind for kind, _ in mine}, mine

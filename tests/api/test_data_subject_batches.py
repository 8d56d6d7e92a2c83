"""A document enriched in a batch is a consultation of it, like a unit lookup: the data-subject report (screen, CSV,
signed PDF) lists it on channel ``batch`` with the batch's user and group, when its run started, its query type and
the purpose given with the batch, naming the batch (its file and id). A manual enrichment and a batch sent through
the public API alike; a batch without a purpose (an older one among them) shows none; a deleted batch still shows;
a document a canceled run looked up after the cancel shows; a replay of the log gives the same; a vendor's answer
the batch kept shows as held until its validity."""

from __future__ import annotations

import csv
import io
import shutil
import threading
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson
import pytest
from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CPF, sign_in, simulated_vendor, super_admin, unknown_cpfs
from test_batches_api import LAYOUT, cpf, csv_of, ok
from test_consultation_purpose import _pdf_text

from bemtevi.bootstrap import Platform
from bemtevi.bootstrap.batches import batch_runner
from bemtevi.domain.batches import Batch, kept_result_id
from bemtevi.infra.batches.pipeline import run_batch
from bemtevi.infra.secrets import SecretBox
from bemtevi.infra.suppliers.simulator import SimulatorConfig, SimulatorServer
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.data_subject import batch_consultations_of_document, batches_of_document
from bemtevi.projections.store import ReadStore
from bemtevi.streams.enrichment import BatchRunner, BatchSide, pipeline_inputs
from bemtevi.streams.projector import Projector


def _run(platform: Platform, batch_id: str) -> None:
    lookups = platform.consultations.vendor_lookups
    assert lookups is not None
    box = SecretBox(platform.settings.vendor_secrets_key)
    runner = batch_runner(platform.settings, platform.app, platform.batches, box, threading.Event(), lookups)
    assert runner.run(UUID(batch_id))
    assert platform.batches.batch(UUID(batch_id)).status == "available"


def _send(api: TestClient, headers: dict[str, str], prefix: str, layout_id: str, name: str, **submit: Any) -> str:
    shown = ok(
        api.post(
            f"{prefix}/batches/uploads",
            headers={**headers, "Content-Type": "application/octet-stream"},
            params={"layoutId": layout_id, "fileName": name, "queryType": "cpf-complete"},
            content=csv_of(cpf(901), KNOWN_CPF, cpf(902)),
        ),
        201,
    )
    return str(
        ok(api.post(f"{prefix}/batches", headers=headers, json={"uploadId": shown["uploadId"], **submit}), 201)["id"]
    )


def _report(api: TestClient, platform: Platform, admin: dict[str, str], document: str) -> list[dict[str, Any]]:
    position = platform.app.max_position()
    answer = api.get("/api/audit/data-subject", headers=admin, params={"document": document, "position": position})
    assert answer.status_code == 200, answer.text
    return list(answer.json()["data"])


def test_a_batchs_documents_show_in_the_data_subject_report_with_its_purpose_in_json_csv_and_pdf(
    platform: Platform, api: TestClient, tmp_path: Path
) -> None:
    admin = sign_in(api)
    layout_id = str(ok(api.post("/api/layouts", headers=admin, json=LAYOUT))["id"])
    body = customer(
        91,
        "white-label",
        whiteLabelUrl=f"titular{91}.com.br",
        enabledLayouts=[layout_id],
        apiAccess=True,
        quantities={"unit": 5, "batch": 20, "advanced": 0, "api": 10},
    )
    registered = register(api, admin, body)["data"]
    group_id, owner = registered["id"], owner_headers(api, registered["ownerEmail"])
    token = ok(api.post("/api/api-tokens", headers=owner, json={"name": "ERP", "queryTypes": ["cpf-complete"]}), 201)
    bearer = {"Authorization": f"Bearer {token['accessToken']}"}

    # A unit lookup first, then the owner's batch with a purpose, a manual enrichment by the super-admin for the
    # customer without one, and a batch through the public API with one.
    ok(api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF, "purpose": "Cadastro"}))
    panel = _send(api, owner, "/api", layout_id, "clientes.csv", purpose=" Recadastro anual ")
    _run(platform, panel)
    manual = _send(api, admin, "/api", layout_id, "carteira.csv", groupId=group_id)
    _run(platform, manual)
    by_api = _send(api, bearer, "/api/v1", layout_id, "erp.csv", purpose="Conciliação")
    _run(platform, by_api)

    rows = _report(api, platform, admin, KNOWN_CPF)
    assert [(r["channel"], r["batchId"], r["origin"], r["purpose"]) for r in rows] == [
        ("batch", by_api, "api", "Conciliação"),
        ("batch", manual, "manual", None),
        ("batch", panel, "batch", "Recadastro anual"),
        ("panel", None, None, "Cadastro"),
    ]
    owner_email = registered["ownerEmail"]
    by_owner = rows[2]
    assert (by_owner["groupId"], by_owner["userEmail"]) == (group_id, owner_email)
    assert by_owner["groupName"] == rows[3]["groupName"] is not None  # the group's name, as a unit lookup's
    assert (by_owner["queryType"], by_owner["status"], by_owner["fileName"]) == ("cpf-complete", "done", "clientes.csv")
    assert by_owner["consultationId"] == str(kept_result_id(UUID(panel), KNOWN_CPF))
    started = platform.batches.batch(UUID(panel)).started_at
    assert by_owner["createdAt"].startswith(started.strftime("%Y-%m-%dT%H:%M:%S"))
    assert rows[1]["groupId"] == group_id and rows[1]["userEmail"] != owner_email  # the super-admin, for the customer
    # Another document of the same file is its own consultation; one the file does not hold has none.
    assert [r["batchId"] for r in _report(api, platform, admin, cpf(902))] == [by_api, manual, panel]
    assert _report(api, platform, admin, "11144477735") == []

    exported = api.get("/api/audit/data-subject/export", headers=admin, params={"document": KNOWN_CPF, "lang": "en-US"})
    lines = list(csv.reader(io.StringIO(exported.content.decode("utf-8")), delimiter=";"))
    purpose, reference, channel = (lines[0].index(c) for c in ("Purpose", "Reference", "Channel"))
    assert [line[purpose] for line in lines[1:]] == ["Conciliação", "-", "Recadastro anual", "Cadastro"]
    assert [line[channel] for line in lines[1:]] == ["batch", "batch", "batch", "panel"]
    assert lines[3][reference] == f"Batch clientes.csv ({panel})"
    assert lines[2][reference] == f"Manual enrichment carteira.csv ({manual})"
    pdf = api.get("/api/audit/data-subject/export", headers=admin, params={"document": KNOWN_CPF, "format": "pdf"})
    assert pdf.status_code == 200, pdf.text
    drawn = _pdf_text(pdf.content)
    assert "Recadastro anual" in drawn and "Lote clientes.csv" in drawn and "Lote pela API erp.csv" in drawn

    # Deleted, the batch's files are gone and its consultations are not.
    ok(api.delete(f"/api/batches/{panel}", headers=admin))
    assert not platform.batches.files.batch_dir(UUID(panel)).exists()
    assert _report(api, platform, admin, KNOWN_CPF) == rows

    # The log replayed into a fresh store answers the same.
    store = ReadStore(tmp_path / "replay.duckdb")
    try:
        Projector(platform.app, store, all_read_models(platform.batches.files.looked_up), page_size=3).rebuild()
        answers, indexes = [], []
        for cur in (platform.store.cursor(), store.cursor()):
            looked, running = batches_of_document(cur, KNOWN_CPF)
            assert running == []  # every batch is over: the index answers for all
            answers.append(batch_consultations_of_document(cur, KNOWN_CPF, looked))
            indexes.append(sorted(cur.execute("SELECT * FROM subject_batch_documents").fetchall()))
        assert answers[0] == answers[1]
        assert indexes[0] == indexes[1]  # the deleted batch's documents too, from the file its deletion kept
        assert [(r["batchId"], r["purpose"]) for r in answers[1]] == [(r["batchId"], r["purpose"]) for r in rows[:3]]
    finally:
        store.close()


def test_a_batch_submitted_before_purposes_were_recorded_replays_and_shows_none(
    platform: Platform, api: TestClient
) -> None:
    admin = sign_in(api)
    layout_id = str(ok(api.post("/api/layouts", headers=admin, json=LAYOUT))["id"])
    sent = _send(api, admin, "/api", layout_id, "antigo.csv", purpose="Nova")
    _run(platform, sent)
    # The same batch's Submitted and Started as stored before the category and the purpose existed, appended as
    # another batch (its own id) whose run left the same files.
    older_id = UUID(int=UUID(sent).int ^ 1)
    stored = [platform.app.mapper.to_stored_event(e) for e in platform.app.repository.event_store.get(UUID(sent))]
    older = []
    for event in stored[:2]:
        state = orjson.loads(event.state)
        if event.topic.endswith("Batch.Submitted"):
            assert (state.pop("purpose"), state.pop("category")) == ("Nova", "batch")
        older.append(replace(event, originator_id=older_id, state=orjson.dumps(state)))
    assert [e.topic.rsplit(".", 1)[-1] for e in older] == ["Submitted", "Started"]
    platform.app.recorder.insert_events(older)
    files = platform.batches.files
    shutil.copytree(files.batch_dir(UUID(sent)), files.batch_dir(older_id))

    assert platform.app.get(older_id, Batch).purpose is None
    rows = _report(api, platform, admin, KNOWN_CPF)
    assert {(r["batchId"], r["purpose"], r["origin"]) for r in rows} == {
        (sent, "Nova", "batch"),
        (str(older_id), None, "batch"),
    }


def test_a_batchs_vendor_answer_shows_as_still_held_until_its_validity(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    layout_id = str(ok(api.post("/api/layouts", headers=admin, json=LAYOUT))["id"])
    [unknown] = unknown_cpfs(platform.supplier, 1)  # only the vendor knows it: its answer is kept
    with SimulatorServer(SimulatorConfig(expected_authorization="Bearer tok-123")) as vendor:
        platform.vendors.register(super_admin(platform), simulated_vendor(vendor.port))
        shown = ok(
            api.post(
                "/api/batches/uploads",
                headers={**admin, "Content-Type": "application/octet-stream"},
                params={"layoutId": layout_id, "fileName": "novos.csv", "queryType": "cpf-complete"},
                content=csv_of(unknown, KNOWN_CPF),
            ),
            201,
        )
        sent = str(ok(api.post("/api/batches", headers=admin, json={"uploadId": shown["uploadId"]}), 201)["id"])
        _run(platform, sent)
        assert vendor.app.stats["requests"] == 1

    [row] = _report(api, platform, admin, unknown)
    assert (row["batchId"], row["status"], row["purpose"]) == (sent, "done", None)
    held_days = (datetime.fromisoformat(row["keptUntil"]) - datetime.fromisoformat(row["createdAt"])).days
    assert 89 <= held_days <= 90  # the vendor's validity
    # The local dataset's answer is not held.
    assert [r["keptUntil"] for r in _report(api, platform, admin, KNOWN_CPF)] == [None]


def test_a_batch_over_is_found_by_the_read_sides_index_not_by_reading_its_files(
    platform: Platform, api: TestClient
) -> None:
    admin = sign_in(api)
    layout_id = str(ok(api.post("/api/layouts", headers=admin, json=LAYOUT))["id"])
    sent = _send(api, admin, "/api", layout_id, "indice.csv")
    _run(platform, sent)
    rows = _report(api, platform, admin, KNOWN_CPF)
    assert [(r["batchId"], r["status"]) for r in rows] == [(sent, "done")]

    # Its end indexed its documents: the report no longer reads its files, however many batches ran before it.
    shutil.rmtree(platform.batches.files.batch_dir(UUID(sent)))
    assert _report(api, platform, admin, KNOWN_CPF) == rows
    assert [r["batchId"] for r in _report(api, platform, admin, cpf(902))] == [sent]


@pytest.mark.parametrize("deleted", [False, True], ids=["canceled", "canceled-and-deleted"])
def test_a_document_a_canceled_run_writes_after_the_cancel_shows_in_the_report(
    platform: Platform, api: TestClient, tmp_path: Path, deleted: bool
) -> None:
    """The runner sees a user's cancel only at its next look: a chunk it writes after ``Canceled`` (and after the
    projector handled it) was consulted all the same, and the report lists it, live and replayed; so too when the
    batch is deleted at once, before that chunk."""
    admin = sign_in(api)
    layout_id = str(ok(api.post("/api/layouts", headers=admin, json=LAYOUT))["id"])
    sent = _send(api, admin, "/api", layout_id, "cancelado.csv")  # cpf(901), KNOWN_CPF, cpf(902): a chunk each
    written: list[Any] = []

    def one_chunk_past_the_cancel(**inputs: Any) -> Any:
        runners_look, runners_progress = inputs["should_stop"], inputs["on_progress"]

        def on_progress(progress: Any) -> None:
            written.append(progress)
            runners_progress(progress)
            if len(written) == 1:
                ok(api.post(f"/api/batches/{sent}/cancel", headers=admin))
                if deleted:
                    ok(api.delete(f"/api/batches/{sent}", headers=admin))
                # The projector has handled Canceled (the report reads at its position) while the run goes on.
                assert [r["batchId"] for r in _report(api, platform, admin, cpf(901))] == [sent]

        def should_stop() -> bool:  # the runner's next look comes only after the next chunk
            return len(written) >= 2 and runners_look()

        return run_batch(**inputs | {"on_progress": on_progress, "should_stop": should_stop})

    side = BatchSide(
        platform.app,
        platform.batches.steps,
        pipeline_inputs(platform.app, platform.batches.files.sent_file, platform.settings.demo_dataset_path, 1),
    )
    runner = BatchRunner(side, one_chunk_past_the_cancel, platform.batches.files.work_dir, threading.Event())
    assert runner.run(UUID(sent))
    assert len(written) == 2  # stopped at the look after the chunk of KNOWN_CPF: cpf(902) was never looked up
    assert [(r["batchId"], r["status"]) for r in _report(api, platform, admin, KNOWN_CPF)] == [(sent, "done")]
    assert [r["batchId"] for r in _report(api, platform, admin, cpf(901))] == [sent]
    assert _report(api, platform, admin, cpf(902)) == []
    batch = platform.app.get(UUID(sent), Batch)
    assert (batch.status, batch.run_stopped, batch.deleted) == ("canceled", True, deleted)
    # A deleted batch's files went once its run stopped, what it looked up kept apart.
    assert platform.batches.files.batch_dir(UUID(sent)).exists() is not deleted
    # Its run stopped, its documents are indexed: found without its files, and a replay makes the same index.
    assert batches_of_document(platform.store.cursor(), KNOWN_CPF)[1] == []
    store = ReadStore(tmp_path / "replay.duckdb")
    try:
        Projector(platform.app, store, all_read_models(platform.batches.files.looked_up)).rebuild()
        indexes = [
            sorted(cur.execute("SELECT * FROM subject_batch_documents").fetchall())
            for cur in (platform.store.cursor(), store.cursor())
        ]
        assert indexes[0] == indexes[1] and len(indexes[0]) == 2
    finally:
        store.close()
    # A runner meeting it again (a resume after a crash) has nothing more to say.
    events = len(list(platform.app.repository.event_store.get(UUID(sent))))
    assert runner.run(UUID(sent))
    assert len(list(platform.app.repository.event_store.get(UUID(sent)))) == events

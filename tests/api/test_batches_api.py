"""Batches and manual enrichment through the API: uploads refused with a clear message and nothing
reserved, submit reserving exactly the credits needed, the group's rules, cancel and delete by role,
tenant isolation on every route, the list's sorting and scope, and the read model's replay.

The rules that append to the event store and move credits in the ledger (submit reserves, finish settles, cancel
releases, delete, another tenant's 404, the group's open-batch limit and its credits) run on SQLite and on
PostgreSQL (the ``platform`` fixture, ``api`` its client); the file checks and messages on SQLite only."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from customers_support import customer, edit_body, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CPF, cpf_layout, inflating_xlsx, saved_after, sign_in, zip_bomb

from bemtevi.bootstrap import Platform
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.documents import cpf_check_digits
from bemtevi.domain.query_types import Category
from bemtevi.infra.batches.pipeline import staged_path
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.store import ReadStore
from bemtevi.streams.projector import Projector

LAYOUT: dict[str, Any] = cpf_layout("clientes", "NOME", final_file_name="clientes_enriquecidos")
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def cpf(n: int) -> str:
    base = f"{n:09d}"
    return base + cpf_check_digits(base)


def csv_of(*documents: str) -> bytes:
    return ("CPF\n" + "".join(f"{d}\n" for d in documents)).encode()


def ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return dict(response.json())


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = dict(response.json())
    assert body["code"] == code, body
    return body


def upload(client: TestClient, headers: dict[str, str], layout_id: str, data: bytes, name: str = "lista.csv") -> Any:
    return client.post(
        "/api/batches/uploads",
        headers={**headers, "Content-Type": "application/octet-stream"},
        params={"layoutId": layout_id, "fileName": name},
        content=data,
    )


def reserved(platform: Platform, group_id: UUID) -> int:
    account = platform.app.find(credit_account_id(group_id, Category.BATCH), CreditAccount)
    return account.reserved if account is not None else 0


def batch_account(platform: Platform, group_id: UUID) -> CreditAccount:
    account = platform.app.find(credit_account_id(group_id, Category.BATCH), CreditAccount)
    assert account is not None
    return account


def new_layout(client: TestClient, admin: dict[str, str], **changes: Any) -> str:
    return str(ok(client.post("/api/layouts", headers=admin, json={**LAYOUT, **changes}))["id"])


def new_customer(
    client: TestClient,
    admin: dict[str, str],
    n: int,
    layout_id: str,
    batch: int = 10,
    toggles: dict[str, bool] | None = None,
) -> tuple[str, dict[str, str]]:
    body = customer(n, "white-label", whiteLabelUrl=f"marca{n}.com.br", enabledLayouts=[layout_id])
    body["quantities"] = {**body["quantities"], "batch": batch}
    registered = register(client, admin, body)
    if toggles is not None:
        edited = edit_body(body, toggles=toggles)
        ok(client.put(f"/api/customers/{registered['data']['id']}", headers=admin, json=edited))
    headers = owner_headers(client, registered["data"]["ownerEmail"])
    return str(registered["data"]["id"]), headers


def test_an_upload_is_previewed_for_free_and_submit_reserves_exactly_what_it_needs(
    platform: Platform, api: TestClient
) -> None:
    admin = sign_in(api)
    layout_id = new_layout(api, admin)
    group_id, owner = new_customer(api, admin, 1, layout_id, batch=10)
    group = UUID(group_id)
    documents = [KNOWN_CPF, cpf(1), cpf(2), "12345678900"]  # the last one's check digits are wrong
    shown = ok(upload(api, owner, layout_id, csv_of(*documents)), 201)
    assert (shown["records"], shown["validDocuments"], shown["invalidDocuments"]) == (4, 3, 1)
    assert shown["creditsNeeded"] == 3
    assert shown["creditsAvailable"] == 10
    assert shown["extension"] == "CSV" and shown["encoding"] == "utf-8"
    assert shown["foundInDataset"] >= 1  # the known CPF is in the demo dataset
    assert reserved(platform, group) == 0, "a preview reserves nothing"

    submitted = ok(
        api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"], "observation": "março"}),
        201,
    )
    assert reserved(platform, group) == 3
    assert batch_account(platform, group).available == 7
    row = ok(api.get(f"/api/batches/{submitted['id']}", headers=owner, params={"position": submitted["position"]}))
    data = row["data"]
    assert (data["status"], data["kind"], data["records"], data["creditsReserved"]) == ("waiting", "batch", 4, 3)
    assert (data["observation"], data["fileName"], data["layoutName"]) == ("março", "lista.csv", "clientes")
    assert data["groupId"] == group_id
    # The sent file comes back as it was sent; the return file is not ready before the batch is available.
    sent = api.get(f"/api/batches/{submitted['id']}/file", headers=owner)
    assert sent.status_code == 200 and sent.content == csv_of(*documents)
    assert "lista.csv" in sent.headers["content-disposition"]
    # The preview's staged records went with the file: the run joins them instead of reading it again.
    sent_path = platform.batches.files.batch_dir(UUID(submitted["id"])) / "sent" / "lista.csv"
    assert staged_path(sent_path).exists()
    refused(api.get(f"/api/batches/{submitted['id']}/return", headers=owner), 404, "return_not_ready")
    # An upload is submitted once.
    refused(api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 404, "upload_not_found")


@pytest.fixture(scope="module")
def bad_file_customer(
    refusing_client: tuple[TestClient, Platform],
) -> tuple[TestClient, Platform, str, str, dict[str, str]]:
    """A customer and its layout on the module's refusals platform, for the bad files (none is kept)."""
    client, platform = refusing_client
    admin = sign_in(client)
    layout_id = new_layout(client, admin)
    group_id, owner = new_customer(client, admin, 2, layout_id)
    return client, platform, layout_id, group_id, owner


@pytest.mark.parametrize(
    ("name", "data", "status", "code"),
    [
        ("vazio.csv", b"", 422, "file_empty"),
        ("foto.csv", PNG, 422, "file_type_not_allowed"),
        ("lista.pdf", csv_of(KNOWN_CPF), 422, "file_type_not_allowed"),
        ("utf16.csv", "CPF\n52998224725\n".encode("utf-16"), 422, "file_encoding"),
        ("binario.csv", b"CPF\n\x00\x01\x02\x03\x04", 422, "file_type_not_allowed"),
    ],
)
def test_a_bad_file_is_refused_with_a_clear_message_and_nothing_reserved(
    bad_file_customer: tuple[TestClient, Platform, str, str, dict[str, str]],
    name: str,
    data: bytes,
    status: int,
    code: str,
) -> None:
    client, platform, layout_id, group_id, owner = bad_file_customer
    before = platform.app.max_position()
    body = refused(upload(client, owner, layout_id, data, name), status, code)
    assert body["message"]
    assert reserved(platform, UUID(group_id)) == 0
    assert saved_after(platform.app, before) == []  # nothing saved (the owner's invitation may go meanwhile)


def test_bad_xlsx_files_are_refused_and_a_too_large_file_is_413(sqlite_platform: Platform, client: TestClient) -> None:
    admin = sign_in(client)
    xlsx = new_layout(client, admin, acceptedExtension="xlsx")
    group_id, owner = new_customer(client, admin, 3, xlsx)
    ole2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600
    refused(upload(client, owner, xlsx, ole2, "senha.xlsx"), 422, "file_password_protected")
    body = refused(upload(client, owner, xlsx, zip_bomb(), "bomba.xlsx"), 422, "xlsx_unreadable")
    assert body["message"] == "Erro ao ler arquivo XLSX."
    # Someone who sent an .xlsx that is not a workbook is told it could not be read (the specification's words).
    text = refused(upload(client, owner, xlsx, b"CPF;NOME\n52998224725;Ana\n", "texto.xlsx"), 422, "xlsx_unreadable")
    assert text["message"] == "Erro ao ler arquivo XLSX."
    sqlite_platform.batches.uploads.max_bytes = 1000
    refused(upload(client, owner, xlsx, b"x" * 1001, "grande.xlsx"), 413, "file_too_large")
    assert reserved(sqlite_platform, UUID(group_id)) == 0
    assert not list((sqlite_platform.settings.batches_dir / "uploads").glob("*/*.xlsx")), "refused files are removed"


def test_a_file_past_the_record_limit_is_refused_while_read_and_an_inflating_xlsx_fast(
    sqlite_platform: Platform, client: TestClient
) -> None:
    admin = sign_in(client)
    csv_layout = new_layout(client, admin)
    xlsx = new_layout(client, admin, acceptedExtension="xlsx")
    group_id, owner = new_customer(client, admin, 4, csv_layout)
    xlsx_group, xlsx_owner = new_customer(client, admin, 5, xlsx)
    assert ok(client.get("/api/batches/limits", headers=owner)) == {"maxBytes": 10 << 20, "maxRecords": 1_000_000}
    sqlite_platform.batches.uploads.max_records = 1000
    assert ok(client.get("/api/batches/limits", headers=owner))["maxRecords"] == 1000  # what the upload screen shows
    at_limit = [cpf(n) for n in range(1, 1001)]
    ok(upload(client, owner, csv_layout, csv_of(*at_limit)), 201)
    body = refused(upload(client, owner, csv_layout, csv_of(*at_limit, cpf(1001))), 413, "too_many_records")
    assert "1,000" in body["message"] and body["field"] == "file"
    # A workbook of under 100 KB whose sheet inflates to 200,000 rows: refused once reading passes the limit.
    bomb = inflating_xlsx(200_000)
    assert len(bomb) < 100_000
    started = time.monotonic()
    refused(upload(client, xlsx_owner, xlsx, bomb, "bomba.xlsx"), 413, "too_many_records")
    assert time.monotonic() - started < 20
    assert reserved(sqlite_platform, UUID(group_id)) == reserved(sqlite_platform, UUID(xlsx_group)) == 0
    refused_files = [p for p in (sqlite_platform.settings.batches_dir / "uploads").glob("*/*") if p.suffix == ".xlsx"]
    assert not refused_files, "refused files are removed"


def test_the_groups_rules_refuse_an_upload_or_a_submit(sqlite_platform: Platform, client: TestClient) -> None:
    admin = sign_in(client)
    layout_id = new_layout(client, admin)
    other_layout = new_layout(client, admin, fileName="outro")
    entry_only = new_layout(
        client, admin, fileName="sem_retorno", rows=[r for r in LAYOUT["rows"] if r["direction"] == "entry"]
    )
    # Without credits: the preview is free, the submit refused with the category's message.
    group_id, owner = new_customer(client, admin, 4, layout_id, batch=1)
    shown = ok(upload(client, owner, layout_id, csv_of(cpf(3), cpf(4))), 201)
    body = refused(
        client.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 402, "not_enough_credits"
    )
    assert body["message"] == "Not enough enrichment credits"
    assert reserved(sqlite_platform, UUID(group_id)) == 0
    # A layout the group was not given.
    refused(upload(client, owner, other_layout, csv_of(cpf(3))), 403, "layout_not_allowed")
    # A layout with no exit rows: "return cannot be empty" (the root has every layout).
    body = refused(upload(client, admin, entry_only, csv_of(cpf(3))), 422, "return_required")
    assert body["message"] == "Return cannot be empty"
    # A group without allowUploadingManualQueries.
    _, disabled = new_customer(
        client, admin, 5, layout_id, toggles={"allowUploadingManualQueries": False, "allowDeletedAndCancelled": True}
    )
    body = refused(upload(client, disabled, layout_id, csv_of(cpf(3))), 403, "batch_disabled")
    assert body["message"] == "Batch query is disabled"
    # A file with no valid document costs nothing and is not submitted.
    shown = ok(upload(client, owner, layout_id, csv_of("11111111111")), 201)
    assert shown["creditsNeeded"] == 0
    refused(client.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 422, "no_valid_documents")
    # Someone else's upload id is unknown to this user.
    mine = ok(upload(client, admin, layout_id, csv_of(cpf(3))), 201)
    refused(client.post("/api/batches", headers=owner, json={"uploadId": mine["uploadId"]}), 404, "upload_not_found")


def test_a_manual_enrichment_is_for_a_customer_in_the_subtree_only(
    sqlite_platform: Platform, client: TestClient
) -> None:
    admin = sign_in(client)
    layout_id = new_layout(client, admin)
    parent_id, parent = new_customer(client, admin, 6, layout_id, batch=20)
    # The parent registers its own customer (layouts and credits from what it has).
    child_body = customer(61, "company", enabledLayouts=[layout_id])
    child_body["quantities"] = {**child_body["quantities"], "batch": 5}
    child_id = register(client, parent, child_body)["data"]["id"]
    stranger_id, _ = new_customer(client, admin, 7, layout_id)

    shown = ok(upload(client, parent, layout_id, csv_of(cpf(5), cpf(6))), 201)
    outside = client.post("/api/batches", headers=parent, json={"uploadId": shown["uploadId"], "groupId": stranger_id})
    refused(outside, 404, "group_not_found")
    assert reserved(sqlite_platform, UUID(stranger_id)) == 0
    made = ok(
        client.post("/api/batches", headers=parent, json={"uploadId": shown["uploadId"], "groupId": child_id}), 201
    )
    # Charged to the customer's batch account, not the parent's.
    assert reserved(sqlite_platform, UUID(child_id)) == 2
    assert reserved(sqlite_platform, UUID(parent_id)) == 0
    row = ok(client.get(f"/api/batches/{made['id']}", headers=parent, params={"position": made["position"]}))["data"]
    assert (row["kind"], row["groupId"]) == ("manual", child_id)
    # The parent's own list shows it with scope=subtree, not without.
    own = ok(client.get("/api/batches", headers=parent, params={"position": made["position"]}))
    assert own["total"] == 0
    below = ok(client.get("/api/batches", headers=parent, params={"scope": "subtree", "kind": "manual"}))
    assert [b["id"] for b in below["data"]] == [made["id"]]


def test_cancel_releases_and_delete_follows_the_roles_and_the_toggle(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    layout_id = new_layout(api, admin)
    group_id, owner = new_customer(api, admin, 8, layout_id, batch=10)
    group = UUID(group_id)
    shown = ok(upload(api, owner, layout_id, csv_of(cpf(7), cpf(8), cpf(9))), 201)
    made = ok(api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 201)
    refused(api.delete(f"/api/batches/{made['id']}", headers=owner), 409, "batch_not_deletable")
    canceled = ok(api.post(f"/api/batches/{made['id']}/cancel", headers=owner))
    assert reserved(platform, group) == 0
    assert batch_account(platform, group).available == 10
    row = ok(api.get(f"/api/batches/{made['id']}", headers=owner, params={"position": canceled["position"]}))
    assert (row["data"]["status"], row["data"]["message"]) == ("canceled", "Canceled by owner")
    refused(api.post(f"/api/batches/{made['id']}/cancel", headers=owner), 409, "batch_not_cancellable")
    gone = ok(api.delete(f"/api/batches/{made['id']}", headers=owner))
    refused(
        api.get(f"/api/batches/{made['id']}", headers=owner, params={"position": gone["position"]}),
        404,
        "batch_not_found",
    )
    listed = ok(api.get("/api/batches", headers=owner, params={"position": gone["position"]}))
    assert listed["total"] == 0

    # Without allowDeletedAndCancelled the owner may neither cancel nor delete; a super-admin may.
    locked_id, locked = new_customer(
        api, admin, 9, layout_id, toggles={"allowUploadingManualQueries": True, "allowDeletedAndCancelled": False}
    )
    shown = ok(upload(api, locked, layout_id, csv_of(cpf(10))), 201)
    made = ok(api.post("/api/batches", headers=locked, json={"uploadId": shown["uploadId"]}), 201)
    refused(api.post(f"/api/batches/{made['id']}/cancel", headers=locked), 403, "access_denied")
    ok(api.post(f"/api/batches/{made['id']}/cancel", headers=admin))
    assert reserved(platform, UUID(locked_id)) == 0
    row = ok(api.get(f"/api/batches/{made['id']}", headers=admin, params={"position": platform.app.max_position()}))
    assert row["data"]["message"] == "Canceled by super-admin"
    refused(api.delete(f"/api/batches/{made['id']}", headers=locked), 403, "access_denied")
    ok(api.delete(f"/api/batches/{made['id']}", headers=admin))


def test_another_tenants_batch_is_404_on_every_route(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    layout_id = new_layout(api, admin)
    _, owner = new_customer(api, admin, 10, layout_id)
    _, stranger = new_customer(api, admin, 11, layout_id)
    shown = ok(upload(api, owner, layout_id, csv_of(cpf(11))), 201)
    made = ok(api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 201)
    assert platform.projector.wait_for(made["position"], timeout=10)
    batch = made["id"]
    for method, path in [
        ("get", f"/api/batches/{batch}"),
        ("get", f"/api/batches/{batch}/file"),
        ("get", f"/api/batches/{batch}/return"),
        ("post", f"/api/batches/{batch}/cancel"),
        ("delete", f"/api/batches/{batch}"),
    ]:
        refused(api.request(method, path, headers=stranger), 404, "batch_not_found")
    assert ok(api.get("/api/batches", headers=stranger, params={"scope": "subtree"}))["total"] == 0
    for path in ("/api/batches/not-a-uuid", "/api/batches/00000000-0000-0000-0000-000000000000"):
        refused(api.get(path, headers=owner), 404, "batch_not_found")


def test_a_groups_open_batches_and_its_credits_bound_what_it_submits(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    layout_id = new_layout(api, admin)
    group_id, owner = new_customer(api, admin, 14, layout_id, batch=3)
    group = UUID(group_id)
    platform.batches.max_open_per_group = 2

    def submit(*documents: str) -> Any:
        shown = ok(upload(api, owner, layout_id, csv_of(*documents)), 201)
        return api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]})

    first = ok(submit(cpf(60)), 201)
    second = ok(submit(cpf(61), cpf(62)), 201)
    assert reserved(platform, group) == 3
    # The open batches are counted from the read model.
    assert platform.projector.wait_for(second["position"], timeout=10)
    body = refused(submit(cpf(63), cpf(64)), 429, "batch_limit_reached")
    assert body["message"] == "Group has reached the maximum number of batch queries"
    assert reserved(platform, group) == 3, "a refused submit reserves nothing"
    # A canceled batch frees its place and its credit; two more are still more than the group has.
    canceled = ok(api.post(f"/api/batches/{first['id']}/cancel", headers=owner))
    assert reserved(platform, group) == 2
    assert platform.projector.wait_for(canceled["position"], timeout=10)
    body = refused(submit(cpf(63), cpf(64)), 402, "not_enough_credits")
    assert reserved(platform, group) == 2
    # Finishing settles the records found (1 of 2) and releases the rest: then the two fit.
    _run(platform, second["id"], found=1)
    account = batch_account(platform, group)
    assert (account.used, account.reserved, account.available) == (1, 0, 2)
    third = ok(submit(cpf(63), cpf(64)), 201)
    assert reserved(platform, group) == 2
    row = ok(api.get(f"/api/batches/{third['id']}", headers=owner, params={"position": third["position"]}))
    assert (row["data"]["status"], row["data"]["creditsReserved"]) == ("waiting", 2)


def _run(platform: Platform, batch_id: str, found: int, *, fail: bool = False) -> int:
    steps = platform.batches.steps
    bid = UUID(batch_id)
    steps.start(bid)
    steps.progress(bid, 1, min(found, 1), 0)
    if fail:
        return steps.fail(bid, "vendor_failed", "The supplier did not answer")
    return steps.finish(bid, 2, found, 0, "retorno.csv")


def test_the_list_sorts_filters_and_scopes_and_the_runner_steps_show(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    layout_id = new_layout(api, admin)
    group_id, owner = new_customer(api, admin, 12, layout_id, batch=50)
    ids = []
    for i, name in enumerate(("b.csv", "a.csv", "c.csv")):
        shown = ok(upload(api, owner, layout_id, csv_of(cpf(20 + 2 * i), cpf(21 + 2 * i)), name), 201)
        ids.append(ok(api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 201)["id"])
    _run(platform, ids[0], found=1)
    last = _run(platform, ids[1], found=0, fail=True)
    group = UUID(group_id)
    assert reserved(platform, group) == 2  # the third batch still waits
    account = batch_account(platform, group)
    assert (account.used, account.available) == (1, 50 - 1 - 2)

    newest = ok(api.get("/api/batches", headers=owner, params={"position": last}))
    assert [b["id"] for b in newest["data"]] == list(reversed(ids))
    by_name = ok(api.get("/api/batches", headers=owner, params={"order": "fileName"}))
    assert [b["fileName"] for b in by_name["data"]] == ["a.csv", "b.csv", "c.csv"]
    by_status = ok(api.get("/api/batches", headers=owner, params={"order": "-status"}))
    assert [b["status"] for b in by_status["data"]] == ["waiting", "error", "available"]
    available = ok(api.get("/api/batches", headers=owner, params={"status": "available"}))["data"]
    assert [(b["id"], b["creditsCharged"], b["found"], b["returnFileName"]) for b in available] == [
        (ids[0], 1, 1, "retorno.csv")
    ]
    # The return file (the runner's work dir) comes back named after the layout's final file name.
    work = platform.batches.files.work_dir(UUID(ids[0]))
    work.mkdir(parents=True)
    (work / "return.csv").write_text("CPF;NOME\n", encoding="utf-8")
    returned = api.get(f"/api/batches/{ids[0]}/return", headers=owner)
    assert returned.status_code == 200 and returned.text == "CPF;NOME\n"
    assert "clientes_enriquecidos.csv" in returned.headers["content-disposition"]
    refused(api.get(f"/api/batches/{ids[1]}/return", headers=owner), 404, "return_not_ready")
    failed = ok(api.get(f"/api/batches/{ids[1]}", headers=owner))["data"]
    assert (failed["status"], failed["message"], failed["creditsCharged"]) == (
        "error",
        "The supplier did not answer",
        0,
    )
    assert failed["startedAt"] is not None and failed["finishedAt"] is not None
    page = ok(api.get("/api/batches", headers=owner, params={"perPage": 2, "page": 2}))
    assert (page["total"], len(page["data"])) == (3, 1)
    refused(api.get("/api/batches", headers=owner, params={"order": "reservation_id"}), 400, "invalid_data")
    # The root's own list does not show a customer's batches unless asked for the subtree.
    assert ok(api.get("/api/batches", headers=admin))["total"] == 0
    assert ok(api.get("/api/batches", headers=admin, params={"scope": "subtree"}))["total"] == 3


def test_the_batches_read_model_replays_to_what_following_the_log_built(
    sqlite_platform: Platform, client: TestClient, tmp_path: Path
) -> None:
    admin = sign_in(client)
    layout_id = new_layout(client, admin)
    _, owner = new_customer(client, admin, 13, layout_id, batch=50)
    ids = []
    for i in range(4):
        shown = ok(upload(client, owner, layout_id, csv_of(cpf(40 + 2 * i), cpf(41 + 2 * i))), 201)
        ids.append(ok(client.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 201)["id"])
    _run(sqlite_platform, ids[0], found=2)
    _run(sqlite_platform, ids[1], found=0, fail=True)
    ok(client.post(f"/api/batches/{ids[2]}/cancel", headers=owner))
    last = ok(client.delete(f"/api/batches/{ids[2]}", headers=owner))["position"]
    assert sqlite_platform.projector.wait_for(last, timeout=10)

    def rows(store: ReadStore) -> list[Any]:
        return store.cursor().execute("SELECT * FROM batches ORDER BY batch_id").fetchall()

    incremental = rows(sqlite_platform.store)
    assert len(incremental) == 3
    for page_size in (1, 2, 7):
        store = ReadStore(tmp_path / f"replay-{page_size}.duckdb")
        try:
            Projector(
                sqlite_platform.app,
                store,
                all_read_models(sqlite_platform.batches.files.looked_up),
                page_size=page_size,
            ).catch_up()
            assert rows(store) == incremental
        finally:
            store.close()

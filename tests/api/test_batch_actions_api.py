"""What the list and detail tell the web app: a stable code for each failure or cancel message (translated by the
screens), and whether the caller may cancel or delete each batch now, decided by the rule the server refuses by."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from api_client import ApiClient
from fastapi.testclient import TestClient
from support import make_settings, sign_in
from test_batches_api import cpf, csv_of, new_customer, new_layout, ok, refused, reserved, upload

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.batches import CANCELED_BY_OWNER, TIME_LIMIT_CODE, TIME_LIMIT_MESSAGE, Batch, BatchStatus
from bemtevi.domain.principals import SYSTEM
from bemtevi.domain.users import Role

LOCKED = {"allowUploadingManualQueries": True, "allowDeletedAndCancelled": False}


def submit(client: TestClient, headers: dict[str, str], layout_id: str, n: int) -> str:
    shown = ok(upload(client, headers, layout_id, csv_of(cpf(n))), 201)
    return str(ok(client.post("/api/batches", headers=headers, json={"uploadId": shown["uploadId"]}), 201)["id"])


def listed(client: TestClient, headers: dict[str, str], platform: Platform) -> dict[str, dict[str, Any]]:
    page = ok(client.get("/api/batches", headers=headers, params={"position": platform.app.max_position()}))
    return {r["id"]: r for r in page["data"]}


def actions(row: dict[str, Any]) -> tuple[bool, bool]:
    return row["canCancel"], row["canDelete"]


def test_the_list_says_who_may_cancel_or_delete_by_the_servers_own_rule(
    sqlite_platform: Platform, client: TestClient
) -> None:
    admin = sign_in(client)
    layout_id = new_layout(client, admin)
    _open_id, owner = new_customer(client, admin, 31, layout_id)
    _locked_id, locked = new_customer(client, admin, 32, layout_id, toggles=LOCKED)
    mine = submit(client, owner, layout_id, 1)
    theirs = submit(client, locked, layout_id, 2)

    # allowDeletedAndCancelled on: a waiting batch may be canceled, not deleted (cancel first).
    assert actions(listed(client, owner, sqlite_platform)[mine]) == (True, False)
    # Off: the owner may do neither, and the server refuses what the list does not offer.
    assert actions(listed(client, locked, sqlite_platform)[theirs]) == (False, False)
    refused(client.post(f"/api/batches/{theirs}/cancel", headers=locked), 403, "access_denied")
    # A super-admin may, whatever the toggle (the detail answers the same).
    detail = ok(client.get(f"/api/batches/{theirs}", headers=admin))["data"]
    assert actions(detail) == (True, False)

    # Once over: nothing to cancel, and it may be deleted.
    ok(client.post(f"/api/batches/{mine}/cancel", headers=owner))
    row = listed(client, owner, sqlite_platform)[mine]
    assert actions(row) == (False, True)
    assert (row["message"], row["messageCode"], row["canceledByRole"]) == (
        "Canceled by owner",
        "canceled_by_owner",
        "owner",
    )
    ok(client.post(f"/api/batches/{theirs}/cancel", headers=admin))
    row = listed(client, locked, sqlite_platform)[theirs]
    assert actions(row) == (False, False)
    assert (row["messageCode"], row["canceledByRole"]) == ("canceled_by_super_admin", "super-admin")


def test_a_failure_has_its_code_beside_its_message(sqlite_platform: Platform, client: TestClient) -> None:
    admin = sign_in(client)
    layout_id = new_layout(client, admin)
    _group_id, owner = new_customer(client, admin, 33, layout_id)
    batch_id = submit(client, owner, layout_id, 3)
    sqlite_platform.batches.steps.start(UUID(batch_id))
    sqlite_platform.batches.steps.fail(UUID(batch_id), TIME_LIMIT_CODE, TIME_LIMIT_MESSAGE)
    row = listed(client, owner, sqlite_platform)[batch_id]
    assert (row["status"], row["message"], row["messageCode"]) == ("error", TIME_LIMIT_MESSAGE, "time_limit")
    assert actions(row) == (False, True)
    running = submit(client, owner, layout_id, 4)
    assert listed(client, owner, sqlite_platform)[running]["messageCode"] is None


@pytest.fixture(scope="module")
def webhook_customer(
    refusing_client: tuple[TestClient, Platform],
) -> tuple[TestClient, Platform, str, str, dict[str, str]]:
    """One customer for the refused webhooks, with credit for each corrected batch it then submits (batches are
    not run in an in-process platform: each stays reserved, and a refusal must add nothing to that)."""
    client, platform = refusing_client
    admin = sign_in(client)
    layout_id = new_layout(client, admin)
    group_id, owner = new_customer(client, admin, 34, layout_id, batch=100)
    return client, platform, layout_id, group_id, owner


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/hook",
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "https://10.1.2.3/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[64:ff9b::a9fe:a9fe]/latest/meta-data",
        "http://[::a9fe:a9fe]/latest/meta-data",
        "http://[2002:a9fe:a9fe::1]/latest/meta-data",
        "http://example.com:port/hook",
    ],
)
def test_a_webhook_url_into_the_deployments_network_is_refused_at_submit_and_nothing_reserved(
    webhook_customer: tuple[TestClient, Platform, str, str, dict[str, str]], url: str
) -> None:
    client, platform, layout_id, group_id, owner = webhook_customer
    shown = ok(upload(client, owner, layout_id, csv_of(cpf(5))), 201)
    before = reserved(platform, UUID(group_id))
    body = refused(
        client.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"], "webhookUrl": url}),
        422,
        "webhook_not_allowed",
    )
    assert body["field"] == "webhookUrl"
    assert reserved(platform, UUID(group_id)) == before
    # The upload is still there: the user corrects the URL and submits it.
    ok(client.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}), 201)


def test_private_webhooks_are_accepted_when_the_deployment_allows_them(
    tmp_path: Path, dataset_path: Path, start_platform: Callable[..., Platform]
) -> None:
    settings = make_settings(tmp_path / "var", dataset_path).model_copy(update={"webhook_allow_private": True})
    platform = start_platform(settings)
    try:
        with ApiClient(create_app(platform)) as client:
            admin = sign_in(client)
            layout_id = new_layout(client, admin)
            _group_id, owner = new_customer(client, admin, 35, layout_id)
            shown = ok(upload(client, owner, layout_id, csv_of(cpf(6))), 201)
            made = {"uploadId": shown["uploadId"], "webhookUrl": "http://127.0.0.1:9/hook"}
            ok(client.post("/api/batches", headers=owner, json=made), 201)
            shown = ok(upload(client, owner, layout_id, csv_of(cpf(7))), 201)
            wrong = {"uploadId": shown["uploadId"], "webhookUrl": "file:///etc/passwd"}
            refused(client.post("/api/batches", headers=owner, json=wrong), 422, "webhook_not_allowed")
    finally:
        platform.close()


def member(platform: Platform, client: TestClient, group_id: str, name: str, role: Role) -> tuple[UUID, dict[str, str]]:
    email = name.lower().replace(" ", ".") + "@cliente.com.br"
    user_id, _ = platform.identity.register_user(
        SYSTEM, group_id=UUID(group_id), name=name, email=email, password="S3nha!forte", role=role
    )
    return user_id, sign_in(client, email, "S3nha!forte")


def test_a_canceled_batch_names_who_canceled_it(sqlite_platform: Platform, client: TestClient) -> None:
    # A plain user canceling their own batch was shown "Canceled by owner": the list and the detail now name them,
    # and an admin canceling someone else's batch is named too.
    admin = sign_in(client)
    layout_id = new_layout(client, admin)
    group_id, _owner = new_customer(client, admin, 35, layout_id)
    maria_id, maria = member(sqlite_platform, client, group_id, "Maria Silva", Role.USER)
    _ana_id, ana = member(sqlite_platform, client, group_id, "Ana Souza", Role.ADMIN)
    own = submit(client, maria, layout_id, 6)
    other = submit(client, maria, layout_id, 7)

    ok(client.post(f"/api/batches/{own}/cancel", headers=maria))
    row = listed(client, maria, sqlite_platform)[own]
    assert (row["canceledById"], row["canceledByName"], row["canceledByRole"]) == (str(maria_id), "Maria Silva", "user")
    assert (row["message"], row["messageCode"]) == ("Canceled by user", "canceled_by_user")
    detail = ok(client.get(f"/api/batches/{own}", headers=maria))["data"]
    assert (detail["canceledByName"], detail["canceledByRole"]) == ("Maria Silva", "user")

    ok(client.post(f"/api/batches/{other}/cancel", headers=ana))
    row = listed(client, maria, sqlite_platform)[other]
    assert (row["canceledByName"], row["canceledByRole"], row["messageCode"]) == (
        "Ana Souza",
        "admin",
        "canceled_by_admin",
    )


def test_a_batch_canceled_before_the_role_was_recorded_still_loads_and_names_its_canceler(
    sqlite_platform: Platform, client: TestClient
) -> None:
    # A Canceled event of version 1 (a message, no role) as an older release stored it.
    admin = sign_in(client)
    layout_id = new_layout(client, admin)
    group_id, _owner = new_customer(client, admin, 36, layout_id)
    maria_id, maria = member(sqlite_platform, client, group_id, "Maria Silva", Role.USER)
    batch_id = UUID(submit(client, maria, layout_id, 8))
    app = sqlite_platform.app
    batch: Batch = app.repository.get(batch_id)
    with acting_as(Actor(user_id=maria_id, tenant_id=UUID(group_id))):
        batch.cancel("user")
    [event] = batch.collect_events()
    stored = app.mapper.to_stored_event(event)
    state = app.mapper.transcoder.decode(stored.state)
    assert state.pop("class_version") == 2 and state.pop("role") == "user"
    state["message"] = CANCELED_BY_OWNER
    app.recorder.insert_events([stored.__class__(**{**vars(stored), "state": app.mapper.transcoder.encode(state)})])

    loaded: Batch = app.repository.get(batch_id)
    assert isinstance(loaded, Batch) and loaded.status == BatchStatus.CANCELED
    row = listed(client, maria, sqlite_platform)[str(batch_id)]
    assert (row["status"], row["canceledByName"], row["canceledByRole"]) == ("canceled", "Maria Silva", None)
    assert (row["message"], row["messageCode"]) == (CANCELED_BY_OWNER, "canceled_by_owner")

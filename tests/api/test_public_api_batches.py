"""A batch sent through the public API is charged to the group's API credits, as everything under /api/v1 is:
reserved on submit, settled for the records found when it runs, released when it is canceled; the panel's batches
of the same group stay on its batch credits. The balances, the history and the finance statement show the API
batch's movements under ``api``."""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID, uuid4

from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CPF, sign_in
from test_batches_api import LAYOUT, cpf, csv_of

from bemtevi.bootstrap import Platform
from bemtevi.bootstrap.batches import batch_runner
from bemtevi.domain.audit import acting_as
from bemtevi.domain.batches import Batch, reservation_id
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.principals import SYSTEM
from bemtevi.domain.query_types import Category
from bemtevi.infra.secrets import SecretBox


def ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return dict(response.json())


def _customer(
    api: TestClient, admin: dict[str, str], n: int, api_credits: int
) -> tuple[UUID, dict[str, str], dict[str, str]]:
    """A company with API access, ``api_credits`` API and 10 batch credits and a layout of its own: its id, its
    owner's headers and a token's bearer header."""
    layout_id = str(ok(api.post("/api/layouts", headers=admin, json=LAYOUT))["id"])
    body = customer(
        n,
        "white-label",
        whiteLabelUrl=f"apilote{n}.com.br",
        enabledLayouts=[layout_id],
        apiAccess=True,
        quantities={"unit": 0, "batch": 10, "advanced": 0, "api": api_credits},
    )
    data = register(api, admin, body)["data"]
    owner = owner_headers(api, data["ownerEmail"])
    token = ok(api.post("/api/api-tokens", headers=owner, json={"name": "ERP", "queryTypes": ["cpf-complete"]}), 201)
    LAYOUTS[UUID(data["id"])] = layout_id
    return UUID(data["id"]), owner, {"Authorization": f"Bearer {token['accessToken']}"}


LAYOUTS: dict[UUID, str] = {}


def _upload(api: TestClient, headers: dict[str, str], group_id: UUID, prefix: str, data: bytes) -> dict[str, Any]:
    return ok(
        api.post(
            f"{prefix}/batches/uploads",
            headers={**headers, "Content-Type": "application/octet-stream"},
            params={"layoutId": LAYOUTS[group_id], "fileName": "lista.csv"},
            content=data,
        ),
        201,
    )


def _account(platform: Platform, group_id: UUID, category: Category) -> tuple[int, int, int | None]:
    """(used, reserved, available) of the group's account of ``category``."""
    account = platform.app.get(credit_account_id(group_id, category), CreditAccount)
    return account.used, account.reserved, account.available


def test_a_public_api_batch_reserves_settles_and_releases_api_credits_and_a_panel_batch_batch_credits(
    platform: Platform, api: TestClient
) -> None:
    admin = sign_in(api)
    group_id, owner, bearer = _customer(api, admin, 81, api_credits=10)

    # The preview shows the API credits a submit through the API would reserve on.
    shown = _upload(api, bearer, group_id, "/api/v1", csv_of(KNOWN_CPF, cpf(801), cpf(802)))
    assert (shown["creditsNeeded"], shown["creditsAvailable"]) == (3, 10)
    submitted = ok(api.post("/api/v1/batches", headers=bearer, json={"uploadId": shown["uploadId"]}), 201)
    assert _account(platform, group_id, Category.API) == (0, 3, 7)
    assert _account(platform, group_id, Category.BATCH) == (0, 0, 10)

    # Run by the enrichment runner: the records found are settled on the API credits, the rest released.
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
    batch_id = UUID(submitted["id"])
    assert runner.run(batch_id)
    charged = platform.batches.batch(batch_id).charged
    assert charged >= 1  # the known CPF is in the demo dataset
    assert _account(platform, group_id, Category.API) == (charged, 0, 10 - charged)
    assert _account(platform, group_id, Category.BATCH) == (0, 0, 10)

    # Another one canceled (from the panel) releases its API credits.
    again = _upload(api, bearer, group_id, "/api/v1", csv_of(cpf(803), cpf(804)))
    second = ok(api.post("/api/v1/batches", headers=bearer, json={"uploadId": again["uploadId"]}), 201)
    assert _account(platform, group_id, Category.API) == (charged, 2, 8 - charged)
    ok(api.post(f"/api/batches/{second['id']}/cancel", headers=owner))
    assert _account(platform, group_id, Category.API) == (charged, 0, 10 - charged)

    # A panel batch of the same group stays on the batch credits.
    panel = _upload(api, owner, group_id, "/api", csv_of(cpf(805)))
    assert panel["creditsAvailable"] == 10
    last = ok(api.post("/api/batches", headers=owner, json={"uploadId": panel["uploadId"]}), 201)
    assert _account(platform, group_id, Category.BATCH) == (0, 1, 9)
    assert _account(platform, group_id, Category.API) == (charged, 0, 10 - charged)

    # The screens show the API batch's movements under API, the panel's under batch.
    position = {"position": last["position"]}
    lines = ok(api.get("/api/credits/history", headers=owner, params={**position, "perPage": 100}))["data"]
    by_category: dict[str, list[tuple[str, str | None]]] = {}
    for line in reversed(lines):
        by_category.setdefault(line["category"], []).append((line["kind"], line["reason"]))
    assert by_category["api"] == [
        ("opening", None),
        ("reservation", "batch"),
        ("settlement", "batch"),
        ("reservation", "batch"),
        ("release", "batch"),
    ]
    assert by_category["batch"] == [("opening", None), ("reservation", "batch")]
    statement = ok(api.get("/api/credits/statement", headers=owner, params=position))["data"]
    figures = {c["category"]: c for c in statement["categories"]}
    assert (figures["api"]["consumed"], figures["api"]["closingBalance"]) == (charged, 10 - charged)
    assert (figures["batch"]["consumed"], figures["batch"]["closingBalance"]) == (0, 9)
    balances = ok(api.get("/api/v1/balances", headers=bearer, params=position))["data"]["group"]["categories"]
    assert {f["category"]: f["used"] for f in balances}["api"] == charged


def test_a_public_api_batch_without_api_credits_is_refused_and_the_batch_credits_are_untouched(
    platform: Platform, api: TestClient
) -> None:
    admin = sign_in(api)
    group_id, _owner, bearer = _customer(api, admin, 82, api_credits=0)
    shown = _upload(api, bearer, group_id, "/api/v1", csv_of(KNOWN_CPF))
    assert shown["creditsAvailable"] == 0
    refused = api.post("/api/v1/batches", headers=bearer, json={"uploadId": shown["uploadId"]})
    assert (refused.status_code, refused.json()["code"]) == (402, "not_enough_credits"), refused.text
    assert _account(platform, group_id, Category.BATCH) == (0, 0, 10)


def test_a_batch_submitted_before_its_category_was_recorded_loads_on_the_batch_credits(
    platform: Platform, api: TestClient
) -> None:
    # A Submitted event without ``category``, as an older release stored it: the batch is the panel's, on BATCH.
    admin = sign_in(api)
    group_id, owner, _bearer = _customer(api, admin, 83, api_credits=10)
    batch_id = uuid4()
    platform.credits.reserve(SYSTEM, group_id, Category.BATCH, reservation_id(batch_id), 2, request_id=uuid4())
    with acting_as(SYSTEM):
        batch = Batch.submit(
            batch_id,
            group_id=group_id,
            user_id=None,
            kind="batch",
            layout_id=LAYOUTS[group_id],
            query_type=None,
            file_name="lista.csv",
            extension="CSV",
            encoding="utf-8",
            size=30,
            records=2,
            valid_documents=2,
            credits_reserved=2,
            reservation_id=reservation_id(batch_id),
            observation="",
            webhook_url=None,
            webhook_secret_sealed=None,
            category="batch",
        )
    [event] = batch.collect_events()
    app = platform.app
    stored = app.mapper.to_stored_event(event)
    state = app.mapper.transcoder.decode(stored.state)
    assert state.pop("category") == "batch"
    app.recorder.insert_events([stored.__class__(**{**vars(stored), "state": app.mapper.transcoder.encode(state)})])

    loaded = platform.batches.batch(batch_id)
    assert loaded.category == Category.BATCH and loaded.credits_reserved == 2
    assert _account(platform, group_id, Category.BATCH) == (0, 2, 8)
    ok(api.post(f"/api/batches/{batch_id}/cancel", headers=owner))
    assert _account(platform, group_id, Category.BATCH) == (0, 0, 10)
    assert _account(platform, group_id, Category.API) == (0, 0, 10)

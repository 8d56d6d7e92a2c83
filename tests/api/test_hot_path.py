"""The lookup's hot path answers exactly what the FastAPI route answers, success and refusals alike."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support import KNOWN_CNPJ, KNOWN_CPF, sign_in

from bemtevi.api.app import create_app
from bemtevi.api.hot_path import HotLookupMiddleware
from bemtevi.bootstrap import Platform
from bemtevi.commands.identity import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.groups import GroupType

PASSWORD = "Strong!pass1"


@pytest.fixture
def clients(sqlite_platform: Platform) -> Iterator[tuple[TestClient, TestClient]]:
    """The same platform behind the hot path and behind the plain FastAPI route."""
    hot_app = create_app(sqlite_platform)
    sqlite_platform.settings.hot_lookup_path = False
    plain_app = create_app(sqlite_platform)
    # In front of the framework on one, absent on the other.
    assert hot_app.hot_path is not None and isinstance(hot_app.hot_path(plain_app), HotLookupMiddleware)
    assert plain_app.hot_path is None
    with TestClient(hot_app) as hot, TestClient(plain_app) as plain:
        yield hot, plain


def _company_user(platform: Platform, credits: int) -> tuple[str, str]:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa Hot", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=credits
    )
    email = "ana@empresahot.com.br"
    platform.identity.register_user(SYSTEM, group_id=group_id, name="Ana", email=email, password=PASSWORD)
    return email, PASSWORD


def _without_identity(body: dict[str, Any]) -> dict[str, Any]:
    data = {k: v for k, v in body["data"].items() if k not in {"id", "createdAt"}}
    return {**body, "data": data, "position": "…"}


def test_a_lookup_answers_the_same_through_both(clients: tuple[TestClient, TestClient]) -> None:
    hot = clients[0]
    for document in (KNOWN_CPF, "11.222.333/0001-81", "000.000.001-91"):
        answers = [c.post("/api/consultations", json={"document": document}, headers=sign_in(c)) for c in clients]
        assert [a.status_code for a in answers] == [200, 200]
        assert answers[0].headers["content-type"] == answers[1].headers["content-type"] == "application/json"
        assert _without_identity(answers[0].json()) == _without_identity(answers[1].json())
    assert hot.post("/api/consultations", json={"document": KNOWN_CNPJ}, headers=sign_in(hot)).json()["data"][
        "documentType"
    ] == "cnpj"


@pytest.mark.parametrize(
    ("headers", "body", "status"),
    [
        ({}, {"document": KNOWN_CPF}, 401),
        ({"Authorization": "Bearer not-a-token"}, {"document": KNOWN_CPF}, 401),
        ({"Authorization": "Basic abc"}, {"document": KNOWN_CPF}, 401),
        (None, {}, 400),
        (None, {"document": KNOWN_CPF, "unknown": 1}, 400),
        (None, {"document": "123"}, 422),
        (None, {"document": "529.982.247-24"}, 422),
        (None, {"document": KNOWN_CPF, "query_type": "no-such-type"}, None),
    ],
)
def test_refusals_answer_the_same_through_both(
    clients: tuple[TestClient, TestClient], headers: dict[str, str] | None, body: dict[str, Any], status: int | None
) -> None:
    answers = [
        c.post("/api/consultations", json=body, headers=sign_in(c) if headers is None else headers) for c in clients
    ]
    assert answers[0].status_code == answers[1].status_code
    if status is not None:
        assert answers[0].status_code == status
    assert answers[0].status_code >= 400
    assert answers[0].json() == answers[1].json()


def test_a_body_that_is_not_json_is_refused_the_same(clients: tuple[TestClient, TestClient]) -> None:
    answers = [
        c.post(
            "/api/consultations",
            content=b"{document:",
            headers={**sign_in(c), "Content-Type": "application/json"},
        )
        for c in clients
    ]
    assert answers[0].status_code == answers[1].status_code >= 400
    assert answers[0].json() == answers[1].json()


def test_no_credit_left_is_refused_the_same_and_charges_nothing(
    sqlite_platform: Platform, clients: tuple[TestClient, TestClient]
) -> None:
    email, password = _company_user(sqlite_platform, credits=1)
    hot = clients[0]
    first = hot.post("/api/consultations", json={"document": KNOWN_CPF}, headers=sign_in(hot, email, password))
    assert first.status_code == 200
    refusals = [
        c.post("/api/consultations", json={"document": KNOWN_CPF}, headers=sign_in(c, email, password)) for c in clients
    ]
    assert refusals[0].status_code == refusals[1].status_code == 402
    assert refusals[0].json() == refusals[1].json()
    assert "credits" in refusals[0].json()["message"].lower()


def test_an_unexpected_failure_gets_the_apps_own_answer(
    sqlite_platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hot path sits outside the framework's error middleware, so it answers a crash itself,
    with the same body the app's handler gives."""
    hot_app = create_app(sqlite_platform)
    sqlite_platform.settings.hot_lookup_path = False
    plain_app = create_app(sqlite_platform)
    email, password = _company_user(sqlite_platform, credits=5)

    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("supplier exploded")

    answers = []
    for app in (hot_app, plain_app):
        with TestClient(app, raise_server_exceptions=False) as client:
            headers = sign_in(client, email, password)
            monkeypatch.setattr(sqlite_platform.consultations, "run_unit_query_async", broken)
            answers.append(client.post("/api/consultations", json={"document": KNOWN_CPF}, headers=headers))
            monkeypatch.undo()
    assert answers[0].status_code == answers[1].status_code == 500
    assert answers[0].json() == answers[1].json()
    assert answers[0].json()["message"] == "An unexpected error has occurred. Please try again later."

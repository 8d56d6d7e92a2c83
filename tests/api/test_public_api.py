"""The public API (/api/v1) for token holders: its own schema, token authentication, lookups charged to the API
credits through the lookup's own command path, apiAccess/panelAccess, and tenant isolation."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any
from uuid import UUID

from customers_support import customer, edit_body, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CNPJ, KNOWN_CPF, sign_in, super_admin

from bemtevi.bootstrap import Platform
from bemtevi.domain.consultations import Consultation
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.query_types import Category


def _customer(api: TestClient, n: int, **changes: Any) -> tuple[str, dict[str, str]]:
    """A company with API access and 5 API credits (and 3 unit credits), and its owner's panel headers."""
    values: dict[str, Any] = {"apiAccess": True, "quantities": {"unit": 3, "batch": 0, "advanced": 0, "api": 5}}
    values.update(changes)
    data = register(api, sign_in(api), customer(n, **values))["data"]
    return data["id"], owner_headers(api, f"dono{n}@empresa{n}.com.br")


def _token(api: TestClient, owner: dict[str, str], **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": "ERP", "queryTypes": ["cpf-complete", "cnpj-complete"]}
    body.update(changes)
    created = api.post("/api/api-tokens", headers=owner, json=body)
    assert created.status_code == 201, created.text
    return dict(created.json())


def _bearer(token: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {token['accessToken']}"}


def _account(platform: Platform, group_id: str, category: Category) -> CreditAccount:
    return platform.app.get(credit_account_id(UUID(group_id), category), CreditAccount)


def test_the_public_api_has_a_schema_of_its_own(api: TestClient) -> None:
    schema = api.get("/api/v1/openapi.json").json()
    assert {"/lookups", "/lookups/{lookup_id}", "/batches", "/batches/uploads", "/balances"} <= set(schema["paths"])
    assert "HTTPBearer" in schema["components"]["securitySchemes"]
    panel = api.get("/api/openapi.json").json()
    assert not any(path.startswith("/api/v1") for path in panel["paths"])
    # Shown inside a white-label customer's app (api-query screen): neither names the platform.
    assert "bemtevi" not in (str(schema["info"]) + str(panel["info"])).lower()
    # The API screen says each operation in the user's language: en-US as the schema says it, in the app's
    # one term ("query", never "lookup"), with a summary of its own; pt-BR from the web app's words for each.
    words = (Path(__file__).parents[2] / "webapp" / "src" / "features" / "api" / "i18n.ts").read_text(encoding="utf-8")
    for methods in schema["paths"].values():
        for operation in methods.values():
            assert words.count(f"    {operation['operationId']}: {{") == 1, operation["operationId"]
            assert "lookup" not in (operation["summary"] + operation["description"]).lower(), operation["operationId"]


def test_a_lookup_with_a_token_is_charged_to_the_api_credits_and_recorded_as_the_tokens(
    platform: Platform, api: TestClient
) -> None:
    group_id, owner = _customer(api, 1)
    token = _token(api, owner)
    found = api.post("/api/v1/lookups", headers=_bearer(token), json={"document": KNOWN_CPF})
    assert found.status_code == 200, found.text
    data = found.json()["data"]
    assert (data["status"], data["credits"], data["document"]) == ("done", 1, KNOWN_CPF)
    assert _account(platform, group_id, Category.API).used == 1
    assert _account(platform, group_id, Category.UNIT).used == 0
    consultation = platform.app.get(UUID(data["id"]), Consultation)
    assert (consultation.channel, consultation.category, consultation.user_id) == ("api", "api", UUID(token["id"]))
    position = {"position": found.json()["position"]}
    reopened = api.get(f"/api/v1/lookups/{data['id']}", headers=_bearer(token), params=position)
    assert reopened.status_code == 200, reopened.text
    assert reopened.json()["data"]["result"] == data["result"]
    assert _account(platform, group_id, Category.API).used == 1  # reopening is free
    balances = api.get("/api/v1/balances", headers=_bearer(token), params={"position": found.json()["position"]})
    figures = {f["category"]: f for f in balances.json()["data"]["group"]["categories"]}
    assert figures["api"]["used"] == 1


def test_no_token_a_wrong_one_or_an_inactivated_one_is_refused_with_its_code(api: TestClient) -> None:
    _, owner = _customer(api, 2)
    token = _token(api, owner)
    assert api.get("/api/v1/balances").json()["code"] == "api_token_invalid"
    wrong = {"Authorization": f"Bearer {token['accessKey']}.wrong"}
    assert api.get("/api/v1/balances", headers=wrong).status_code == 401
    assert api.get("/api/v1/balances", headers=_bearer(token)).status_code == 200
    assert api.post(f"/api/api-tokens/{token['id']}/inactivate", headers=owner).status_code == 200
    refused = api.get("/api/v1/balances", headers=_bearer(token))
    assert (refused.status_code, refused.json()["code"]) == (401, "api_token_inactive")
    # A panel session is no token, and a token opens no panel route.
    assert api.get("/api/v1/balances", headers=owner).json()["code"] == "api_token_invalid"
    api.post(f"/api/api-tokens/{token['id']}/activate", headers=owner)
    assert api.get("/api/credits/balances", headers=_bearer(token)).status_code == 401


def test_a_token_runs_only_its_query_types(api: TestClient) -> None:
    _, owner = _customer(api, 3)
    token = _token(api, owner, queryTypes=["cnpj-complete"])
    refused = api.post("/api/v1/lookups", headers=_bearer(token), json={"document": KNOWN_CPF})
    assert (refused.status_code, refused.json()["code"]) == (403, "token_query_not_allowed")
    assert api.post("/api/v1/lookups", headers=_bearer(token), json={"document": KNOWN_CNPJ}).status_code == 200
    me = api.get("/api/v1/me", headers=_bearer(token)).json()
    assert [t["key"] for t in me["queryTypes"]] == ["cnpj-complete"]


def test_api_access_off_refuses_the_tokens_and_panel_access_off_keeps_users_out_but_not_tokens(
    api: TestClient,
) -> None:
    group_id, owner = _customer(api, 4)
    token = _token(api, owner)
    admin = sign_in(api)
    form = edit_body(customer(4))
    edited = api.put(
        f"/api/customers/{group_id}", headers=admin, json={**form, "panelAccess": False, "apiAccess": True}
    )
    assert edited.status_code == 200, edited.text
    assert api.get("/api/me", headers=owner).json()["code"] == "panel_access_disabled"
    signed = api.post(
        "/api/auth/auth", json={"email": "dono4@empresa4.com.br", "password": "N0va!Senha", "domain_url": "localhost"}
    )
    assert (signed.status_code, signed.json()["code"]) == (403, "panel_access_disabled")
    assert api.get("/api/v1/balances", headers=_bearer(token)).status_code == 200
    edited = api.put(
        f"/api/customers/{group_id}", headers=admin, json={**form, "panelAccess": True, "apiAccess": False}
    )
    assert edited.status_code == 200, edited.text
    refused = api.get("/api/v1/balances", headers=_bearer(token))
    assert (refused.status_code, refused.json()["code"]) == (403, "api_access_disabled")


def test_a_token_of_one_group_never_reads_another_groups_results_or_batches(api: TestClient) -> None:
    _, owner_a = _customer(api, 5)
    _, owner_b = _customer(api, 6)
    token_a, token_b = _token(api, owner_a), _token(api, owner_b)
    mine = api.post("/api/v1/lookups", headers=_bearer(token_b), json={"document": KNOWN_CPF}).json()["data"]
    theirs = api.get(f"/api/v1/lookups/{mine['id']}", headers=_bearer(token_a))
    assert (theirs.status_code, theirs.json()["code"]) == (404, "result_expired")
    assert "result" not in theirs.json()
    for path in (f"/api/v1/batches/{mine['id']}", f"/api/v1/batches/{mine['id']}/return"):
        assert api.get(path, headers=_bearer(token_a)).json()["code"] == "batch_not_found"
    # Nor manage its tokens.
    assert api.post(f"/api/api-tokens/{token_b['id']}/inactivate", headers=owner_a).status_code == 404
    assert api.get("/api/v1/balances", headers=_bearer(token_b)).status_code == 200


def test_the_api_tokens_screen_lists_a_groups_tokens_with_their_use_and_never_a_secret(api: TestClient) -> None:
    _, owner = _customer(api, 7)
    token = _token(api, owner, limits={"perSecond": 3})
    found = api.post("/api/v1/lookups", headers=_bearer(token), json={"document": KNOWN_CPF}).json()
    listed = api.get("/api/api-tokens", headers=owner, params={"position": found["position"]})
    assert listed.status_code == 200, listed.text
    (row,) = listed.json()["data"]
    assert (row["id"], row["status"], row["usedToday"], row["credits30Days"]) == (token["id"], "active", 1, 1)
    assert row["limits"]["perSecond"] == 3 and row["lastUsedAt"] is not None
    assert token["accessToken"].split(".", 1)[1] not in listed.text
    again = api.post(f"/api/api-tokens/{token['id']}/regenerate", headers=owner).json()
    assert again["accessKey"] == token["accessKey"]
    assert api.get("/api/v1/balances", headers=_bearer(token)).status_code == 401
    assert api.get("/api/v1/balances", headers=_bearer(again)).status_code == 200


def _charged(platform: Platform, group_id: str) -> int:
    return _account(platform, group_id, Category.API).used


def test_a_retried_lookup_with_the_same_key_answers_the_first_outcome_charged_once(
    platform: Platform, api: TestClient
) -> None:
    group_id, owner = _customer(api, 8)
    headers = {**_bearer(_token(api, owner)), "Idempotency-Key": "pedido-123"}
    first = api.post("/api/v1/lookups", headers=headers, json={"document": KNOWN_CPF})
    again = api.post("/api/v1/lookups", headers=headers, json={"document": KNOWN_CPF})
    assert first.status_code == again.status_code == 200, again.text
    assert again.json()["data"] == first.json()["data"]
    assert _charged(platform, group_id) == 1
    other = api.post("/api/v1/lookups", headers=headers, json={"document": KNOWN_CNPJ})
    assert (other.status_code, other.json()["code"]) == (422, "idempotency_key_reused")
    fresh = api.post(
        "/api/v1/lookups", headers={**headers, "Idempotency-Key": "pedido-124"}, json={"document": KNOWN_CPF}
    )
    assert fresh.json()["data"]["id"] != first.json()["data"]["id"]
    assert _charged(platform, group_id) == 2


def test_32_concurrent_retries_with_one_key_are_charged_once(platform: Platform, api: TestClient) -> None:
    group_id, owner = _customer(api, 9)
    headers = {**_bearer(_token(api, owner)), "Idempotency-Key": "6f1c0a52-retry"}
    answers: list[Any] = []
    start = threading.Barrier(32)

    def retry() -> None:
        start.wait()
        answers.append(api.post("/api/v1/lookups", headers=headers, json={"document": KNOWN_CPF}))

    threads = [threading.Thread(target=retry) for _ in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.status_code for a in answers] == [200] * 32, [a.text for a in answers if a.status_code != 200]
    assert len({a.json()["data"]["id"] for a in answers}) == 1
    assert _charged(platform, group_id) == 1
    consultations = [
        n for n in platform.app.recorder.select_notifications(0, 100_000) if n.topic.endswith("Consultation.Recorded")
    ]
    assert len([n for n in consultations if n.originator_id == UUID(answers[0].json()["data"]["id"])]) == 1


def test_a_refused_request_frees_its_key_for_a_retry(platform: Platform, api: TestClient) -> None:
    group_id, owner = _customer(api, 10, quantities={"unit": 0, "batch": 0, "advanced": 0, "api": 0})
    headers = {**_bearer(_token(api, owner)), "Idempotency-Key": "sem-credito"}
    refused = api.post("/api/v1/lookups", headers=headers, json={"document": KNOWN_CPF})
    assert refused.status_code == 402, refused.text
    platform.credits.set_limit(super_admin(platform), UUID(group_id), Category.API, 1)
    assert api.post("/api/v1/lookups", headers=headers, json={"document": KNOWN_CPF}).status_code == 200
    assert _charged(platform, group_id) == 1


def test_a_token_past_its_limit_gets_429_with_retry_after_and_the_ratelimit_headers(api: TestClient) -> None:
    _, owner = _customer(api, 11)
    token = _token(api, owner, limits={"perSecond": 50, "perDay": 2})
    answers = [api.get("/api/v1/balances", headers=_bearer(token)) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert answers[0].headers["RateLimit-Policy"] == '"second";q=50;w=1, "day";q=2;w=86400'
    assert '"day";r=1;' in answers[0].headers["RateLimit"]
    assert '"day";r=0;' in answers[1].headers["RateLimit"]
    refused = answers[2]
    assert refused.json()["code"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 86_400
    assert refused.headers["RateLimit-Policy"] == answers[0].headers["RateLimit-Policy"]
    # Another token of the group has limits of its own.
    assert api.get("/api/v1/balances", headers=_bearer(_token(api, owner))).status_code == 200


def test_an_admitted_request_refused_after_carries_the_ratelimit_headers_too(api: TestClient) -> None:
    _, owner = _customer(api, 12)
    headers = _bearer(_token(api, owner, limits={"perSecond": 50, "perDay": 10}))
    refusals = [
        api.post("/api/v1/lookups", headers=headers, json={"document": "123"}),  # the lookup's own rule
        api.post("/api/v1/lookups", headers=headers, json={"nodoc": 1}),  # the body's validation
        api.post("/api/v1/lookups", headers={**headers, "Idempotency-Key": "k" * 300}, json={"document": KNOWN_CPF}),
        api.get("/api/v1/batches/00000000-0000-0000-0000-000000000000", headers=headers),
    ]
    assert [a.status_code for a in refusals] == [422, 400, 400, 404]
    assert [a.headers.get("RateLimit-Policy") for a in refusals] == ['"second";q=50;w=1, "day";q=10;w=86400'] * 4
    assert [a.headers["RateLimit"].split(", ")[1].split(";t=")[0] for a in refusals] == [
        f'"day";r={left}' for left in (9, 8, 7, 6)
    ]
    # Not admitted: no path of the API, or no valid token.
    for answer in (api.get("/api/v1/nothing", headers=headers), api.get("/api/v1/balances")):
        assert answer.status_code in (401, 404)
        assert "RateLimit" not in answer.headers and "RateLimit-Policy" not in answer.headers

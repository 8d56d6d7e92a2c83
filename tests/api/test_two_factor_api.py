"""Two-factor sign-in through the HTTP API on SQLite and PostgreSQL, with the code read from the mail a real
(loopback) SMTP server received: the group's owner switches it on, a sign-in then answers 401
``two_factor_required`` with a challenge instead of a token, the mailed code answers the session once, and the
group's API tokens work as before. On PostgreSQL, a second API process on the same stores takes the code too."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_client import ApiClient
from customers_support import NEW_PASSWORD, customer, owner_headers, register
from fastapi.testclient import TestClient
from support import SmtpSink, make_settings, sign_in, wait_until

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform, build_platform
from bemtevi.domain.two_factor import MAX_FAILURES
from bemtevi.infra.settings import Settings


@pytest.fixture
def smtp() -> Iterator[SmtpSink]:
    with SmtpSink() as sink:
        yield sink


@pytest.fixture
def settings(settings: Settings, smtp: SmtpSink) -> Settings:
    """The test's settings, mailing through the loopback SMTP server (``api`` is a client of their platform)."""
    settings.smtp_host, settings.smtp_port = "127.0.0.1", smtp.port
    return settings


def mailed_codes(smtp: SmtpSink, to: str, subject: str) -> list[str]:
    """The codes of the sign-in mails to ``to`` that the SMTP server received, oldest first."""
    bodies = [m.get_body(("plain",)).get_content() for m in smtp.messages if m["To"] == to and m["Subject"] == subject]
    return [re.search(r"^(\d{6})\r?$", body, re.MULTILINE).group(1) for body in bodies]  # type: ignore[union-attr]


def next_code(smtp: SmtpSink, to: str, count: int = 1, subject: str = "Your sign-in code") -> str:
    """The ``count``-th code mailed to ``to``, once the server has it."""
    codes = wait_until(lambda: (found := mailed_codes(smtp, to, subject)) and len(found) >= count and found)
    return str(codes[count - 1])


def password_sign_in(api: TestClient, email: str, locale: str = "en-US") -> Any:
    return api.post(
        "/api/auth/auth", json={"email": email, "password": NEW_PASSWORD, "domain_url": "localhost", "locale": locale}
    )


def guarded_company(api: TestClient, n: int) -> tuple[str, str, dict[str, str]]:
    """A company with API access whose owner switched two-factor sign-in on: (id, owner e-mail, owner headers)."""
    values: dict[str, Any] = {"apiAccess": True, "quantities": {"unit": 0, "batch": 0, "advanced": 0, "api": 1}}
    data = register(api, sign_in(api), customer(n, **values))["data"]
    email = f"dono{n}@empresa{n}.com.br"
    owner = owner_headers(api, email)
    assert api.get(f"/api/group/{data['id']}/two-factor", headers=owner).json() == {
        "groupId": data["id"],
        "enabled": False,
    }
    switched = api.put(f"/api/group/{data['id']}/two-factor", headers=owner, json={"enabled": True})
    assert switched.status_code == 200, switched.text
    assert api.get(f"/api/group/{data['id']}/two-factor", headers=owner).json()["enabled"] is True
    return data["id"], email, owner


def test_a_sign_in_takes_the_mailed_code_once_and_api_tokens_are_not_asked(api: TestClient, smtp: SmtpSink) -> None:
    _, email, owner = guarded_company(api, 1)
    token = api.post("/api/api-tokens", headers=owner, json={"name": "ERP", "queryTypes": ["cpf-complete"]})
    assert token.status_code == 201, token.text

    answer = password_sign_in(api, email)
    assert answer.status_code == 401, answer.text
    body = answer.json()
    assert (body["code"], body["resendAfter"]) == ("two_factor_required", 30)
    assert "token" not in body and body["challengeId"]
    code = next_code(smtp, email)
    [mail] = [m for m in smtp.messages if m["To"] == email and m["Subject"] == "Your sign-in code"]
    assert "valid for 10 minutes" in mail.get_body(("plain",)).get_content()

    # The group's API token works as before: no code for it.
    access = {"Authorization": f"Bearer {token.json()['accessToken']}"}
    assert api.get("/api/v1/balances", headers=access).status_code == 200

    bad = api.post("/api/auth/two-factor", json={"challengeId": body["challengeId"], "code": "12345x"})
    assert (bad.status_code, bad.json()["code"]) == (400, "two_factor_code_invalid")
    ok = api.post("/api/auth/two-factor", json={"challengeId": body["challengeId"], "code": code})
    assert ok.status_code == 200, ok.text
    assert ok.json()["data"]["email"] == email
    me = api.get("/api/me", headers={"Authorization": f"Bearer {ok.json()['token']}"})
    assert me.status_code == 200, me.text
    again = api.post("/api/auth/two-factor", json={"challengeId": body["challengeId"], "code": code})
    assert (again.status_code, again.json()["code"]) == (409, "two_factor_code_used")


def test_wrong_codes_lock_the_challenge_and_a_resend_waits(api: TestClient, smtp: SmtpSink) -> None:
    _, email, _ = guarded_company(api, 2)
    challenge = password_sign_in(api, email, "pt-BR").json()["challengeId"]
    code = next_code(smtp, email, subject="Seu código de acesso")
    early = api.post("/api/auth/two-factor/resend", json={"challengeId": challenge, "locale": "en-US"})
    assert (early.status_code, early.json()["code"]) == (429, "two_factor_resend_too_soon")
    assert 0 < early.json()["resendAfter"] <= 30
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    answers = [
        api.post("/api/auth/two-factor", json={"challengeId": challenge, "code": wrong}).json()["code"]
        for _ in range(MAX_FAILURES)
    ]
    assert answers == ["two_factor_code_invalid"] * (MAX_FAILURES - 1) + ["two_factor_locked"]
    locked = api.post("/api/auth/two-factor", json={"challengeId": challenge, "code": code})
    assert (locked.status_code, locked.json()["code"]) == (403, "two_factor_locked")
    nobody = "00000000-0000-0000-0000-000000000007"
    unknown = api.post("/api/auth/two-factor", json={"challengeId": nobody, "code": code})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "two_factor_challenge_not_found")


def test_only_the_owner_side_switches_it(api: TestClient) -> None:
    register(api, sign_in(api), customer(3))
    owner = owner_headers(api, "dono3@empresa3.com.br")
    other = register(api, sign_in(api), customer(4))["data"]
    # Another tenant's group is not there; the platform's admin switches a customer's from its form.
    setting = f"/api/group/{other['id']}/two-factor"
    assert api.put(setting, headers=owner, json={"enabled": True}).status_code == 404
    admin = sign_in(api)
    assert api.put(setting, headers=admin, json={"enabled": True}).status_code == 200
    assert api.get(setting, headers=admin).json()["enabled"] is True


@pytest.mark.postgres
def test_a_second_api_process_takes_the_code(
    postgres_database: str, tmp_path: Path, dataset_path: Path, smtp: SmtpSink
) -> None:
    """The challenge is in the event store: another process on the same stores counts its wrong tries and
    accepts its code (nothing of it is kept in one process's memory)."""
    platforms: list[Platform] = []
    for name in ("one", "two"):
        settings = make_settings(tmp_path / name, dataset_path, postgres_database)
        settings.smtp_host, settings.smtp_port = "127.0.0.1", smtp.port
        # One deployment: its processes share the secret key (tokens and code hashes are keyed with it).
        settings.secret_key = "one-deployment-secret-key-for-both-processes"
        platforms.append(build_platform(settings))
    try:
        with ApiClient(create_app(platforms[0])) as first, ApiClient(create_app(platforms[1])) as second:
            _, email, _ = guarded_company(first, 5)
            challenge = password_sign_in(first, email).json()["challengeId"]
            code = next_code(smtp, email)
            wrong = f"{(int(code) + 1) % 1_000_000:06d}"
            for client in (first, second) * 2:
                refused = client.post("/api/auth/two-factor", json={"challengeId": challenge, "code": wrong})
                assert refused.json()["code"] == "two_factor_code_invalid"
            ok = second.post("/api/auth/two-factor", json={"challengeId": challenge, "code": code})
            assert ok.status_code == 200, ok.text
            used = first.post("/api/auth/two-factor", json={"challengeId": challenge, "code": code})
            assert used.json()["code"] == "two_factor_code_used"
            # Wrong tries made in either process count together: the fifth locks the challenge.
            challenge = password_sign_in(second, email).json()["challengeId"]
            wrong = f"{(int(next_code(smtp, email, count=2)) + 1) % 1_000_000:06d}"
            answers = [
                client.post("/api/auth/two-factor", json={"challengeId": challenge, "code": wrong}).json()["code"]
                for client in (first, second, first, second, first)
            ]
            assert answers == ["two_factor_code_invalid"] * 4 + ["two_factor_locked"]
    finally:
        for platform in platforms:
            platform.close()

"""Ways into an account through the HTTP API: create account, 429 after failures, recovery,
first access, Google config, and the super-admin's mail outbox (tenant-scoped)."""

from __future__ import annotations

import re
import time
from typing import Any

from fastapi.testclient import TestClient
from support import ADMIN_EMAIL, ADMIN_PASSWORD, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role, UserStatus

NEW_PASSWORD = "N0va!senha"


def account(n: int = 1, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Maria",
        "lastName": "Souza",
        "email": f"maria{n}@empresa{n}.com.br",
        "companyName": f"Padaria {n}",
        "phone": "(11) 98765-4321",
        "password": "S3nha!forte",
        "confirmation": "S3nha!forte",
        "acceptTerms": True,
        "domain_url": "localhost",
    }
    body.update(changes)
    return body


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def outbox(client: TestClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 10
    while True:
        response = client.get("/api/mail/outbox", headers=headers, params={"perPage": 100})
        assert response.status_code == 200, response.text
        rows: list[dict[str, Any]] = response.json()["data"]
        if (rows and all(r["status"] != "queued" for r in rows)) or time.monotonic() > deadline:
            return rows
        time.sleep(0.1)


def test_create_account_signs_the_owner_in(client: TestClient) -> None:
    response = client.post("/api/auth/create-account", json=account())
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"]["role"] == "owner" and body["data"]["status"] == "active"
    roles = client.post(
        "/api/user-roles/get-user-roles-by-id",
        headers=bearer(body["token"]),
        json={
            "user_id": body["data"]["id"],
            "user_unique_key": body["data"]["uniqueKey"],
            "group_id": body["data"]["groupId"],
        },
    )
    assert roles.status_code == 200, roles.text


def test_create_account_errors(client: TestClient) -> None:
    assert client.post("/api/auth/create-account", json=account()).status_code == 200
    taken = client.post("/api/auth/create-account", json=account(2, email="maria1@empresa1.com.br"))
    assert taken.status_code == 409
    assert taken.json() | {"statusCode": 409} == {
        "statusCode": 409,
        "message": "Email already registered",
        "code": "duplicate",
        "field": "email",
    }
    name = client.post("/api/auth/create-account", json=account(3, companyName="PADARIA 1"))
    assert (name.status_code, name.json()["message"]) == (409, "Company name already registered")
    phone = client.post("/api/auth/create-account", json=account(4, phone="123"))
    assert (phone.status_code, phone.json()["code"]) == (422, "invalid_phone")
    terms = client.post("/api/auth/create-account", json=account(5, acceptTerms=False))
    assert (terms.status_code, terms.json()["code"]) == (422, "terms_not_accepted")
    missing = client.post("/api/auth/create-account", json={k: v for k, v in account(6).items() if k != "lastName"})
    assert missing.status_code == 400
    assert missing.json()["errors"][0]["isNotEmpty"] == "lastName should not be empty"


def test_sign_in_answers_429_after_five_failures(client: TestClient) -> None:
    for _ in range(5):
        wrong = client.post("/api/auth/auth", json={"email": ADMIN_EMAIL, "password": "nope"})
        assert wrong.status_code == 401
    blocked = client.post("/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    assert blocked.status_code == 429
    assert blocked.json()["message"] == "Too many attempts, try again in 15 minutes"
    assert blocked.json()["code"] == "too_many_attempts" and blocked.json()["minutes"] == 15
    assert blocked.headers["retry-after"] == "900"


def test_password_recovery_through_the_outbox(client: TestClient, sqlite_platform: Platform) -> None:
    sqlite_platform.identity.register_user(
        SYSTEM, group_id=ROOT_GROUP_ID, name="Ana Lima", email="ana@empresa.com.br", password="Us3r!pass"
    )
    known = client.post("/api/auth/password-recovery", json={"email": "ana@empresa.com.br", "domain_url": "localhost"})
    unknown = client.post("/api/auth/password-recovery", json={"email": "zz@empresa.com.br", "domain_url": "localhost"})
    assert known.status_code == unknown.status_code == 200
    assert known.json()["message"] == unknown.json()["message"]
    assert set(known.json()["data"]) == set(unknown.json()["data"]) == {"id", "uniqueKey"}

    admin = sign_in(client)
    [mail] = [m for m in outbox(client, admin) if m["reason"] == "password-recovery"]
    assert mail["to"] == "ana@empresa.com.br" and mail["status"] == "kept"
    code, key, recovery_id = re.search(r"/verify-code/(\d{6})/(\w+)/([\w-]+)", mail["text"]).groups()  # type: ignore[union-attr]
    assert (key, recovery_id) == (known.json()["data"]["uniqueKey"], known.json()["data"]["id"])

    bad = client.post(
        "/api/auth/verify-code",
        json={"code": "000000" if code != "000000" else "111111", "uniqueKey": key, "id": recovery_id},
    )
    assert (bad.status_code, bad.json()["message"]) == (400, "Invalid code")
    ok = client.post("/api/auth/verify-code", json={"code": code, "uniqueKey": key, "id": recovery_id})
    assert (ok.status_code, ok.json()["message"]) == (200, "Code active")
    weak = client.post(
        "/api/auth/redefine-password",
        json={"code": code, "uniqueKey": key, "id": recovery_id, "password": "fraca", "confirmation": "fraca"},
    )
    assert (weak.status_code, weak.json()["message"]) == (422, "Your password is weak")
    done = client.post(
        "/api/auth/redefine-password",
        json={
            "code": code,
            "uniqueKey": key,
            "id": recovery_id,
            "password": NEW_PASSWORD,
            "confirmation": NEW_PASSWORD,
        },
    )
    assert done.status_code == 200, done.text
    sign_in(client, "ana@empresa.com.br", NEW_PASSWORD)
    again = client.post("/api/auth/verify-code", json={"code": code, "uniqueKey": key, "id": recovery_id})
    assert again.status_code == 400


def test_first_access_blocks_every_other_call(client: TestClient, sqlite_platform: Platform) -> None:
    sqlite_platform.identity.register_user(
        SYSTEM,
        group_id=ROOT_GROUP_ID,
        name="Novo",
        email="novo@empresa.com.br",
        password="Ger4d@senha",
        role=Role.ADMIN,
        status=UserStatus.FIRST_ACCESS,
    )
    login = client.post("/api/auth/auth", json={"email": "novo@empresa.com.br", "password": "Ger4d@senha"})
    assert login.status_code == 200 and login.json()["data"]["status"] == "first-access"
    headers = bearer(login.json()["token"])
    blocked = client.get("/api/dashboard", headers=headers)
    assert (blocked.status_code, blocked.json()["code"]) == (403, "first_access_required")
    mismatch = client.post(
        "/api/auth/first-access", headers=headers, json={"password": NEW_PASSWORD, "confirmation": "x"}
    )
    assert (mismatch.status_code, mismatch.json()["message"]) == (422, "Passwords do not match")
    chosen = client.post(
        "/api/auth/first-access", headers=headers, json={"password": NEW_PASSWORD, "confirmation": NEW_PASSWORD}
    )
    assert chosen.status_code == 200, chosen.text
    assert client.get("/api/dashboard", headers=headers).status_code == 200
    # Logout works at first access too (checked here after: any signed-in user may leave).
    assert client.post("/api/auth/auth/logout", headers=headers, json={}).status_code == 200


def test_auth_config_has_no_google_client_by_default(client: TestClient) -> None:
    assert client.get("/api/auth/config").json() == {"googleClientId": None}
    refused = client.post("/api/auth/google", json={"credential": "x.y.z"})
    assert refused.status_code == 404
    assert refused.json()["message"] == "User not found (create an account)"


def test_outbox_is_for_super_admins_of_their_own_tree(client: TestClient, sqlite_platform: Platform) -> None:
    assert client.get("/api/mail/outbox").status_code == 401
    assert client.post("/api/auth/create-account", json=account()).status_code == 200
    admin = sign_in(client)
    assert any(m["reason"] == "welcome" for m in outbox(client, admin))

    # An owner (the new account) has no outbox screen.
    owner = sign_in(client, "maria1@empresa1.com.br", "S3nha!forte")
    assert client.get("/api/mail/outbox", headers=owner).status_code == 403

    # A super-admin of another white-label sees only their own tree's mails.
    other_id, _ = sqlite_platform.identity.register_group(
        SYSTEM, name="Outra Marca", group_type=GroupType.WHITE_LABEL, parent_id=ROOT_GROUP_ID
    )
    sqlite_platform.identity.register_user(
        SYSTEM,
        group_id=other_id,
        name="Chefe",
        email="chefe@outra.com.br",
        password="Ch3fe!pass",
        role=Role.SUPER_ADMIN,
    )
    other = sign_in(client, "chefe@outra.com.br", "Ch3fe!pass")
    response = client.get("/api/mail/outbox", headers=other)
    assert response.status_code == 200 and response.json()["data"] == []

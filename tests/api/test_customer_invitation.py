"""A new customer's owner is invited by e-mail to choose their own password: the registration queues the
invitation with the customer, its link opens on the customer's own domain, and the owner who follows it
signs in with the password they chose (active, no first-access step); nobody passes a password on."""

from __future__ import annotations

import re
import time
from typing import Any
from uuid import UUID

from customers_support import customer, register
from fastapi.testclient import TestClient
from support import sign_in
from test_accounts_api import outbox

from bemtevi.bootstrap import Platform
from bemtevi.domain.mail import Mail
from bemtevi.infra.mail import SmtpConfig, SmtpSender

NEW_PASSWORD = "Minh4!senha"


def mail_to(client: TestClient, headers: dict[str, str], to: str, reason: str = "first-access") -> dict[str, Any]:
    """The mail to ``to``, once the mailer has handled it (a bound on the wait, not a guess at its length)."""
    deadline = time.monotonic() + 30
    while True:
        rows = outbox(client, headers)
        found = [m for m in rows if m["to"] == to and m["reason"] == reason and m["status"] != "queued"]
        if found or time.monotonic() > deadline:
            assert len(found) == 1, found
            return found[0]
        time.sleep(0.1)


def test_the_owner_chooses_a_password_from_the_invitation_on_the_customers_domain(client: TestClient) -> None:
    admin = sign_in(client)
    body = customer(7, "white-label", whiteLabelUrl="painel.marca-sete.com.br", locale="en-US")
    registered = register(client, admin, body)["data"]
    assert registered["invitationSentTo"] == "dono7@empresa7.com.br"

    mail = mail_to(client, admin, "dono7@empresa7.com.br")
    assert mail["reason"] == "first-access"
    assert mail["subject"] == "Invitation: choose your password"
    assert "Fantasia 7" in mail["text"] and "bemtevi" not in mail["text"].lower()
    found = re.search(r"https://painel\.marca-sete\.com\.br/verify-code/(\d{6})/(\w+)/([\w-]+)", mail["text"])
    assert found, mail["text"]
    code, key, invitation_id = found.groups()

    chosen = client.post(
        "/api/auth/redefine-password",
        json={
            "code": code,
            "uniqueKey": key,
            "id": invitation_id,
            "password": NEW_PASSWORD,
            "confirmation": NEW_PASSWORD,
        },
    )
    assert chosen.status_code == 200, chosen.text
    signed_in = client.post("/api/auth/auth", json={"email": "dono7@empresa7.com.br", "password": NEW_PASSWORD})
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["data"]["status"] == "active"
    # The link is spent: a second use is refused.
    again = client.post(
        "/api/auth/redefine-password",
        json={
            "code": code,
            "uniqueKey": key,
            "id": invitation_id,
            "password": "Outr4!senha",
            "confirmation": "Outr4!senha",
        },
    )
    assert again.status_code == 400


def test_a_company_without_a_domain_is_invited_to_its_white_labels_domain(
    client: TestClient, sqlite_platform: Platform
) -> None:
    admin = sign_in(client)
    wl = register(client, admin, customer(8, "white-label", whiteLabelUrl="painel.marca-oito.com.br"))["data"]
    owner_mail = mail_to(client, admin, wl["invitationSentTo"])
    code, key, invitation_id = re.search(r"/verify-code/(\d{6})/(\w+)/([\w-]+)", owner_mail["text"]).groups()  # type: ignore[union-attr]
    client.post(
        "/api/auth/redefine-password",
        json={
            "code": code,
            "uniqueKey": key,
            "id": invitation_id,
            "password": NEW_PASSWORD,
            "confirmation": NEW_PASSWORD,
        },
    )
    owner = sign_in(client, wl["invitationSentTo"], NEW_PASSWORD)
    company = register(client, owner, customer(9))["data"]
    mail = mail_to(client, admin, company["invitationSentTo"])
    assert mail["reason"] == "first-access" and mail["subject"] == "Convite: escolha a sua senha"
    assert "https://painel.marca-oito.com.br/verify-code/" in mail["text"]
    # The mails of a white label's people are from the white label, never from the platform.
    stored = sqlite_platform.app.get(UUID(mail["id"]), Mail)
    assert stored.sender_name == "Fantasia 8"
    recovery = client.post(
        "/api/auth/password-recovery",
        json={"email": company["invitationSentTo"], "domain_url": "painel.marca-oito.com.br"},
    )
    assert recovery.status_code == 200, recovery.text
    recovery_mail = mail_to(client, admin, company["invitationSentTo"], "password-recovery")
    assert sqlite_platform.app.get(UUID(recovery_mail["id"]), Mail).sender_name == "Fantasia 8"
    sender = SmtpSender(SmtpConfig(host="127.0.0.1", sender="Bemtevi <no-reply@mail.example.com>"))
    message = sender.message("x@y.com.br", "s", "t", sender_name="Fantasia 8")
    assert message["From"] == "Fantasia 8 <no-reply@mail.example.com>"
    assert "bemtevi" not in str(message).lower()

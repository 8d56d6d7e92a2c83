"""Ways into an account on SQLite and PostgreSQL: create an account, sign-in limits, Google
sign-in, forgotten passwords (with the mail through a real SMTP server), first access."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from uuid import UUID

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from eventsourcing.utils import get_topic
from fastapi.testclient import TestClient
from support import ADMIN_EMAIL, ADMIN_PASSWORD, SmtpSink, make_settings, wait_until

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.commands.accounts import SignUpForm
from bemtevi.commands.throttle import Throttle
from bemtevi.domain.audit import acting_as
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import (
    DuplicateValue,
    ExpiredToken,
    FirstAccessRequired,
    GoogleTokenInvalid,
    GroupInactive,
    InvalidCode,
    InvalidCredentials,
    InvalidPhone,
    PasswordsDoNotMatch,
    TermsNotAccepted,
    TooManyAttempts,
    Unauthorized,
    UserInactive,
    UserNotFoundCreateAccount,
    WeakPassword,
)
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.mail import Mail
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.query_types import Category
from bemtevi.domain.recovery import PasswordRecovery
from bemtevi.domain.users import Role, User, UserStatus
from bemtevi.infra.settings import Settings
from bemtevi.projections.mail import outbox_page

NEW_PASSWORD = "N0va!senha"


def form(n: int = 1, **changes: Any) -> SignUpForm:
    values: dict[str, Any] = {
        "name": "Maria",
        "last_name": f"Souza {n}",
        "email": f"maria{n}@empresa{n}.com.br",
        "company_name": f"Padaria Pão Quente {n}",
        "phone": "(11) 98765-4321",
        "password": "S3nha!forte",
        "confirmation": "S3nha!forte",
        "accept_terms": True,
        "domain_url": "localhost:8000",
    }
    values.update(changes)
    return SignUpForm(**values)


def queued_mails(platform: Platform) -> list[Mail]:
    notifications = platform.app.recorder.select_notifications(0, 10_000, topics=[get_topic(Mail.Queued)])
    return [platform.app.get(n.originator_id, Mail) for n in notifications]


def recovery_link(text: str) -> tuple[str, str, UUID]:
    match = re.search(r"/verify-code/(\d{6})/([0-9a-f]+)/([0-9a-f-]{36})", text)
    assert match, text
    return match.group(1), match.group(2), UUID(match.group(3))


def add_user(
    platform: Platform, email: str, status: UserStatus = UserStatus.ACTIVE, password: str = "Us3r!pass"
) -> UUID:
    user_id, _ = platform.identity.register_user(
        SYSTEM, group_id=ROOT_GROUP_ID, name="Ana Lima", email=email, password=password, role=Role.USER, status=status
    )
    return user_id


# -- create account ---------------------------------------------------------------------------


def test_create_account_registers_a_company_with_its_owner_and_signs_in(platform: Platform) -> None:
    signed_in = platform.accounts.create_account(form())
    principal = platform.identity.authenticate(signed_in.token)
    assert principal.role == Role.OWNER
    group = platform.app.get(signed_in.group.id, Group)
    assert group.group_type == GroupType.COMPANY
    assert group.parent_id == ROOT_GROUP_ID
    assert group.name == "Padaria Pão Quente 1"
    owner = platform.app.get(signed_in.user.id, User)
    assert owner.name == "Maria Souza 1"
    assert owner.status == UserStatus.ACTIVE
    assert owner.email == "maria1@empresa1.com.br"
    for category in Category:
        account = platform.app.get(credit_account_id(group.id, category), CreditAccount)
        assert account.limit == 0
    # A welcome mail was queued in the same append; the mailer keeps it (no SMTP here).
    [welcome] = [m for m in queued_mails(platform) if m.reason == "welcome"]
    assert welcome.to == "maria1@empresa1.com.br"
    wait_until(lambda: platform.app.get(welcome.id, Mail).status == "kept")
    # And the owner signs in with the chosen password.
    assert platform.identity.sign_in("maria1@empresa1.com.br", "S3nha!forte", "localhost").user.id == owner.id


def test_create_account_refuses_taken_email_and_company_name(platform: Platform) -> None:
    platform.accounts.create_account(form(1))
    # The mailer records the welcome mail as kept: wait for it so the log stands still.
    wait_until(lambda: all(m.status == "kept" for m in queued_mails(platform)))
    before = platform.app.max_position()
    with pytest.raises(DuplicateValue) as e:
        platform.accounts.create_account(form(2, email="MARIA1@empresa1.com.br"))
    assert (e.value.message, e.value.field) == ("Email already registered", "email")
    with pytest.raises(DuplicateValue) as e:
        platform.accounts.create_account(form(3, company_name="  padaria pao   QUENTE 1 "))
    assert (e.value.message, e.value.field) == ("Company name already registered", "companyName")
    assert platform.app.max_position() == before
    # Nothing was half-written: a free e-mail and name still register.
    platform.accounts.create_account(form(4))


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"phone": "1234"}, InvalidPhone),
        ({"password": "fraca", "confirmation": "fraca"}, WeakPassword),
        ({"confirmation": "Outra!senha1"}, PasswordsDoNotMatch),
        ({"accept_terms": False}, TermsNotAccepted),
    ],
)
def test_create_account_validation(
    refusing_backend_api: tuple[TestClient, Platform], changes: dict[str, Any], error: type[Exception]
) -> None:
    _, platform = refusing_backend_api
    before = platform.app.max_position()
    with pytest.raises(error):
        platform.accounts.create_account(form(**changes))
    assert platform.app.max_position() == before


def test_create_account_on_a_white_label_domain_goes_under_that_white_label(platform: Platform) -> None:
    wl_id, _ = platform.identity.register_group(
        SYSTEM,
        name="Marca Branca",
        group_type=GroupType.WHITE_LABEL,
        parent_id=ROOT_GROUP_ID,
        domain_url="marca.example",
    )
    signed_in = platform.accounts.create_account(form(domain_url="https://marca.example/create-account"))
    assert platform.app.get(signed_in.group.id, Group).parent_id == wl_id


# -- sign-in rules ----------------------------------------------------------------------------


def test_five_failures_lock_the_account_then_the_window_frees_it(platform: Platform) -> None:
    now = [1000.0]
    platform.identity.throttle = Throttle(platform.attempts, 900, clock=lambda: now[0])
    for _ in range(5):
        with pytest.raises(InvalidCredentials):
            platform.identity.sign_in(ADMIN_EMAIL, "wrong", "localhost", client="10.0.0.1")
    # Even the right password is refused now, from another address too.
    with pytest.raises(TooManyAttempts) as e:
        platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, "localhost", client="10.0.0.2")
    assert e.value.status == 429
    assert e.value.message == "Too many attempts, try again in 15 minutes"
    now[0] += 600
    with pytest.raises(TooManyAttempts) as e:
        platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, "localhost")
    assert e.value.minutes == 5
    now[0] += 301
    assert platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, "localhost").user.email == ADMIN_EMAIL


def test_one_address_trying_many_accounts_is_stopped(platform: Platform) -> None:
    for n in range(20):
        with pytest.raises(InvalidCredentials):
            platform.identity.sign_in(f"someone{n}@example.com", "wrong", None, client="10.9.9.9")
    with pytest.raises(TooManyAttempts):
        platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None, client="10.9.9.9")
    # Another address is not affected.
    platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None, client="10.9.9.10")


def test_a_right_password_clears_the_account_count(platform: Platform) -> None:
    for _ in range(4):
        with pytest.raises(InvalidCredentials):
            platform.identity.sign_in(ADMIN_EMAIL, "wrong", None)
    platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None)
    for _ in range(4):
        with pytest.raises(InvalidCredentials):
            platform.identity.sign_in(ADMIN_EMAIL, "wrong", None)
    platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None)


def test_inactive_user_and_user_of_inactive_group_cannot_sign_in(platform: Platform) -> None:
    user_id = add_user(platform, "ana@empresa.com.br")
    user = platform.app.get(user_id, User)
    with acting_as(SYSTEM):
        user.change_status(UserStatus.INACTIVE.value)
    platform.app.save_all(user)
    with pytest.raises(UserInactive):
        platform.identity.sign_in("ana@empresa.com.br", "Us3r!pass", None)

    signed_in = platform.accounts.create_account(form(7))
    group = platform.app.get(signed_in.group.id, Group)
    with acting_as(SYSTEM):
        group.inactivate()
    platform.app.save_all(group)
    with pytest.raises(GroupInactive):
        platform.identity.sign_in("maria7@empresa7.com.br", "S3nha!forte", None)
    # Its open session stops too.
    with pytest.raises(Unauthorized):
        platform.identity.authenticate(signed_in.token)


def test_tokens_expire(settings: Settings, start_platform: Callable[..., Platform]) -> None:
    settings.token_ttl_hours = -1  # sessions that ended an hour before they began
    platform = start_platform(settings)
    try:
        token = platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None).token
        with pytest.raises(ExpiredToken) as e:
            platform.identity.authenticate(token)
        assert "Expired token" in str(e.value)
        assert (e.value.code, e.value.status) == ("expired_token", 401)
    finally:
        platform.close()


# -- first access -----------------------------------------------------------------------------


def test_first_access_must_choose_a_password_before_anything_else(platform: Platform) -> None:
    add_user(platform, "novo@empresa.com.br", UserStatus.FIRST_ACCESS, password="Ger4d@senha")
    token = platform.identity.sign_in("novo@empresa.com.br", "Ger4d@senha", None).token
    with pytest.raises(FirstAccessRequired):
        platform.identity.authenticate(token)
    principal = platform.identity.authenticate(token, allow_first_access=True)
    assert principal.first_access
    with pytest.raises(WeakPassword):
        platform.identity.choose_first_password(principal, "Ger4d@senha", "Ger4d@senha")  # the generated one
    with pytest.raises(PasswordsDoNotMatch):
        platform.identity.choose_first_password(principal, NEW_PASSWORD, NEW_PASSWORD + "x")
    platform.identity.choose_first_password(principal, NEW_PASSWORD, NEW_PASSWORD)
    assert not platform.identity.authenticate(token).first_access
    assert platform.app.get(principal.user_id, User).status == UserStatus.ACTIVE
    with pytest.raises(InvalidCredentials):
        platform.identity.sign_in("novo@empresa.com.br", "Ger4d@senha", None)
    platform.identity.sign_in("novo@empresa.com.br", NEW_PASSWORD, None)


# -- password recovery ------------------------------------------------------------------------


def _request_code(platform: Platform, email: str) -> tuple[str, str, UUID]:
    ticket = platform.accounts.request_recovery(email, "localhost:8000", "pt-BR")
    [mail] = [m for m in queued_mails(platform) if m.reason == "password-recovery" and m.to == email][-1:]
    code, key, recovery_id = recovery_link(mail.text)
    assert (key, recovery_id) == (ticket.unique_key, ticket.id)
    assert f"http://localhost:8000/verify-code/{code}/{key}/{recovery_id}" in mail.text
    return code, key, recovery_id


def test_recovery_code_redefines_the_password_once(platform: Platform) -> None:
    add_user(platform, "ana@empresa.com.br")
    code, key, recovery_id = _request_code(platform, "ana@empresa.com.br")
    recovery = platform.app.get(recovery_id, PasswordRecovery)
    assert code not in json.dumps(recovery.__dict__, default=str)  # only a hash is stored
    platform.accounts.verify_code(code, key, recovery_id)
    with pytest.raises(WeakPassword):
        platform.accounts.redefine_password(code, key, recovery_id, "fraca", "fraca")
    with pytest.raises(PasswordsDoNotMatch):
        platform.accounts.redefine_password(code, key, recovery_id, NEW_PASSWORD, "outra")
    platform.accounts.redefine_password(code, key, recovery_id, NEW_PASSWORD, NEW_PASSWORD)
    platform.identity.sign_in("ana@empresa.com.br", NEW_PASSWORD, None)
    with pytest.raises(InvalidCredentials):
        platform.identity.sign_in("ana@empresa.com.br", "Us3r!pass", None)
    # Single use.
    with pytest.raises(InvalidCode):
        platform.accounts.verify_code(code, key, recovery_id)
    with pytest.raises(InvalidCode):
        platform.accounts.redefine_password(code, key, recovery_id, "0utra!Senha", "0utra!Senha")


def test_five_wrong_codes_kill_the_code(platform: Platform) -> None:
    add_user(platform, "ana@empresa.com.br")
    code, key, recovery_id = _request_code(platform, "ana@empresa.com.br")
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(5):
        with pytest.raises(InvalidCode):
            platform.accounts.verify_code(wrong, key, recovery_id)
    with pytest.raises((InvalidCode, TooManyAttempts)):
        platform.accounts.verify_code(code, key, recovery_id)
    assert platform.app.get(recovery_id, PasswordRecovery).failures == 5


def test_a_code_needs_its_unique_key(platform: Platform) -> None:
    add_user(platform, "ana@empresa.com.br")
    code, _key, recovery_id = _request_code(platform, "ana@empresa.com.br")
    with pytest.raises(InvalidCode):
        platform.accounts.verify_code(code, "0" * 32, recovery_id)


def test_codes_expire(settings: Settings, start_platform: Callable[..., Platform]) -> None:
    settings.recovery_code_minutes = 0
    platform = start_platform(settings)
    try:
        add_user(platform, "ana@empresa.com.br")
        code, key, recovery_id = _request_code(platform, "ana@empresa.com.br")
        with pytest.raises(InvalidCode):
            platform.accounts.verify_code(code, key, recovery_id)
    finally:
        platform.close()


def test_unknown_email_answers_like_a_known_one_and_sends_nothing(platform: Platform) -> None:
    before = platform.app.max_position()
    ticket = platform.accounts.request_recovery("ninguem@empresa.com.br", "localhost", "pt-BR")
    assert len(ticket.unique_key) == 32 and isinstance(ticket.id, UUID)
    assert platform.app.max_position() == before
    with pytest.raises(InvalidCode):
        platform.accounts.verify_code("123456", ticket.unique_key, ticket.id)


# -- mail delivery ----------------------------------------------------------------------------


@pytest.fixture
def smtp() -> Iterator[SmtpSink]:
    with SmtpSink() as sink:
        yield sink


def test_recovery_code_arrives_through_a_real_smtp_server(
    settings: Settings, smtp: SmtpSink, start_platform: Callable[..., Platform]
) -> None:
    settings.smtp_host, settings.smtp_port = "127.0.0.1", smtp.port
    platform = start_platform(settings)
    try:
        add_user(platform, "ana@empresa.com.br")
        ticket = platform.accounts.request_recovery("ana@empresa.com.br", "localhost:8000", "en-US")
        [text] = wait_until(lambda: smtp.texts_to("ana@empresa.com.br"))
        assert "Your verification code is:" in text
        code, key, recovery_id = recovery_link(text)
        assert recovery_id == ticket.id
        platform.accounts.verify_code(code, key, recovery_id)
        [mail] = [m for m in queued_mails(platform) if m.reason == "password-recovery"]
        wait_until(lambda: platform.app.get(mail.id, Mail).status == "sent")
        # The outbox shows it as sent.
        platform.projector.wait_for(platform.app.max_position(), 5)
        rows, _ = outbox_page(platform.store.cursor(), str(ROOT_GROUP_ID))
        assert [r["status"] for r in rows if r["mail_id"] == str(mail.id)] == ["sent"]
    finally:
        platform.close()
    # A restart on the same stores sends nothing again.
    again = build_platform(settings)
    try:
        add_user(again, "bia@empresa.com.br")
        again.accounts.request_recovery("bia@empresa.com.br", "localhost:8000")
        wait_until(lambda: smtp.texts_to("bia@empresa.com.br"))
        time.sleep(0.3)
        assert len(smtp.texts_to("ana@empresa.com.br")) == 1
    finally:
        again.close()


def test_unreachable_smtp_retries_then_fails_for_good(
    settings: Settings, start_platform: Callable[..., Platform]
) -> None:
    from support import free_port

    settings.smtp_host, settings.smtp_port = "127.0.0.1", free_port()  # nobody listens
    settings.mail_attempts, settings.mail_retry_seconds = 3, 0.01
    platform = start_platform(settings)
    try:
        add_user(platform, "ana@empresa.com.br")
        platform.accounts.request_recovery("ana@empresa.com.br", None)
        [mail] = [m for m in queued_mails(platform) if m.reason == "password-recovery"]
        failed = wait_until(lambda: (m := platform.app.get(mail.id, Mail)).status == "failed" and m)
        assert failed.attempts == 3
        assert "ConnectionRefused" in failed.last_error
    finally:
        platform.close()


# -- Google sign-in ---------------------------------------------------------------------------

CLIENT_ID = "bemtevi-test.apps.googleusercontent.com"


@pytest.fixture(scope="module")
def google_keys() -> Iterator[tuple[Any, str]]:
    """An RSA key pair whose public half a loopback JWKS endpoint publishes."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    jwk.update({"kid": "test-key", "use": "sig", "alg": "RS256"})
    body = json.dumps({"keys": [jwk]}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield key, f"http://127.0.0.1:{server.server_address[1]}/certs"
    server.shutdown()


def google_token(key: Any, **changes: Any) -> str:
    now = datetime.now(UTC)
    claims: dict[str, Any] = {
        "iss": "https://accounts.google.com",
        "aud": CLIENT_ID,
        "sub": "1234567890",
        "email": "ana@empresa.com.br",
        "email_verified": True,
        "iat": int(now.timestamp()),
        "exp": int((now + timedelta(minutes=30)).timestamp()),
    }
    claims.update(changes)
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "test-key"})


@pytest.fixture
def google_platform(
    settings: Settings, google_keys: tuple[Any, str], start_platform: Callable[..., Platform]
) -> Iterator[Platform]:
    settings.google_client_id, settings.google_jwks_url = CLIENT_ID, google_keys[1]
    platform = start_platform(settings)
    yield platform
    platform.close()


def test_google_sign_in_links_by_verified_email(google_platform: Platform, google_keys: tuple[Any, str]) -> None:
    key = google_keys[0]
    user_id = add_user(google_platform, "ana@empresa.com.br")
    signed_in = google_platform.accounts.sign_in_with_google(google_token(key, email="Ana@Empresa.com.br"), None)
    assert signed_in.user.id == user_id
    assert google_platform.identity.authenticate(signed_in.token).user_id == user_id
    with pytest.raises(UserNotFoundCreateAccount) as e:
        google_platform.accounts.sign_in_with_google(google_token(key, email="ninguem@empresa.com.br"), None)
    assert e.value.message == "User not found (create an account)"


@pytest.mark.parametrize(
    "changes",
    [
        {"aud": "someone-else.apps.googleusercontent.com"},
        {"iss": "https://accounts.example.com"},
        {"exp": int(time.time()) - 600},
        {"email_verified": False},
    ],
)
def test_google_tokens_are_checked(
    google_platform: Platform, google_keys: tuple[Any, str], changes: dict[str, Any]
) -> None:
    add_user(google_platform, "ana@empresa.com.br")
    with pytest.raises(GoogleTokenInvalid):
        google_platform.accounts.sign_in_with_google(google_token(google_keys[0], **changes), None)


def test_google_token_signed_by_another_key_is_refused(google_platform: Platform) -> None:
    add_user(google_platform, "ana@empresa.com.br")
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with pytest.raises(GoogleTokenInvalid):
        google_platform.accounts.sign_in_with_google(google_token(other), None)


def test_without_a_client_id_google_sign_in_is_off(
    tmp_path: Path, dataset_path: Path, start_platform: Callable[..., Platform]
) -> None:
    platform = start_platform(make_settings(tmp_path / "var", dataset_path))
    try:
        assert platform.accounts.google is None
    finally:
        platform.close()

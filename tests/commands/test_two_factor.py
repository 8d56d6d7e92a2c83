"""Two-factor sign-in on SQLite and PostgreSQL: a group's setting and who may switch it, the mailed code (its
expiry, its wrong tries, its single use, its resend) and the audit trail of each step."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest
from eventsourcing.utils import get_topic
from support import ADMIN_EMAIL, ADMIN_PASSWORD

from bemtevi.bootstrap import Platform
from bemtevi.commands.identity import SignedIn
from bemtevi.commands.two_factor import TWO_FACTOR_REASON, ChallengeSent, TwoFactorCommands
from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.errors import AccessDenied, GroupNotFound, InvalidCredentials
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.mail import Mail
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.sessions import Session
from bemtevi.domain.two_factor import CODE_TTL, MAX_FAILURES, RESEND_AFTER, SignInChallenge
from bemtevi.domain.two_factor_errors import (
    TwoFactorChallengeNotFound,
    TwoFactorCodeExpired,
    TwoFactorCodeInvalid,
    TwoFactorCodeUsed,
    TwoFactorLocked,
    TwoFactorResendTooSoon,
)
from bemtevi.domain.users import Role

PASSWORD = "S3nha!forte"


class Clock:
    """The commands' time, moved by the test (the code's expiry and the resend delay are minutes and seconds)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Company:
    id: UUID
    owner: Principal
    user_email: str
    user: Principal


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def two_factor(platform: Platform, clock: Clock) -> TwoFactorCommands:
    return TwoFactorCommands(platform.app, platform.identity, platform.accounts, clock=clock)


def principal(platform: Platform, email: str, password: str = PASSWORD) -> Principal:
    return platform.identity.authenticate(platform.identity.sign_in(email, password, "localhost").token)


def company(platform: Platform, n: int = 1) -> Company:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name=f"Empresa {n}", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID
    )
    for email, role in ((f"dono{n}@empresa{n}.com.br", Role.OWNER), (f"ana{n}@empresa{n}.com.br", Role.USER)):
        platform.identity.register_user(
            SYSTEM, group_id=group_id, name="Ana Lima", email=email, password=PASSWORD, role=role
        )
    owner = principal(platform, f"dono{n}@empresa{n}.com.br")
    return Company(group_id, owner, f"ana{n}@empresa{n}.com.br", principal(platform, f"ana{n}@empresa{n}.com.br"))


@pytest.fixture
def guarded(platform: Platform, two_factor: TwoFactorCommands) -> Iterator[Company]:
    """A company whose owner switched two-factor sign-in on."""
    found = company(platform)
    two_factor.change_setting(found.owner, found.id, True)
    yield found


def opened_sessions(platform: Platform) -> int:
    topic = get_topic(Session.Opened)  # type: ignore[attr-defined]
    return len(platform.app.recorder.select_notifications(0, 100_000, topics=[topic]))


def mailed_codes(platform: Platform, to: str) -> list[tuple[str, str]]:
    """(code, subject) of each two-factor mail to ``to``, oldest first."""
    topic = get_topic(Mail.Queued)  # type: ignore[attr-defined]
    notifications = platform.app.recorder.select_notifications(0, 100_000, topics=[topic])
    mails = [platform.app.get(UUID(str(n.originator_id)), Mail) for n in notifications]
    found = []
    for mail in mails:
        if mail.to == to and mail.reason == TWO_FACTOR_REASON:
            match = re.search(r"^(\d{6})$", mail.text, re.MULTILINE)
            assert match, mail.text
            found.append((match.group(1), mail.subject))
    return found


def last_code(platform: Platform, to: str) -> str:
    return mailed_codes(platform, to)[-1][0]


def wrong(code: str) -> str:
    return f"{(int(code) + 1) % 1_000_000:06d}"


def challenged(outcome: SignedIn | ChallengeSent) -> ChallengeSent:
    assert isinstance(outcome, ChallengeSent), outcome
    return outcome


def test_without_the_setting_the_password_signs_in(platform: Platform, two_factor: TwoFactorCommands) -> None:
    found = company(platform)
    assert two_factor.setting(found.owner, found.id) is False
    assert isinstance(two_factor.sign_in(found.user_email, PASSWORD, "localhost"), SignedIn)


def test_the_code_from_the_mail_signs_in_once(
    platform: Platform, two_factor: TwoFactorCommands, guarded: Company
) -> None:
    sessions_before = opened_sessions(platform)
    sent = challenged(two_factor.sign_in(guarded.user_email, PASSWORD, "localhost", locale="en-US"))
    # No session yet: only the challenge and its mail.
    assert opened_sessions(platform) == sessions_before
    assert sent.resend_after == RESEND_AFTER.total_seconds()
    [(code, subject)] = mailed_codes(platform, guarded.user_email)
    assert subject == "Your sign-in code"
    # A wrong password still says only that.
    with pytest.raises(InvalidCredentials):
        two_factor.sign_in(guarded.user_email, "Errada!123", "localhost")

    signed_in = two_factor.verify(sent.id, f" {code} ")
    assert platform.identity.authenticate(signed_in.token).user_id == guarded.user.user_id
    with pytest.raises(TwoFactorCodeUsed):
        two_factor.verify(sent.id, code)
    assert platform.app.get(sent.id, SignInChallenge).verified


def test_a_code_expires(platform: Platform, two_factor: TwoFactorCommands, guarded: Company, clock: Clock) -> None:
    sent = challenged(two_factor.sign_in(guarded.user_email, PASSWORD, "localhost"))
    code, subject = mailed_codes(platform, guarded.user_email)[-1]
    assert subject == "Seu código de acesso"
    clock.now += CODE_TTL
    with pytest.raises(TwoFactorCodeExpired):
        two_factor.verify(sent.id, code)
    # A new code lives its own ten minutes.
    two_factor.resend(sent.id)
    clock.now += CODE_TTL - timedelta(seconds=1)
    assert isinstance(two_factor.verify(sent.id, last_code(platform, guarded.user_email)), SignedIn)


def test_too_many_wrong_codes_lock_the_challenge(
    platform: Platform, two_factor: TwoFactorCommands, guarded: Company
) -> None:
    sent = challenged(two_factor.sign_in(guarded.user_email, PASSWORD, "localhost"))
    code = last_code(platform, guarded.user_email)
    for _ in range(MAX_FAILURES - 1):
        with pytest.raises(TwoFactorCodeInvalid):
            two_factor.verify(sent.id, wrong(code))
    # The try that reaches the limit says so, and the right code is refused from then on.
    with pytest.raises(TwoFactorLocked):
        two_factor.verify(sent.id, wrong(code))
    with pytest.raises(TwoFactorLocked):
        two_factor.verify(sent.id, code)
    with pytest.raises(TwoFactorLocked):
        two_factor.resend(sent.id)
    # A new sign-in sends a new challenge.
    again = challenged(two_factor.sign_in(guarded.user_email, PASSWORD, "localhost"))
    assert isinstance(two_factor.verify(again.id, last_code(platform, guarded.user_email)), SignedIn)


def test_a_resent_code_replaces_the_old_one(
    platform: Platform, two_factor: TwoFactorCommands, guarded: Company, clock: Clock
) -> None:
    sent = challenged(two_factor.sign_in(guarded.user_email, PASSWORD, "localhost"))
    first = last_code(platform, guarded.user_email)
    with pytest.raises(TwoFactorResendTooSoon) as soon:
        two_factor.resend(sent.id)
    assert soon.value.resend_after == RESEND_AFTER.total_seconds()
    clock.now += RESEND_AFTER
    again = two_factor.resend(sent.id, "en-US")
    assert again.id == sent.id
    codes = mailed_codes(platform, guarded.user_email)
    assert len(codes) == 2 and codes[-1][1] == "Your sign-in code"
    second = codes[-1][0]
    if second != first:  # one chance in a million that the new code is the old one
        with pytest.raises(TwoFactorCodeInvalid):
            two_factor.verify(sent.id, first)
    assert isinstance(two_factor.verify(sent.id, second), SignedIn)


def test_an_unknown_challenge_is_not_found(two_factor: TwoFactorCommands) -> None:
    with pytest.raises(TwoFactorChallengeNotFound):
        two_factor.verify(UUID(int=7), "123456")


def test_two_simultaneous_uses_of_a_code_open_one_session(
    platform: Platform, two_factor: TwoFactorCommands, guarded: Company
) -> None:
    sent = challenged(two_factor.sign_in(guarded.user_email, PASSWORD, "localhost"))
    code = last_code(platform, guarded.user_email)
    outcomes: list[object] = []
    start = threading.Barrier(2)

    def use() -> None:
        start.wait()
        try:
            outcomes.append(two_factor.verify(sent.id, code))
        except TwoFactorCodeUsed as e:
            outcomes.append(e)

    threads = [threading.Thread(target=use) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(type(o).__name__ for o in outcomes) == ["SignedIn", "TwoFactorCodeUsed"]


def test_who_may_switch_the_setting(platform: Platform, two_factor: TwoFactorCommands) -> None:
    mine, other = company(platform, 1), company(platform, 2)
    admin = principal(platform, ADMIN_EMAIL, ADMIN_PASSWORD)
    # A plain user may not; the owner may for their own group; the parent's admin for a customer.
    with pytest.raises(AccessDenied):
        two_factor.change_setting(mine.user, mine.id, True)
    two_factor.change_setting(mine.owner, mine.id, True)
    assert platform.app.get(mine.id, Group).requires_two_factor
    two_factor.change_setting(admin, mine.id, False)
    assert two_factor.setting(mine.owner, mine.id) is False
    # Another tenant's group is not there for them.
    with pytest.raises(GroupNotFound):
        two_factor.change_setting(other.owner, mine.id, True)
    with pytest.raises(GroupNotFound):
        two_factor.setting(other.owner, mine.id)


def test_each_step_is_in_the_audit_trail(platform: Platform, two_factor: TwoFactorCommands, guarded: Company) -> None:
    sent = challenged(two_factor.sign_in(guarded.user_email, PASSWORD, "localhost"))
    code = last_code(platform, guarded.user_email)
    with pytest.raises(TwoFactorCodeInvalid):
        two_factor.verify(sent.id, wrong(code))
    two_factor.verify(sent.id, code)
    events = list(platform.app.events.get(sent.id))
    assert [type(e).__name__ for e in events] == ["Requested", "CodeFailed", "Verified"]
    stamped = [(e.tenant_id, e.actor_id) for e in events if isinstance(e, AuditedAggregate.Event)]
    assert stamped == [(guarded.id, guarded.user.user_id)] * 3
    changed = [type(e).__name__ for e in platform.app.events.get(guarded.id)]
    assert "TwoFactorChanged" in changed

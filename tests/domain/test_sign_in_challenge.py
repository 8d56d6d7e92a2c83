"""The two-factor sign-in challenge's rules, for every time and order of tries: a code works only before its
expiry, once, and never after the tries that lock it; a new code waits for the resend delay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import uuid4

from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.domain.audit import acting_as
from bemtevi.domain.principals import SYSTEM
from bemtevi.domain.two_factor import (
    CODE_TTL,
    MAX_FAILURES,
    MAX_SENDS,
    RESEND_AFTER,
    ChallengeState,
    SignInChallenge,
)
from bemtevi.domain.two_factor_errors import (
    TwoFactorCodeExpired,
    TwoFactorCodeUsed,
    TwoFactorLocked,
    TwoFactorResendTooSoon,
)

START = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
# Any moment within a day of the code being sent, to the microsecond.
OFFSETS = st.integers(min_value=0, max_value=86_400_000_000).map(lambda us: timedelta(microseconds=us))


def challenge(now: datetime = START) -> SignInChallenge:
    with acting_as(SYSTEM):
        return SignInChallenge.request(user_id=uuid4(), group_id=uuid4(), code_hash="h", hash_key="k", now=now)


@settings(max_examples=examples(200))
@given(OFFSETS)
def test_a_code_is_accepted_only_before_it_expires(offset: timedelta) -> None:
    refusal = challenge().refusal(START + offset)
    if offset < CODE_TTL:
        assert refusal is None
    else:
        assert isinstance(refusal, TwoFactorCodeExpired)


@settings(max_examples=examples(200))
@given(st.integers(min_value=0, max_value=3 * MAX_FAILURES), OFFSETS)
def test_the_wrong_tries_lock_the_challenge_at_the_limit(failures: int, offset: timedelta) -> None:
    found = challenge()
    with acting_as(SYSTEM):
        for _ in range(failures):
            found.code_failed()
    state = found.state(START + offset)
    if failures >= MAX_FAILURES:
        # Locked, whatever the time: a locked challenge never takes a code, nor sends a new one.
        assert state == ChallengeState.LOCKED
        assert isinstance(found.refusal(START + offset), TwoFactorLocked)
        assert isinstance(found.resend_refusal(START + offset + RESEND_AFTER), TwoFactorLocked)
    else:
        assert state == (ChallengeState.OPEN if offset < CODE_TTL else ChallengeState.EXPIRED)


@settings(max_examples=examples(200))
@given(OFFSETS)
def test_a_verified_code_is_spent_for_good(offset: timedelta) -> None:
    found = challenge()
    with acting_as(SYSTEM):
        found.verify()
    assert isinstance(found.refusal(START + offset), TwoFactorCodeUsed)
    assert isinstance(found.resend_refusal(START + offset), TwoFactorCodeUsed)


@settings(max_examples=examples(200))
@given(OFFSETS)
def test_a_new_code_waits_for_the_resend_delay_and_gets_a_new_expiry(offset: timedelta) -> None:
    found = challenge()
    now = START + offset
    refusal = found.resend_refusal(now)
    if offset < RESEND_AFTER:
        assert isinstance(refusal, TwoFactorResendTooSoon)
        assert 1 <= refusal.resend_after <= RESEND_AFTER.total_seconds()
        return
    assert refusal is None
    with acting_as(SYSTEM):
        found.resend(code_hash="h2", hash_key="k2", sent_at=now)
    # The new code lives its own ten minutes, however late it was asked for.
    assert found.refusal(now + CODE_TTL - timedelta(microseconds=1)) is None
    assert isinstance(found.refusal(now + CODE_TTL), TwoFactorCodeExpired)
    assert (found.code_hash, found.hash_key) == ("h2", "k2")


def test_codes_are_sent_a_bounded_number_of_times() -> None:
    found = challenge()
    now = START
    with acting_as(SYSTEM):
        for _ in range(MAX_SENDS - 1):
            now += RESEND_AFTER
            assert found.resend_refusal(now) is None
            found.resend(code_hash="h", hash_key="k", sent_at=now)
    assert isinstance(found.resend_refusal(now + RESEND_AFTER), TwoFactorLocked)
    # The last code still works until it expires.
    assert found.refusal(now + CODE_TTL - timedelta(seconds=1)) is None

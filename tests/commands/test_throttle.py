"""Attempt limits hold across API processes and restarts: the attempts live beside the event store."""

from __future__ import annotations

import pytest
from support import ADMIN_EMAIL, ADMIN_PASSWORD

from bemtevi.bootstrap import attempt_log, build_platform
from bemtevi.commands.throttle import Throttle
from bemtevi.domain.errors import InvalidCredentials, TooManyAttempts
from bemtevi.infra.settings import Settings


def test_failed_sign_ins_are_still_counted_after_a_restart(settings: Settings) -> None:
    platform = build_platform(settings, start_projector=False)
    try:
        for _ in range(5):
            with pytest.raises(InvalidCredentials):
                platform.identity.sign_in(ADMIN_EMAIL, "wrong", None, client="198.51.100.7")
    finally:
        platform.close()
    restarted = build_platform(settings, start_projector=False)
    try:
        with pytest.raises(TooManyAttempts):
            restarted.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None, client="198.51.100.8")
    finally:
        restarted.close()


def test_two_processes_count_the_same_attempts(settings: Settings) -> None:
    # Two logs opened on one store stand for two API processes: each sees what the other recorded.
    first, second = attempt_log(settings), attempt_log(settings)
    try:
        one, other = Throttle(first, 900), Throttle(second, 900)
        limit = [("login:account:rita@example.com", 5)]
        for throttle in (one, other, one, other):
            throttle.record(limit[0][0])
        assert one.wait_seconds(limit) == other.wait_seconds(limit) == 0
        other.record(limit[0][0])
        with pytest.raises(TooManyAttempts):
            one.check(limit)
        one.clear(limit[0][0])
        other.check(limit)  # a clear on one process frees the key on every process
    finally:
        first.close()
        second.close()

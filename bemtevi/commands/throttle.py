"""Attempt limits: failed sign-ins and recovery-code tries per account and per client address, contact-form sends
per address.

The attempts are kept in an `AttemptLog` in the event store's database, so that every API process counts the same
attempts and a restart forgets none. A key with ``max_attempts`` attempts within ``window`` seconds is refused
(``TooManyAttempts``, HTTP 429) until its oldest attempt that keeps it over the limit leaves the window.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable

from bemtevi.domain.errors import TooManyAttempts
from bemtevi.infra.attempts import AttemptLog


class Throttle:
    def __init__(self, log: AttemptLog, window_seconds: float, clock: Callable[[], float] = time.time) -> None:
        # Wall-clock seconds: the times are compared across processes and restarts.
        self._log = log
        self._window = window_seconds
        self._clock = clock

    def wait_seconds(self, limits: Iterable[tuple[str, int]]) -> float:
        """How long until every ``(key, max_attempts)`` is under its limit (0 when it is now)."""
        limits = list(limits)
        now = self._clock()
        times = self._log.since([key for key, _ in limits], now - self._window)
        waits = [
            attempts[len(attempts) - max_attempts] + self._window - now
            for key, max_attempts in limits
            if len(attempts := times.get(key, [])) >= max_attempts
        ]
        return max(waits, default=0.0)

    def check(self, limits: Iterable[tuple[str, int]]) -> None:
        """Refuse when any ``(key, max_attempts)`` has reached its limit."""
        wait = self.wait_seconds(limits)
        if wait > 0:
            raise TooManyAttempts(max(1, math.ceil(wait / 60)))

    def record(self, *keys: str) -> None:
        """One attempt for each key, now."""
        if keys:
            self._log.add(keys, self._clock())

    def clear(self, *keys: str) -> None:
        if keys:
            self._log.clear(keys)

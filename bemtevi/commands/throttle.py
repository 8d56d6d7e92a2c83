"""Failed-attempt limits for sign-in and recovery codes, per account and per client address.

Kept in memory: one server process is the supported deployment, and a restart forgetting a
few failures is harmless. A key that failed ``max_failures`` times within ``window`` seconds is
refused (``TooManyAttempts``, HTTP 429) until its oldest failure leaves the window.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable

from bemtevi.domain.errors import TooManyAttempts


class Throttle:
    def __init__(self, window_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._window = window_seconds
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        failures = self._failures.get(key)
        if failures is None:
            return deque()
        while failures and failures[0] <= now - self._window:
            failures.popleft()
        if not failures:
            del self._failures[key]
        return failures

    def check(self, limits: Iterable[tuple[str, int]]) -> None:
        """Refuse when any ``(key, max_failures)`` has reached its limit."""
        now = self._clock()
        with self._lock:
            waits = []
            for key, max_failures in limits:
                failures = self._recent(key, now)
                if len(failures) >= max_failures:
                    # The oldest failure that keeps the key over its limit must leave the window.
                    waits.append(failures[len(failures) - max_failures] + self._window - now)
        if waits:
            raise TooManyAttempts(max(1, math.ceil(max(waits) / 60)))

    def fail(self, *keys: str) -> None:
        now = self._clock()
        with self._lock:
            for key in keys:
                self._failures.setdefault(key, deque()).append(now)
                self._recent(key, now)

    def clear(self, *keys: str) -> None:
        with self._lock:
            for key in keys:
                self._failures.pop(key, None)

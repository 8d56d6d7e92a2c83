"""How hard one vendor is tried: the limits (whole-call deadline, retries and their backoff, calls in flight),
the circuit breaker, and the retry stop that keeps every try and pause within the deadline."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from tenacity import RetryCallState
from tenacity.stop import stop_base


class Retryable(Exception):
    """A try that failed in a way the next may not (a connection error, one try's timeout, HTTP 5xx)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class VendorLimits:
    timeout: float = 5.0
    retries: int = 2
    backoff: float = 0.05
    max_in_flight: int = 64
    breaker_failures: int = 5
    open_seconds: float = 30.0


class CircuitBreaker:
    """Closed → open after ``failures`` failed lookups in a row → half-open after ``open_seconds``
    (one trial call; the others still fail fast) → closed on a success, open again on a failure."""

    def __init__(self, failures: int, open_seconds: float) -> None:
        self._threshold = failures
        self._open_seconds = open_seconds
        self._failures = 0
        self._open_until = 0.0
        self._trial = False

    @property
    def state(self) -> Literal["closed", "open", "half-open"]:
        if self._failures < self._threshold:
            return "closed"
        return "open" if time.monotonic() < self._open_until else "half-open"

    def allow(self) -> bool:
        state = self.state
        if state == "closed":
            return True
        if state == "half-open" and not self._trial:
            self._trial = True
            return True
        return False

    def succeeded(self) -> None:
        self._failures = 0
        self._trial = False

    def failed(self) -> None:
        self._failures += 1
        self._trial = False
        if self._failures >= self._threshold:
            self._open_until = time.monotonic() + self._open_seconds


class PastDeadline(stop_base):
    """A tenacity stop: the next try would start after ``deadline`` (``time.monotonic``)."""

    def __init__(self, deadline: float) -> None:
        self._deadline = deadline

    def __call__(self, retry_state: RetryCallState) -> bool:
        return time.monotonic() + (retry_state.upcoming_sleep or 0.0) >= self._deadline

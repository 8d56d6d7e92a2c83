"""Per-token rate limits of the public API: requests per second and per day, across every API process.

Each process holds, per token and window, a share of the window's allowance taken from the shared counters
(``infra.rate_windows``) a few units at a time: a request spends a unit of the share, and the store is asked
only when the share is spent, so the limit holds across processes (the store never grants beyond it) without
a round trip per request. Shares are small (a tenth of a second's limit), so what a process holds unspent when
a window ends, the only way the rate can fall short of the limit, is small beside it.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from uuid import UUID

from bemtevi.domain.api_client_errors import RateLimited
from bemtevi.infra.rate_windows import RateWindows

DAY = 86_400
# São Paulo's midnight (UTC-3, no daylight saving since 2019): where a day's window starts.
_DAY_OFFSET = 3 * 3600


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    seconds: int

    def window(self, now: float) -> int:
        if self.seconds == DAY:
            return math.floor((now + -_DAY_OFFSET) / DAY) * DAY + _DAY_OFFSET
        return math.floor(now / self.seconds) * self.seconds

    def share(self, limit: int) -> int:
        """How many units a process takes from the store at a time."""
        divisor = 10 if self.seconds == 1 else 100
        return max(1, min(limit // divisor, 1000))


SECOND = Policy("second", 1)
PER_DAY = Policy("day", DAY)


@dataclass(slots=True)
class _Share:
    window: int
    left: int = 0
    used: int = 0  # what every process had taken of the window at this process's last take
    exhausted: bool = False  # the store granted nothing: no unit left in the window


@dataclass(frozen=True, slots=True)
class Remaining:
    policy: Policy
    limit: int
    remaining: int
    reset: int  # seconds until the window ends


class RateLimiter:
    def __init__(self, windows: RateWindows, clock: object = time.time) -> None:
        self._windows = windows
        self._clock = clock
        self._shares: dict[tuple[UUID, str], _Share] = {}
        self._lock = threading.Lock()

    def admit(self, token_id: UUID, per_second: int | None, per_day: int | None) -> list[Remaining]:
        """Spends a unit of each limit of the token, or raises ``RateLimited`` (nothing spent) with the seconds
        until the refusing window ends. Answers what remains of each (for the RateLimit headers)."""
        now: float = self._clock()  # type: ignore[operator]
        limits = [(policy, limit) for policy, limit in ((SECOND, per_second), (PER_DAY, per_day)) if limit]
        with self._lock:
            shares = []
            for policy, limit in limits:
                share = self._share(token_id, policy, now)
                if share.left == 0 and not self._refill(token_id, policy, limit, share):
                    reset = share.window + policy.seconds - now
                    raise RateLimited(retry_after=max(1, math.ceil(reset)))
                shares.append((policy, limit, share))
            answer = []
            for policy, limit, share in shares:
                share.left -= 1
                reset = max(0, math.ceil(share.window + policy.seconds - now))
                answer.append(Remaining(policy, limit, max(0, limit - share.used + share.left), reset))
            return answer

    def _share(self, token_id: UUID, policy: Policy, now: float) -> _Share:
        window = policy.window(now)
        share = self._shares.get((token_id, policy.name))
        if share is None or share.window != window:
            if len(self._shares) > 100_000:
                self._shares.clear()
            share = self._shares[(token_id, policy.name)] = _Share(window)
        return share

    def _refill(self, token_id: UUID, policy: Policy, limit: int, share: _Share) -> bool:
        if share.exhausted:
            return False
        granted, share.used = self._windows.take(f"{token_id}:{policy.name}", share.window, policy.share(limit), limit)
        if not granted:
            share.exhausted = True
            return False
        share.left += granted
        return True

    def close(self) -> None:
        self._windows.close()


def policy_header(remaining: list[Remaining]) -> str:
    """``RateLimit-Policy`` (IETF httpapi rate-limit headers): each limit's quota and window."""
    return ", ".join(f'"{r.policy.name}";q={r.limit};w={r.policy.seconds}' for r in remaining)


def limit_header(remaining: list[Remaining]) -> str:
    """``RateLimit``: what remains of each limit and the seconds until its window ends."""
    return ", ".join(f'"{r.policy.name}";r={r.remaining};t={r.reset}' for r in remaining)

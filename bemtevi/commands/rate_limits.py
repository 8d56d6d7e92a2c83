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
from functools import lru_cache
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
POLICIES = (SECOND, PER_DAY)  # the order of a token's limits: per second, per day


@dataclass(slots=True)
class _Share:
    window: int
    end: int  # when the window ends: ``window`` + the policy's seconds
    left: int = 0
    used: int = 0  # what every process had taken of the window at this process's last take
    exhausted: bool = False  # the store granted nothing: no unit left in the window


class RateLimiter:
    MAX_TOKENS = 50_000

    def __init__(self, windows: RateWindows, clock: object = time.time) -> None:
        self._windows = windows
        self._clock = clock
        # Per token, its share of each policy's window (``POLICIES``' order): one look-up a request.
        self._shares: dict[UUID, list[_Share | None]] = {}
        self._lock = threading.Lock()

    def admit(self, token_id: UUID, per_second: int | None, per_day: int | None) -> str:
        """Spends a unit of each limit of the token, or raises ``RateLimited`` (nothing spent) with the seconds
        until the refusing window ends. Answers what remains of each and the seconds until its window ends, as
        the ``RateLimit`` header says it (IETF httpapi rate-limit headers; empty when the token has no limit)."""
        now: float = self._clock()  # type: ignore[operator]
        with self._lock:
            shares = self._shares.get(token_id)
            if shares is None:
                if len(self._shares) >= self.MAX_TOKENS:
                    self._shares.clear()
                shares = self._shares[token_id] = [None] * len(POLICIES)
            # Every limit is checked before any is spent: a refusal spends nothing.
            spent: list[tuple[Policy, int, _Share]] = []
            for index, limit in enumerate((per_second, per_day)):
                if not limit:
                    continue
                policy = POLICIES[index]
                share = shares[index]
                if share is None or not share.window <= now < share.end:
                    window = policy.window(now)
                    share = shares[index] = _Share(window, window + policy.seconds)
                if share.left == 0 and not self._refill(token_id, policy, limit, share):
                    raise RateLimited(retry_after=max(1, math.ceil(share.end - now)))
                spent.append((policy, limit, share))
            parts = []
            for policy, limit, share in spent:
                share.left -= 1
                left = limit - share.used + share.left
                # ``now`` is within the share's window (made above when it was not): at least a second to go.
                parts.append(f'"{policy.name}";r={left if left > 0 else 0};t={math.ceil(share.end - now)}')
            return ", ".join(parts)

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


@lru_cache(maxsize=1024)
def policy_header(per_second: int | None, per_day: int | None) -> str:
    """``RateLimit-Policy`` (IETF httpapi rate-limit headers) of a token's limits: each one's quota and window
    (the same text for every request of the token: made once)."""
    quotas = [(policy, limit) for policy, limit in zip(POLICIES, (per_second, per_day), strict=True) if limit]
    return ", ".join(f'"{policy.name}";q={limit};w={policy.seconds}' for policy, limit in quotas)

"""A small in-process sliding-window limit per client key (the public contact form)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable


class SlidingWindowLimiter:
    """At most ``limit`` hits per ``window`` seconds for each key; older hits are forgotten."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._limit = limit
        self._window = window
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        """Count a hit for ``key`` and say whether it is within the limit."""
        now = self._clock()
        with self._lock:
            hits = self._hits.setdefault(key, deque())
            while hits and hits[0] <= now - self._window:
                hits.popleft()
            if len(hits) >= self._limit:
                return False
            hits.append(now)
            if len(self._hits) > 10_000:  # forget idle clients so the table stays small
                for idle in [k for k, v in self._hits.items() if not v or v[-1] <= now - self._window]:
                    del self._hits[idle]
            return True

    def retry_after(self, key: str) -> int:
        """Seconds until ``key`` may send again (0 when it may now)."""
        with self._lock:
            hits = self._hits.get(key)
            if not hits or len(hits) < self._limit:
                return 0
            return max(1, int(hits[0] + self._window - self._clock()) + 1)

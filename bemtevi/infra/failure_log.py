"""Repeated failures of a loop written to the log without flooding it.

A loop that retries many times a second (the lease keeper's rounds, an API process's reader of the ledger's
replies) fails the same way on every turn while what it reaches is away: each kind of failure is written with
its traceback the first time, then at most once every ``every`` seconds with how many there were meanwhile,
and once more, as information, when that kind works again.
"""

from __future__ import annotations

import logging
import time


class RepeatedFailureLog:
    """The failures of one loop (``what``: how the log lines name it), by kind. Used from that loop only."""

    def __init__(self, log: logging.Logger, what: str, every: float = 30.0) -> None:
        self._log = log
        self._what = what
        self._every = every
        self._quiet_until: dict[str, float] = {}
        self._unreported: dict[str, int] = {}
        self._failed: dict[str, int] = {}

    def failed(self, kind: str, message: str, *args: object) -> None:
        """In an ``except`` block: ``message`` (with ``args``) and the exception, unless written lately."""
        self._failed[kind] = self._failed.get(kind, 0) + 1
        now = time.monotonic()
        if now < self._quiet_until.get(kind, 0.0):
            self._unreported[kind] = self._unreported.get(kind, 0) + 1
            return
        unreported = self._unreported.pop(kind, 0)
        meanwhile = f" ({unreported} more since the last of these lines)" if unreported else ""
        self._log.warning(message + meanwhile, *args, exc_info=True, stacklevel=2)
        self._quiet_until[kind] = now + self._every

    def worked(self, kind: str) -> None:
        failures = self._failed.pop(kind, 0)
        if failures:
            self._quiet_until.pop(kind, None)
            self._unreported.pop(kind, None)
            self._log.info("%s: %s works again after %s failures", self._what, kind, failures)

"""Follows the notification log and evicts, from this process's caches, every aggregate that any process saved.

A process's own saves evict its caches at once (`BemteviApplication._saved`). Saves of another API process, a
worker or the command line reach this one only through the log: without this follower a session closed there
(a logout, an inactivated user or group) kept working here until its token expired. Each poll reads the
notifications after the last one seen and evicts their aggregates, so another process's change is obeyed within
`poll_interval` plus one query. Evicting this process's own saves a second time only costs a reload.
"""

from __future__ import annotations

import logging
import threading

from bemtevi.commands.application import BemteviApplication

log = logging.getLogger(__name__)


class CacheInvalidator:
    def __init__(self, app: BemteviApplication, poll_interval: float = 0.25, page_size: int = 1000) -> None:
        self._app = app
        self._poll_interval = poll_interval
        self._page_size = page_size
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.position = 0

    def start(self) -> None:
        # Caches are empty at start: what was saved before needs no eviction.
        self.position = self._app.max_position()
        self._thread = threading.Thread(target=self._run, name="cache-invalidator", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def catch_up(self) -> None:
        """Evict what was saved since the last poll (every page of it)."""
        while True:
            notifications = self._app.recorder.select_notifications(
                self.position, self._page_size, inclusive_of_start=False
            )
            if not notifications:
                return
            self._app.evict({n.originator_id for n in notifications})
            self.position = notifications[-1].id
            if len(notifications) < self._page_size:
                return

    def _run(self) -> None:
        while not self._stopping.wait(self._poll_interval):
            try:
                self.catch_up()
            except Exception:  # the store may be briefly unreachable: the next poll tries again
                log.exception("cache invalidator: reading the log failed")

"""Follows the notification log and evicts, from this process's caches, every aggregate that any process saved.

A process's own saves evict its caches at once (`BemteviApplication._saved`). Saves of another API process, a
worker or the command line reach this one only through the log: without this follower a session closed there
(a logout, an inactivated user or group) kept working here until its token expired. Each round reads the
notifications after the last one seen and evicts their aggregates from the read-only caches
(`BemteviApplication.evict_stale`: the read cache, remembered tokens), so another process's change is obeyed
within `poll_interval` plus one query. Writers' copies are left alone: one that another process saved meanwhile
collides on its version when saved and is loaded again, while evicting them every round made the writers reload
their hot accounts four times a second (bench/credits.py lost a third of its rate).
"""

from __future__ import annotations

from typing import cast
from uuid import UUID

from bemtevi.commands.application import BemteviApplication
from bemtevi.streams.follower import LogFollower


class CacheInvalidator(LogFollower):
    thread_name = "bemtevi-cache-invalidator"

    def __init__(self, app: BemteviApplication, poll_interval: float = 0.25, page_size: int = 1000) -> None:
        super().__init__(app, poll_interval=poll_interval)
        self._page_size = page_size
        self._position = 0

    @property
    def position(self) -> int:
        return self._position

    def start(self) -> None:
        # Caches are empty at start: what was saved before needs no eviction.
        self._position = self._app.max_position()
        super().start()

    def catch_up(self) -> int:
        """Evict what was saved since the last round (every page of it)."""
        evicted = 0
        while True:
            notifications = self._app.recorder.select_notifications(
                self._position, self._page_size, inclusive_of_start=False
            )
            if not notifications:
                return evicted
            # The library types a notification's id for either id type; this store is set up with UUIDs.
            self._app.evict_stale(cast("set[UUID]", {n.originator_id for n in notifications}))
            self._position = notifications[-1].id
            evicted += len(notifications)
            if len(notifications) < self._page_size:
                return evicted

    def _pause(self, processed: int) -> None:
        # Not woken by this process's own saves (they evicted already): a round per group-commit append
        # would make the writer reload its hot accounts after every batch.
        self._stopping.wait(self._poll_interval)

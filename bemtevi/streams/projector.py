"""The projector: follows the event store's notification log into the DuckDB read models.

Exactly once: each page of events is folded and written in one DuckDB transaction together
with the tracking position, so a crash never applies an event twice or skips one. In the
embedded deployment it runs as a thread of the server process, woken by every save made in
the process and polling for saves made by others.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import Notification

from bemtevi.commands.application import BemteviApplication
from bemtevi.projections.base import ReadModel
from bemtevi.projections.store import ReadStore

log = logging.getLogger(__name__)

TRACKING_NAME = "read_models"


class Projector:
    def __init__(
        self,
        app: BemteviApplication,
        store: ReadStore,
        read_models: Sequence[ReadModel],
        page_size: int = 1000,
        poll_interval: float = 0.25,
    ) -> None:
        self._app = app
        self._store = store
        self._read_models = list(read_models)
        self._page_size = page_size
        self._poll_interval = poll_interval
        self._topics = self._handled_topics()
        self._wake = threading.Event()
        self._progress = threading.Condition()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None
        with store.transaction() as cur:
            for model in self._read_models:
                model.create(cur)
        self._position = store.tracked_position(TRACKING_NAME)
        app.on_recorded(lambda _position: self._wake.set())

    def _handled_topics(self) -> set[str]:
        from eventsourcing.utils import get_topic

        return {get_topic(t) for model in self._read_models for t in model.event_types}

    @property
    def position(self) -> int:
        return self._position

    # -- processing ---------------------------------------------------------------------------

    def read_page(self) -> Sequence[Notification]:
        return self._app.recorder.select_notifications(self._position, self._page_size, inclusive_of_start=False)

    def process(self, notifications: Sequence[Notification]) -> int:
        """Fold and write one page; returns how many notifications it covered."""
        if not notifications:
            return 0
        folds = [model.fold() for model in self._read_models]
        to_domain_event = self._app.mapper.to_domain_event
        topics = self._topics
        for notification in notifications:
            # Events no read model handles are skipped without decoding them.
            if notification.topic not in topics:
                continue
            event: Any = to_domain_event(notification)
            for fold in folds:
                fold.apply(event, notification.id)
        last = notifications[-1].id
        with self._store.transaction() as cur:
            for fold in folds:
                fold.write(cur)
            cur.execute(
                "INSERT INTO projection_tracking VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET position = excluded.position",
                [TRACKING_NAME, last],
            )
        with self._progress:
            self._position = last
            self._progress.notify_all()
        return len(notifications)

    def catch_up(self) -> int:
        """Process pages until the log has nothing newer; returns events processed."""
        total = 0
        while True:
            page = self.read_page()
            if not page:
                return total
            total += self.process(page)

    def wait_for(self, position: int, timeout: float) -> bool:
        """Block until the read models include ``position`` (bounded); True when they do."""
        if position <= self._position:
            return True
        self._wake.set()
        deadline = time.monotonic() + timeout
        with self._progress:
            while self._position < position:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._progress.wait(remaining)
        return True

    def rebuild(self) -> int:
        """Drop the read models and build them again from the whole log."""
        with self._store.transaction() as cur:
            for model in self._read_models:
                model.drop(cur)
                model.create(cur)
            cur.execute("DELETE FROM projection_tracking WHERE name = ?", [TRACKING_NAME])
        with self._progress:
            self._position = 0
        return self.catch_up()

    # -- thread -------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="bemtevi-projector", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                processed = self.catch_up()
                failures = 0
                self.error = None
            except Exception as e:  # keep following the log; the page is retried as a whole
                failures += 1
                self.error = e
                log.exception("projector failed on a page after position %s", self._position)
                self._stopping.wait(min(5.0, 0.1 * 2**failures))
                continue
            if not processed:
                self._wake.wait(self._poll_interval)

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

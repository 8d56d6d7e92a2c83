"""Following the event store's notification log from a position of one's own, in a thread.

The projector, the mailer and the Kafka relay each keep a position in the log and, whenever the
log may have grown, run a round (``catch_up``) that reads the pages after it, handles them and
moves the position. What they share is here: the thread, what wakes it, and how a failing round
is retried. What a round does, and how long to let appends gather between rounds, is theirs.

Wake-ups: every save made in this process (``BemteviApplication.on_recorded``); with ``listen``
on PostgreSQL, every append made by any process (the recorder's NOTIFY, through
``infra.postgres_store.AppendListener``); and otherwise a poll every ``poll_interval``. A round
that raises is retried after a pause doubling from 0.2 s up to 5 s, with ``error`` set until a
round succeeds; the position stays where the last successful step left it.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from typing import ClassVar

from eventsourcing.persistence import Notification

from bemtevi.commands.application import BemteviApplication
from bemtevi.infra.postgres_store import AppendListener
from bemtevi.projections.store import ReadStore

log = logging.getLogger(__name__)


class LogFollower(ABC):
    thread_name: ClassVar[str]

    def __init__(
        self, app: BemteviApplication, *, poll_interval: float, listen: bool = False, gather_seconds: float = 0.0
    ) -> None:
        self._app = app
        self._poll_interval = poll_interval
        self._gather_seconds = gather_seconds
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._listener = AppendListener.for_recorder(app.recorder, self._wake.set) if listen else None
        self.error: BaseException | None = None
        app.on_recorded(lambda _position: self._wake.set())

    @property
    @abstractmethod
    def position(self) -> int:
        """The notification id up to which the log has been handled."""

    @abstractmethod
    def catch_up(self) -> int:
        """Handle what the log holds after the position; answers how many events were handled."""

    def _pause(self, processed: int) -> None:
        """Between two rounds: by default until woken, or the poll interval; once woken, ``gather_seconds``
        more, for a follower that need not answer every save: the saves of that time go out in one round
        (under a stream of lookups saves come hundreds a second, and a round per save is a read of the log
        and a write of the position each, or the relay's produce requests and every reader's fetch)."""
        self._wake.wait(self._poll_interval)
        if self._gather_seconds and self._wake.is_set():
            self._stopping.wait(self._gather_seconds)

    def _interrupt(self) -> None:  # noqa: B027 - a hook, empty unless a pause waits on more
        """Stopping: end any wait of ``_pause`` besides the wake-up (which ``stop`` sets)."""

    def _close(self) -> None:  # noqa: B027 - a hook, empty unless rounds hold resources
        """Stopped: release what the rounds used."""

    def start(self) -> None:
        if self._thread is not None:
            return
        if self._listener is not None:
            self._listener.start()
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                processed = self.catch_up()
                failures = 0
                self.error = None
            except Exception as e:  # keep following the log; the round is retried from the position
                failures += 1
                self.error = e
                log.exception("%s failed after position %s", self.thread_name, self.position)
                self._stopping.wait(min(5.0, 0.1 * 2**failures))
                continue
            self._pause(processed)

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        self._interrupt()
        if self._listener is not None:
            self._listener.stop()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self._close()


class TrackedFollower(LogFollower):
    """A follower of one kind of event (the mailer's mails, the batch follower's batches) whose position is a
    row of the read store's ``projection_tracking``: moved past an event once it is handled (``_track``),
    and past a stretch of the log without any (``_skip_to``). The skips are written at most every
    ``SKIP_WRITE_SECONDS`` (and at stop): each is a DuckDB commit, and rounds come several a second under
    lookups; a restart rereads at most that much log, finding nothing of its kind in it."""

    SKIP_WRITE_SECONDS: ClassVar[float] = 5.0
    #: The topic (event type) this follower handles; the log is read for it alone.
    topic: ClassVar[str]

    def __init__(
        self,
        app: BemteviApplication,
        store: ReadStore,
        tracking_name: str,
        *,
        poll_interval: float,
        gather_seconds: float = 0.0,
        page_size: int = 100,
    ) -> None:
        super().__init__(app, poll_interval=poll_interval, gather_seconds=gather_seconds)
        self._store = store
        self._tracking_name = tracking_name
        self._page_size = page_size
        self._position = self._written = store.tracked_position(tracking_name)
        self._next_skip_write = 0.0

    @abstractmethod
    def handle(self, notification: Notification) -> bool:
        """Handle one event of ``topic``; False when stopping first (it stays next, handled at the next start)."""

    def catch_up(self) -> int:
        """Handle every event of ``topic`` after the tracked position; answers how many were handled."""
        handled = 0
        while not self._stopping.is_set():
            # The end is read first: an event appended after it is found by the next round.
            last = self._app.max_position()
            page = self._app.recorder.select_notifications(
                self._position, self._page_size, stop=last, topics=[self.topic], inclusive_of_start=False
            )
            if not page:
                # None up to the end: remember it so the next round reads less.
                if last > self._position:
                    self._skip_to(last)
                return handled
            for notification in page:
                if not self.handle(notification):
                    return handled
                self._track(notification.id)
                handled += 1
        return handled

    @property
    def position(self) -> int:
        return self._position

    def _track(self, position: int) -> None:
        with self._store.transaction() as cur:
            ReadStore.record_position(cur, self._tracking_name, position)
        self._position = self._written = position

    def _skip_to(self, position: int) -> None:
        self._position = position
        now = time.monotonic()
        if now >= self._next_skip_write:
            self._track(position)
            self._next_skip_write = now + self.SKIP_WRITE_SECONDS

    def _close(self) -> None:
        if self._position > self._written:
            self._track(self._position)

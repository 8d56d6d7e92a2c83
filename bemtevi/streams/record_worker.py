"""A faust agent over one of the relay's topics that hands each record of one event type to blocking work.

The mailer and enrichment workers share this shape (``mail_worker.py``, ``enrichment_worker.py``); each
says only which event it takes and what it does with it (``act``: deliver the mail, run the batch).

- The work runs in one thread of the worker's, one record at a time in the partition's order, so that the
  event loop keeps the consumer's heartbeats going while it lasts (an SMTP conversation, a batch's minutes).
- Records are acked by hand, once handled (``stream.noack()``): faust acks the record in hand when its stream
  is closed, so a worker stopped (or killed) mid-work would otherwise have its record committed with the work
  undone. An unacked record's offset is never committed; the partition's next owner meets it again.
- Records met again (after a lost commit, a kill, a rebalance) are dropped by notification id: per partition,
  the id of the last record handled, a row ``<name>:<topic>:<partition>`` of the event store's tracking table,
  moved only after the work. Marks are loaded once per assignment and forgotten when a partition is revoked
  (another worker may move it meanwhile).
- A failure of the work or the store is retried with a doubling pause, the record staying the agent's next,
  until it passes or the worker stops (``stopping`` ends the pause).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import faust
from eventsourcing.persistence import IntegrityError, Tracking

from bemtevi.commands.application import BemteviApplication
from bemtevi.streams.relay import NOTIFICATION_ID_HEADER, TOPIC_HEADER, Deduplicator, RelayedEvent
from bemtevi.streams.workers import header

log = logging.getLogger(__name__)


class RecordWorker(ABC):
    """Hands the records of ``topic`` whose event is ``event_topic`` to ``act`` (blocking, in one thread);
    ``attach`` makes it the faust agent ``bemtevi-<name>``."""

    #: The worker's name: its tracking rows, its agent and its thread are named after it.
    name: str
    #: The event type's topic name (the relay's ``topic`` header) this worker takes; others are passed over.
    event_topic: str

    def __init__(
        self, app: BemteviApplication, stopping: threading.Event, topic: str, retry_seconds: float = 1.0
    ) -> None:
        self._app = app
        self._stopping = stopping
        self.topic = topic
        self._retry_seconds = retry_seconds
        self._tracking = app.factory.tracking_recorder()
        self._seen = Deduplicator()
        self._lock = threading.Lock()
        self._wanted = self.event_topic.encode()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"bemtevi-{self.name}")

    @abstractmethod
    def act(self, event: Any) -> bool:
        """Do the work of one event (blocking); False when the worker stopped before it was done."""

    def tracking_name(self, partition: int) -> str:
        return f"{self.name}:{self.topic}:{partition}"

    def mark(self, partition: int) -> int:
        """The notification id up to which ``partition``'s records are handled (loaded once per assignment)."""
        with self._lock:
            if partition not in self._seen.marks:
                self._seen.marks[partition] = self._tracking.max_tracking_id(self.tracking_name(partition)) or 0
            return self._seen.marks[partition]

    def forget(self, partitions: set[int]) -> None:
        """Partitions taken away (a rebalance): their marks are read again from the store if they come back."""
        with self._lock:
            for partition in partitions:
                self._seen.marks.pop(partition, None)

    def handle(self, partition: int, notification_id: int, value: bytes) -> bool:
        """Do this record's work unless it was handled already; False when stopped first."""
        failures = 0
        while not self._stopping.is_set():
            try:
                return self._handle_once(partition, notification_id, value)
            except Exception:
                failures += 1
                log.exception(
                    "%s: record of notification %s (partition %s) not handled; trying again",
                    self.name,
                    notification_id,
                    partition,
                )
                self._stopping.wait(min(10.0, self._retry_seconds * 2 ** (failures - 1)))
        return False

    def _handle_once(self, partition: int, notification_id: int, value: bytes) -> bool:
        self.mark(partition)
        if self._seen.is_duplicate(partition, notification_id):
            return True
        event: Any = self._app.mapper.to_domain_event(RelayedEvent.decode(value).notification())
        if not self.act(event):
            return False
        # IntegrityError: the stored mark is at or past it already (another worker had the partition meanwhile).
        with contextlib.suppress(IntegrityError):
            self._tracking.insert_tracking(Tracking(self.tracking_name(partition), notification_id))
        with self._lock:
            self._seen.handled(partition, notification_id)
        return True

    def attach(self, app: faust.App, topic: faust.TopicT) -> None:
        """Make this the agent ``bemtevi-<name>`` of ``app`` over ``topic`` (the relay's)."""

        @app.on_partitions_revoked.connect
        def on_revoked(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
            revoked = args[0] if args else kwargs.get("revoked", ())  # the partitions (TPs) taken away
            self.forget({tp.partition for tp in revoked if tp.topic == self.topic})

        async def agent(stream: faust.StreamT[bytes]) -> None:
            loop = asyncio.get_running_loop()
            try:
                unacked = cast(faust.Stream[bytes], stream).noack()
                async for event in unacked.events():
                    message = event.message
                    raw_id = header(message.headers, NOTIFICATION_ID_HEADER)
                    if header(message.headers, TOPIC_HEADER) == self._wanted and raw_id is not None:
                        value = message.value
                        assert isinstance(value, bytes)
                        handled = await loop.run_in_executor(
                            self._executor, self.handle, message.partition, int(raw_id), value
                        )
                        if not handled:
                            return  # stopping: this record was not handled and stays uncommitted
                    event.ack()
            except asyncio.CancelledError:
                self._stopping.set()  # the worker stops: a pause or a batch in the thread ends too
                raise

        app.agent(topic, name=f"bemtevi-{self.name}")(agent)

    def close(self) -> None:
        """Stop: the work in hand ends at its next stopping point; the thread is waited for."""
        self._stopping.set()
        self._executor.shutdown(wait=True)

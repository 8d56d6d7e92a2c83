"""Cluster mode's mailer: a faust agent over the relay's mail topic that delivers every queued ``Mail``.

``bemtevi worker mailer`` runs it (consumer group ``bemtevi-mailer``: two workers share the topic's
partitions, and a dead one's partitions move to the other). The relay publishes ``Mail.Queued`` to a
topic of its own (``BEMTEVI_KAFKA_MAIL_TOPIC``), so the worker meets no other event; records are still
routed by their ``topic`` header without decoding (anything else is passed over). A queued mail is delivered by
the embedded mailer's own code (``MailDelivery``: reloaded from the event store, delivered only while
still queued, ``Mail.Failed`` per failure, retried with a doubling pause), in a thread of the worker's
so that the event loop keeps the consumer's heartbeats going during an SMTP conversation.

Positions: faust commits the offsets of handled records every few seconds, so a worker killed with
SIGKILL, or a partition moved to another worker, starts again from its last commit and meets some
records again. Those are dropped by notification id: per partition, the id of the last mail whose
outcome was appended, a row ``mailer:<topic>:<partition>`` of the event store's tracking table (as the
relay's position), moved only after that outcome. So a mail is never lost; it is sent twice only when
a worker dies between the SMTP server's acceptance and the append of ``Mail.Sent`` (a mail recorded as
sent is never sent again: its reload says so, whatever the positions).

Records are acked by hand once handled (``stream.noack()``): faust acks the record in hand when its stream
is closed, so a worker stopped while a mail waited for its next try would have committed that record with the
mail still queued, and no worker would have met it again. A stop signal first ends the retry pause
(``StreamWorker.stopping``), so that faust's wait for the records in hand does not wait for the pause.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import faust
from eventsourcing.persistence import IntegrityError, Tracking

from bemtevi.commands.application import BemteviApplication
from bemtevi.streams.mailer import QUEUED_TOPIC, MailDelivery
from bemtevi.streams.relay import NOTIFICATION_ID_HEADER, TOPIC_HEADER, Deduplicator, RelayedEvent
from bemtevi.streams.workers import header

log = logging.getLogger(__name__)

_QUEUED = QUEUED_TOPIC.encode()


def tracking_name(topic: str, partition: int) -> str:
    """The mailer worker's row in the event store's tracking table for one partition of ``topic``."""
    return f"mailer:{topic}:{partition}"


class MailWorker:
    """Delivers the queued mails of the records it is handed (``handle``, blocking), dropping those of
    partitions it has handled already; ``attach`` makes it a faust agent over ``topic``."""

    def __init__(
        self,
        app: BemteviApplication,
        delivery: MailDelivery,
        stopping: threading.Event,
        topic: str,
        retry_seconds: float = 1.0,
    ) -> None:
        self._app = app
        self._delivery = delivery
        self._stopping = stopping
        self.topic = topic
        self._retry_seconds = retry_seconds
        self._tracking = app.factory.tracking_recorder()
        self._seen = Deduplicator()
        self._lock = threading.Lock()
        # One thread: a partition's mails are delivered in their order, one at a time.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bemtevi-mail-worker")

    def mark(self, partition: int) -> int:
        """The notification id up to which ``partition``'s mails are handled (loaded once per assignment)."""
        with self._lock:
            if partition not in self._seen.marks:
                self._seen.marks[partition] = self._tracking.max_tracking_id(tracking_name(self.topic, partition)) or 0
            return self._seen.marks[partition]

    def forget(self, partitions: set[int]) -> None:
        """Partitions taken away (a rebalance): their marks are read again from the store if they come back,
        as another worker may have moved them meanwhile."""
        with self._lock:
            for partition in partitions:
                self._seen.marks.pop(partition, None)

    def handle(self, partition: int, notification_id: int, value: bytes) -> bool:
        """Deliver the mail queued by this record unless it was handled already; False when stopped first.

        A failure of the store is retried here (the record stays the agent's next) until it passes or
        the worker stops."""
        failures = 0
        while not self._stopping.is_set():
            try:
                return self._handle_once(partition, notification_id, value)
            except Exception:
                failures += 1
                log.exception(
                    "mail of notification %s (partition %s) not handled; trying again", notification_id, partition
                )
                self._stopping.wait(min(10.0, self._retry_seconds * 2 ** (failures - 1)))
        return False

    def _handle_once(self, partition: int, notification_id: int, value: bytes) -> bool:
        self.mark(partition)
        if self._seen.is_duplicate(partition, notification_id):
            return True
        event: Any = self._app.mapper.to_domain_event(RelayedEvent.decode(value).notification())
        if not self._delivery.deliver(event.originator_id, event.tenant_id):
            return False
        # IntegrityError: the stored mark is at or past it already (another worker had the partition meanwhile).
        with contextlib.suppress(IntegrityError):
            self._tracking.insert_tracking(Tracking(tracking_name(self.topic, partition), notification_id))
        with self._lock:
            self._seen.handled(partition, notification_id)
        return True

    def attach(self, app: faust.App, topic: faust.TopicT) -> None:
        """Make this the agent ``bemtevi-mailer`` of ``app`` over ``topic`` (the relay's)."""

        @app.on_partitions_revoked.connect
        def on_revoked(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
            revoked = args[0] if args else kwargs.get("revoked", ())  # the partitions (TPs) taken away
            self.forget({tp.partition for tp in revoked if tp.topic == self.topic})

        async def mailer(stream: faust.StreamT[bytes]) -> None:
            loop = asyncio.get_running_loop()
            try:
                # Acked by hand, once handled: faust acks the record in hand when a stream is closed (the
                # worker stopping), and its offset would be committed with its mail still queued.
                unacked = cast(faust.Stream[bytes], stream).noack()
                async for event in unacked.events():
                    message = event.message
                    raw_id = header(message.headers, NOTIFICATION_ID_HEADER)
                    if header(message.headers, TOPIC_HEADER) == _QUEUED and raw_id is not None:
                        value = message.value
                        assert isinstance(value, bytes)
                        handled = await loop.run_in_executor(
                            self._executor, self.handle, message.partition, int(raw_id), value
                        )
                        if not handled:
                            return  # stopping: this record was not handled and stays uncommitted
                    event.ack()
            except asyncio.CancelledError:
                self._stopping.set()  # the worker stops: a retry pause in the thread ends too
                raise

        app.agent(topic, name="bemtevi-mailer")(mailer)

    def close(self) -> None:
        """Stop: a mail in its retry pause stays queued; the one being sent is finished (and recorded)."""
        self._stopping.set()
        self._executor.shutdown(wait=True)

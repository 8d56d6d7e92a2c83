"""Cluster mode's enrichment processor: a faust agent over the relay's batch topic running every submitted batch.

``bemtevi worker enrichment`` runs it (consumer group ``bemtevi-enrichment``). The relay publishes
``Batch.Submitted`` to a topic of its own (``BEMTEVI_KAFKA_BATCH_TOPIC``), keyed by the batch's id, so one batch's
records meet one worker. A batch is run by the embedded processor's own code (``BatchRunner``) in a thread of the
worker's, so that the event loop keeps the consumer's heartbeats going for the minutes a batch takes.

A batch's record is acknowledged only once the batch is over (``stream.noack()``, ``event.ack()`` after the run):
faust commits only acknowledged offsets, so a worker killed with SIGKILL mid-batch leaves the record uncommitted,
and the worker that gets the partition next (the same one started again, or another of the group after the
broker's session timeout) meets it again and resumes the batch from its chunk files under ``<var>/batches/``. The
ledger's request ids make the settle count once, and the batch's state makes a batch that was over when the
worker died a no-op. Records met again after a commit was lost are dropped by notification id, as the mailer
worker does (``enrichment:<topic>:<partition>`` rows of the event store's tracking table).
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
from bemtevi.streams.enrichment import SUBMITTED_TOPIC, BatchRunner
from bemtevi.streams.relay import NOTIFICATION_ID_HEADER, TOPIC_HEADER, Deduplicator, RelayedEvent
from bemtevi.streams.workers import header

log = logging.getLogger(__name__)

_SUBMITTED = SUBMITTED_TOPIC.encode()


def tracking_name(topic: str, partition: int) -> str:
    return f"enrichment:{topic}:{partition}"


class EnrichmentWorker:
    def __init__(
        self,
        app: BemteviApplication,
        runner: BatchRunner,
        stopping: threading.Event,
        topic: str,
        retry_seconds: float = 1.0,
    ) -> None:
        self._app = app
        self._runner = runner
        self._stopping = stopping
        self.topic = topic
        self._retry_seconds = retry_seconds
        self._tracking = app.factory.tracking_recorder()
        self._seen = Deduplicator()
        self._lock = threading.Lock()
        # One batch at a time per worker: a batch already uses DuckDB's threads.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bemtevi-enrichment")

    def mark(self, partition: int) -> int:
        with self._lock:
            if partition not in self._seen.marks:
                self._seen.marks[partition] = self._tracking.max_tracking_id(tracking_name(self.topic, partition)) or 0
            return self._seen.marks[partition]

    def forget(self, partitions: set[int]) -> None:
        with self._lock:
            for partition in partitions:
                self._seen.marks.pop(partition, None)

    def handle(self, partition: int, notification_id: int, value: bytes) -> bool:
        """Run the batch of this record to its end unless handled already; False when stopped first."""
        failures = 0
        while not self._stopping.is_set():
            try:
                return self._handle_once(partition, notification_id, value)
            except Exception:
                failures += 1
                log.exception(
                    "batch of notification %s (partition %s) not run; trying again", notification_id, partition
                )
                self._stopping.wait(min(10.0, self._retry_seconds * 2 ** (failures - 1)))
        return False

    def _handle_once(self, partition: int, notification_id: int, value: bytes) -> bool:
        self.mark(partition)
        if self._seen.is_duplicate(partition, notification_id):
            return True
        event: Any = self._app.mapper.to_domain_event(RelayedEvent.decode(value).notification())
        if not self._runner.run(event.originator_id):
            return False
        with contextlib.suppress(IntegrityError):
            self._tracking.insert_tracking(Tracking(tracking_name(self.topic, partition), notification_id))
        with self._lock:
            self._seen.handled(partition, notification_id)
        return True

    def attach(self, app: faust.App, topic: faust.TopicT) -> None:
        """Make this the agent ``bemtevi-enrichment`` of ``app`` over ``topic`` (the relay's batch topic)."""

        @app.on_partitions_revoked.connect
        def on_revoked(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
            revoked = args[0] if args else kwargs.get("revoked", ())
            self.forget({tp.partition for tp in revoked if tp.topic == self.topic})

        async def enrichment(stream: faust.StreamT[bytes]) -> None:
            loop = asyncio.get_running_loop()
            try:
                # Acked by hand once the batch is over: an unacked record's offset is never committed.
                unacked = cast(faust.Stream[bytes], stream).noack()
                async for event in unacked.events():
                    message = event.message
                    raw_id = header(message.headers, NOTIFICATION_ID_HEADER)
                    if header(message.headers, TOPIC_HEADER) == _SUBMITTED and raw_id is not None:
                        value = message.value
                        assert isinstance(value, bytes)
                        handled = await loop.run_in_executor(
                            self._executor, self.handle, message.partition, int(raw_id), value
                        )
                        if not handled:
                            return  # stopping: the batch stays unfinished and its record uncommitted
                    event.ack()
            except asyncio.CancelledError:
                self._stopping.set()  # the batch in hand stops between two chunks
                raise

        app.agent(topic, name="bemtevi-enrichment")(enrichment)

    def close(self) -> None:
        self._stopping.set()
        self._executor.shutdown(wait=True)

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
worker does (``enrichment:<topic>:<partition>`` rows of the event store's tracking table): the agent, its acks,
positions and retries are ``record_worker.RecordWorker``'s, shared with the mailer worker.
"""

from __future__ import annotations

import threading
from typing import Any

from bemtevi.commands.application import BemteviApplication
from bemtevi.streams.enrichment import SUBMITTED_TOPIC, BatchRunner
from bemtevi.streams.record_worker import RecordWorker


def tracking_name(topic: str, partition: int) -> str:
    return f"{EnrichmentWorker.name}:{topic}:{partition}"


class EnrichmentWorker(RecordWorker):
    """Runs the batch of each ``Batch.Submitted`` record to its end (one batch at a time per worker: a batch
    already uses DuckDB's threads)."""

    name = "enrichment"
    event_topic = SUBMITTED_TOPIC

    def __init__(
        self,
        app: BemteviApplication,
        runner: BatchRunner,
        stopping: threading.Event,
        topic: str,
        retry_seconds: float = 1.0,
    ) -> None:
        self._runner = runner
        super().__init__(app, stopping, topic, retry_seconds)

    def act(self, event: Any) -> bool:
        return self._runner.run(event.originator_id)

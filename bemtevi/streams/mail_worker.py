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
The agent, its acks, positions and retries are ``record_worker.RecordWorker``'s, shared with the enrichment worker.
"""

from __future__ import annotations

import threading
from typing import Any

from bemtevi.commands.application import BemteviApplication
from bemtevi.streams.mailer import QUEUED_TOPIC, MailDelivery
from bemtevi.streams.record_worker import RecordWorker


def tracking_name(topic: str, partition: int) -> str:
    """The mailer worker's row in the event store's tracking table for one partition of ``topic``."""
    return f"{MailWorker.name}:{topic}:{partition}"


class MailWorker(RecordWorker):
    """Delivers the mail queued by each ``Mail.Queued`` record (one at a time: a partition's mails in order)."""

    name = "mailer"
    event_topic = QUEUED_TOPIC

    def __init__(
        self,
        app: BemteviApplication,
        delivery: MailDelivery,
        stopping: threading.Event,
        topic: str,
        retry_seconds: float = 1.0,
    ) -> None:
        self._delivery = delivery
        super().__init__(app, stopping, topic, retry_seconds)

    def act(self, event: Any) -> bool:
        return self._delivery.deliver(event.originator_id, event.tenant_id)

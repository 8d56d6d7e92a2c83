"""The mailer: follows the notification log and delivers every queued ``Mail`` (embedded mode; cluster
mode's mailer is ``bemtevi.streams.mail_worker``, over Kafka, with the same ``MailDelivery``).

Idempotent by the mail's own state: a mail is delivered only while, reloaded from the event
store, it is still ``queued``; its outcome (``Mail.Sent`` or ``Mail.Failed``) is appended right
after. The mailer's position in the log is kept in the read store's tracking table and moved
past a mail only once that mail has its outcome, so a restart neither skips a mail nor sends one
that was already recorded as sent (an SMTP server that accepted a message just before a crash,
with no ``Sent`` appended yet, gets it again: at least once, never lost).

Without an SMTP server (``sender`` None) each mail is "kept": recorded with transport
``outbox`` for the super-admin's outbox screen. With one, a failing delivery is tried again
with a doubling pause, ``Mail.Failed`` recording each failure, and the last one as final.
"""

from __future__ import annotations

import logging
import smtplib
import threading
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError, Notification
from eventsourcing.utils import get_topic

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.mail import Mail
from bemtevi.infra.mail import MailSender
from bemtevi.projections.store import ReadStore
from bemtevi.streams.follower import TrackedFollower

log = logging.getLogger(__name__)

TRACKING_NAME = "mailer"
QUEUED_TOPIC = get_topic(Mail.Queued)


class MailDelivery:
    """Delivers one queued mail, as the embedded mailer and the mailer worker both do.

    The mail is reloaded from the event store and delivered only while it is still ``queued``; its
    outcome is appended right after (``Mail.Sent``, or ``Mail.Failed`` per failed try, the last one
    final, with a doubling pause between tries). ``stopping`` ends a pause: the mail stays queued."""

    def __init__(
        self,
        app: BemteviApplication,
        sender: MailSender | None,
        stopping: threading.Event,
        attempts: int = 4,
        retry_seconds: float = 2.0,
    ) -> None:
        self._app = app
        self._sender = sender
        self._stopping = stopping
        self._attempts = max(1, attempts)
        self._retry_seconds = retry_seconds

    def deliver(self, mail_id: UUID, tenant_id: UUID) -> bool:
        """Deliver one mail if it is still queued; False when stopped before its outcome."""
        actor = Actor(user_id=None, tenant_id=tenant_id)
        pause = self._retry_seconds
        while True:
            mail = self._app.find(mail_id, Mail)
            if mail is None or mail.status != "queued":
                return True  # already delivered, kept or failed for good
            if self._sender is None:
                with acting_as(actor):
                    mail.mark_sent("outbox")
                if self._save(mail):
                    return True
                continue
            try:
                # A mail queued before senders had names has none: the configured sender's.
                sender_name = getattr(mail, "sender_name", None)
                self._sender.send(mail.to, mail.subject, mail.text, mail.html, mail.reply_to, sender_name)
            except (smtplib.SMTPException, OSError) as e:
                final = mail.attempts + 1 >= self._attempts
                log.warning("mail %s: delivery failed (%s)%s", mail_id, e, ", giving up" if final else "")
                with acting_as(actor):
                    mail.mark_failed(f"{type(e).__name__}: {e}"[:500], final)
                self._save(mail)
                if final:
                    return True
                if self._stopping.wait(pause):
                    return False
                pause *= 2
                continue
            with acting_as(actor):
                mail.mark_sent(self._sender.transport)
            self._save(mail)
            return True

    def _save(self, mail: Mail) -> bool:
        try:
            self._app.save_all(mail)
        except IntegrityError:
            return False  # someone recorded an outcome meanwhile: reload and look again
        return True


class Mailer(TrackedFollower):
    """The embedded mailer: a thread following the log, its position in the read store."""

    thread_name = "bemtevi-mailer"
    topic = QUEUED_TOPIC

    def __init__(
        self,
        app: BemteviApplication,
        store: ReadStore,
        sender: MailSender | None,
        attempts: int = 4,
        retry_seconds: float = 2.0,
        page_size: int = 500,
        poll_interval: float = 0.5,
        gather_seconds: float = 0.25,
    ) -> None:
        # Saves wake the mailer; under a stream of lookups they come hundreds a second, and a
        # round per save cost a tenth of the server's interpreter time. A mail may wait ``gather_seconds``.
        super().__init__(
            app, store, TRACKING_NAME, poll_interval=poll_interval, gather_seconds=gather_seconds, page_size=page_size
        )
        self._delivery = MailDelivery(app, sender, self._stopping, attempts, retry_seconds)

    def handle(self, notification: Notification) -> bool:
        event: Any = self._app.mapper.to_domain_event(notification)
        return self._delivery.deliver(event.originator_id, event.tenant_id)  # False: stopping mid-retries

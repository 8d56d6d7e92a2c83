"""Mail: a message the product owes someone (a recovery code, a contact request, a notice).

A command that wants a message sent creates a ``Mail`` in the same append as the change that
calls for it, so the message is never lost nor sent for a change that did not happen. The mailer
(``bemtevi.streams.mailer``) follows the log and delivers each queued mail over SMTP, or keeps it
in the outbox a super-admin reads when no SMTP server is configured, recording the outcome.
"""

from __future__ import annotations

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate


class Mail(AuditedAggregate):
    class Queued(AuditedAggregate.Created):
        to: str
        subject: str
        text: str
        reason: str
        html: str | None
        reply_to: str | None
        sender_name: str | None

    @event(Queued)
    def __init__(
        self,
        to: str,
        subject: str,
        text: str,
        reason: str,
        html: str | None = None,
        reply_to: str | None = None,
        sender_name: str | None = None,
    ) -> None:
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.reply_to = reply_to
        # Who the mail says it is from (a white label's name; None: the deployment's sender as configured).
        self.sender_name = sender_name
        # What called for it ("password-recovery", "contact", "first-access", …).
        self.reason = reason
        self.status = "queued"
        self.attempts = 0
        self.last_error: str | None = None

    @classmethod
    def queue(
        cls,
        to: str,
        subject: str,
        text: str,
        reason: str,
        html: str | None = None,
        reply_to: str | None = None,
        sender_name: str | None = None,
    ) -> Mail:
        return cls(
            to=to, subject=subject, text=text, reason=reason, html=html, reply_to=reply_to, sender_name=sender_name
        )

    class Sent(AuditedAggregate.Event):
        transport: str

    @event(Sent)
    def mark_sent(self, transport: str) -> None:
        """``transport``: "smtp", or "outbox" when kept for the in-app outbox."""
        self.status = "sent" if transport == "smtp" else "kept"
        self.transport = transport
        self.attempts += 1

    class Failed(AuditedAggregate.Event):
        error: str
        final: bool

    @event(Failed)
    def mark_failed(self, error: str, final: bool) -> None:
        self.attempts += 1
        self.last_error = error
        self.status = "failed" if final else "queued"

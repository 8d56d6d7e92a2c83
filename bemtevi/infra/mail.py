"""SMTP delivery with the standard library: plain, STARTTLS or SSL, with login and timeouts."""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Protocol

from bemtevi.infra.settings import Settings


class MailSender(Protocol):
    transport: str

    def send(self, to: str, subject: str, text: str, html: str | None = None, reply_to: str | None = None) -> None:
        """Deliver one message or raise (``smtplib.SMTPException`` / ``OSError``)."""


@dataclass(frozen=True, slots=True)
class SmtpConfig:
    host: str
    port: int = 25
    user: str | None = None
    password: str | None = None
    sender: str = "Bemtevi <no-reply@bemtevi.local>"
    starttls: bool = False
    use_ssl: bool = False
    timeout: float = 10.0


class SmtpSender:
    transport = "smtp"

    def __init__(self, config: SmtpConfig) -> None:
        self.config = config

    def message(
        self, to: str, subject: str, text: str, html: str | None = None, reply_to: str | None = None
    ) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = self.config.sender
        msg["To"] = to
        msg["Subject"] = subject
        msg["Message-ID"] = make_msgid(domain="bemtevi.local")
        if reply_to:
            msg["Reply-To"] = reply_to
        msg.set_content(text)
        if html:
            msg.add_alternative(html, subtype="html")
        return msg

    def send(self, to: str, subject: str, text: str, html: str | None = None, reply_to: str | None = None) -> None:
        config = self.config
        msg = self.message(to, subject, text, html, reply_to)
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if config.use_ssl:
            smtp = smtplib.SMTP_SSL(config.host, config.port, timeout=config.timeout, context=context)
        else:
            smtp = smtplib.SMTP(config.host, config.port, timeout=config.timeout)
        with smtp:
            if config.starttls and not config.use_ssl:
                smtp.starttls(context=context)
            if config.user:
                smtp.login(config.user, config.password or "")
            smtp.send_message(msg)


def sender_from_settings(settings: Settings) -> SmtpSender | None:
    """The SMTP sender the settings describe; ``None`` (keep mails in the outbox) without a host."""
    if not settings.smtp_host:
        return None
    return SmtpSender(
        SmtpConfig(
            host=settings.smtp_host,
            port=settings.smtp_port,
            user=settings.smtp_user,
            password=settings.smtp_password,
            sender=settings.smtp_from,
            starttls=settings.smtp_starttls,
            use_ssl=settings.smtp_ssl,
            timeout=settings.smtp_timeout_seconds,
        )
    )

"""SMTP delivery with the standard library: plain, STARTTLS or SSL, with login and timeouts."""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, make_msgid, parseaddr
from typing import Protocol

from bemtevi.infra.settings import Settings


class MailSender(Protocol):
    transport: str

    def send(
        self,
        to: str,
        subject: str,
        text: str,
        html: str | None = None,
        reply_to: str | None = None,
        sender_name: str | None = None,
    ) -> None:
        """Deliver one message or raise (``smtplib.SMTPException`` / ``OSError``); ``sender_name``: the
        name the message is from (a white label's), at the configured sender's address."""


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
        self,
        to: str,
        subject: str,
        text: str,
        html: str | None = None,
        reply_to: str | None = None,
        sender_name: str | None = None,
    ) -> EmailMessage:
        msg = EmailMessage()
        address = parseaddr(self.config.sender)[1] or self.config.sender
        # A white label's mail carries its own name: its users never read the platform's.
        msg["From"] = formataddr((sender_name, address)) if sender_name else self.config.sender
        msg["To"] = to
        msg["Subject"] = subject
        msg["Message-ID"] = make_msgid(domain=address.rsplit("@", 1)[-1] or None)
        if reply_to:
            msg["Reply-To"] = reply_to
        msg.set_content(text)
        if html:
            msg.add_alternative(html, subtype="html")
        return msg

    def send(
        self,
        to: str,
        subject: str,
        text: str,
        html: str | None = None,
        reply_to: str | None = None,
        sender_name: str | None = None,
    ) -> None:
        config = self.config
        msg = self.message(to, subject, text, html, reply_to, sender_name)
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

"""A batch's optional webhook: one signed POST when the batch is over, tried up to 3 more times.

The body is the JSON the runner gives (``{id, status, records, found, ...}``), sent as it is signed:
header ``X-Bemtevi-Signature: sha256=<hex HMAC-SHA256 of the body's bytes with the batch's secret>`` (the
receiver recomputes it over the raw body it got). A 2xx answer is delivered; anything else (a 3xx, 4xx or
5xx status, a refused connection, a timeout) is tried again after a pause doubling from ``backoff`` seconds
(tenacity), 1 try + ``retries`` in all. The outcome is answered, never raised: a customer's endpoint that is
down must not stop the processor from taking the next batch.

Standard library HTTP (urllib), in the runner's thread: one request per finished batch needs no pool.

The URL is a customer's: the server must not become their way into the deployment's own network. So,
unless ``allow_private`` (tests, or a deployment whose receivers are internal on purpose), every address
the host name resolves to must be a public one (not loopback, private, link-local, reserved or
multicast), checked at each try (a name that changes its answer between tries is checked again), and a
redirect is not followed (it would reach an address never checked): it counts as a refusal.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

import orjson
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Bemtevi-Signature"


def signature(secret: str, body: bytes) -> str:
    """The header's value for ``body``: ``sha256=`` and the hex HMAC-SHA256 with ``secret``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class WebhookRefused(Exception):
    """The endpoint answered with a status other than 2xx."""


class WebhookAddressNotAllowed(ValueError):
    """The URL's host is (or resolves to) an address of the deployment's own network."""


def require_public_host(url: str, *, allow_private: bool = False) -> None:
    """Raise ``WebhookAddressNotAllowed`` unless ``url`` is http(s) with a host and (unless ``allow_private``)
    every address the host resolves to is public. The one check: at submit (``BatchCommands.submit``) and at
    each try here."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError as e:
        raise WebhookAddressNotAllowed(f"not a URL: {e}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookAddressNotAllowed("not an http(s) URL with a host")
    if allow_private:
        return
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        answers = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (OSError, ValueError) as e:
        raise WebhookAddressNotAllowed(f"host not resolved: {e}") from None
    for answer in answers:
        address = ipaddress.ip_address(str(answer[4][0]).split("%", 1)[0])
        if not address.is_global or address.is_multicast:
            raise WebhookAddressNotAllowed(f"{parts.hostname} is not a public address")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # urllib then raises the 3xx as an HTTPError: a refusal


@dataclass(frozen=True)
class WebhookOutcome:
    delivered: bool
    attempts: int
    status: int | None  # the last HTTP status, None when no answer came
    error: str | None


class WebhookSender:
    def __init__(
        self, *, retries: int = 3, backoff: float = 1.0, timeout: float = 10.0, allow_private: bool = False
    ) -> None:
        self._retries = retries
        self._backoff = backoff
        self._timeout = timeout
        self._allow_private = allow_private
        self._opener = urllib.request.build_opener(_NoRedirects)

    def send(self, url: str, secret: str | None, payload: dict[str, object]) -> WebhookOutcome:
        body = orjson.dumps(payload)
        headers = {"Content-Type": "application/json", "User-Agent": "Bemtevi-Webhook/1"}
        if secret:
            headers[SIGNATURE_HEADER] = signature(secret, body)
        attempts = 0
        last_status: int | None = None

        def post() -> int:
            nonlocal attempts, last_status
            attempts += 1
            require_public_host(url, allow_private=self._allow_private)
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            try:
                with self._opener.open(request, timeout=self._timeout) as response:
                    last_status = int(response.status)
            except urllib.error.HTTPError as e:
                last_status = e.code
                raise WebhookRefused(f"HTTP {e.code}") from e
            if not 200 <= last_status < 300:
                raise WebhookRefused(f"HTTP {last_status}")
            return last_status

        retrying = Retrying(
            stop=stop_after_attempt(1 + self._retries),
            wait=wait_exponential(multiplier=self._backoff, max=30),
            retry=retry_if_exception_type((WebhookRefused, OSError)),
            reraise=False,
        )
        try:
            retrying(post)
        except RetryError as e:
            cause = e.last_attempt.exception()
            error = f"{type(cause).__name__}: {cause}"[:300]
            log.warning("webhook to %s not delivered after %s tries (%s)", url, attempts, error)
            return WebhookOutcome(False, attempts, last_status, error)
        except ValueError as e:  # a URL urllib cannot use, or an address not allowed: not tried again
            log.warning("webhook to %s not sent: %s", url, e)
            return WebhookOutcome(False, attempts, None, str(e)[:300])
        log.info("webhook to %s delivered (HTTP %s, %s tries)", url, last_status, attempts)
        return WebhookOutcome(True, attempts, last_status, None)

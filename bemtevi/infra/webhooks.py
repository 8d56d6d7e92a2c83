"""A batch's optional webhook: one signed POST when the batch is over, tried up to 3 more times.

The body is the JSON the runner gives (``{id, status, records, found, ...}``), sent as it is signed:
header ``X-Signature: sha256=<hex HMAC-SHA256 of the body's bytes with the batch's secret>`` (the
receiver recomputes it over the raw body it got). The headers name no product (``X-Signature``, a neutral
User-Agent): a white-label's customer must not see the platform behind it. A 2xx answer is delivered;
anything else (a 3xx, 4xx or 5xx status, a refused connection, a timeout) is tried again after a pause
doubling from ``backoff`` seconds (tenacity), 1 try + ``retries`` in all. The outcome is answered, never
raised: a customer's endpoint that is down must not stop the processor from taking the next batch.

Standard library HTTP (urllib), in the runner's thread: one request per finished batch needs no pool.

The URL is a customer's: the server must not become their way into the deployment's own network. So,
unless ``allow_private`` (tests, or a deployment whose receivers are internal on purpose), every address
the host name resolves to must be a public one (not loopback, private, link-local, reserved or
multicast; ``address_refused`` is the rule), and a redirect is not followed (it would reach an address never
checked): it counts as a refusal. The rule runs when the URL is saved (``BatchCommands.submit``) and again
when the call is made, on the very addresses the socket connects to (the connection resolves the name once,
checks every answer, and connects only to those): a name that answers a public address to the check and a
private one to the connection (DNS rebinding) is refused. Proxies from the environment are not used: a proxy
would resolve the name again, unchecked.

An IPv6 address that carries an IPv4 one is judged as that IPv4 address: IPv4-mapped (``::ffff:a.b.c.d``),
NAT64 (``64:ff9b::/96``) and 6to4 (``2002::/16``). Refused whole: IPv4-compatible (``::a.b.c.d``,
deprecated, no public use), Teredo (``2001::/32``, not globally reachable) and the NAT64 local-use prefix
(``64:ff9b:1::/48``, an operator's own translator).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import logging
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

import orjson
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Signature"


def signature(secret: str, body: bytes) -> str:
    """The header's value for ``body``: ``sha256=`` and the hex HMAC-SHA256 with ``secret``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class WebhookRefused(Exception):
    """The endpoint answered with a status other than 2xx."""


class WebhookAddressNotAllowed(ValueError):
    """The URL's host is (or resolves to) an address of the deployment's own network."""


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_TEREDO = ipaddress.IPv6Network("2001::/32")
# IETF protocol assignments: not globally reachable (the IANA registry), though Python before 3.11.10 calls
# most of the block global.
_PROTOCOL_ASSIGNMENTS = ipaddress.IPv4Network("192.0.0.0/24")


def address_refused(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether a webhook may not connect to ``address``: not a public unicast address, directly or through
    an IPv4 address it carries (see the module's text)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in _IPV4_COMPATIBLE or address in _TEREDO or address in _NAT64_LOCAL:
            return True
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return address_refused(embedded)
    elif address in _PROTOCOL_ASSIGNMENTS:
        return True
    return not address.is_global or address.is_multicast


def _public_addresses(host: str, port: int) -> list[tuple[int, int, int, object]]:
    """The socket addresses ``host`` resolves to, all of them allowed, or ``WebhookAddressNotAllowed``."""
    try:
        answers = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
    except (OSError, ValueError) as e:
        raise WebhookAddressNotAllowed(f"host not resolved: {e}") from None
    for answer in answers:
        if address_refused(ipaddress.ip_address(str(answer[4][0]).split("%", 1)[0])):
            raise WebhookAddressNotAllowed(f"{host} is not a public address")
    return [(family, kind, proto, sockaddr) for family, kind, proto, _, sockaddr in answers]


def require_public_host(url: str, *, allow_private: bool = False) -> None:
    """Raise ``WebhookAddressNotAllowed`` unless ``url`` is http(s) with a host and (unless ``allow_private``)
    every address the host resolves to is public (``address_refused``). At submit (``BatchCommands.submit``) and
    before each try here; the connection applies the same rule to its own answer (``_connect_public``)."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError as e:
        raise WebhookAddressNotAllowed(f"not a URL: {e}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookAddressNotAllowed("not an http(s) URL with a host")
    if allow_private:
        return
    _public_addresses(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))


_DEFAULT_TIMEOUT: object = socket._GLOBAL_DEFAULT_TIMEOUT  # type: ignore[attr-defined]  # http.client's "none given"


def _connect_public(
    address: tuple[str, int], timeout: object = _DEFAULT_TIMEOUT, source_address: object = None
) -> socket.socket:
    """``socket.create_connection`` that resolves once and connects only to addresses the rule allows."""
    error: OSError | None = None
    for family, kind, proto, sockaddr in _public_addresses(*address):
        sock = socket.socket(family, kind, proto)
        try:
            if timeout is not _DEFAULT_TIMEOUT:
                sock.settimeout(timeout)  # type: ignore[arg-type]
            if source_address:
                sock.bind(source_address)  # type: ignore[arg-type]
            sock.connect(sockaddr)  # type: ignore[arg-type]
            return sock
        except OSError as e:
            sock.close()
            error = e
    raise error or OSError(f"no address for {address[0]}")


class _PublicHTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _connect_public


class _PublicHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _connect_public


class _PublicHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_PublicHTTPConnection, req)


class _PublicHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_PublicHTTPSConnection, req, context=self._context)  # type: ignore[attr-defined]


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
        handlers: list[urllib.request.BaseHandler] = [_NoRedirects(), urllib.request.ProxyHandler({})]
        if not allow_private:
            handlers += [_PublicHTTPHandler(), _PublicHTTPSHandler()]
        self._opener = urllib.request.build_opener(*handlers)

    def send(self, url: str, secret: str | None, payload: dict[str, object]) -> WebhookOutcome:
        body = orjson.dumps(payload)
        headers = {"Content-Type": "application/json", "User-Agent": "Webhook/1"}
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

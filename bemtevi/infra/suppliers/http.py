"""The ``http`` supplier: a JSON vendor reached over HTTP, with timeouts, retries, a breaker and a bound.

A vendor call is awaited on its caller's event loop (the API's: ``lookup_async``, no loop of the pool's
in between), with one HTTP client per loop (pooled connections, keep-alive); a
thread without a loop (the CLI, tests: ``lookup``, ``bemtevi.infra.blocking``) is answered from the pool's
own loop (a daemon thread started when first needed). Nothing blocks a loop while a vendor is slow. Per vendor:

- a whole-call deadline (``timeout``: connect, write, read and every retry together; each try's own
  timeout is the time left);
- an answer body of at most the supplier's ``max_body_kb`` (``too_large`` beyond it, read no further);
- no redirect followed (``redirect``): a vendor's 3xx could point anywhere, this server included;
- retries of what may pass (connection errors, timeouts of one try, HTTP 5xx) after a pause that
  doubles from ``backoff`` with jitter (tenacity), at most ``retries`` after the first try; a 4xx,
  a body that is not the vendor's JSON, too large or a redirect is not retried;
- a circuit breaker: ``breaker_failures`` failed lookups in a row open it, and for ``open_seconds``
  every lookup fails at once (no call), then one trial call decides whether it closes again;
- at most ``max_in_flight`` calls in flight on each loop (an ``asyncio.Semaphore``); the others
  wait, inside the same deadline.

The client is pyreqwest (Rust's reqwest and hyper on a tokio thread of its own; awaited from the loop),
not aiohttp, not httpx. Measured here with 32 calls in flight against the simulator at 20 ms (the whole
adapter, mapping included, CPU of the process per call): aiohttp 3.14 234-300 µs (its request path is
Python: URL and header building, the timer, the writer and the parser's callbacks), aiohttp with no
cookie jar, no auto headers, no decompression and no per-call timer within the noise of that, pyreqwest
155-167 µs, most of it off the interpreter lock. httpx 0.28's ``AsyncClient`` had spent 1.1-2.8 ms per
request (its connection pool's cost grows with the calls in flight).

The vendor's JSON is mapped to the unified record by ``vendor_mapping``; a value that does not map is
dropped and logged here with its reason. The limits, breaker and retry stop are ``call_policy``'s; the
clients per event loop and the breakers per supplier, ``vendor_pool``'s (``VendorPool``).
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import logging
import random
import time
from typing import Any, Literal
from urllib.parse import quote, urlsplit, urlunsplit

import orjson
from pyreqwest.bytes import Bytes
from pyreqwest.client import Client
from pyreqwest.exceptions import RequestError
from pyreqwest.response import Response
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from bemtevi.domain.vendors import VendorConfig
from bemtevi.infra.suppliers.call_policy import CircuitBreaker, PastDeadline, Retryable, VendorLimits
from bemtevi.infra.suppliers.vendor_error import VendorError
from bemtevi.infra.suppliers.vendor_mapping import Dropped, map_record

log = logging.getLogger(__name__)
# How many dropped values one log line names (an answer may hold thousands).
_DROPPED_LOGGED = 20


def request_parts(config: VendorConfig, number: str) -> tuple[str, dict[str, str], bytes | None]:
    """The URL, headers and body of a lookup of ``number`` (digits) from ``config``."""
    base = urlsplit(config.url)
    path = base.path.rstrip("/") + config.base_complement
    headers = {"accept": "application/json"}
    credential = ""
    if config.auth_method == "basic":
        credential = base64.b64encode(f"{config.username}:{config.password}".encode()).decode()
        header = f"Basic {credential}"
    elif config.auth_method == "bearer":
        credential, header = config.token, f"Bearer {config.token}"
    elif config.auth_method == "prefix":
        credential, header = config.token, f"{config.prefix} {config.token}"
    else:
        credential, header = config.token, config.token
    if config.embedded_in_url_base:
        path += "/" + quote(credential, safe="")
    else:
        headers["authorization"] = header
    path += config.route.replace("{document}", number)
    url = urlunsplit((base.scheme, f"{config.server}:{config.port}", path.replace("{document}", number), "", ""))
    body = None
    if config.http_method == "POST":
        body = config.request_body.replace("{document}", number).encode()
        headers["content-type"] = "application/json"
    return url, headers, body


class HttpVendor:
    """One vendor's calls and bound on one event loop, with the vendor's breaker."""

    def __init__(self, config: VendorConfig, client: Client, limits: VendorLimits, breaker: CircuitBreaker) -> None:
        self.config = config
        self.name = config.name
        self._client = client
        self._limits = limits
        self.breaker = breaker
        self._slots = asyncio.Semaphore(limits.max_in_flight)
        self._max_body = config.max_body_kb * 1024

    async def lookup(self, kind: Literal["cpf", "cnpj"], number: str) -> dict[str, Any] | None:
        if not self.breaker.allow():
            raise VendorError(self.name, "circuit_open")
        deadline = time.monotonic() + self._limits.timeout
        try:
            async with asyncio.timeout(self._limits.timeout):
                async with self._slots:
                    answer = await self._call_with_retries(number, deadline)
        except TimeoutError:
            self.breaker.failed()
            raise VendorError(self.name, "timeout") from None
        except Retryable as e:
            self.breaker.failed()
            raise VendorError(self.name, e.reason, str(e)) from None
        except VendorError:
            self.breaker.failed()
            raise
        self.breaker.succeeded()
        if answer is None:
            return None
        dropped: Dropped = []
        try:
            record = map_record(kind, number, answer, self.name, dropped)
        except VendorError:
            raise
        except Exception as e:  # a mapping bug must fail the lookup like a bad answer, never escape it
            log.exception("supplier %s: answer not mapped", self.name)
            raise VendorError(self.name, "bad_answer", f"not mapped: {type(e).__name__}") from None
        if dropped:
            log.warning(
                "supplier %s: %d value(s) of the answer dropped: %s",
                self.name,
                len(dropped),
                "; ".join(f"{where} ({why})" for where, why in dropped[:_DROPPED_LOGGED]),
            )
        return record

    async def _call_with_retries(self, number: str, deadline: float) -> Any:
        """Every try and pause within ``deadline`` (``time.monotonic``): each try's own timeout is the time
        left, and no retry starts that its pause would begin past it. (``asyncio.timeout`` alone did not
        bound the call: when a try's timeout and the deadline ran out together, the try's error could win
        over the cancellation, and the retries then ran with no deadline left to stop them.)"""
        url, headers, body = request_parts(self.config, number)
        # The first try without tenacity (most calls need no retry, and its bookkeeping cost about a tenth of
        # the call's CPU); after a retryable failure the same pauses as one tenacity loop over every try.
        try:
            return await self._call_once(url, headers, body, deadline)
        except Retryable:
            backoff = self._limits.backoff
            pause = backoff + random.uniform(0, backoff)  # tenacity's pause after the first try
            if self._limits.retries < 1 or time.monotonic() + pause >= deadline:
                raise
        await asyncio.sleep(pause)
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._limits.retries) | PastDeadline(deadline),
            wait=wait_exponential_jitter(multiplier=backoff * 2, max=backoff * 16, jitter=backoff),
            retry=retry_if_exception_type(Retryable),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                return await self._call_once(url, headers, body, deadline)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _call_once(self, url: str, headers: dict[str, str], body: bytes | None, deadline: float) -> Any:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        request = self._client.request(self.config.http_method, url).headers(headers)
        if body is not None:
            request = request.body_bytes(body)
        try:
            async with request.timeout(dt.timedelta(seconds=left)).build_streamed() as response:
                status = response.status
                content = await self._body(response)
        except TimeoutError as e:  # one try's own timeout (the whole call's deadline cancels instead)
            raise Retryable("timeout", type(e).__name__) from None
        except RequestError as e:
            raise Retryable("unreachable", type(e).__name__) from None
        if status == 404:
            return None
        if status >= 500:
            raise Retryable("server_error", f"HTTP {status}")
        if status >= 400:
            raise VendorError(self.name, "client_error", f"HTTP {status}")
        if status >= 300:  # never followed: it could point anywhere, this server's own port included
            raise VendorError(self.name, "redirect", f"HTTP {status}")
        try:
            return orjson.loads(memoryview(content))
        except orjson.JSONDecodeError:
            raise VendorError(self.name, "bad_answer", "not JSON") from None

    async def _body(self, response: Response) -> bytes | Bytes:
        """The answer's body, refused (``too_large``) past the supplier's cap: one declared larger is not
        read at all, one sent without a length (chunked) is read until the cap and dropped there."""
        declared = response.get_header("content-length")
        if declared is not None and declared.isascii() and declared.isdigit():
            if int(declared) > self._max_body:
                raise VendorError(self.name, "too_large", f"{declared} bytes declared")
            return await response.bytes()  # no more than declared: hyper refuses a longer body
        chunks = []
        size = 0
        reader = response.body_reader
        while (chunk := await reader.read_chunk()) is not None:
            size += len(chunk)
            if size > self._max_body:
                raise VendorError(self.name, "too_large", f"over {self._max_body} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

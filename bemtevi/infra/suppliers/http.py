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

The vendor's JSON (pt-BR keys, see ``map_person``/``map_company`` and the simulator) is mapped to the
unified record the local dataset gives and the web app's result view shows; a value that does not map is
dropped and logged with its reason.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import logging
import random
import threading
import time
from collections.abc import AsyncGenerator, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote, urlsplit, urlunsplit
from uuid import UUID

import orjson
from pyreqwest.bytes import Bytes
from pyreqwest.client import Client, ClientBuilder
from pyreqwest.exceptions import RequestError
from pyreqwest.response import Response
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter
from tenacity.stop import stop_base

from bemtevi.domain.vendors import VendorConfig
from bemtevi.infra.blocking import at_the_edge, blocking

log = logging.getLogger(__name__)
# How many dropped values one log line names (an answer may hold thousands).
_DROPPED_LOGGED = 20


class VendorError(Exception):
    """A vendor could not answer: ``reason`` is timeout, server_error, client_error, unreachable,
    circuit_open, bad_answer, too_large (a body past the supplier's cap) or redirect (never followed)."""

    def __init__(self, vendor: str, reason: str, detail: str = "") -> None:
        super().__init__(f"supplier {vendor}: {reason}{': ' + detail if detail else ''}")
        self.vendor = vendor
        self.reason = reason


class _Retryable(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class VendorLimits:
    timeout: float = 5.0
    retries: int = 2
    backoff: float = 0.05
    max_in_flight: int = 64
    breaker_failures: int = 5
    open_seconds: float = 30.0


class CircuitBreaker:
    """Closed → open after ``failures`` failed lookups in a row → half-open after ``open_seconds``
    (one trial call; the others still fail fast) → closed on a success, open again on a failure."""

    def __init__(self, failures: int, open_seconds: float) -> None:
        self._threshold = failures
        self._open_seconds = open_seconds
        self._failures = 0
        self._open_until = 0.0
        self._trial = False

    @property
    def state(self) -> Literal["closed", "open", "half-open"]:
        if self._failures < self._threshold:
            return "closed"
        return "open" if time.monotonic() < self._open_until else "half-open"

    def allow(self) -> bool:
        state = self.state
        if state == "closed":
            return True
        if state == "half-open" and not self._trial:
            self._trial = True
            return True
        return False

    def succeeded(self) -> None:
        self._failures = 0
        self._trial = False

    def failed(self) -> None:
        self._failures += 1
        self._trial = False
        if self._failures >= self._threshold:
            self._open_until = time.monotonic() + self._open_seconds


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
        except _Retryable as e:
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
        except _Retryable:
            backoff = self._limits.backoff
            pause = backoff + random.uniform(0, backoff)  # tenacity's pause after the first try
            if self._limits.retries < 1 or time.monotonic() + pause >= deadline:
                raise
        await asyncio.sleep(pause)
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._limits.retries) | _Past(deadline),
            wait=wait_exponential_jitter(multiplier=backoff * 2, max=backoff * 16, jitter=backoff),
            retry=retry_if_exception_type(_Retryable),
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
            raise _Retryable("timeout", type(e).__name__) from None
        except RequestError as e:
            raise _Retryable("unreachable", type(e).__name__) from None
        if status == 404:
            return None
        if status >= 500:
            raise _Retryable("server_error", f"HTTP {status}")
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


class _Past(stop_base):
    """A tenacity stop: the next try would start after ``deadline`` (``time.monotonic``)."""

    def __init__(self, deadline: float) -> None:
        self._deadline = deadline

    def __call__(self, retry_state: RetryCallState) -> bool:
        return time.monotonic() + (retry_state.upcoming_sleep or 0.0) >= self._deadline


class _OnLoop:
    """One event loop's HTTP client (its futures complete on the loop that awaited them) and vendors."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.vendors: dict[UUID, HttpVendor] = {}
        self.holder: AsyncGenerator[None, None] | None = None


async def _closed_with_the_loop(client: Client) -> AsyncGenerator[None, None]:
    """Held open while its loop runs: ``asyncio.run`` closes a loop's open async generators when it
    ends (``shutdown_asyncgens``), and with this one the client made on that loop."""
    try:
        yield
    finally:
        await client.close()


class VendorPool:
    """Vendor calls on the caller's event loop (the API's: no hand-over to another thread), or, for a
    caller without one (a thread: the CLI, batches) or with ``on_callers_loop=False``, on one loop of
    the pool's own (a daemon thread, started when first needed). One HTTP client per loop, one
    ``HttpVendor`` per supplier version on each (an edit makes a new one: new settings); a supplier's
    breaker is one per process (shared by the loops), its bound on calls in flight one per loop."""

    def __init__(self, limits: VendorLimits, *, on_callers_loop: bool = True) -> None:
        self._limits = limits
        self._on_callers_loop = on_callers_loop
        self._lock = threading.Lock()
        self._loops: dict[asyncio.AbstractEventLoop, _OnLoop] = {}
        self._breakers: dict[UUID, tuple[VendorConfig, CircuitBreaker]] = {}
        self._own: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def _new_client(self) -> Client:
        # Per-try timeouts inside the whole-call deadline; no cap on connections (each vendor's semaphore bounds
        # them); no proxy from the environment and no cookie store (a vendor's answer never depends on them).
        return (
            ClientBuilder()
            .timeout(dt.timedelta(seconds=self._limits.timeout))
            .connect_timeout(dt.timedelta(seconds=min(2.0, self._limits.timeout)))
            .pool_idle_timeout(dt.timedelta(seconds=30))
            .follow_redirects(False)
            .no_proxy()
            .build()
        )

    async def _on_this_loop(self) -> _OnLoop:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            with self._lock:  # a loop that ended (asyncio.run of a batch's chunk) left its closed session here
                for ended in [known for known in self._loops if known.is_closed()]:
                    del self._loops[ended]
            state = self._loops[loop] = _OnLoop(self._new_client())
            if loop is not self._own:
                state.holder = _closed_with_the_loop(state.client)
                await anext(state.holder)
        return state

    def _own_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._own is None:
                self._own = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._own.run_forever, name="bemtevi-vendors", daemon=True)
                self._thread.start()
            return self._own

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self._own_loop())

    def _breaker(self, config: VendorConfig) -> CircuitBreaker:
        with self._lock:
            kept = self._breakers.get(config.id)
            if kept is None or kept[0] != config:
                kept = self._breakers[config.id] = (
                    config,
                    CircuitBreaker(self._limits.breaker_failures, self._limits.open_seconds),
                )
            return kept[1]

    async def _lookup(self, config: VendorConfig, kind: Literal["cpf", "cnpj"], number: str) -> Any:
        state = self._loops.get(asyncio.get_running_loop()) or await self._on_this_loop()
        vendor = state.vendors.get(config.id)
        if vendor is None or vendor.config != config:
            vendor = state.vendors[config.id] = HttpVendor(config, state.client, self._limits, self._breaker(config))
        return await vendor.lookup(kind, number)

    def breaker_state(self, vendor_id: UUID) -> str:
        kept = self._breakers.get(vendor_id)
        return kept[1].state if kept is not None else "closed"

    async def lookup_async(
        self, config: VendorConfig, kind: Literal["cpf", "cnpj"], number: str
    ) -> dict[str, Any] | None:
        if self._on_callers_loop and not at_the_edge():
            result: dict[str, Any] | None = await self._lookup(config, kind, number)
        else:  # a loop that lives only for a blocking call holds no client: the pool's own loop calls
            result = await asyncio.wrap_future(self._run(self._lookup(config, kind, number)))
        return result

    lookup = blocking(lookup_async)

    def close(self) -> None:
        """Close the pool's own loop and its session; a caller's loop closes its session when it ends."""
        own = self._own
        if own is None or own.is_closed():
            return
        state = self._loops.pop(own, None)
        if state is not None:
            self._run(state.client.close()).result(timeout=5)
        own.call_soon_threadsafe(own.stop)
        assert self._thread is not None
        self._thread.join(timeout=5)
        own.close()


# -- the vendor's JSON → the unified record ------------------------------------------------------
#
# A vendor's answer is untrusted input: every value either maps to the unified record's type or is dropped
# (None, or left out of its list) with a reason, collected in ``dropped`` as (field of the record, reason)
# and logged by the caller. Absent values (missing, null, "") are not drops. Nothing here raises but
# ``VendorError`` (bad_answer) for an answer with no data section.

Dropped = list[tuple[str, str]]

# Numbers a JavaScript client reads exactly (the web app shows them).
_NUMBER_MAX = 2**53


def _at(within: str, name: str) -> str:
    """A value's place in the record (made only when it is dropped: most answers drop nothing)."""
    return f"{within}.{name}" if within else name


def _date(value: Any, name: str, dropped: Dropped, within: str = "") -> str | None:
    """DD/MM/YYYY or YYYY-MM-DD → YYYY-MM-DD; anything else dropped."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        dropped.append((_at(within, name), "not a date"))
        return None
    try:
        if "/" in value:
            day, month, year = value.split("/")
            return dt.date(int(year), int(month), int(day)).isoformat()
        return dt.date.fromisoformat(value[:10]).isoformat()
    except (ValueError, OverflowError):  # a year of 20 digits overflows the C int dt.date takes
        dropped.append((_at(within, name), "not a valid date"))
        return None


def _age(birth: str | None, today: dt.date) -> int | None:
    if birth is None:
        return None
    born = dt.date.fromisoformat(birth)
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


def _text(value: Any, name: str, dropped: Dropped, within: str = "") -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        text = str(value)
    else:
        dropped.append((_at(within, name), "not text"))
        return None
    if "\x00" in text:  # PostgreSQL's text and JSONB refuse it where the result is kept
        dropped.append((_at(within, name), "contains a NUL character"))
        return None
    return text or None


def _number(value: Any, name: str, dropped: Dropped, within: str = "") -> int | float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        dropped.append((_at(within, name), "not a number"))
        return None
    if not -_NUMBER_MAX <= value <= _NUMBER_MAX:  # orjson gives finite floats only
        dropped.append((_at(within, name), "out of range"))
        return None
    return value


def _count(value: Any, name: str, dropped: Dropped, within: str = "") -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _NUMBER_MAX:
        dropped.append((_at(within, name), "not a count"))
        return None
    return value


def _object(value: Any, name: str, dropped: Dropped, within: str = "") -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        dropped.append((_at(within, name), "not an object"))
        return None
    return value


def _items(value: Any, where: str, dropped: Dropped) -> list[tuple[str, dict[str, Any]]]:
    """The objects of a list, each with its place in the record."""
    if value is None:
        return []
    if not isinstance(value, list):
        dropped.append((where, "not a list"))
        return []
    items = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            items.append((f"{where}[{i}]", item))
        else:
            dropped.append((f"{where}[{i}]", "not an object"))
    return items


def _address(a: dict[str, Any], where: str, dropped: Dropped) -> dict[str, Any]:
    return {
        "street": _text(a.get("logradouro"), "street", dropped, where),
        "number": _text(a.get("numero"), "number", dropped, where),
        "complement": _text(a.get("complemento"), "complement", dropped, where),
        "neighborhood": _text(a.get("bairro"), "neighborhood", dropped, where),
        "city": _text(a.get("cidade"), "city", dropped, where),
        "state": _text(a.get("uf"), "state", dropped, where),
        "zip": _text(a.get("cep"), "zip", dropped, where),
    }


# The vendor's phone kinds as the unified record names them (others are kept as written).
_PHONE_TYPES = {"celular": "mobile", "móvel": "mobile", "fixo": "landline", "residencial": "landline"}


def _phones(value: Any, dropped: Dropped) -> list[dict[str, Any]]:
    phones = []
    for where, p in _items(value, "phones", dropped):
        kind = _text(p.get("tipo"), "type", dropped, where)
        phones.append(
            {
                "number": _text(p.get("numero"), "number", dropped, where),
                "type": _PHONE_TYPES.get(kind.casefold(), kind) if kind else None,
            }
        )
    return phones


def _protests(value: Any, dropped: Dropped) -> list[dict[str, Any]]:
    return [
        {
            "date": _date(p.get("data"), "date", dropped, where),
            "amount": _number(p.get("valor"), "amount", dropped, where),
            "notary": _text(p.get("cartorio"), "notary", dropped, where),
            "city": _text(p.get("cidade"), "city", dropped, where),
            "state": _text(p.get("uf"), "state", dropped, where),
        }
        for where, p in _items(value, "protests", dropped)
    ]


def _emails(value: Any, dropped: Dropped) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        dropped.append(("emails", "not a list"))
        return []
    emails = []
    for i, e in enumerate(value):
        if not isinstance(e, str):
            dropped.append((f"emails[{i}]", "not text"))
            continue
        email = e.strip()
        if "\x00" in email:
            dropped.append((f"emails[{i}]", "contains a NUL character"))
        elif email:
            emails.append(email)
    return emails


def map_person(cpf: str, p: dict[str, Any], dropped: Dropped, today: dt.date | None = None) -> dict[str, Any]:
    today = today or dt.date.today()
    birth = _date(p.get("nascimento"), "birth_date", dropped)
    if birth is not None and birth > today.isoformat():
        dropped.append(("birth_date", "in the future"))
        birth = None
    death = _object(p.get("obito"), "death", dropped)
    return {
        "kind": "person",
        "cpf": cpf,
        "name": _text(p.get("nome"), "name", dropped),
        "gender": _text(p.get("sexo"), "gender", dropped),
        "birth_date": birth,
        "age": _age(birth, today),
        "sign": _text(p.get("signo"), "sign", dropped),
        "mother": _text(p.get("mae"), "mother", dropped),
        "father": _text(p.get("pai"), "father", dropped),
        "marital_status": _text(p.get("estado_civil"), "marital_status", dropped),
        "education": _text(p.get("escolaridade"), "education", dropped),
        "profession": _text(p.get("profissao"), "profession", dropped),
        "income": _number(p.get("renda"), "income", dropped),
        "social_class": _text(p.get("classe_social"), "social_class", dropped),
        "score": _number(p.get("score"), "score", dropped),
        "phones": _phones(p.get("telefones"), dropped),
        "emails": _emails(p.get("emails"), dropped),
        "addresses": [_address(a, where, dropped) for where, a in _items(p.get("enderecos"), "addresses", dropped)],
        "societies": [
            {
                "cnpj": _text(s.get("cnpj"), "cnpj", dropped, where) or "",
                "company_name": _text(s.get("razao_social"), "company_name", dropped, where),
                "role": _text(s.get("cargo"), "role", dropped, where),
                "since": _date(s.get("desde"), "since", dropped, where),
            }
            for where, s in _items(p.get("sociedades"), "societies", dropped)
        ],
        "protests": _protests(p.get("protestos"), dropped),
        "financial_pendings": [
            {
                "creditor": _text(f.get("credor"), "creditor", dropped, where),
                "amount": _number(f.get("valor"), "amount", dropped, where),
                "date": _date(f.get("data"), "date", dropped, where),
            }
            for where, f in _items(p.get("pendencias"), "financial_pendings", dropped)
        ],
        "check_inquiries": _count(p.get("ccf"), "check_inquiries", dropped),
        "death": (
            {
                "date": _date(death.get("data"), "death.date", dropped),
                "book": _text(death.get("livro"), "death.book", dropped),
                "sheet": _text(death.get("folha"), "death.sheet", dropped),
                "registry_office": _text(death.get("cartorio"), "death.registry_office", dropped),
            }
            if death is not None
            else None
        ),
    }


def map_company(cnpj: str, c: dict[str, Any], dropped: Dropped) -> dict[str, Any]:
    activity = _object(c.get("cnae"), "main_activity", dropped)
    address = _object(c.get("endereco"), "address", dropped)
    return {
        "kind": "company",
        "cnpj": cnpj,
        "company_name": _text(c.get("razao_social"), "company_name", dropped),
        "trade_name": _text(c.get("nome_fantasia"), "trade_name", dropped),
        "opening_date": _date(c.get("abertura"), "opening_date", dropped),
        "status": _text(c.get("situacao"), "status", dropped),
        "legal_nature": _text(c.get("natureza_juridica"), "legal_nature", dropped),
        "main_activity": (
            {
                "code": _text(activity.get("codigo"), "main_activity.code", dropped),
                "description": _text(activity.get("descricao"), "main_activity.description", dropped),
            }
            if activity is not None
            else None
        ),
        "size": _text(c.get("porte"), "size", dropped),
        "share_capital": _number(c.get("capital_social"), "share_capital", dropped),
        "address": _address(address, "address", dropped) if address is not None else None,
        "phones": _phones(c.get("telefones"), dropped),
        "emails": _emails(c.get("emails"), dropped),
        "partners": [
            {
                "name": _text(s.get("nome"), "name", dropped, where),
                "document": _text(s.get("documento"), "document", dropped, where),
                "role": _text(s.get("qualificacao"), "role", dropped, where),
                "since": _date(s.get("desde"), "since", dropped, where),
            }
            for where, s in _items(c.get("socios"), "partners", dropped)
        ],
        "score": _number(c.get("score"), "score", dropped),
        "protests": _protests(c.get("protestos"), dropped),
    }


def map_record(
    kind: Literal["cpf", "cnpj"], number: str, answer: Any, vendor: str, dropped: Dropped | None = None
) -> dict[str, Any] | None:
    """The unified record from a vendor's answer; None for "not found"; ``VendorError`` (bad_answer)
    for JSON that is not the vendor's shape. The values dropped are added to ``dropped``."""
    if not isinstance(answer, dict):
        raise VendorError(vendor, "bad_answer", "not an object")
    if answer.get("status") == "nao_encontrado":
        return None
    section = answer.get("pessoa" if kind == "cpf" else "empresa")
    if not isinstance(section, dict):
        raise VendorError(vendor, "bad_answer", "no data section")
    if dropped is None:
        dropped = []
    if kind == "cpf":
        return map_person(number, section, dropped)
    return map_company(number, section, dropped)

"""The vendors' pool: one HTTP client per event loop (the caller's, or the pool's own for a thread without one),
one ``HttpVendor`` per supplier version on each, one circuit breaker per supplier per process."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from collections.abc import AsyncGenerator, Coroutine
from concurrent.futures import Future
from typing import Any, Literal
from uuid import UUID

from pyreqwest.client import Client, ClientBuilder

from bemtevi.domain.vendors import VendorConfig
from bemtevi.infra.blocking import at_the_edge, blocking
from bemtevi.infra.suppliers.call_policy import CircuitBreaker, VendorLimits
from bemtevi.infra.suppliers.http import HttpVendor


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

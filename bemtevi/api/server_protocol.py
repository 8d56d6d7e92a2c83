"""The HTTP protocol the server runs: uvicorn's httptools protocol, with a response's writes sent as one.

uvicorn writes a response's status line and headers, then its body, as two ``transport.write`` calls, and
uvloop sends each to the socket at once: two ``write`` system calls per response, made while holding the
interpreter lock, and two TCP segments for the client to read. Under 32 clients of vendor lookups, py-spy
(``--native --gil``) put 14.5% of the server's samples in those ``write`` calls, most in the first.
``CoalescingTransport`` gathers what one turn of the event loop writes to a connection and sends it with
one ``write`` at the end of that turn (``loop.call_soon``): a response whose start and body are sent in
one step (every JSON answer) goes out in one call. Large writes (a file download's chunks) go out at once,
so nothing much is held in memory, and ``close`` sends what is held first.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# What is held back at most: a write that brings the held bytes to this goes out at once.
FLUSH_BYTES = 64 * 1024


class CoalescingTransport:
    """A transport that sends what one turn of the loop wrote as one write (everything else delegated)."""

    __slots__ = ("_held", "_loop", "_scheduled", "_size", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []
        self._size = 0
        self._scheduled = False

    def write(self, data: bytes) -> None:
        if not data:
            return
        self._held.append(data)
        self._size += len(data)
        if self._size >= FLUSH_BYTES:
            self.flush()
        elif not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self._flush_scheduled)

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def _flush_scheduled(self) -> None:
        self._scheduled = False
        self.flush()

    def flush(self) -> None:
        if not self._held:
            return
        data = self._held[0] if len(self._held) == 1 else b"".join(self._held)
        self._held.clear()
        self._size = 0
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._held.clear()
        self._size = 0
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol writing through a ``CoalescingTransport`` (``uvicorn.Config(http=...)``)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]

"""The access log: one structured line per HTTP request, JSON on stderr (structlog).

``{"method", "path", "status", "ms", "tenant"?, "event": "request", "level", "timestamp"}``. An
ASGI layer in front of everything else (``BemteviAPI``), so every answer is logged, errors included.

Nothing secret goes in: no query string, no header, no body; the tenant (the caller's group) only
once its token was accepted (``note_tenant``); and of the web app's pages only the route's name,
as their parameters carry recovery codes, documents and names (``/verify-code/<code>/…`` is
logged ``/verify-code/*``). The API itself puts no secret in a path (``tests/api/test_access_log.py``
walks its routes).

Cost: a timer, a wrapped ``send`` and a rendered line per request; the lines are written together
(``LineBuffer``), not one write per request: a write releases the interpreter lock, which the
writer thread then holds, and taking it back cost the event loop more than the line itself.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import sys
import time
import weakref
from collections.abc import Callable
from typing import Any
from uuid import UUID

import orjson
import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The caller's group, in the request's scope, once ``note_tenant`` has seen its principal.
TENANT_KEY = "bemtevi.tenant"
# Paths logged as they are: the API's (ids, never secrets) and the build's hashed files.
_PLAIN_PREFIXES = ("/api/", "/assets/")
_MAX_PATH = 200


def note_tenant(scope: Scope, tenant_id: UUID) -> None:
    """Names the tenant of an authenticated request for its access line."""
    scope[TENANT_KEY] = tenant_id


def logged_path(path: str) -> str:
    """The path as the access log writes it (see the module's docstring)."""
    if not path.startswith(_PLAIN_PREFIXES):
        name, _, rest = path[1:].partition("/")
        if rest:
            path = f"/{name}/*"
    return path if len(path) <= _MAX_PATH else path[:_MAX_PATH] + "*"


def _stderr_fd() -> int:
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by an object without a file
        return 2


class LineBuffer:
    """A structlog logger (``msg(bytes)``) that gathers lines and writes them to ``fd`` together:
    within ``seconds`` of the first line on an event loop, at once past ``max_lines``, with no
    loop at once, and on ``flush()`` (the server's shutdown, and the process's exit)."""

    def __init__(self, fd: int | None = None, seconds: float = 0.1, max_lines: int = 256) -> None:
        self.fd = _stderr_fd() if fd is None else fd
        self.seconds = seconds
        self.max_lines = max_lines
        self._lines: list[bytes] = []
        self._timer_loop: asyncio.AbstractEventLoop | None = None  # where a flush is due
        _OPEN_BUFFERS.add(self)

    def msg(self, line: bytes) -> None:
        lines = self._lines
        lines.append(line)
        if len(lines) >= self.max_lines:
            self.flush()
        elif self._timer_loop is None or self._timer_loop.is_closed():
            try:
                self._timer_loop = asyncio.get_running_loop()
            except RuntimeError:  # not on an event loop
                self.flush()
            else:
                self._timer_loop.call_later(self.seconds, self.flush)

    info = msg

    def flush(self) -> None:
        self._timer_loop = None
        if self._lines:
            data, self._lines = memoryview(b"".join(self._lines)), []
            with contextlib.suppress(OSError):  # stderr closed: the lines have nowhere to go
                while data:
                    data = data[os.write(self.fd, data) :]


_OPEN_BUFFERS: weakref.WeakSet[LineBuffer] = weakref.WeakSet()


@atexit.register
def _flush_open_buffers() -> None:
    for buffer in list(_OPEN_BUFFERS):
        buffer.flush()


def _json_line(event: dict[str, Any], **options: Any) -> bytes:
    return orjson.dumps(event, default=options.get("default"), option=orjson.OPT_APPEND_NEWLINE)


def json_lines(out: LineBuffer | None = None) -> Callable[..., Any]:
    """``log(event, **fields)``: one JSON line per call (level and ISO UTC timestamp added) on ``out``."""
    logger = structlog.wrap_logger(
        out if out is not None else LineBuffer(),
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(serializer=_json_line),
        ],
    ).bind()
    info: Callable[..., Any] = logger.info
    return info


class AccessLog:
    def __init__(self, app: ASGIApp, lines: LineBuffer | None = None) -> None:
        self.app = app
        self.lines = lines if lines is not None else LineBuffer()
        self.log = json_lines(self.lines)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, self._flushing_at_shutdown(send))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0  # no answer was started (the client went away)

        async def noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noting_status)
        except BaseException:
            status = status or 500  # what the server answers for an error nobody handled
            raise
        finally:
            ms = round((time.perf_counter() - started) * 1000, 2)
            path = logged_path(scope["path"])
            tenant = scope.get(TENANT_KEY)
            if tenant is None:
                self.log("request", method=scope["method"], path=path, status=status, ms=ms)
            else:
                self.log("request", method=scope["method"], path=path, status=status, ms=ms, tenant=tenant)

    def _flushing_at_shutdown(self, send: Send) -> Send:
        """The server's shutdown writes what is gathered (uvicorn then re-raises SIGTERM/SIGINT,
        which ends the process without its exit handlers)."""

        async def flushing(message: Message) -> None:
            if message["type"].startswith("lifespan.shutdown"):
                self.lines.flush()
            await send(message)

        return flushing

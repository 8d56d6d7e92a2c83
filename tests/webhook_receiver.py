"""A webhook receiver for the tests: a real HTTP server (aiohttp) on loopback, in a thread of its own."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web
from support import free_port

from bemtevi.infra.webhooks import SIGNATURE_HEADER


@dataclass
class Receiver:
    url: str
    failures_first: int  # answers 503 to this many requests, then 200
    bodies: list[bytes] = field(default_factory=list)
    signatures: list[str | None] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)


@contextmanager
def receiver(failures_first: int = 0) -> Iterator[Receiver]:
    port = free_port()
    got = Receiver(f"http://127.0.0.1:{port}/hook", failures_first)
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    runner_box: list[web.AppRunner] = []

    async def hook(request: web.Request) -> web.Response:
        got.bodies.append(await request.read())
        got.signatures.append(request.headers.get(SIGNATURE_HEADER))
        got.headers.append(dict(request.headers))
        return web.Response(status=503 if len(got.bodies) <= got.failures_first else 200)

    async def start() -> None:
        app = web.Application()
        app.router.add_post("/hook", hook)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        runner_box.append(runner)
        ready.set()

    thread = threading.Thread(target=lambda: (loop.run_until_complete(start()), loop.run_forever()), daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield got
    finally:
        asyncio.run_coroutine_threadsafe(runner_box[0].cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

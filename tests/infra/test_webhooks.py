"""A batch's webhook against a real HTTP server (aiohttp) on loopback: signed, retried 3 times, never raised."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web
from support import free_port

from bemtevi.infra.webhooks import SIGNATURE_HEADER, WebhookSender


@dataclass
class Receiver:
    url: str
    failures_first: int  # answers 503 to this many requests, then 200
    bodies: list[bytes] = field(default_factory=list)
    signatures: list[str | None] = field(default_factory=list)


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


def test_the_webhook_is_signed_with_the_batch_secret_over_the_raw_body() -> None:
    with receiver() as got:
        outcome = WebhookSender(backoff=0.01).send(got.url, "s3cret", {"id": "b1", "status": "available", "found": 7})
    assert outcome.delivered and outcome.attempts == 1 and outcome.status == 200
    [body] = got.bodies
    expected = "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert got.signatures == [expected]
    assert b'"found":7' in body


def test_a_failing_endpoint_is_tried_again_up_to_three_times() -> None:
    with receiver(failures_first=2) as got:
        outcome = WebhookSender(backoff=0.01).send(got.url, "k", {"id": "b2"})
    assert outcome.delivered and outcome.attempts == 3
    assert len(got.bodies) == 3 and len(set(got.signatures)) == 1  # the same signed body each time

    with receiver(failures_first=10) as got:
        outcome = WebhookSender(backoff=0.01).send(got.url, "k", {"id": "b3"})
    assert not outcome.delivered and outcome.attempts == 4 and outcome.status == 503
    assert len(got.bodies) == 4  # the first try and 3 retries, then given up without raising


def test_an_endpoint_that_is_down_is_an_outcome_not_an_error() -> None:
    outcome = WebhookSender(backoff=0.01, timeout=1).send(f"http://127.0.0.1:{free_port()}/hook", None, {"id": "b4"})
    assert not outcome.delivered and outcome.attempts == 4 and outcome.status is None and outcome.error

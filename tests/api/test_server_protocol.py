"""The server's HTTP protocol (``bemtevi.api.server_protocol``): a response's writes go out as one, and
nothing a client would notice changes: bodies arrive whole, large ones stream, small chunks of a stream
arrive as they are sent (not held until its end), keep-alive and ``Connection: close`` behave."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bemtevi.api.server_protocol import FLUSH_BYTES, CoalescingHttpToolsProtocol

BIG = bytes(range(256)) * (4 * FLUSH_BYTES // 256 + 7)


async def answer(request: Request) -> Response:
    return JSONResponse({"document": request.path_params["document"]})


async def big(_request: Request) -> Response:
    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(BIG), 10_000):
            yield BIG[start : start + 10_000]

    return StreamingResponse(chunks(), media_type="application/octet-stream")


# Set by the client once the stream's first event has reached it.
FIRST_EVENT_ARRIVED = threading.Event()


async def ticks(_request: Request) -> Response:
    async def events() -> AsyncIterator[bytes]:
        yield b"data: 0\n\n"
        # The next events wait for the first to arrive (not for a time): were it held back until the stream
        # ends, the wait runs out and the stream says so.
        arrived = await asyncio.to_thread(FIRST_EVENT_ARRIVED.wait, 30)
        for i in (1, 2):
            yield f"data: {i if arrived else 'held back'}\n\n".encode()

    return StreamingResponse(events(), media_type="text/event-stream")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = Starlette(routes=[Route("/answer/{document}", answer), Route("/big", big), Route("/ticks", ticks)])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", http=CoalescingHttpToolsProtocol
    )
    served = uvicorn.Server(config)
    thread = threading.Thread(target=served.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not served.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    served.should_exit = True
    thread.join(timeout=10)


def test_answers_arrive_whole_on_a_kept_alive_connection(server: str) -> None:
    with httpx.Client(base_url=server) as client:
        for document in ("52998224725", "11444777000161", "39053344705"):
            answer = client.get(f"/answer/{document}")
            assert answer.status_code == 200
            assert answer.json() == {"document": document}
            assert answer.headers["content-length"] == str(len(answer.content))


def test_a_large_streamed_body_arrives_whole(server: str) -> None:
    answer = httpx.get(f"{server}/big")
    assert answer.status_code == 200
    assert answer.content == BIG


def test_a_stream_small_chunks_arrive_as_they_are_sent(server: str) -> None:
    FIRST_EVENT_ARRIVED.clear()
    arrived: list[str] = []
    with httpx.stream("GET", f"{server}/ticks", timeout=60) as answer:
        for line in answer.iter_lines():
            if line:
                arrived.append(line)
                FIRST_EVENT_ARRIVED.set()
    # The first event reached the client before the stream went on, so before it ended.
    assert arrived == ["data: 0", "data: 1", "data: 2"]


def test_connection_close_is_honoured_after_the_answer(server: str) -> None:
    port = int(server.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        raw.sendall(b"GET /answer/52998224725 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        received = b""
        while chunk := raw.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    assert body == b'{"document":"52998224725"}'

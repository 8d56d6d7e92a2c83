"""A raw HTTP vendor on loopback (plain sockets, a thread per connection) for what the simulator cannot
do or tell: accept and never answer, or send a body of any size, with or without Content-Length, while
counting the bytes the client took before it hung up."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

CHUNK = 64 * 1024


@dataclass
class RawVendor:
    """``body_size`` None: read the request and never answer; else a 200 whose JSON body (a person named
    with that many letters) is sent in chunks, chunked transfer encoding when ``chunked``."""

    body_size: int | None = None
    chunked: bool = False
    port: int = 0
    connections: int = 0
    sent: int = 0  # body bytes the kernel took, over every connection
    finished: int = 0  # answers sent whole
    _sock: socket.socket = field(init=False, repr=False)
    _open: list[socket.socket] = field(default_factory=list, repr=False)
    _threads: list[threading.Thread] = field(default_factory=list, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __enter__(self) -> RawVendor:
        self._sock = socket.create_server(("127.0.0.1", 0), backlog=128)
        self.port = self._sock.getsockname()[1]
        with self._lock:
            self._start(self._accept)
        return self

    def __exit__(self, *exc: object) -> None:
        # Shut down, join, then close: a socket closed under a thread still sending on it frees its file
        # descriptor for the next test's socket, and the thread's writes land there.
        with self._lock:
            self._stop.set()
            for sock in (self._sock, *self._open):
                with contextlib.suppress(OSError):  # the client may have hung up first
                    sock.shutdown(socket.SHUT_RDWR)
            threads = list(self._threads)
        for thread in threads:
            thread.join()
        for sock in (self._sock, *self._open):
            sock.close()

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with self._lock:
                if self._stop.is_set():
                    conn.close()
                    return
                self.connections += 1
                self._open.append(conn)
                self._start(self._serve, conn)

    def _serve(self, conn: socket.socket) -> None:
        try:
            while True:  # each request of a kept-alive connection (none has a body: GET lookups)
                request = b""
                while b"\r\n\r\n" not in request:
                    got = conn.recv(4096)
                    if not got:
                        return
                    request += got
                if self.body_size is None:
                    self._stop.wait()
                    return
                self._answer(conn, self.body_size)
        except OSError:
            return

    def _answer(self, conn: socket.socket, size: int) -> None:
        head, tail = b'{"status": "ok", "pessoa": {"nome": "', b'"}}'
        framing = (
            b"transfer-encoding: chunked" if self.chunked else b"content-length: %d" % (len(head) + size + len(tail))
        )
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" + framing + b"\r\n\r\n")
        for piece in _pieces(head, size, tail):
            conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if self.chunked else piece)
            with self._lock:
                self.sent += len(piece)
        if self.chunked:
            conn.sendall(b"0\r\n\r\n")
        with self._lock:
            self.finished += 1


def _pieces(head: bytes, size: int, tail: bytes) -> Iterator[bytes]:
    yield head
    letters = b"a" * CHUNK
    while size > 0:
        yield letters[: min(size, CHUNK)]
        size -= CHUNK
    yield tail

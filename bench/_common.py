"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse, urlunparse

import httpx
import psycopg

if TYPE_CHECKING:
    from bemtevi.infra.settings import Settings


def cheap_settings(**fields: Any) -> Settings:
    """The benches' settings: ``fields``, with password hashing at its cheapest (a bench times the product's work,
    not argon2's). ``Settings`` comes from the code under test (an ``--against`` child imports another checkout's)."""
    from bemtevi.infra.settings import Settings

    return Settings(argon2_time_cost=1, argon2_memory_cost=1024, **fields)


# "" stands for the server BEMTEVI_TEST_POSTGRES_URL names, else the project's own (started when it is not running).
DEFAULT_POSTGRES = ""


@contextmanager
def postgres_database(server_url: str = DEFAULT_POSTGRES) -> Iterator[str]:
    # Imported here: a server of an older checkout (``--against``) runs this module with that checkout's package.
    from bemtevi.infra.local_services.postgres import ensure_postgres

    server_url = server_url or os.environ.get("BEMTEVI_TEST_POSTGRES_URL") or ensure_postgres()
    name = f"bemtevi_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunparse(urlparse(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def busy_before(seconds: float = 1.0) -> float:
    """How busy the machine's cores are (0 to 1, all cores together) over ``seconds``, read from ``/proc/stat``.

    Run before a bench starts anything: other work on the cores lowers every figure, and the cluster's far more
    than the one-process server's (each of its hops waits for a core behind that work)."""

    def times() -> list[int]:
        with open("/proc/stat") as stat:
            return [int(x) for x in stat.readline().split()[1:]]

    before = times()
    time.sleep(seconds)
    spent = [b - a for a, b in zip(before, times(), strict=True)]
    idle = spent[3] + spent[4]  # idle and waiting for I/O
    return 1 - idle / max(1, sum(spent))


def warn_if_busy(threshold: float = 0.1) -> None:
    """Print a warning when other work keeps the cores busier than ``threshold`` before the bench."""
    try:
        busy = busy_before()
    except OSError:
        return  # no /proc: nothing to tell
    if busy > threshold:
        print(
            f"warning: the machine's cores were {busy:.0%} busy before the bench started anything: other work "
            "lowers every figure below (the cluster's most); see `top`",
            file=sys.stderr,
        )


def compared_codes(against: Path | None, rounds: int) -> Iterator[tuple[str, Path | None]]:
    """A bench's ``--against OTHER_CHECKOUT`` rounds: this checkout's code (``"this"``, None) and the other's,
    each round in turn first (the machine's load drifts over a run); without ``against``, this one's alone."""
    codes: list[tuple[str, Path | None]] = [("this", None)]
    if against is not None:
        codes.append((f"against {against.name}", against))
    for round_ in range(rounds):
        yield from codes if round_ % 2 == 0 else codes[::-1]


def code_env(checkout: Path | None) -> dict[str, str]:
    """The environment of a child process that runs ``checkout``'s package (this one's when None)."""
    env = {**os.environ}
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout.resolve())
    return env


def print_ratios(what: str, figures: dict[str, list[float]]) -> None:
    """This checkout's figures over the other's, round by round (``figures`` by the names ``compared_codes``
    gives); nothing without another checkout."""
    others = [values for name, values in figures.items() if name != "this"]
    if others:
        ratios = ", ".join(f"{new / old:.2f}x" for new, old in zip(figures["this"], others[0], strict=True))
        print(f"this / against, {what} by round: {ratios}")


def temp_dir() -> str:
    return tempfile.mkdtemp(prefix="bemtevi-bench-")


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def describe_ms(values: list[float]) -> str:
    return (
        f"p50 {percentile(values, 50) * 1000:.2f} ms, p99 {percentile(values, 99) * 1000:.2f} ms, "
        f"mean {statistics.fmean(values) * 1000:.2f} ms"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(settings_env: dict[str, str], start_timeout: float = 120) -> Iterator[str]:
    """``bemtevi serve`` in a subprocess with these ``BEMTEVI_*`` settings; yields its URL once healthy.

    Its output (the access log: a line per request) goes to a file, as a deployment's would: a pipe
    nobody reads would stop the server once full."""
    with server_process(settings_env, start_timeout) as (url, _):
        yield url


@contextmanager
def server_process(
    settings_env: dict[str, str], start_timeout: float = 120, command: list[str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``running_server``, yielding the process too (to read its memory from ``/proc``). ``command``: what
    runs instead of ``bemtevi serve`` (it must serve as that does, on ``PORT``)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "BEMTEVI_DATABASE_URL"}
    env.update(settings_env)
    env["PORT"] = str(port)
    log = os.path.join(temp_dir(), "server.log")
    with open(log, "wb") as out:
        server = subprocess.Popen(
            command or [sys.executable, "-m", "bemtevi.cli", "serve"], env=env, stdout=out, stderr=out
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                with open(log, encoding="utf-8", errors="replace") as text:
                    raise SystemExit(f"the server did not start:\n{text.read()[-4000:]}")
            time.sleep(0.1)
        yield url, server
    finally:
        server.terminate()
        server.wait(timeout=30)


# wrk's Lua for lookups signed in as many tenants: each request takes the next token and the next document.
MULTI_TENANT_LOOKUPS = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local tokens = {%s}
local docs = {%s}
local i = 0
request = function()
  i = i + 1
  wrk.headers["Authorization"] = tokens[i %% #tokens + 1]
  return wrk.format(nil, "/api/consultations", nil, '{"document":"' .. docs[i %% #docs + 1] .. '"}')
end
"""


def multi_tenant_lookups_script(authorizations: list[str], docs: list[str]) -> str:
    """A wrk script file for ``MULTI_TENANT_LOOKUPS`` with these Authorization values and documents."""
    path = os.path.join(temp_dir(), "lookups.lua")
    with open(path, "w") as out:
        out.write(MULTI_TENANT_LOOKUPS % (",".join(f'"{a}"' for a in authorizations), ",".join(f'"{d}"' for d in docs)))
    return path


def peak_rss_mb(pid: int) -> dict[int, tuple[str, float]]:
    """The peak resident set (``VmHWM``, MB) of a running process and of each process below it, by pid."""
    peaks: dict[int, tuple[str, float]] = {}
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        peaks[current] = (fields["Name"].strip(), int(fields["VmHWM"].split()[0]) / 1024)
        pending += [int(c) for c in children]
    return peaks


@contextmanager
def in_background(run: Callable[[threading.Event], None]) -> Iterator[None]:
    """``run(stop)`` in a daemon thread while inside; on leaving, ``stop`` is set and the thread joined."""
    stop = threading.Event()
    thread = threading.Thread(target=run, args=(stop,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


async def asgi_post(app: Any, path: str, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    """One ``POST path`` through the ASGI app in this process, with the scope a server would give it; exits unless
    it answers 200 (the in-process CPU benches: ``api_cpu.py``, ``hot_path_cpu.py``)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "headers": headers,
        "query_string": b"",
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    status: list[int] = []

    async def receive() -> dict[str, Any]:
        return messages.pop() if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])

    await app(scope, receive, send)
    if status != [200]:
        raise SystemExit(f"{path} answered {status}")

"""Cluster mode's child processes: how one is started (a session of its own, told SIGTERM by the kernel when the
supervisor dies), the back-off before starting it again, how its end is named, and how a tier of them is stopped."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

STOP_SECONDS = 20.0
_PR_SET_PDEATHSIG = 1
# Loaded before any fork: a child must not load a library between fork and exec (the supervisor has threads).
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None

FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 10.0
# A child that ran this long before it ended is started again after the first back-off, not a longer one.
STABLE_SECONDS = 60.0


def next_backoff(previous: float, ran_seconds: float) -> float:
    """How long to wait before starting again a child that ended after ``ran_seconds``, the last wait having
    been ``previous`` (0 before any): 0.5 s, doubling up to 10 s while it keeps ending soon after its start."""
    if previous <= 0 or ran_seconds >= STABLE_SECONDS:
        return FIRST_BACKOFF_SECONDS
    return min(previous * 2, MAX_BACKOFF_SECONDS)


def describe_exit(returncode: int) -> str:
    """``-9`` as "signal SIGKILL", ``1`` as "exit status 1"."""
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


@dataclass
class Child:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    backoff: float = 0.0
    restart_at: float | None = None  # set while it is dead and waits for its back-off
    ready_fd: int = -1  # an API process started again: readable once it serves


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """The kernel sends the child SIGTERM when the supervisor dies, even by SIGKILL (Linux)."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def start_process(
    args: list[str], env: dict[str, str], log: Path, pass_fds: tuple[int, ...] = ()
) -> subprocess.Popen[bytes]:
    """``bemtevi <args>`` in a session of its own: standard output piped (shown by the supervisor), standard error
    appended to ``log``."""
    with log.open("ab") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "bemtevi.cli", *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            pass_fds=pass_fds,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )


def stop_children(children: list[Child], say: Callable[[str], None]) -> None:
    """SIGTERM to each of ``children`` still running, then SIGKILL to those still running after ``STOP_SECONDS``."""
    for child in children:
        if child.process.poll() is None:
            child.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for child in children:
        try:
            child.process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say(f"{child.name} did not stop within {STOP_SECONDS:.0f} s: killed")
            child.process.kill()
            child.process.wait()

"""The blocking edge: an operation written once, as a coroutine, called by a thread that has no event loop.

The API awaits every operation on its event loop. A caller that is a plain thread (the CLI, a batch's
runner, the reservation sweeper, a test, a benchmark's client threads) calls the same coroutine through
``wait`` (or a method made with ``blocking``): it runs to its end on an event loop of that thread's own,
made when the thread first needs it and closed when the thread ends. The work is then done on the caller's
thread, as a plain call's would be (its share of the CPU, its context variables), and no loop of another
thread is held up by it or can deadlock on it: a writer or a Kafka reader answers the coroutine's future on
that thread's loop as it would the API's.

A thread whose own loop is running must await instead; should it call ``wait`` all the same (a shutdown
hook run on the API's loop), the coroutine runs on a thread of its own while that loop waits, blocked, as
by any blocking call.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

__all__ = ["at_the_edge", "blocking", "wait"]


class _ThreadLoop(threading.local):
    """Each thread's own loop, closed when its thread ends (a thread's locals are dropped then)."""

    loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> asyncio.AbstractEventLoop:
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
            # Dropped with the thread's locals: closing it then releases its selector and wake-up socket.
            self._closer = _Closer(self.loop)
        return self.loop


class _Closer:
    __slots__ = ("_loop",)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def __del__(self) -> None:
        if not self._loop.is_closed() and not self._loop.is_running():
            self._loop.close()


_local = _ThreadLoop()


def wait(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end on this thread's own loop and answer its value (or raise its error)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _local_run(coroutine)
    with ThreadPoolExecutor(1, thread_name_prefix="bemtevi-blocking") as aside:
        answer: Future[T] = aside.submit(_local_run, coroutine)
        return answer.result()


def _local_run(coroutine: Coroutine[Any, Any, T]) -> T:
    return _local.get().run_until_complete(coroutine)


def blocking(operation: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, T]:
    """The blocking form of an async function or method (``submit = blocking(submit_async)``)."""

    @functools.wraps(operation)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return wait(operation(*args, **kwargs))

    run.__doc__ = f"The blocking edge of ``{operation.__name__}`` (``bemtevi.infra.blocking``)."
    return run


def at_the_edge() -> bool:
    """Whether the running coroutine was called through ``wait``: on a loop that lives only for its calls
    (what is to outlast a call, a pooled HTTP client, belongs on a loop of its own)."""
    return _local.loop is not None and _local.loop.is_running()

"""The blocking edge: a coroutine run to its end for a caller on a thread with no event loop."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import threading

import pytest

from bemtevi.infra.blocking import at_the_edge, blocking, wait

_caller: contextvars.ContextVar[str] = contextvars.ContextVar("caller", default="nobody")


async def where() -> tuple[str, str, bool]:
    await asyncio.sleep(0)
    return threading.current_thread().name, _caller.get(), at_the_edge()


def test_a_blocking_call_runs_on_its_callers_thread_with_its_context() -> None:
    answers: list[tuple[str, str, bool]] = []

    def caller() -> None:
        _caller.set("the batch runner")
        answers.append(wait(where()))
        answers.append(wait(where()))  # the thread's loop serves its next call too

    thread = threading.Thread(target=caller, name="batch-runner")
    thread.start()
    thread.join()
    assert answers == [("batch-runner", "the batch runner", True)] * 2
    assert asyncio.run(where())[2] is False  # a loop of the caller's own is not the edge's


def test_an_error_reaches_the_blocking_caller() -> None:
    async def refused(amount: int) -> int:
        raise ValueError(f"refused {amount}")

    with pytest.raises(ValueError, match="refused 3"):
        blocking(refused)(3)


def test_a_blocking_call_made_on_a_running_loop_still_answers() -> None:
    """A shutdown hook run on the API's loop may close what only has a blocking form: it is answered (the loop
    waits meanwhile), not refused, and never deadlocks on the loop it blocks."""

    async def shutdown_hook() -> str:
        return wait(where())[0]

    assert asyncio.run(shutdown_hook()).startswith("bemtevi-blocking")


def test_a_threads_loop_is_closed_when_the_thread_ends() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def running_loop() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    thread = threading.Thread(target=lambda: loops.append(wait(running_loop())))
    thread.start()
    thread.join()
    del thread
    gc.collect()
    assert loops[0].is_closed()

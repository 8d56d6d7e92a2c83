"""How long `bemtevi cluster` waits before starting a dead process again, how it names the death, what it says
while PostgreSQL does not answer, and how it checks its address is free."""

from __future__ import annotations

import signal
import socket
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import free_port

from bemtevi.cluster.children import (
    FIRST_BACKOFF_SECONDS,
    MAX_BACKOFF_SECONDS,
    STABLE_SECONDS,
    describe_exit,
    next_backoff,
)
from bemtevi.cluster.supervisor import ClusterSupervisor
from bemtevi.infra.settings import Settings


@given(st.lists(st.floats(min_value=0, max_value=3 * STABLE_SECONDS, allow_nan=False), min_size=1, max_size=30))
def test_a_process_dying_again_soon_waits_twice_as_long_up_to_ten_seconds_and_one_that_ran_a_minute_starts_over(
    runs: list[float],
) -> None:
    wait = 0.0
    for ran in runs:
        previous, wait = wait, next_backoff(wait, ran)
        assert FIRST_BACKOFF_SECONDS <= wait <= MAX_BACKOFF_SECONDS
        if previous == 0 or ran >= STABLE_SECONDS:
            assert wait == FIRST_BACKOFF_SECONDS
        else:
            assert wait == min(previous * 2, MAX_BACKOFF_SECONDS)


def test_dying_soon_over_and_over_reaches_ten_seconds_after_five_deaths() -> None:
    waits = []
    wait = 0.0
    for _ in range(7):
        wait = next_backoff(wait, 1.0)
        waits.append(wait)
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_a_death_is_named_by_its_signal_or_its_exit_status() -> None:
    assert describe_exit(-signal.SIGKILL) == "signal SIGKILL"
    assert describe_exit(-signal.SIGTERM) == "signal SIGTERM"
    assert describe_exit(1) == "exit status 1"
    assert describe_exit(0) == "exit status 0"


def test_a_postgresql_that_does_not_answer_is_said_once_not_every_round(tmp_path: Path) -> None:
    said: list[str] = []
    port = free_port()  # nothing listens there
    supervisor = ClusterSupervisor(
        Settings(var_dir=tmp_path, database_url=f"postgresql://nobody@127.0.0.1:{port}/bemtevi"),
        workers=[],
        say=said.append,
        database_url=f"postgresql://nobody@127.0.0.1:{port}/bemtevi",
    )
    assert not supervisor._database_answers()
    assert not supervisor._database_answers()
    assert len(said) == 1 and f"PostgreSQL at 127.0.0.1:{port} does not answer" in said[0], said
    assert "waiting for it" in said[0]


def test_checking_the_address_is_free_never_resets_a_client_connecting_meanwhile(tmp_path: Path) -> None:
    """Clients may already knock at the address while the supervisor checks it is free (a health probe, a browser
    reloading): each is refused until an API process serves, never accepted and reset by the check."""
    port = free_port()
    supervisor = ClusterSupervisor(Settings(var_dir=tmp_path, port=port), workers=[], say=lambda _: None)
    outcomes: list[str] = []
    stop = threading.Event()

    def knock() -> None:
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                    conn.sendall(b"GET /api/health HTTP/1.1\r\n\r\n")
                    conn.recv(1)
                outcomes.append("answered")
            except ConnectionRefusedError:
                outcomes.append("refused")
            except OSError as e:
                outcomes.append(repr(e))

    clients = [threading.Thread(target=knock) for _ in range(4)]
    for client in clients:
        client.start()
    try:
        for _ in range(3000):
            supervisor._check_address_free()
    finally:
        stop.set()
        for client in clients:
            client.join()
    assert set(outcomes) == {"refused"}, [o for o in outcomes if o != "refused"][:5]

    # An API process of a cluster already running there.
    with socket.create_server(("127.0.0.1", port), reuse_port=True), pytest.raises(OSError):
        supervisor._check_address_free()

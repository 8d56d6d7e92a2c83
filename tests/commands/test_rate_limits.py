"""Per-token rate limits shared by API processes: never more than the limit in a window, whatever the
interleaving of the processes' requests, and short of it only by what a process holds unspent."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.commands.rate_limits import PER_DAY, RateLimiter
from bemtevi.domain.api_client_errors import RateLimited
from bemtevi.infra.rate_windows import PostgresRateWindows, RateWindows, SqliteRateWindows


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    opened: list[RateWindows] = []

    def open_one() -> RateWindows:
        if request.param == "postgres":
            store: RateWindows = PostgresRateWindows(request.getfixturevalue("postgres_database"))
        else:
            store = SqliteRateWindows(tmp_path / "rate_windows.sqlite")
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        store.close()


def _admitted(limiter: RateLimiter, token: object, per_second: int | None, per_day: int | None = None) -> bool:
    try:
        limiter.admit(token, per_second, per_day)  # type: ignore[arg-type]
    except RateLimited:
        return False
    return True


def test_two_processes_share_one_limit_per_second(store_factory: object) -> None:
    clock = Clock(1_000_000.0)
    first, second = RateLimiter(store_factory(), clock), RateLimiter(store_factory(), clock)  # type: ignore[operator]
    token = uuid4()
    for window in range(3):
        clock.now = 1_000_000.0 + window
        admitted = sum(_admitted(limiter, token, 20) for _ in range(40) for limiter in (first, second))
        # Never beyond the limit; both processes busy spend what they hold, so nothing is lost either.
        assert admitted == 20


def test_a_refusal_says_when_the_window_ends(store_factory: object) -> None:
    clock = Clock(2_000_000.25)
    limiter = RateLimiter(store_factory(), clock)  # type: ignore[operator]
    token = uuid4()
    assert _admitted(limiter, token, 2) and _admitted(limiter, token, 2)
    with pytest.raises(RateLimited) as refused:
        limiter.admit(token, 2, None)
    assert refused.value.retry_after == 1
    clock.now += 1
    assert _admitted(limiter, token, 2)


def test_a_day_limit_holds_until_sao_paulo_midnight(store_factory: object) -> None:
    midnight = 1_800_000_000 // 86_400 * 86_400 + 3 * 3600  # 00:00 in São Paulo
    clock = Clock(midnight - 60.0)
    limiter = RateLimiter(store_factory(), clock)  # type: ignore[operator]
    token = uuid4()
    assert [_admitted(limiter, token, None, 3) for _ in range(4)] == [True, True, True, False]
    with pytest.raises(RateLimited) as refused:
        limiter.admit(token, None, 3)
    assert refused.value.retry_after == 60
    clock.now = midnight + 1.0
    assert _admitted(limiter, token, None, 3)
    assert PER_DAY.window(midnight + 1.0) == midnight


@settings(max_examples=examples(100), deadline=None)
@given(order=st.lists(st.integers(0, 2), min_size=1, max_size=120), limit=st.integers(1, 40))
def test_no_interleaving_of_three_processes_passes_the_limit(
    tmp_path_factory: pytest.TempPathFactory, order: list[int], limit: int
) -> None:
    path = tmp_path_factory.mktemp("rates") / "rate_windows.sqlite"
    clock = Clock(3_000_000.5)
    limiters = [RateLimiter(SqliteRateWindows(path), clock) for _ in range(3)]
    token = uuid4()
    admitted = sum(_admitted(limiters[i], token, limit) for i in order)
    assert admitted <= limit
    # Short of the limit only by what the others hold unspent: at most a share each.
    assert admitted >= min(len(order), limit) - 2 * max(1, limit // 10)
    for limiter in limiters:
        limiter.close()


def test_concurrent_takes_from_two_stores_never_grant_beyond_the_limit(store_factory: object) -> None:
    stores = [store_factory(), store_factory()]  # type: ignore[operator]
    granted: list[int] = []

    def take(store: RateWindows) -> None:
        for _ in range(30):
            granted.append(store.take("token:second", 4_000_000, 3, 100)[0])

    threads = [threading.Thread(target=take, args=(stores[i % 2],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(granted) == 100

"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import statistics
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlparse, urlunparse

import psycopg

DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"


@contextmanager
def postgres_database(server_url: str = DEFAULT_POSTGRES) -> Iterator[str]:
    name = f"bemtevi_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunparse(urlparse(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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

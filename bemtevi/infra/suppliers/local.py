"""The ``local`` supplier: point lookups in the demo / local dataset.

The dataset (``bemtevi.infra.demo_data``, a DuckDB file) keeps, next to its nested ``people`` /
``companies`` tables, one JSON document per CPF / CNPJ (``people_docs`` / ``company_docs``) in
the exact shape returned here. DuckDB is made for scans, not for point reads: a prepared
primary-key lookup costs ~0.25-0.5 ms of CPU, and under load it was a quarter of the lookup
path. So the supplier copies the two document tables once into an SQLite file beside the
dataset (``<dataset>.lookup.sqlite``, rebuilt when the dataset is newer), where the same read
is a B-tree probe of some ten microseconds. Each thread opens its own read-only connection.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any, Literal

import duckdb
import orjson

_NOT_DIGITS = re.compile(r"[.\-/\s]")
_CPF = re.compile(r"[0-9]{11}")
_CNPJ = re.compile(r"[0-9]{14}")

_STATEMENTS = {
    "person": "SELECT doc FROM people_docs WHERE cpf = ?",
    "company": "SELECT doc FROM company_docs WHERE cnpj = ?",
}
_COPY_ROWS = 50_000


def age_on(birth_date: str, today: dt.date) -> int:
    """Age in whole years on ``today`` of someone born on ``birth_date`` (YYYY-MM-DD)."""
    born = dt.date.fromisoformat(birth_date)
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


def _normalise(number: str, pattern: re.Pattern[str]) -> str | None:
    digits = _NOT_DIGITS.sub("", number)
    return digits if pattern.fullmatch(digits) else None


def lookup_file_for(dataset: Path) -> Path:
    return dataset.with_name(dataset.name + ".lookup.sqlite")


def build_lookup_file(dataset: Path) -> Path:
    """Copy the dataset's document tables into an SQLite file (atomically replaced)."""
    target = lookup_file_for(dataset)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    source = duckdb.connect(str(dataset), read_only=True)
    sink = sqlite3.connect(partial)
    try:
        sink.execute("PRAGMA journal_mode=OFF")
        sink.execute("PRAGMA synchronous=OFF")
        for table, key in (("people_docs", "cpf"), ("company_docs", "cnpj")):
            sink.execute(f"CREATE TABLE {table} ({key} TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID")
            cursor = source.execute(f"SELECT {key}, doc FROM {table} ORDER BY {key}")
            while rows := cursor.fetchmany(_COPY_ROWS):
                sink.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows)
        sink.commit()
    finally:
        sink.close()
        source.close()
    os.replace(partial, target)
    return target


class LocalDatasetSupplier:
    """Person and company lookups in a local DuckDB dataset file."""

    name = "local"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"no dataset at {self.path}")
        lookup = lookup_file_for(self.path)
        if not lookup.exists() or lookup.stat().st_mtime < self.path.stat().st_mtime:
            build_lookup_file(self.path)
        self._uri = f"{lookup.resolve().as_uri()}?mode=ro"
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        self._connection()  # fail early on a file that is not a dataset

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is not None and not self._closed:
            return connection
        with self._lock:
            if self._closed:
                raise RuntimeError("the local dataset supplier is closed")
            connection = sqlite3.connect(self._uri, uri=True, check_same_thread=False)
            connection.execute("SELECT 1 FROM people_docs LIMIT 1")
            self._connections.append(connection)
        self._local.connection = connection
        return connection

    def _fetch(self, kind: str, document: str) -> dict[str, Any] | None:
        row = self._connection().execute(_STATEMENTS[kind], (document,)).fetchone()
        if row is None:
            return None
        result: dict[str, Any] = orjson.loads(row[0])
        return result

    def lookup_person(self, cpf: str) -> dict[str, Any] | None:
        document = _normalise(cpf, _CPF)
        if document is None:
            return None
        result = self._fetch("person", document)
        if result is not None:
            result["age"] = age_on(result["birth_date"], dt.date.today())
        return result

    def lookup_company(self, cnpj: str) -> dict[str, Any] | None:
        document = _normalise(cnpj, _CNPJ)
        if document is None:
            return None
        return self._fetch("company", document)

    def lookup(self, kind: Literal["cpf", "cnpj"], number: str) -> dict[str, Any] | None:
        if kind == "cpf":
            return self.lookup_person(number)
        if kind == "cnpj":
            return self.lookup_company(number)
        raise ValueError(f"unknown document kind: {kind!r}")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()

    def __enter__(self) -> LocalDatasetSupplier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""The ``local`` supplier: point lookups in the demo / local dataset.

The dataset (``bemtevi.infra.demo_data``, a DuckDB file) keeps, next to its nested ``people`` /
``companies`` tables, one JSON document per CPF (``people_docs``) in the exact shape returned
here; a company's values are copied from its row of ``companies`` as the copy below is built, and named
at lookup (``company_document``). DuckDB is made for scans, not for point reads: a prepared primary-key lookup costs
~0.25-0.5 ms of CPU, and under load it was a quarter of the lookup path. So the supplier copies
the documents once into an SQLite file beside the dataset (``<dataset>.lookup.sqlite``, rebuilt
when the dataset is newer), where the same read is an index probe and a read of the row it names,
some ten microseconds. Each thread opens its own read-only connection, with the file
memory-mapped (a page read is a memory access, not a read call and a copy) and text read as
bytes (orjson reads them as they are, with no str made and encoded again); its statements are
prepared once, in the connection's statement cache.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Literal

import duckdb
import orjson

from bemtevi.infra.duckdb_files import load_extension, path_literal, transaction

_NOT_DIGITS = re.compile(r"[.\-/\s]")
_CPF = re.compile(r"[0-9]{11}")
_CNPJ = re.compile(r"[0-9]{14}")

_STATEMENTS = {
    "person": "SELECT doc FROM people_docs WHERE cpf = ?",
    "company": "SELECT doc FROM company_docs WHERE cnpj = ?",
}
# Companies' documents are copied this many rows (two of DuckDB's row groups) at a time, each batch's JSON made
# on every core into memory before one thread writes it into SQLite; DuckDB's memory holds about one batch.
_COPY_ROWS = 245_760
_COPY_MEMORY = "400MB"
_PAGE_SIZE = 16_384
# SQLite's cache while the key index is sorted (negative: KiB): the sort merges runs of this size, on every core
# (SQLite's own sort threads, off by default): smaller runs keep those threads busy beside the reading.
_INDEX_CACHE_KIB = -16_384
# The lookup file's layout, kept as its ``user_version``: a file of another layout (one written before companies'
# values were stored unnamed, or their activities by code) is copied anew, as a stale one is.
_LOOKUP_FORMAT = 3
# Ages remembered per birth date within one day (a new day starts afresh); beyond this many
# distinct dates (some 36,500 in a century) the day's ages start afresh too.
_AGES_MAX = 100_000
# A company's lookup document, in the key order returned after ``kind`` and ``cnpj``: a field is a plain value, a
# struct (its fields' names) or a list of structs ([its fields' names]). The copy stores each company's values as a
# JSON array in this order (nested structs as arrays too) and a lookup names them again (``company_document``):
# the names were nearly half of every stored document, and so of the file, of the copy's writes and of its time.
# Datasets generated before the CNPJ import existed have no ``secondary_activities`` / ``simples``: null there.
_Shape = tuple[str, ...] | list[tuple[str, ...]] | None
_COMPANY_SHAPE: tuple[tuple[str, _Shape], ...] = (
    ("company_name", None), ("trade_name", None), ("opening_date", None), ("status", None), ("legal_nature", None),
    ("main_activity", ("code", "description")), ("size", None), ("share_capital", None),
    ("address", ("street", "number", "complement", "neighborhood", "city", "state", "zip")),
    ("phones", [("number", "type")]), ("emails", None), ("partners", [("name", "document", "role", "since")]),
    ("score", None), ("protests", [("date", "amount", "notary", "city", "state")]),
    ("secondary_activities", [("code", "description")]),
    ("simples", ("simples", "simples_since", "simples_until", "mei", "mei_since", "mei_until")),
)  # fmt: skip
_COMPANY_FIELDS = tuple(name for name, _ in _COMPANY_SHAPE)
# Activities (code, description): an imported release names each CNAE code from the Receita's table, the same
# description in every company. Where the dataset gives every code one description, the copy stores an activity
# as its code alone and a lookup names it from the file's ``activity_names``: descriptions were a fifth of the
# stored bytes. A dataset where some code has two is stored whole (``activity_names`` gives None).
_CODED = frozenset({"main_activity", "secondary_activities"})
ActivityNames = Mapping[str, str | None]


def activity_names(con: duckdb.DuckDBPyConnection, columns: Collection[str]) -> dict[str, str | None] | None:
    """Each activity code's description in ``companies`` (which has ``columns``), or None if a code has two."""
    sources = []
    if "main_activity" in columns:
        sources.append("SELECT main_activity.code AS code, main_activity.description AS description FROM companies")
    if "secondary_activities" in columns:
        sources.append("SELECT a.code, a.description FROM (SELECT unnest(secondary_activities) AS a FROM companies)")
    if not sources:
        return {}
    rows = con.execute(
        # a code's descriptions, a missing one counted as one more
        "SELECT code, min(description), count(DISTINCT description) + max((description IS NULL)::INTEGER) "
        f"FROM ({' UNION ALL '.join(sources)}) WHERE code IS NOT NULL GROUP BY code"
    ).fetchall()
    if any(descriptions > 1 for _, _, descriptions in rows):
        return None
    return {code: description for code, description, _ in rows}


def _stored_value_sql(column: str, shape: _Shape, coded: bool) -> str:
    if shape is None:
        return column
    element = column if isinstance(shape, tuple) else "e"
    fields = shape if isinstance(shape, tuple) else shape[0]
    value = f"json_array({', '.join(f'{element}.{field}' for field in fields)})"
    if coded and column in _CODED:
        value = f"CASE WHEN {element}.code IS NULL THEN {value} ELSE to_json({element}.code) END"
    stored = f"CASE WHEN {element} IS NULL THEN NULL ELSE {value} END"
    return stored if isinstance(shape, tuple) else f"list_transform({column}, e -> {stored})"


def company_row_sql(columns: Collection[str] = _COMPANY_FIELDS, coded: bool = False) -> str:
    """``SELECT cnpj, doc`` of the dataset's ``companies`` (which has ``columns``): each one's stored lookup values,
    which ``company_document`` turns into its document; ``coded``: activities by their code alone (only for a
    dataset whose ``activity_names`` is not None, which ``company_document`` is then given)."""
    values = ", ".join(
        _stored_value_sql(name, shape, coded) if name in columns else "NULL" for name, shape in _COMPANY_SHAPE
    )
    return f"SELECT cnpj, json_array({values})::VARCHAR AS doc FROM companies"


def company_document(cnpj: str, stored: bytes | str, names: ActivityNames | None = None) -> dict[str, Any]:
    """The lookup document of the company ``cnpj`` whose stored values (``company_row_sql``) are ``stored``;
    ``names``: the activity names of a coded copy."""
    document: dict[str, Any] = {"kind": "company", "cnpj": cnpj}
    for (name, shape), value in zip(_COMPANY_SHAPE, orjson.loads(stored), strict=True):
        if shape is None or value is None:
            document[name] = value
        elif isinstance(shape, tuple):
            document[name] = _named(shape, value, names)
        else:
            fields = shape[0]
            document[name] = [None if v is None else _named(fields, v, names) for v in value]
    return document


def _named(fields: tuple[str, ...], value: Any, names: ActivityNames | None) -> dict[str, Any]:
    if type(value) is str:  # an activity's code alone (a stored struct is otherwise a list)
        assert names is not None
        return {"code": value, "description": names[value]}
    return dict(zip(fields, value, strict=True))


def age_on(birth_date: str, today: dt.date) -> int:
    """Age in whole years on ``today`` of someone born on ``birth_date`` (YYYY-MM-DD)."""
    born = dt.date.fromisoformat(birth_date)
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


def _normalise(number: str, length: int, pattern: re.Pattern[str]) -> str | None:
    # Bare digits of the right length (what a parsed Document gives) need no regular expression.
    if type(number) is str and len(number) == length and number.isascii() and number.isdigit():
        return number
    digits = _NOT_DIGITS.sub("", number)
    return digits if pattern.fullmatch(digits) else None


class _AgesToday:
    """``age_on(birth_date, date.today())``, with today's date looked up again only once the
    local day it gave is over, and each birth date's age remembered for the day (the two were
    some 1.5 µs of every person lookup)."""

    def __init__(self) -> None:
        # (today, when the next local day starts as time.time(), the day's ages by birth date)
        self._day: tuple[dt.date, float, dict[str, int]] = (dt.date.min, 0.0, {})

    def age(self, birth_date: str) -> int:
        today, day_ends, ages = self._day
        if time.time() >= day_ends:
            today, day_ends, ages = self._new_day()
        age = ages.get(birth_date)
        if age is None:
            age = age_on(birth_date, today)
            if len(ages) >= _AGES_MAX:
                ages.clear()
            ages[birth_date] = age
        return age

    def _new_day(self) -> tuple[dt.date, float, dict[str, int]]:
        today = dt.date.today()
        tomorrow = today + dt.timedelta(days=1)
        # The first instant of tomorrow, local time; where midnight falls in a daylight-saving
        # gap mktime may give an instant before it, and then today is simply looked up again.
        day_ends = time.mktime((tomorrow.year, tomorrow.month, tomorrow.day, 0, 0, 0, 0, 0, -1))
        self._day = (today, day_ends, {})
        return self._day


def lookup_file_for(dataset: Path) -> Path:
    return dataset.with_name(dataset.name + ".lookup.sqlite")


@contextmanager
def _written_back(path: Path, every: float = 0.25) -> Iterator[None]:
    """While ``path`` is written, its pages are flushed to disk every ``every`` seconds on a thread of its own. The
    kernel would keep the copy's gigabytes in memory until SQLite's commit, whose fsync then wrote them all with
    both cores idle (a second at 5 million companies); flushed as they come, the writing overlaps the copy."""
    stop = threading.Event()

    def flush() -> None:
        fd = os.open(path, os.O_RDONLY)
        try:
            while not stop.wait(every):
                os.fdatasync(fd)
        finally:
            os.close(fd)

    flusher = threading.Thread(target=flush, name="lookup-copy-flush", daemon=True)
    flusher.start()
    try:
        yield
    finally:
        stop.set()
        flusher.join()


def build_lookup_file(dataset: Path) -> Path:
    """Copy the dataset's lookup documents into an SQLite file (atomically replaced)."""
    target = lookup_file_for(dataset)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    tables = (("people_docs", "cpf"), ("company_docs", "cnpj"))
    # DuckDB writes the rows into SQLite itself (its SQLite extension): no Python object a row, half the CPU
    # of fetching them into Python for sqlite3. Its SQLite sink takes one thread, and a pipeline feeding it
    # ran on that thread alone: so a company's JSON is made in a pipeline of its own (a materialized CTE, on
    # every core), a batch at a time, and the batch then written. Nothing is sorted.
    copier = duckdb.connect(config={"memory_limit": _COPY_MEMORY})
    try:
        copier.execute("SET enable_progress_bar = false")  # the import prints its own progress
        copier.execute(f"ATTACH {path_literal(dataset)} AS dataset (READ_ONLY)")
        copier.execute("USE dataset")
        columns = {r[0] for r in copier.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = 'dataset' AND table_name = 'companies'"
        ).fetchall()}  # fmt: skip
        names = activity_names(copier, columns)
        with closing(sqlite3.connect(partial)) as sink:
            # 16 KiB pages: a document is about a kilobyte, and fewer pages a row means fewer page reads.
            sink.execute(f"PRAGMA page_size = {_PAGE_SIZE}")
            sink.execute(f"PRAGMA user_version = {_LOOKUP_FORMAT}")
            for table, key in tables:
                sink.execute(f"CREATE TABLE {table} ({key} TEXT NOT NULL, doc TEXT NOT NULL)")
            sink.execute("CREATE TABLE activity_names (code TEXT PRIMARY KEY, description TEXT)")
            sink.executemany("INSERT INTO activity_names VALUES (?, ?)", (names or {}).items())
            sink.commit()
        load_extension(copier, "sqlite_scanner")
        copier.execute(f"ATTACH {path_literal(partial)} AS lookup (TYPE sqlite)")
        # Rows appended in the order DuckDB makes them and the key indexed afterwards: an ORDER BY sorted the
        # whole documents (twice the memory of the rest of the copy) where the index sorts only the keys; a
        # lookup then probes the index, then the row by its rowid.
        with _written_back(partial), transaction(copier):
            copier.execute("INSERT INTO lookup.people_docs SELECT cpf, doc FROM people_docs")
            end = int((copier.execute("SELECT coalesce(max(rowid) + 1, 0) FROM companies").fetchone() or (0,))[0])
            for start in range(0, end, _COPY_ROWS):
                batch = (
                    f"{company_row_sql(columns, coded=names is not None)} "
                    f"WHERE rowid >= {start} AND rowid < {start + _COPY_ROWS}"
                )
                copier.execute(
                    f"INSERT INTO lookup.company_docs WITH docs AS MATERIALIZED ({batch}) SELECT * FROM docs"
                )
    finally:
        copier.close()
    with closing(sqlite3.connect(partial)) as sink, _written_back(partial):
        sink.execute(f"PRAGMA cache_size = {_INDEX_CACHE_KIB}")
        sink.execute(f"PRAGMA threads = {os.cpu_count() or 1}")
        for table, key in tables:
            sink.execute(f"CREATE UNIQUE INDEX {table}_{key} ON {table} ({key})")
        sink.commit()
    os.replace(partial, target)
    return target


def _is_current(lookup: Path, dataset: Path) -> bool:
    if not lookup.exists() or lookup.stat().st_mtime < dataset.stat().st_mtime:
        return False
    with closing(sqlite3.connect(f"{lookup.resolve().as_uri()}?mode=ro", uri=True)) as connection:
        return bool(connection.execute("PRAGMA user_version").fetchone() == (_LOOKUP_FORMAT,))


class LocalDatasetSupplier:
    """Person and company lookups in a local DuckDB dataset file."""

    name = "local"
    answers_at_once = True  # a read of a local file: asked before the ledger decides

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"no dataset at {self.path}")
        lookup = lookup_file_for(self.path)
        if not _is_current(lookup, self.path):
            build_lookup_file(self.path)
        self._uri = f"{lookup.resolve().as_uri()}?mode=ro"
        self._local = threading.local()
        self._lock = threading.Lock()
        self._mmap_size = lookup.stat().st_size
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        self._ages = _AgesToday()
        self._connection()  # fail early on a file that is not a dataset

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is not None and not self._closed:
            return connection
        with self._lock:
            if self._closed:
                raise RuntimeError("the local dataset supplier is closed")
            connection = sqlite3.connect(self._uri, uri=True, check_same_thread=False)
            # The file is only ever replaced whole (build_lookup_file), never written in place.
            connection.execute(f"PRAGMA mmap_size = {self._mmap_size}")
            # this file's own (each thread's connection may have opened a newer copy)
            self._local.activity_names = dict(connection.execute("SELECT code, description FROM activity_names"))
            connection.text_factory = bytes
            connection.execute("SELECT 1 FROM people_docs LIMIT 1")
            self._connections.append(connection)
        self._local.connection = connection
        return connection

    def _stored(self, kind: str, document: str) -> bytes | None:
        """The stored document (a person's) or values (a company's) of ``document``, as bytes."""
        row = self._connection().execute(_STATEMENTS[kind], (document,)).fetchone()
        return None if row is None else row[0]

    def lookup_person(self, cpf: str) -> dict[str, Any] | None:
        document = _normalise(cpf, 11, _CPF)
        if document is None:
            return None
        stored = self._stored("person", document)
        if stored is None:
            return None
        result: dict[str, Any] = orjson.loads(stored)
        result["age"] = self._ages.age(result["birth_date"])
        return result

    def lookup_company(self, cnpj: str) -> dict[str, Any] | None:
        document = _normalise(cnpj, 14, _CNPJ)
        if document is None:
            return None
        stored = self._stored("company", document)
        return None if stored is None else company_document(document, stored, self._local.activity_names)

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

"""The advanced query's search index: people and companies of the local dataset by name, address, city, state,
phone, e-mail and birth date, in an SQLite file beside the dataset (``<dataset>.search.sqlite``).

SQLite FTS5, words with a prefix index of 3 characters, chosen by measurement over FTS5's trigram tokenizer
and a DuckDB scan (bench/advanced_query.py, docs/architecture.md): each typed word is a word's beginning
('mar silv' finds 'Maria da Silva'), one probe of the prefix index. Texts are folded (lower case, accents
dropped) by DuckDB while the index is built, and the criteria by ``domain.advanced_query.fold`` the same way.
Companies' partners (the QSA, also of the Receita Federal's import) are searched with the company's name: a
partner's name finds the company. Phones are a table of their own (digits, mobile or not). Like the lookup
file, the index is built once and rebuilt when the dataset is newer; it holds no more than the dataset does.

``SearchIndex`` is what the advanced query asks; this file's ``SqliteSearchIndex`` serves an embedded deployment,
``search_index_postgres.PostgresSearchIndex`` (full-text GIN) one whose event store is PostgreSQL (cluster mode): both
take their entries and folded texts from ``folded_entries`` and their criteria from the same domain rules.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import duckdb

from bemtevi.domain.advanced_query import MAX_MATCHES, AdvancedCriteria, terms
from bemtevi.infra.duckdb_files import path_literal

_COPY_ROWS = 50_000

_PEOPLE = """
    SELECT 'cpf' AS kind, cpf AS document, name, addresses[1].city AS city, addresses[1].state AS state,
        CAST(birth_date AS VARCHAR) AS birth, phones,
        strip_accents(lower(name)) AS f_name,
        strip_accents(lower(array_to_string(list_transform(addresses,
            a -> concat_ws(' ', a.street, a.number, a.neighborhood)), ' | '))) AS f_address,
        strip_accents(lower(array_to_string(list_transform(addresses, a -> a.city), ' | '))) AS f_city,
        lower(array_to_string(list_transform(addresses, a -> 'uf' || a.state), ' ')) AS f_state,
        lower(array_to_string(emails, ' ')) AS f_email,
        '' AS f_partners
    FROM ds.people
"""
_COMPANIES = """
    SELECT 'cnpj' AS kind, cnpj AS document, company_name AS name, address.city AS city, address.state AS state,
        NULL AS birth, phones,
        strip_accents(lower(concat_ws(' | ', company_name, trade_name))) AS f_name,
        strip_accents(lower(concat_ws(' ', address.street, address.number, address.neighborhood))) AS f_address,
        strip_accents(lower(address.city)) AS f_city,
        lower('uf' || address.state) AS f_state,
        lower(array_to_string(emails, ' ')) AS f_email,
        strip_accents(lower(array_to_string(list_transform(partners, p -> p.name), ' | '))) AS f_partners
    FROM ds.companies
"""


def _entries_sql(tables: set[str]) -> str:
    """The entries of the dataset's people and companies (a dataset of the CNPJ import alone has no people)."""
    parts = [sql for table, sql in (("people", _PEOPLE), ("companies", _COMPANIES)) if table in tables]
    if not parts:
        raise RuntimeError("the dataset has no people or companies")
    return (
        "CREATE OR REPLACE TEMP TABLE adv_entries AS SELECT row_number() OVER (ORDER BY kind, document) AS id, *"
        f" FROM ({' UNION ALL BY NAME '.join(parts)})"
    )


_SCHEMA = """
CREATE TABLE entries (id INTEGER PRIMARY KEY, kind TEXT, document TEXT, name TEXT, city TEXT, state TEXT, birth TEXT);
CREATE INDEX entries_birth ON entries (birth);
CREATE TABLE phones (number TEXT, mobile INTEGER, id INTEGER, PRIMARY KEY (number, id)) WITHOUT ROWID;
CREATE VIRTUAL TABLE search USING fts5(
    f_name, f_address, f_city, f_state, f_email, f_partners,
    content='', tokenize='unicode61 remove_diacritics 2', prefix='3'
);
"""


@dataclass(frozen=True, slots=True)
class Match:
    """One entry a search matched: what a list may show of it, and the document an opening charges for."""

    ref: int
    kind: str
    document: str
    name: str
    city: str
    state: str


class SearchIndex(Protocol):
    """The advanced query's search of the dataset's people and companies (one per deployment kind)."""

    def search(self, criteria: AdvancedCriteria, kinds: Collection[str]) -> tuple[list[Match], bool]:
        """The entries of ``kinds`` matching ``criteria``, the first ``MAX_MATCHES`` by ``ref``, and whether there
        were more. The same criteria list the same entries (a list's pages are read by searching again)."""

    def match(self, criteria: AdvancedCriteria, kinds: Collection[str], ref: int) -> Match | None:
        """Entry ``ref`` if it matches (a list's row opened: the row must be one of its search's)."""

    def close(self) -> None: ...


def folded_entries(dataset: Path) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection holding ``adv_entries``: every person and company of ``dataset`` with its ``id`` (the
    ``ref`` a list names it by, in (kind, document) order), what a list shows, and its texts folded."""
    source = duckdb.connect()
    try:
        source.execute(f"ATTACH {path_literal(dataset)} AS ds (READ_ONLY)")
        rows = source.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'ds'").fetchall()
        source.execute(_entries_sql({str(row[0]) for row in rows}))
    except BaseException:
        source.close()
        raise
    return source


def index_file_for(dataset: Path) -> Path:
    return dataset.with_name(dataset.name + ".search.sqlite")


def build_index_file(dataset: Path) -> Path:
    """Build the search index of ``dataset`` (atomically replaced; several processes may build at once)."""
    target = index_file_for(dataset)
    partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.partial")
    partial.unlink(missing_ok=True)
    source = folded_entries(dataset)
    sink = sqlite3.connect(partial)
    try:
        sink.execute("PRAGMA journal_mode=OFF")
        sink.execute("PRAGMA synchronous=OFF")
        sink.executescript(_SCHEMA)
        _copy(
            source,
            sink,
            "SELECT id, kind, document, name, city, state, birth FROM adv_entries ORDER BY id",
            "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        _copy(
            source,
            sink,
            "SELECT id, f_name, f_address, f_city, f_state, f_email, f_partners FROM adv_entries ORDER BY id",
            "INSERT INTO search (rowid, f_name, f_address, f_city, f_state, f_email, f_partners)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        _copy(
            source,
            sink,
            "SELECT DISTINCT p.number, p.type = 'mobile', id FROM (SELECT id, unnest(phones) AS p FROM adv_entries)"
            " ORDER BY 1, 3",
            "INSERT OR IGNORE INTO phones VALUES (?, ?, ?)",
        )
        sink.execute("INSERT INTO search (search) VALUES ('optimize')")
        sink.commit()
    finally:
        sink.close()
        source.close()
    os.replace(partial, target)
    return target


def _copy(source: duckdb.DuckDBPyConnection, sink: sqlite3.Connection, read: str, write: str) -> None:
    cursor = source.execute(read)
    while rows := cursor.fetchmany(_COPY_ROWS):
        sink.executemany(write, rows)


def _phrase(term: str, prefix: bool = True) -> str:
    return '"' + term.replace('"', '""') + '"' + ("*" if prefix else "")


def match_expression(criteria: AdvancedCriteria) -> str | None:
    """The FTS5 query of the criteria's texts: every word of each as a word's beginning in its column(s); an
    e-mail as the beginning of the address."""
    parts: list[str] = []
    columns = {
        "name": "{f_name f_partners}",
        "address": "f_address",
        "city": "f_city",
        "email": "f_email",
    }
    for field, column in columns.items():
        value = getattr(criteria, field)
        if value:
            words = (value,) if field == "email" else terms(value)
            parts.extend(f"{column} : {_phrase(word)}" for word in words)
    if criteria.state:
        parts.append(f"f_state : {_phrase('uf' + criteria.state.lower(), prefix=False)}")
    return " AND ".join(parts) or None


def search_statement(
    criteria: AdvancedCriteria, kinds: Collection[str], ref: int | None = None
) -> tuple[str, list[object]]:
    """The statement listing the entries of ``kinds`` ('cpf', 'cnpj') matching ``criteria`` (only entry ``ref``,
    if given). The text index drives it (its matches stream, and the list's bound stops it early) unless a phone
    is given: a phone is a handful of entries, and then the text's matches are a set they are looked up in."""
    expression = match_expression(criteria)
    phones = [(criteria.telephone, ""), (criteria.cellphone, " AND mobile = 1")]
    phone_given = any(number for number, _ in phones)
    source = "entries e"
    where: list[tuple[str, object]] = []
    if expression is not None and not phone_given:
        source = "search JOIN entries e ON e.id = search.rowid"
        where.append(("search MATCH ?", expression))
    elif expression is not None:
        where.append(("e.id IN (SELECT rowid FROM search WHERE search MATCH ?)", expression))
    for number, mobile in phones:
        if number:
            where.append((f"e.id IN (SELECT id FROM phones WHERE number = ?{mobile})", number))
    if criteria.birth:
        where.append(("e.birth = ?", criteria.birth))
    if not where:
        raise ValueError("a search needs a criterion")
    if ref is not None:
        where.append(("e.id = ?", ref))
    conditions = [condition for condition, _ in where]
    conditions.append(f"e.kind IN ({', '.join('?' for _ in kinds) or 'NULL'})")
    params: list[object] = [value for _, value in where] + list(kinds)
    params.append(MAX_MATCHES + 1)
    columns = "e.id, e.kind, e.document, e.name, coalesce(e.city, ''), coalesce(e.state, '')"
    return f"SELECT {columns} FROM {source} WHERE {' AND '.join(conditions)} LIMIT ?", params


class SqliteSearchIndex:
    """Searches of the local dataset's people and companies in an SQLite file beside it (built on first use)."""

    def __init__(self, dataset: Path) -> None:
        self.dataset = Path(dataset)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._uri: str | None = None

    def _ready_uri(self) -> str:
        with self._lock:
            if self._uri is None:
                if not self.dataset.exists():
                    raise FileNotFoundError(f"no dataset at {self.dataset}")
                path = index_file_for(self.dataset)
                if not path.exists() or path.stat().st_mtime < self.dataset.stat().st_mtime:
                    build_index_file(self.dataset)
                self._uri = f"{path.resolve().as_uri()}?mode=ro"
            return self._uri

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self._ready_uri(), uri=True, check_same_thread=False)
            self._local.connection = connection
        return connection

    def search(self, criteria: AdvancedCriteria, kinds: Collection[str]) -> tuple[list[Match], bool]:
        """The entries of ``kinds`` matching ``criteria`` (at most ``MAX_MATCHES``), and whether there were more."""
        sql, params = search_statement(criteria, kinds)
        rows = self._connection().execute(sql, params).fetchall()
        return [Match(*row) for row in rows[:MAX_MATCHES]], len(rows) > MAX_MATCHES

    def match(self, criteria: AdvancedCriteria, kinds: Collection[str], ref: int) -> Match | None:
        """Entry ``ref`` if it matches (a list's row opened: the row must be one of its search's)."""
        sql, params = search_statement(criteria, kinds, ref)
        row = self._connection().execute(sql, params).fetchone()
        return None if row is None else Match(*row)

    def close(self) -> None:
        """Nothing to release: each thread's read-only connection ends with it."""

"""The advanced query's search index in PostgreSQL, for a deployment whose event store is there (cluster mode): one
index every API process shares, instead of a file each builds beside its copy of the dataset.

The entries, their ``ref`` and their folded texts are ``search_index.folded_entries``'s, as for the SQLite index;
the criteria are folded by ``domain.advanced_query`` for both. What FTS5's tokenizer does there is done here once
at build time: a text column holds its words separated by single blanks (anything not a letter or digit is a
blank, as FTS5's ``unicode61`` tokenizer splits), with a blank at both ends, so a typed word is a word's
beginning when ``LIKE '% word%'`` holds. A GIN index of those words as ``tsvector`` lexemes answers it as FTS5's
prefix index does: each typed word a prefix term (``'silv':*``), every candidate a match, nothing rechecked row by
row (``pg_trgm``'s candidates for a common word were). The words go in and out as ``tsvector`` and ``tsquery``
literals, never through a text search parser or dictionary: those split and lower case by their own rules, and
the texts arrive folded already (``unaccent`` is not used either: its rules differ from the domain's folding).
A typed word holding several ('o'brien') is a phrase: its words as lexemes, then the LIKE on the candidates.
A prefix term is answered from a bitmap of every lexeme it begins, slower than whole lexemes (which the index
intersects by skipping): a table of each column's words turns a prefix into the few words it begins
(``expansions``), and one of many stays a prefix term.

Built once per dataset, under an advisory lock (several processes may start at once), into tables swapped in
with their stamp in one transaction; rebuilt when the dataset is newer than the stamp. The tables are logged
(unlogged ones come back empty after a server crash, under a stamp that says they are built). A search reads its
prefixes' words and its matches from one version of the tables, the swap waiting for it (``read_one_index``).
"""

from __future__ import annotations

import re
import tempfile
import threading
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

import psycopg
from psycopg.rows import TupleRow
from psycopg_pool import ConnectionPool

from bemtevi.domain.advanced_query import MAX_MATCHES, AdvancedCriteria, terms
from bemtevi.infra.suppliers.search_index import Match, folded_entries

ENTRIES = "bemtevi_search_entries"
PHONES = "bemtevi_search_phones"
WORDS = "bemtevi_search_words"
BUILT = "bemtevi_search_built"
# Bumped when the tables' layout changes: an index of another layout is built again.
LAYOUT = 4
# A prefix beginning more words than this stays a prefix term.
MAX_EXPANSION = 32
# A search of at most this many matches reads them all from the indexes and keeps the first by ref; one of more
# walks the entries in ref order until its list is full (see few_matches_statement).
FEW_MATCHES = 10 * MAX_MATCHES
# A search connection's work_mem: the bitmap of every entry holding a common word's prefix stays exact.
BITMAP_MEMORY = "64MB"
# One lock for whoever builds (pg_advisory_lock's key).
_BUILD_LOCK = 0x62656D5F73726368
_NOT_WORD = re.compile(r"[\W_]+")
# DuckDB (RE2) side of the same split: a run of anything not a letter or digit is one blank.
_WORDS_SQL = "' ' || trim(regexp_replace(coalesce({0}, ''), '[^\\pL\\pN]+', ' ', 'g')) || ' '"

# The words twice: as text for the phrases' LIKE, as tsvector literals for the index and a cheap per-row check.
_ENTRIES_CSV = f"""
    SELECT *, w_names, w_address, w_city, w_email FROM (SELECT id, kind, document, name, city, state, birth,
        {_WORDS_SQL.format("f_name")} || '| ' || trim({_WORDS_SQL.format("f_partners")}) || ' ' AS w_names,
        {_WORDS_SQL.format("f_address")} AS w_address,
        {_WORDS_SQL.format("f_city")} AS w_city,
        ' ' || f_state || ' ' AS w_state,
        {_WORDS_SQL.format("f_email")} AS w_email
    FROM adv_entries) ORDER BY id
"""
_PHONES_CSV = (
    "SELECT DISTINCT p.number, p.type = 'mobile', id FROM (SELECT id, unnest(phones) AS p FROM adv_entries)"
    " ORDER BY 1, 3"
)


def words(text: str) -> str:
    """A criterion's word as the index's columns hold words: 'o'brien' is the two words 'o brien'."""
    return _NOT_WORD.sub(" ", text).strip()


def _beginning(word: str) -> str:
    """The LIKE pattern of a word's beginning (``words`` leaves no '%', '_' or '\\' to escape)."""
    return f"% {words(word)}%"


def _lexeme(word: str, prefix: bool) -> str:
    """One word as a quoted ``tsquery`` operand: nothing typed is read as an operator."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'" + (":*" if prefix else "")


# (column, prefix) -> the words of that column it begins; a prefix not there stays a prefix term.
Expansions = Mapping[tuple[str, str], Sequence[str]]
_COLUMNS_OF = {"name": "w_names", "address": "w_address", "city": "w_city", "email": "w_email"}


def _typed(criteria: AdvancedCriteria, field: str) -> tuple[str, ...]:
    value: str | None = getattr(criteria, field)
    return () if not value else (value,) if field == "email" else terms(value)


def prefixes(criteria: AdvancedCriteria) -> list[tuple[str, str]]:
    """The (column, prefix) pairs of the criteria's prefix terms: each typed word's last word."""
    return [
        (column, parts[-1])
        for field, column in _COLUMNS_OF.items()
        for word in _typed(criteria, field)
        if (parts := words(word).split())
    ]


def prefix_query(typed: Collection[str], column: str = "", expansions: Expansions | None = None) -> str | None:
    """The ``tsquery`` literal of typed words, each a word's beginning: a phrase's words but the last whole, the
    last its expansion if known. None when a prefix begins no word of the column (nothing matches)."""
    operands: list[str] = []
    for word in typed:
        *whole, last = words(word).split()
        operands += [_lexeme(part, prefix=False) for part in whole]
        expanded = (expansions or {}).get((column, last))
        if expanded is None:
            operands.append(_lexeme(last, prefix=True))
        elif not expanded:
            return None
        else:
            operands.append("(" + " | ".join(_lexeme(w, prefix=False) for w in expanded) + ")")
    return " & ".join(operands)


def _conditions(
    criteria: AdvancedCriteria, kinds: Collection[str], ref: int | None, expansions: Expansions | None
) -> tuple[list[str], list[object], bool]:
    """The criteria's conditions and their values: every word of a text criterion a word's beginning in its
    column, as in the SQLite index; a name in the names of the entry or of a company's partners; an e-mail as
    the beginning of an address. And whether an index answers one of them (all but the state do)."""
    conditions: list[str] = []
    params: list[object] = []

    def holds(condition: str, *values: object) -> None:
        conditions.append(condition)
        params.extend(values)

    for field, column in _COLUMNS_OF.items():
        typed = _typed(criteria, field)
        if typed:
            query = prefix_query(typed, column, expansions) if all(words(word) for word in typed) else None
            if query is None:  # no letter or digit, no word's beginning: FTS5's empty phrase matches nothing too
                holds("false")
                continue
            holds(f"e.t{column[1:]} @@ %s::tsquery", query)
            for word in typed:
                if " " in words(word):  # a phrase: its words found, their order and adjacency checked here
                    holds(f"e.{column} LIKE %s", _beginning(word))
    for number, mobile in ((criteria.telephone, ""), (criteria.cellphone, " AND mobile")):
        if number:
            holds(f"e.id IN (SELECT id FROM {PHONES} WHERE number = %s{mobile})", number)
    if criteria.birth:
        holds("e.birth = %s", criteria.birth)
    indexed = bool(conditions)
    if criteria.state:
        holds("e.w_state LIKE %s", f"% uf{criteria.state.lower()} %")
    if not conditions:
        raise ValueError("a search needs a criterion")
    if ref is not None:
        holds("e.id = %s", ref)
    holds("e.kind = ANY(%s)", list(kinds))
    return conditions, params, indexed


_COLUMNS = "e.id, e.kind, e.document, e.name, coalesce(e.city, '') AS city, coalesce(e.state, '') AS state"


def search_statement(
    criteria: AdvancedCriteria, kinds: Collection[str], ref: int | None = None, expansions: Expansions | None = None
) -> tuple[str, list[object]]:
    """The statement listing the first entries by ``ref`` of ``kinds`` matching ``criteria`` (only entry ``ref``,
    if given), in the plan PostgreSQL chooses."""
    conditions, params, _ = _conditions(criteria, kinds, ref, expansions)
    where = " AND ".join(conditions)
    return f"SELECT {_COLUMNS} FROM {ENTRIES} e WHERE {where} ORDER BY e.id LIMIT %s", [*params, MAX_MATCHES + 1]


def few_matches_statement(
    criteria: AdvancedCriteria, kinds: Collection[str], expansions: Expansions | None = None
) -> tuple[str, list[object]] | None:
    """The statement listing the same entries as ``search_statement``, each row with how many matched, up to
    ``FEW_MATCHES + 1``: all of them when they are no more, read from the indexes (to run with plain index
    scans off). None when no index answers the criteria (a state alone: most entries match).

    Why: with ``ORDER BY id LIMIT``, PostgreSQL walks the primary key and filters when it expects many matches,
    and when there are fewer than a list's length it reads the whole table (a first name with a last name of
    two letters, dropped as too short: 0.5 s at 500,000 people, seconds at 5,000,000). Counted first, a search
    of few matches reads only those; a search of many walks the key until its list is full, soon."""
    conditions, params, indexed = _conditions(criteria, kinds, None, expansions)
    if not indexed:
        return None
    where = " AND ".join(conditions)
    return (
        f"WITH m AS MATERIALIZED (SELECT {_COLUMNS} FROM {ENTRIES} e WHERE {where} LIMIT %s)"
        " SELECT *, count(*) OVER () FROM m ORDER BY id LIMIT %s",
        [*params, FEW_MATCHES + 1, MAX_MATCHES + 1],
    )


def build_index(conninfo: str, dataset: Path) -> bool:
    """Build the index of ``dataset`` unless one as new is there (another process may have just built it);
    answers whether it built."""
    with psycopg.connect(conninfo, autocommit=True) as con:
        con.execute("SELECT pg_advisory_lock(%s)", [_BUILD_LOCK])
        try:
            if _current(con, dataset):
                return False
            _drop_unfinished(con)
            _build(con, dataset)
            return True
        finally:
            con.execute("SELECT pg_advisory_unlock(%s)", [_BUILD_LOCK])


def _stamp(dataset: Path) -> int:
    return dataset.stat().st_mtime_ns


def _current(con: psycopg.Connection, dataset: Path) -> bool:
    """Whether the index there is of this layout and not older than ``dataset``."""
    if con.execute("SELECT to_regclass(%s)", [BUILT]).fetchone() == (None,):
        return False
    row = con.execute(f"SELECT layout, dataset_mtime_ns FROM {BUILT}").fetchone()
    return row is not None and row[0] == LAYOUT and row[1] >= _stamp(dataset)


def _drop_unfinished(con: psycopg.Connection) -> None:
    """The tables of a build that did not finish (its process died or failed): under the lock, none is being built."""
    rows = con.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename ~ %s",
        [f"^({ENTRIES}|{PHONES}|{WORDS})_[0-9a-f]{{12}}$"],
    ).fetchall()
    for (table,) in rows:
        con.execute(f'DROP TABLE "{table}"')


def _build(con: psycopg.Connection, dataset: Path) -> None:
    stamp = _stamp(dataset)
    token = uuid.uuid4().hex[:12]  # the new tables' and indexes' names, unique while the old ones still exist
    entries, phones, vocabulary = f"{ENTRIES}_{token}", f"{PHONES}_{token}", f"{WORDS}_{token}"
    source = folded_entries(dataset)
    try:
        with tempfile.TemporaryDirectory(prefix="bemtevi-search-") as folder:
            con.execute(
                f"CREATE TABLE {entries} (id integer NOT NULL, kind text NOT NULL, document text NOT NULL,"
                " name text, city text, state text, birth text, w_names text NOT NULL, w_address text NOT NULL,"
                " w_city text NOT NULL, w_state text NOT NULL, w_email text NOT NULL, t_names tsvector NOT NULL,"
                " t_address tsvector NOT NULL, t_city tsvector NOT NULL, t_email tsvector NOT NULL)"
            )
            con.execute(f"CREATE TABLE {phones} (number text NOT NULL, mobile boolean NOT NULL, id integer)")
            for table, sql in ((entries, _ENTRIES_CSV), (phones, _PHONES_CSV)):
                csv = Path(folder) / f"{table}.csv"
                source.execute(f"COPY ({sql}) TO '{csv}' (FORMAT csv, HEADER false)")
                _copy_csv(con, table, csv)
                csv.unlink()
    finally:
        source.close()
    con.execute(f"ALTER TABLE {entries} ADD CONSTRAINT {entries}_pk PRIMARY KEY (id)")
    con.execute(f"ALTER TABLE {phones} ADD CONSTRAINT {phones}_pk PRIMARY KEY (number, id)")
    con.execute(f"CREATE INDEX {entries}_birth ON {entries} (birth)")
    con.execute(
        f"CREATE INDEX {entries}_words ON {entries} USING gin (t_names, t_address, t_city, t_email)"
        " WITH (fastupdate = off)"
    )
    con.execute(f'CREATE TABLE {vocabulary} ("column" text NOT NULL, word text COLLATE "C" NOT NULL)')
    for column in _COLUMNS_OF.values():
        con.execute(
            f"INSERT INTO {vocabulary} SELECT DISTINCT '{column}', w"
            f" FROM {entries}, unnest(tsvector_to_array(t{column[1:]})) w"
        )
    con.execute(f'ALTER TABLE {vocabulary} ADD CONSTRAINT {vocabulary}_pk PRIMARY KEY ("column", word)')
    con.execute(f"ANALYZE {entries}")
    con.execute(f"ANALYZE {vocabulary}")
    con.execute(f"ANALYZE {phones}")
    with con.transaction():  # the words first: a search locks them first (see read_one_index)
        con.execute(f"DROP TABLE IF EXISTS {WORDS}, {ENTRIES}, {PHONES}, {BUILT}")
        con.execute(f"ALTER TABLE {entries} RENAME TO {ENTRIES}")
        con.execute(f"ALTER TABLE {phones} RENAME TO {PHONES}")
        con.execute(f"ALTER TABLE {vocabulary} RENAME TO {WORDS}")
        con.execute(f"CREATE TABLE {BUILT} (layout integer NOT NULL, dataset_mtime_ns bigint NOT NULL)")
        con.execute(f"INSERT INTO {BUILT} VALUES (%s, %s)", [LAYOUT, stamp])


def expansions(con: psycopg.Connection, criteria: AdvancedCriteria) -> dict[tuple[str, str], list[str]]:
    """The words each prefix of the criteria begins in its column, for those beginning ``MAX_EXPANSION`` or fewer
    (one statement: a range of the words' key per prefix, in byte order as the index compares lexemes)."""
    wanted = prefixes(criteria)
    if not wanted:
        return {}
    rows = con.execute(
        f'SELECT p.i, w.word FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY p("column", prefix, i)'
        f' CROSS JOIN LATERAL (SELECT word FROM {WORDS} v WHERE v."column" = p."column"'
        f' AND v.word >= p.prefix COLLATE "C" AND v.word < p.prefix || chr(1114111) COLLATE "C"'
        " ORDER BY word LIMIT %s) w",
        [[c for c, _ in wanted], [prefix for _, prefix in wanted], MAX_EXPANSION + 1],
    ).fetchall()
    found: dict[tuple[str, str], list[str]] = {pair: [] for pair in wanted}
    for i, word in rows:
        found[wanted[i - 1]].append(word)
    return {pair: found_words for pair, found_words in found.items() if len(found_words) <= MAX_EXPANSION}


def read_one_index(
    con: psycopg.Connection,
    criteria: AdvancedCriteria,
    statement: Callable[[Expansions], tuple[str, list[object]] | None],
) -> list[TupleRow] | None:
    """The rows of ``statement``, made of the criteria's expansions (None if it makes none), the expansions and
    the rows read from one version of the index even if another process swaps in a new one meanwhile.

    Pipelined, the two statements are one implicit transaction (until the pipeline's Sync; reading the
    expansions only flushes): the expansions' ACCESS SHARE lock on the words holds the swap, whose DROP takes
    the words first, until the statement is done; a swap already holding them holds the search until it is
    over. No lock cycle: a search holding the entries holds the words too, or is one statement that takes
    entries and phones in the swap's order. No BEGIN, LOCK or COMMIT: no round trip or command beyond the two.
    Without a prefix there is one statement, one snapshot."""
    if not prefixes(criteria):
        made = statement({})
        return None if made is None else con.execute(*made).fetchall()
    with con.pipeline():
        made = statement(expansions(con, criteria))
        cursor = None if made is None else con.execute(*made)
    return None if cursor is None else cursor.fetchall()


def _copy_csv(con: psycopg.Connection, table: str, csv: Path) -> None:
    with con.cursor() as cursor, cursor.copy(f"COPY {table} FROM STDIN (FORMAT csv)") as copy, csv.open("rb") as f:
        while chunk := f.read(1 << 20):
            copy.write(chunk)


class PostgresSearchIndex:
    """Searches of the dataset's people and companies in the deployment's PostgreSQL (built on first use)."""

    def __init__(self, conninfo: str, dataset: Path) -> None:
        self.dataset = Path(dataset)
        self._conninfo = conninfo
        self._lock = threading.Lock()
        # Opened at the first search: most processes of a deployment (workers, relay) never search.
        self._pools: tuple[ConnectionPool, ConnectionPool] | None = None
        self._closed = False

    def _ready_pools(self) -> tuple[ConnectionPool, ConnectionPool]:
        """The connections that read matches through the indexes' bitmaps only (``few_matches_statement``), and
        those that let PostgreSQL choose (see ``read_one_index`` for their transactions)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the search index is closed")
            if self._pools is None:
                if not self.dataset.exists():
                    raise FileNotFoundError(f"no dataset at {self.dataset}")
                build_index(self._conninfo, self.dataset)
                # A prefix term's matches are gathered in a bitmap: past work_mem it turns lossy, and every row of
                # its pages is rechecked (a common first name's: most of the table).
                memory = f"-c work_mem={BITMAP_MEMORY}"
                bitmaps = {"autocommit": True, "options": f"-c enable_seqscan=off -c enable_indexscan=off {memory}"}
                chosen = {"autocommit": True, "options": memory}
                self._pools = (
                    ConnectionPool(self._conninfo, min_size=0, max_size=4, open=True, kwargs=bitmaps),
                    ConnectionPool(self._conninfo, min_size=0, max_size=4, open=True, kwargs=chosen),
                )
            return self._pools

    def search(self, criteria: AdvancedCriteria, kinds: Collection[str]) -> tuple[list[Match], bool]:
        bitmaps, chosen = self._ready_pools()
        with bitmaps.connection() as con:
            counted = read_one_index(con, criteria, lambda expanded: few_matches_statement(criteria, kinds, expanded))
        if counted is not None and (not counted or counted[0][-1] <= FEW_MATCHES):
            rows = [row[:-1] for row in counted]
            return [Match(*row) for row in rows[:MAX_MATCHES]], len(rows) > MAX_MATCHES
        # Expanded again with the listing: the index may have been swapped since the count.
        with chosen.connection() as con:
            listed = read_one_index(con, criteria, lambda expanded: search_statement(criteria, kinds, None, expanded))
        rows = listed or []
        return [Match(*row) for row in rows[:MAX_MATCHES]], len(rows) > MAX_MATCHES

    def match(self, criteria: AdvancedCriteria, kinds: Collection[str], ref: int) -> Match | None:
        with self._ready_pools()[1].connection() as con:
            rows = read_one_index(con, criteria, lambda expanded: search_statement(criteria, kinds, ref, expanded))
        return Match(*rows[0]) if rows else None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pools, self._pools = self._pools, None
        for pool in pools or ():
            pool.close()

"""The advanced query's index over the local dataset: a person is found however their name is typed (accents,
case, partial words), by phone however it is formatted; a company by its partners' names (the QSA), also of
the Receita Federal's import. Each case runs on both indexes (SQLite FTS5 embedded, PostgreSQL in cluster
mode), and both list the very same entries for the same criteria."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import duckdb
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from receita_files import ACME_CNPJ, write_release
from support import examples

from bemtevi.domain.advanced_query import MAX_MATCHES, AdvancedCriteria
from bemtevi.infra.demo_data import generate_demo_dataset
from bemtevi.infra.receita import import_cnpj
from bemtevi.infra.suppliers import search_index_postgres
from bemtevi.infra.suppliers.search_index import Match, SearchIndex, SqliteSearchIndex
from bemtevi.infra.suppliers.search_index_postgres import PostgresSearchIndex, build_index

BOTH = ("cpf", "cnpj")
ACCENTS = str.maketrans("aeiouc", "áéíóúç")
Indexes = Callable[[Path], SearchIndex]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def index_of(request: pytest.FixtureRequest) -> Iterator[Indexes]:
    """A new index of a dataset on the backend (on PostgreSQL, all in one test's database)."""
    made: list[SearchIndex] = []
    database = request.getfixturevalue("postgres_database") if request.param == "postgres" else None

    def make(dataset: Path) -> SearchIndex:
        index: SearchIndex = PostgresSearchIndex(database, dataset) if database else SqliteSearchIndex(dataset)
        made.append(index)
        return index

    yield make
    for index in made:
        index.close()


@pytest.fixture
def index(index_of: Indexes, dataset_path: Path) -> SearchIndex:
    return index_of(dataset_path)


def _people(dataset: Path) -> list[tuple[str, str, str, str]]:
    with duckdb.connect(str(dataset), read_only=True) as con:
        rows = con.execute(
            "SELECT cpf, name, addresses[1].city, phones[1].number FROM people WHERE len(phones) > 0 ORDER BY cpf"
            " LIMIT 200"
        ).fetchall()
    return [(str(a), str(b), str(c), str(d)) for a, b, c, d in rows]


def _documents(index: SearchIndex, raw: dict[str, str]) -> set[str]:
    matches, capped = index.search(AdvancedCriteria.parse(raw), BOTH)
    assert not capped
    return {m.document for m in matches}


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_person_is_found_by_any_typing_of_their_name_and_by_their_phone_however_written(
    index: SearchIndex, dataset_path: Path, data: st.DataObject
) -> None:
    cpf, name, city, phone = data.draw(st.sampled_from(_people(dataset_path)))
    words = name.split()
    # Partial words: the first and last name cut to 3 letters or more, in any case, with or without accents.
    first, last = (
        w[: data.draw(st.integers(min_value=min(3, len(w)), max_value=len(w)))] for w in (words[0], words[-1])
    )
    typed = f"{first} {last}"
    if data.draw(st.booleans()):
        typed = typed.upper()
    if data.draw(st.booleans()):
        typed = typed.lower().translate(ACCENTS)
    assert cpf in _documents(index, {"name": typed, "city": city.upper()})
    formatted = data.draw(st.sampled_from(["{p}", "({a}) {h}-{t}", "+55 {a} {h} {t}", "0{a} {h}{t}"]))
    written = formatted.format(p=phone, a=phone[:2], h=phone[2:-4], t=phone[-4:])
    assert cpf in _documents(index, {"telephone": written})


def test_a_mobile_is_found_as_a_cellphone_a_landline_is_not(index: SearchIndex, dataset_path: Path) -> None:
    with duckdb.connect(str(dataset_path), read_only=True) as con:
        rows = con.execute("SELECT cpf, p.number, p.type FROM (SELECT cpf, unnest(phones) AS p FROM people)").fetchall()
    mobile = next(r for r in rows if r[2] == "mobile")
    landline = next(r for r in rows if r[2] == "landline")
    assert mobile[0] in _documents(index, {"cellphone": mobile[1]})
    assert landline[0] not in _documents(index, {"cellphone": landline[1]})
    assert landline[0] in _documents(index, {"telephone": landline[1]})


def test_a_company_of_the_cnpj_import_is_found_by_a_partner_name(index_of: Indexes, tmp_path: Path) -> None:
    dataset = tmp_path / "dataset.duckdb"
    generate_demo_dataset(dataset, people=50, companies=10, seed=3)
    import_cnpj(write_release(tmp_path / "2024-11", extra_companies=2), dataset)
    index = index_of(dataset)
    assert ACME_CNPJ in _documents(index, {"name": "jose conceicao"})  # a partner: JOSÉ DA CONCEIÇÃO
    assert ACME_CNPJ in _documents(index, {"name": "Padaria São", "state": "sp"})
    assert ACME_CNPJ in _documents(index, {"telephone": "(11) 3214-5678"})
    assert ACME_CNPJ not in _documents(index, {"name": "jose conceicao", "state": "RJ"})


def test_the_index_is_rebuilt_when_the_dataset_is_newer(index_of: Indexes, tmp_path: Path) -> None:
    dataset = tmp_path / "dataset.duckdb"
    generate_demo_dataset(dataset, people=50, companies=10, seed=3)
    assert ACME_CNPJ not in _documents(index_of(dataset), {"name": "jose conceicao"})
    import_cnpj(write_release(tmp_path / "2024-11"), dataset)
    assert ACME_CNPJ in _documents(index_of(dataset), {"name": "jose conceicao"})


def test_a_word_is_found_by_its_beginning_an_e_mail_by_its_beginning_and_a_birth_date(
    index: SearchIndex, dataset_path: Path
) -> None:
    with duckdb.connect(str(dataset_path), read_only=True) as con:
        cpf, name, email, birth = _first_with_email(con)
    last = name.split()[-1]
    assert cpf in _documents(index, {"name": last[:3].lower(), "birth": birth})
    # A word's middle is no word's beginning: 'ilva' finds no 'Silva' (unless another of their words starts so).
    middle = last[1:]
    if not any(w.lower().startswith(middle.lower()) for w in name.split()):
        assert cpf not in _documents(index, {"name": middle, "birth": birth})
    assert cpf in _documents(index, {"email": email[: email.index("@") + 3].upper()})
    assert cpf not in _documents(index, {"email": email[1:]})


def _first_with_email(con: duckdb.DuckDBPyConnection) -> tuple[str, str, str, str]:
    row = con.execute(
        "SELECT cpf, name, emails[1], strftime(birth_date, '%d/%m/%Y') FROM people"
        " WHERE len(emails) > 0 AND length(split_part(name, ' ', -1)) >= 5 ORDER BY cpf LIMIT 1"
    ).fetchone()
    assert row is not None
    return str(row[0]), str(row[1]), str(row[2]), str(row[3])


def test_a_search_matching_more_than_a_list_lists_the_first_by_ref_every_time(index: SearchIndex) -> None:
    criteria = AdvancedCriteria.parse({"email": "COM"})  # most addresses end in .com
    matches, capped = index.search(criteria, BOTH)
    refs = [m.ref for m in matches]
    assert capped and len(refs) == MAX_MATCHES and refs == sorted(refs)
    again, _ = index.search(criteria, BOTH)
    assert [m.ref for m in again] == refs  # a list's pages, read by searching again, are of one list
    people, _ = index.search(criteria, ("cpf",))
    assert {m.kind for m in people} == {"cpf"}
    assert index.match(criteria, BOTH, refs[-1]) == matches[-1]
    assert index.match(AdvancedCriteria.parse({"email": "nobody.at.all"}), BOTH, refs[-1]) is None


def _criteria_of(con: duckdb.DuckDBPyConnection) -> list[dict[str, str]]:
    """What customers type, taken from the dataset's people and companies: names and their parts, cities,
    states, e-mails' beginnings, phones, birth dates, alone and together."""
    people = con.execute(
        "SELECT name, addresses[1].city, addresses[1].state, emails[1], phones[1].number,"
        " strftime(birth_date, '%d/%m/%Y'), addresses[1].street FROM people ORDER BY cpf LIMIT 40"
    ).fetchall()
    companies = con.execute(
        "SELECT coalesce(trade_name, company_name), address.city, address.state, emails[1], partners[1].name"
        " FROM companies"
        " ORDER BY cnpj LIMIT 20"
    ).fetchall()
    typed: list[dict[str, str]] = []
    for name, city, state, email, phone, birth, street in people:
        words = name.split()
        typed += [
            {"name": f"{words[0][:3]} {words[-1][:4]}".upper()},
            {"name": words[-1][1:]},
            {"name": words[0], "city": city, "state": state},
            {"city": city.lower().translate(ACCENTS)},
            {"address": street},
            {"state": state, "birth": birth},
            {"telephone": f"({phone[:2]}) {phone[2:-4]}-{phone[-4:]}"} if phone else {"state": state},
            {"cellphone": phone} if phone else {"city": city},
            {"email": email[:5]} if email else {"name": words[-1]},
        ]
    # Words of no letter or digit, or of several words, as FTS5's tokenizer splits them.
    typed += [{"name": "..."}, {"name": "sil ..."}, {"email": "@@@"}, {"name": "ana-maria"}, {"address": "rua 12"}]
    # What a query language would read as its own: quotes, operators, prefix marks, a backslash.
    typed += [{"name": "d'avila"}, {"name": "mar:* | !sil & (x)"}, {"email": "a'b\\c@"}, {"city": "sao <-> paulo"}]
    for trade, city, state, email, partner in companies:
        typed += [
            {"name": trade, "city": city},
            {"name": partner or trade, "state": state},
            {"email": email or "contato"},
        ]
    return typed


@pytest.mark.parametrize("few", [search_index_postgres.FEW_MATCHES, 20])
def test_both_indexes_list_the_very_same_entries(
    dataset_path: Path, postgres_database: str, few: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PostgreSQL reads a search of few matches from its indexes, one of more in ref order: both ways list the same.
    monkeypatch.setattr(search_index_postgres, "FEW_MATCHES", few)
    with duckdb.connect(str(dataset_path), read_only=True) as con:
        typed = _criteria_of(con)
    embedded, cluster = SqliteSearchIndex(dataset_path), PostgresSearchIndex(postgres_database, dataset_path)
    try:
        for raw in typed:
            criteria = AdvancedCriteria.parse(raw)
            for kinds in (BOTH, ("cnpj",)):
                assert cluster.search(criteria, kinds) == embedded.search(criteria, kinds), raw
    finally:
        cluster.close()
        embedded.close()


def test_api_processes_starting_together_build_the_cluster_index_once(
    dataset_path: Path, postgres_database: str
) -> None:
    """Each API process of a cluster builds the index at its first search unless it is there: started together,
    one builds while the others wait for it, and none builds it again."""
    with ThreadPoolExecutor(max_workers=3) as pool:
        built = list(pool.map(lambda _: build_index(postgres_database, dataset_path), range(3)))
    assert sorted(built) == [False, False, True]
    assert build_index(postgres_database, dataset_path) is False


def test_a_build_that_died_halfway_leaves_nothing_behind_the_next(dataset_path: Path, postgres_database: str) -> None:
    with psycopg.connect(postgres_database, autocommit=True) as con:
        con.execute("CREATE TABLE bemtevi_search_entries_0123456789ab (id integer)")  # what a killed build left
        assert build_index(postgres_database, dataset_path) is True
        tables = con.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'bemtevi_search%'").fetchall()
    assert sorted(t for (t,) in tables) == [
        "bemtevi_search_built",
        "bemtevi_search_entries",
        "bemtevi_search_phones",
        "bemtevi_search_words",
    ]


def _renamed(dataset: Path, name: str) -> None:
    """The dataset's first person renamed: the file is newer, its index is built again."""
    with duckdb.connect(str(dataset)) as con:
        con.execute("UPDATE people SET name = ? WHERE cpf = (SELECT min(cpf) FROM people)", [name])


def _until_built_or_waiting(build: Future[bool], database: str) -> None:
    """Until the build is over or waits for a lock (a search's, holding the index it reads)."""
    deadline = time.monotonic() + 120
    with psycopg.connect(database, autocommit=True) as con:
        while not build.done():
            waits = "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database"
            row = con.execute(f"{waits} WHERE NOT l.granted AND d.datname = current_database()").fetchone()
            if row and row[0]:
                return
            assert time.monotonic() < deadline, "the build neither ended nor waited"
            time.sleep(0.01)


@pytest.mark.parametrize(
    ("call", "between", "few"),
    [
        ("search", "expansions", search_index_postgres.FEW_MATCHES),  # the count of few matches
        ("search", "search_statement", 0),  # the listing of many, on the other pool
        ("match", "expansions", search_index_postgres.FEW_MATCHES),
    ],
)
def test_a_search_during_a_rebuild_answers_from_one_version_of_the_index(
    tmp_path: Path, postgres_database: str, monkeypatch: pytest.MonkeyPatch, call: str, between: str, few: int
) -> None:
    """Another process swaps in the index of new data while a search is between reading the words its prefix
    begins and its statement: the search answers wholly from the old index or wholly from the new one (a mix
    looks for the old words among the new entries: the renamed person is missed), and the next from the new."""
    dataset = tmp_path / "dataset.duckdb"
    generate_demo_dataset(dataset, people=50, companies=10, seed=3)
    _renamed(dataset, "Xqzoldo Teste")
    monkeypatch.setattr(search_index_postgres, "FEW_MATCHES", few)
    index = PostgresSearchIndex(postgres_database, dataset)
    criteria = AdvancedCriteria.parse({"name": "xqz"})
    (person,), _ = index.search(criteria, BOTH)

    def answer() -> list[Match]:
        if call == "search":
            return index.search(criteria, BOTH)[0]
        found = index.match(criteria, BOTH, person.ref)
        return [] if found is None else [found]

    old = answer()
    _renamed(dataset, "Xqzelda Teste")
    real = getattr(search_index_postgres, between)
    builds: list[Future[bool]] = []

    def rebuilt_meanwhile(*args: object) -> object:
        done = real(*args)
        if not builds:
            builds.append(pool.submit(build_index, postgres_database, dataset))
            _until_built_or_waiting(builds[0], postgres_database)
        return done

    monkeypatch.setattr(search_index_postgres, between, rebuilt_meanwhile)
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            during = answer()
            assert builds and builds[0].result(timeout=120) is True
        new = answer()
    finally:
        index.close()
    assert [m.name for m in old] == ["Xqzoldo Teste"]
    assert during in (old, new)
    assert [m.name for m in new] == ["Xqzelda Teste"]

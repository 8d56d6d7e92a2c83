from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.infra.demo_data import COMPANIES_DDL, generate_demo_dataset
from bemtevi.infra.suppliers import local
from bemtevi.infra.suppliers.local import (
    _CNPJ,
    _CPF,
    LocalDatasetSupplier,
    _AgesToday,
    _normalise,
    activity_names,
    age_on,
    build_lookup_file,
    company_document,
    company_row_sql,
    lookup_file_for,
)

PERSON_KEYS = [
    "kind",
    "cpf",
    "name",
    "gender",
    "birth_date",
    "age",
    "sign",
    "mother",
    "father",
    "marital_status",
    "education",
    "profession",
    "income",
    "social_class",
    "score",
    "phones",
    "emails",
    "addresses",
    "societies",
    "protests",
    "financial_pendings",
    "check_inquiries",
    "death",
]
COMPANY_KEYS = [
    "kind",
    "cnpj",
    "company_name",
    "trade_name",
    "opening_date",
    "status",
    "legal_nature",
    "main_activity",
    "size",
    "share_capital",
    "address",
    "phones",
    "emails",
    "partners",
    "score",
    "protests",
    "secondary_activities",
    "simples",
]
ADDRESS_KEYS = {"street", "number", "complement", "neighborhood", "city", "state", "zip"}
PHONE_KEYS = {"number", "type"}
PROTEST_KEYS = {"date", "amount", "notary", "city", "state"}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("local") / "demo.duckdb"
    generate_demo_dataset(path, people=2_000, companies=400, seed=11)
    return path


@pytest.fixture(scope="module")
def documents(dataset: Path) -> dict[str, list[str]]:
    con = duckdb.connect(str(dataset), read_only=True)
    try:
        return {
            "cpf": [r[0] for r in con.execute("SELECT cpf FROM people ORDER BY cpf").fetchall()],
            "cnpj": [r[0] for r in con.execute("SELECT cnpj FROM companies ORDER BY cnpj").fetchall()],
            "dead": [r[0] for r in con.execute("SELECT cpf FROM people WHERE death IS NOT NULL").fetchall()],
            "partner": [r[0] for r in con.execute("SELECT cpf FROM people WHERE len(societies) > 0").fetchall()],
            "protested": [r[0] for r in con.execute("SELECT cpf FROM people WHERE len(protests) > 0").fetchall()],
            "pending": [
                r[0] for r in con.execute("SELECT cpf FROM people WHERE len(financial_pendings) > 0").fetchall()
            ],
        }
    finally:
        con.close()


@pytest.fixture
def supplier(dataset: Path) -> Iterator[LocalDatasetSupplier]:
    s = LocalDatasetSupplier(dataset)
    yield s
    s.close()


def _is_date(value: Any) -> bool:
    return isinstance(value, str) and dt.date.fromisoformat(value).isoformat() == value


def check_person(r: dict[str, Any]) -> None:
    assert list(r) == PERSON_KEYS
    assert r["kind"] == "person" and len(r["cpf"]) == 11
    assert r["gender"] in ("M", "F")
    assert _is_date(r["birth_date"])
    assert r["age"] == age_on(r["birth_date"], dt.date.today())
    for key in ("name", "sign", "mother", "marital_status", "education", "profession", "social_class"):
        assert isinstance(r[key], str) and r[key]
    assert r["father"] is None or isinstance(r["father"], str)
    assert isinstance(r["income"], float) and isinstance(r["score"], int)
    assert isinstance(r["check_inquiries"], int)
    for phone in r["phones"]:
        assert set(phone) == PHONE_KEYS and phone["type"] in ("mobile", "landline")
    assert all(isinstance(e, str) and "@" in e for e in r["emails"])
    for address in r["addresses"]:
        assert set(address) == ADDRESS_KEYS
    for society in r["societies"]:
        assert set(society) == {"cnpj", "company_name", "role", "since"} and _is_date(society["since"])
    for protest in r["protests"]:
        assert set(protest) == PROTEST_KEYS and _is_date(protest["date"])
        assert isinstance(protest["amount"], float)
    for pending in r["financial_pendings"]:
        assert set(pending) == {"creditor", "amount", "date"} and _is_date(pending["date"])
    if r["death"] is not None:
        assert set(r["death"]) == {"date", "book", "sheet", "registry_office"}
        assert _is_date(r["death"]["date"])
    json.dumps(r)  # plain JSON types only


def check_company(r: dict[str, Any]) -> None:
    assert list(r) == COMPANY_KEYS
    assert r["kind"] == "company" and len(r["cnpj"]) == 14
    assert _is_date(r["opening_date"])
    assert set(r["main_activity"]) == {"code", "description"}
    assert set(r["address"]) == ADDRESS_KEYS
    assert isinstance(r["share_capital"], float) and isinstance(r["score"], int)
    assert r["trade_name"] is None or isinstance(r["trade_name"], str)
    for phone in r["phones"]:
        assert set(phone) == PHONE_KEYS
    for partner in r["partners"]:
        assert set(partner) == {"name", "document", "role", "since"} and _is_date(partner["since"])
    for protest in r["protests"]:
        assert set(protest) == PROTEST_KEYS
    json.dumps(r)


def test_person_lookup_shape(supplier: LocalDatasetSupplier, documents: dict[str, list[str]]) -> None:
    for key in ("dead", "partner", "protested", "pending"):
        assert documents[key], key
        result = supplier.lookup_person(documents[key][0])
        assert result is not None
        check_person(result)
    assert supplier.lookup_person(documents["dead"][0])["death"] is not None  # type: ignore[index]
    assert supplier.lookup_person(documents["partner"][0])["societies"]  # type: ignore[index]
    for cpf in documents["cpf"][:300]:
        result = supplier.lookup_person(cpf)
        assert result is not None and result["cpf"] == cpf
        check_person(result)


def test_company_lookup_shape(supplier: LocalDatasetSupplier, documents: dict[str, list[str]]) -> None:
    for cnpj in documents["cnpj"]:
        result = supplier.lookup_company(cnpj)
        assert result is not None and result["cnpj"] == cnpj
        check_company(result)


def test_known_documents(supplier: LocalDatasetSupplier) -> None:
    assert supplier.lookup_person("52998224725") is not None
    assert supplier.lookup_person("529.982.247-25") == supplier.lookup_person("52998224725")
    assert supplier.lookup_person("11144477735") is not None
    company = supplier.lookup_company("11.222.333/0001-81")
    assert company is not None and company["cnpj"] == "11222333000181"


def test_partners_and_societies_agree(supplier: LocalDatasetSupplier, documents: dict[str, list[str]]) -> None:
    for cnpj in documents["cnpj"][:100]:
        company = supplier.lookup_company(cnpj)
        assert company is not None
        for partner in company["partners"]:
            person = supplier.lookup_person(partner["document"])
            assert person is not None and person["name"] == partner["name"]
            assert {
                "cnpj": cnpj,
                "company_name": company["company_name"],
                "role": partner["role"],
                "since": partner["since"],
            } in person["societies"]


def test_unknown_and_malformed_documents(supplier: LocalDatasetSupplier) -> None:
    assert supplier.lookup_person("00000000191") is None  # valid CPF, not in this dataset
    assert supplier.lookup_company("00000000000191") is None
    for bad in ("", "123", "5299822472", "529982247250", "5299822472a", "52998224725'; DROP TABLE people; --"):
        assert supplier.lookup_person(bad) is None
    assert supplier.lookup_company("11222333000181x") is None
    assert supplier.lookup_company("52998224725") is None


def test_lookup_dispatches_on_kind(supplier: LocalDatasetSupplier) -> None:
    assert supplier.lookup("cpf", "52998224725") == supplier.lookup_person("52998224725")
    assert supplier.lookup("cnpj", "11222333000181") == supplier.lookup_company("11222333000181")
    with pytest.raises(ValueError):
        supplier.lookup("rg", "123")  # type: ignore[arg-type]
    assert supplier.name == "local"


def test_age_on() -> None:
    assert age_on("2000-02-29", dt.date(2024, 2, 28)) == 23
    assert age_on("2000-02-29", dt.date(2024, 2, 29)) == 24
    assert age_on("1990-12-31", dt.date(2025, 12, 30)) == 34
    assert age_on("1990-12-31", dt.date(2025, 12, 31)) == 35


def test_concurrent_lookups(supplier: LocalDatasetSupplier, documents: dict[str, list[str]]) -> None:
    cpfs = documents["cpf"][:400]
    cnpjs = documents["cnpj"][:200]
    expected_people = {c: supplier.lookup_person(c) for c in cpfs}
    expected_companies = {c: supplier.lookup_company(c) for c in cnpjs}
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def work(offset: int) -> None:
        try:
            barrier.wait()
            for i in range(len(cpfs)):
                cpf = cpfs[(i + offset * 37) % len(cpfs)]
                assert supplier.lookup("cpf", cpf) == expected_people[cpf]
                cnpj = cnpjs[(i + offset) % len(cnpjs)]
                assert supplier.lookup("cnpj", cnpj) == expected_companies[cnpj]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_closed_supplier_refuses_lookups(dataset: Path) -> None:
    s = LocalDatasetSupplier(dataset)
    assert s.lookup_person("52998224725") is not None
    s.close()
    s.close()  # idempotent
    with pytest.raises(RuntimeError):
        s.lookup_person("52998224725")


def test_opening_a_missing_dataset_fails(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        LocalDatasetSupplier(tmp_path / "missing.duckdb")


def test_a_regenerated_dataset_refreshes_the_lookup_copy(tmp_path: Path) -> None:
    from bemtevi.infra.demo_data import generate_demo_dataset

    path = tmp_path / "small.duckdb"
    generate_demo_dataset(path, 50, 10, seed=1)
    with LocalDatasetSupplier(path) as first:
        first_cpf = duckdb.connect(str(path), read_only=True).execute("SELECT min(cpf) FROM people").fetchone()[0]
        assert first.lookup_person(first_cpf) is not None
    generate_demo_dataset(path, 50, 10, seed=2)
    second_cpf = duckdb.connect(str(path), read_only=True).execute("SELECT min(cpf) FROM people").fetchone()[0]
    with LocalDatasetSupplier(path) as second:
        assert second_cpf != first_cpf
        assert second.lookup_person(second_cpf) is not None
        assert second.lookup_person(first_cpf) is None


def test_the_lookup_copy_made_in_batches_holds_every_company_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Companies' documents are copied some row groups at a time: every company, once, whatever batch it fell in,
    also where rows were deleted (a new CNPJ release replaces records) and left gaps in the table."""
    path = tmp_path / "batches.duckdb"
    generate_demo_dataset(path, 20, 300, seed=3)
    with closing(duckdb.connect(str(path))) as con:
        con.execute("DELETE FROM companies WHERE rowid % 7 = 3 OR rowid BETWEEN 100 AND 140")
        expected = con.execute(f"{company_row_sql()} ORDER BY cnpj").fetchall()
    monkeypatch.setattr(local, "_COPY_ROWS", 32)
    with closing(sqlite3.connect(build_lookup_file(path))) as copy:
        copied = copy.execute("SELECT cnpj, doc FROM company_docs ORDER BY cnpj").fetchall()
        names = dict(copy.execute("SELECT code, description FROM activity_names"))
    assert 200 < len(expected) < 300
    assert [cnpj for cnpj, _ in copied] == [cnpj for cnpj, _ in expected]
    assert names  # the demo names each activity code one way: the copy stores codes
    assert [company_document(cnpj, doc, names) for cnpj, doc in copied] == [
        company_document(cnpj, values) for cnpj, values in expected
    ]


def test_a_dataset_in_a_folder_named_with_a_quote_is_copied_and_searched(tmp_path: Path) -> None:
    from bemtevi.infra.suppliers.search_index import folded_entries

    path = tmp_path / "dados d'água" / "small.duckdb"
    path.parent.mkdir()
    generate_demo_dataset(path, 50, 10, seed=1)
    cpf = duckdb.connect(str(path), read_only=True).execute("SELECT min(cpf) FROM people").fetchone()[0]
    with LocalDatasetSupplier(path) as supplier:
        assert supplier.lookup_person(cpf) is not None
    with closing(folded_entries(path)) as entries:
        assert entries.execute("SELECT count(*) FROM adv_entries").fetchone() == (60,)


# --- the day's ages and bare documents ---------------------------------------------------------


def test_ages_use_todays_date_until_the_day_is_over(monkeypatch: pytest.MonkeyPatch) -> None:
    ages = _AgesToday()
    assert ages.age("2000-02-29") == age_on("2000-02-29", dt.date.today())
    # A remembered day is used until its end, with its own ages...
    ages._day = (dt.date(2024, 2, 28), time.time() + 3600, {})
    assert ages.age("2000-02-29") == 23
    assert ages.age("1990-12-31") == 33
    # ...and once it is over, today's date is looked up again and the ages start afresh.
    ages._day = (dt.date(2024, 2, 28), time.time() - 1, {"2000-02-29": 23})
    assert ages.age("2000-02-29") == age_on("2000-02-29", dt.date.today())
    assert ages._day[0] == dt.date.today()


@pytest.mark.parametrize("zone", ["UTC", "America/Sao_Paulo", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Apia"])
def test_a_day_ends_at_the_next_local_midnight(zone: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        today, day_ends, _ = _AgesToday()._new_day()
        assert dt.datetime.fromtimestamp(day_ends).date() == today + dt.timedelta(days=1)
        assert dt.datetime.fromtimestamp(day_ends - 1).date() == today
    finally:
        monkeypatch.undo()
        time.tzset()


def _normalise_by_rule(number: str, pattern: re.Pattern[str]) -> str | None:
    digits = re.sub(r"[.\-/\s]", "", number)
    return digits if pattern.fullmatch(digits) else None


@given(st.one_of(st.text(), st.text(alphabet="0123456789٣².-/ \t", max_size=16)))
@example("52998224725")
@example("5299822472٣")
@example("11222333000181")
def test_bare_documents_are_read_as_the_rule_reads_them(number: str) -> None:
    assert _normalise(number, 11, _CPF) == _normalise_by_rule(number, _CPF)
    assert _normalise(number, 14, _CNPJ) == _normalise_by_rule(number, _CNPJ)


def test_the_lookup_copy_is_about_the_size_of_its_documents(dataset: Path) -> None:
    # Documents of about a kilobyte spilled to overflow pages on SQLite's default pages: the copy was 2.5x them.
    with LocalDatasetSupplier(dataset):
        pass
    lookup = lookup_file_for(dataset)
    with closing(sqlite3.connect(lookup)) as con:
        row = con.execute(
            "SELECT (SELECT sum(length(CAST(cpf || doc AS BLOB))) FROM people_docs)"
            " + (SELECT sum(length(CAST(cnpj || doc AS BLOB))) FROM company_docs)"
        ).fetchone()
    assert row is not None
    assert lookup.stat().st_size < 1.4 * row[0]


def test_a_dataset_generated_before_the_cnpj_import_answers_its_companies(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    generate_demo_dataset(path, 50, 10, seed=4)
    with duckdb.connect(str(path)) as con:  # the companies table before the import added its two columns
        con.execute("ALTER TABLE companies DROP COLUMN secondary_activities")
        con.execute("ALTER TABLE companies DROP COLUMN simples")
        cnpj, name = con.execute("SELECT cnpj, company_name FROM companies LIMIT 1").fetchone()  # type: ignore[misc]
    with LocalDatasetSupplier(path) as supplier:
        company = supplier.lookup_company(cnpj)
    assert company is not None and list(company) == COMPANY_KEYS
    assert (company["company_name"], company["secondary_activities"], company["simples"]) == (name, None, None)


# --- a company's stored values, named again ------------------------------------------------------------------------

# A company's lookup document as the supplier answered it before its values were stored unnamed: DuckDB's JSON of
# the row, named field by field. The stored values must be named back into exactly this.
NAMED_COMPANY_SQL = (
    "SELECT cnpj, to_json(struct_pack(kind := 'company', cnpj := cnpj, "
    + ", ".join(f"{key} := {key}" for key in COMPANY_KEYS[2:])
    + "))::VARCHAR FROM companies"
)
TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12)
DATES = st.dates(dt.date(1900, 1, 1), dt.date(2100, 12, 31))
# Activity codes and descriptions drawn from a few, so that companies share codes with the same description
# and with another one (the lookup copy stores codes alone only where every code has one).
CODES = st.sampled_from(("1091102", "4721102", "")) | TEXT
DESCRIPTIONS = st.sampled_from(("Padaria e confeitaria", "Lanchonetes")) | TEXT


def _struct(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any] | None]:
    return st.none() | st.fixed_dictionaries(fields)


def _structs(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[list[dict[str, Any] | None] | None]:
    return st.none() | st.lists(_struct(**{k: st.none() | v for k, v in fields.items()}), max_size=3)


COMPANY_ROWS = st.tuples(
    TEXT, st.none() | TEXT, DATES, TEXT, TEXT,
    _struct(code=st.none() | CODES, description=st.none() | DESCRIPTIONS), st.none() | TEXT,
    st.none() | st.decimals(-(10**12), 10**12, places=2, allow_nan=False, allow_infinity=False),
    _struct(**{f: st.none() | TEXT for f in ("street", "number", "complement", "neighborhood", "city", "state",
                                            "zip")}),
    _structs(number=TEXT, type=TEXT), st.none() | st.lists(st.none() | TEXT, max_size=3),
    _structs(name=TEXT, document=TEXT, role=TEXT, since=DATES), st.none() | st.integers(-(2**31), 2**31 - 1),
    _structs(date=DATES, amount=st.decimals(-(10**9), 10**9, places=2, allow_nan=False), notary=TEXT, city=TEXT,
             state=TEXT),
    _structs(code=CODES, description=DESCRIPTIONS),
    _struct(simples=st.none() | st.booleans(), simples_since=st.none() | DATES, simples_until=st.none() | DATES,
            mei=st.none() | st.booleans(), mei_since=st.none() | DATES, mei_until=st.none() | DATES),
)  # fmt: skip


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(COMPANY_ROWS, min_size=1, max_size=6))
def test_a_companys_stored_values_are_named_back_into_its_document(rows: list[tuple[Any, ...]]) -> None:
    with closing(duckdb.connect()) as con:
        con.execute(COMPANIES_DDL)
        con.executemany(
            f"INSERT INTO companies VALUES ({', '.join('?' * 17)})", [(f"{i:014d}", *row) for i, row in enumerate(rows)]
        )
        named = dict(con.execute(NAMED_COMPANY_SQL).fetchall())
        stored = con.execute(company_row_sql()).fetchall()
        names = activity_names(con, COMPANY_KEYS)
        coded = [] if names is None else con.execute(company_row_sql(coded=True)).fetchall()
    assert len(stored) == len(rows)
    for cnpj, values in stored:
        document = company_document(cnpj, values)
        assert list(document) == COMPANY_KEYS
        assert document == json.loads(named[cnpj])
    for cnpj, values in coded:
        assert company_document(cnpj, values, names) == json.loads(named[cnpj])


def test_a_dataset_naming_an_activity_code_two_ways_answers_each_companys_own(tmp_path: Path) -> None:
    path = tmp_path / "two-ways.duckdb"
    generate_demo_dataset(path, 10, 30, seed=5)
    with closing(duckdb.connect(str(path))) as con:
        first, other = con.execute("SELECT cnpj FROM companies ORDER BY cnpj LIMIT 2").fetchall()
        code = con.execute("SELECT main_activity.code FROM companies WHERE cnpj = ?", first).fetchone()[0]
        con.execute(
            "UPDATE companies SET main_activity = {'code': ?, 'description': 'Outra descrição'} WHERE cnpj = ?",
            [code, other[0]],
        )
        assert activity_names(con, COMPANY_KEYS) is None
    with LocalDatasetSupplier(path) as supplier:
        looked_up = supplier.lookup_company(first[0]), supplier.lookup_company(other[0])
    assert looked_up[0] is not None and looked_up[1] is not None
    assert looked_up[1]["main_activity"] == {"code": code, "description": "Outra descrição"}
    assert looked_up[0]["main_activity"]["code"] == code
    assert looked_up[0]["main_activity"]["description"] != "Outra descrição"


def test_a_lookup_file_of_the_earlier_layout_is_copied_anew(tmp_path: Path) -> None:
    path = tmp_path / "earlier.duckdb"
    generate_demo_dataset(path, 10, 10, seed=5)
    cnpj = duckdb.connect(str(path), read_only=True).execute("SELECT min(cnpj) FROM companies").fetchone()[0]
    with LocalDatasetSupplier(path) as supplier:
        expected = supplier.lookup_company(cnpj)
    # A file written before companies' values were stored unnamed: their named documents, and no layout number.
    lookup = lookup_file_for(path)
    with closing(sqlite3.connect(lookup)) as con, closing(duckdb.connect(str(path), read_only=True)) as dataset:
        con.execute("DELETE FROM company_docs")
        con.executemany("INSERT INTO company_docs VALUES (?, ?)", dataset.execute(NAMED_COMPANY_SQL).fetchall())
        con.execute("PRAGMA user_version = 0")
        con.commit()
    with LocalDatasetSupplier(path) as supplier:
        assert supplier.lookup_company(cnpj) == expected
    with closing(sqlite3.connect(lookup)) as con:
        assert con.execute("PRAGMA user_version").fetchone() == (local._LOOKUP_FORMAT,)

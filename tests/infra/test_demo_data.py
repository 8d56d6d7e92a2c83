from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.infra import demo_names
from bemtevi.infra.demo_data import generate_demo_dataset
from bemtevi.infra.demo_values import KNOWN_CNPJS, KNOWN_CPFS, cnpj_check_digits, cpf_check_digits

PEOPLE = 2_000
COMPANIES = 400


# Pure-Python reference implementations of the check-digit rules.
def reference_cpf_valid(cpf: str) -> bool:
    if not re.fullmatch(r"[0-9]{11}", cpf) or len(set(cpf)) == 1:
        return False
    digits = [int(c) for c in cpf]
    for size in (9, 10):
        total = sum(d * w for d, w in zip(digits[:size], range(size + 1, 1, -1), strict=True))
        remainder = total % 11
        if digits[size] != (0 if remainder < 2 else 11 - remainder):
            return False
    return True


def reference_cnpj_valid(cnpj: str) -> bool:
    if not re.fullmatch(r"[0-9]{14}", cnpj) or len(set(cnpj)) == 1:
        return False
    digits = [int(c) for c in cnpj]
    for weights in ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]):
        size = len(weights)
        remainder = sum(d * w for d, w in zip(digits[:size], weights, strict=True)) % 11
        if digits[size] != (0 if remainder < 2 else 11 - remainder):
            return False
    return True


def reference_sign(day: dt.date) -> str:
    bounds = [
        ((1, 20), "Aquário"),
        ((2, 19), "Peixes"),
        ((3, 21), "Áries"),
        ((4, 20), "Touro"),
        ((5, 21), "Gêmeos"),
        ((6, 21), "Câncer"),
        ((7, 23), "Leão"),
        ((8, 23), "Virgem"),
        ((9, 23), "Libra"),
        ((10, 23), "Escorpião"),
        ((11, 22), "Sagitário"),
        ((12, 22), "Capricórnio"),
    ]
    sign = "Capricórnio"
    for start, name in bounds:
        if (day.month, day.day) >= start:
            sign = name
    return sign


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    generate_demo_dataset(path, people=PEOPLE, companies=COMPANIES, seed=7)
    return path


@pytest.fixture(scope="module")
def con(dataset: Path) -> Any:
    connection = duckdb.connect(str(dataset), read_only=True)
    yield connection
    connection.close()


def _all_rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    connection = duckdb.connect(str(path), read_only=True)
    try:
        return {
            "people": connection.execute("SELECT * FROM people ORDER BY cpf").fetchall(),
            "companies": connection.execute("SELECT * FROM companies ORDER BY cnpj").fetchall(),
            "people_docs": connection.execute("SELECT * FROM people_docs ORDER BY cpf").fetchall(),
        }
    finally:
        connection.close()


def test_same_seed_gives_the_same_rows(dataset: Path, tmp_path: Path) -> None:
    again = generate_demo_dataset(tmp_path / "again.duckdb", people=PEOPLE, companies=COMPANIES, seed=7)
    assert _all_rows(dataset) == _all_rows(again.path)


def test_another_seed_gives_other_rows(dataset: Path, tmp_path: Path) -> None:
    other = generate_demo_dataset(tmp_path / "other.duckdb", people=PEOPLE, companies=COMPANIES, seed=8)
    assert _all_rows(dataset)["people"] != _all_rows(other.path)["people"]


def test_summary_sizes_and_info(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "d.duckdb"
    summary = generate_demo_dataset(path, people=300, companies=50, seed=1)
    assert (summary.people, summary.companies, summary.path) == (300, 50, path)
    assert summary.seconds > 0
    connection = duckdb.connect(str(path), read_only=True)
    try:
        assert connection.execute("SELECT count(*) FROM people").fetchone() == (300,)
        assert connection.execute("SELECT count(*) FROM companies").fetchone() == (50,)
        assert connection.execute("SELECT count(*) FROM people_docs").fetchone() == (300,)
        info = connection.execute("SELECT seed, people, companies, generated_at FROM dataset_info").fetchall()
        assert len(info) == 1 and info[0][:3] == (1, 300, 50)
    finally:
        connection.close()
    # Written through a temporary file that does not survive.
    assert sorted(p.name for p in path.parent.iterdir()) == ["d.duckdb"]


def test_regenerating_replaces_the_file(tmp_path: Path) -> None:
    path = tmp_path / "d.duckdb"
    generate_demo_dataset(path, people=100, companies=10)
    generate_demo_dataset(path, people=120, companies=12)
    connection = duckdb.connect(str(path), read_only=True)
    try:
        assert connection.execute("SELECT count(*) FROM people").fetchone() == (120,)
    finally:
        connection.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.duckdb"]


def test_people_are_keyed_by_cpf_and_companies_have_no_key_index(con: Any) -> None:
    # a key index on companies is held whole in memory while a CNPJ release is written (see receita)
    constraints = con.execute(
        "SELECT table_name, constraint_column_names FROM duckdb_constraints() "
        "WHERE constraint_type = 'PRIMARY KEY' ORDER BY table_name"
    ).fetchall()
    assert ("people", ["cpf"]) in constraints
    assert not [c for c in constraints if c[0] == "companies"]


def test_documents_are_unique(con: Any) -> None:
    assert con.execute("SELECT count(*), count(DISTINCT cpf) FROM people").fetchone() == (PEOPLE, PEOPLE)
    assert con.execute("SELECT count(*), count(DISTINCT cnpj) FROM companies").fetchone() == (
        COMPANIES,
        COMPANIES,
    )


def test_every_cpf_is_valid(con: Any) -> None:
    cpfs = [r[0] for r in con.execute("SELECT cpf FROM people").fetchall()]
    assert all(reference_cpf_valid(c) for c in cpfs)
    # The same rule, set-wise in SQL.
    invalid = con.execute(
        """
        WITH d AS (
            SELECT cpf, list_transform(range(11), lambda i: ord(cpf[i + 1]) - 48) AS x FROM people
        ), s AS (
            SELECT cpf, x,
                   list_sum(list_transform(range(9), lambda i: x[i + 1] * (10 - i))) % 11 AS r1,
                   list_sum(list_transform(range(10), lambda i: x[i + 1] * (11 - i))) % 11 AS r2
            FROM d
        )
        SELECT count(*) FROM s
        WHERE NOT regexp_full_match(cpf, '[0-9]{11}')
           OR x[10] != CASE WHEN r1 < 2 THEN 0 ELSE 11 - r1 END
           OR x[11] != CASE WHEN r2 < 2 THEN 0 ELSE 11 - r2 END
           OR length(list_distinct(x)) = 1
        """
    ).fetchone()
    assert invalid == (0,)


def test_every_cnpj_is_valid(con: Any) -> None:
    cnpjs = [r[0] for r in con.execute("SELECT cnpj FROM companies").fetchall()]
    assert all(reference_cnpj_valid(c) for c in cnpjs)
    branches = con.execute("SELECT substr(cnpj, 9, 4) AS b, count(*) FROM companies GROUP BY b").fetchall()
    assert max(branches, key=lambda r: r[1])[0] == "0001"


def test_partner_documents_are_valid_and_known(con: Any) -> None:
    rows = con.execute(
        """
        SELECT p.document, p.name, people.name,
               list_contains(list_transform(people.societies, lambda s: s.cnpj), c.cnpj)
        FROM companies c, unnest(c.partners) AS u(p)
        LEFT JOIN people ON people.cpf = p.document
        """
    ).fetchall()
    assert len(rows) >= COMPANIES
    for document, partner_name, person_name, listed in rows:
        assert reference_cpf_valid(document)
        assert partner_name == person_name
        assert listed


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**9 - 1), min_size=1, max_size=50))
def test_cpf_check_digits_match_reference(bases: list[int]) -> None:
    checks = cpf_check_digits(np.array(bases, dtype=np.int64))
    for base, check in zip(bases, checks.tolist(), strict=True):
        cpf = f"{base:09d}{check:02d}"
        assert len(set(cpf)) == 1 or reference_cpf_valid(cpf)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**12 - 1), min_size=1, max_size=50))
def test_cnpj_check_digits_match_reference(bases: list[int]) -> None:
    checks = cnpj_check_digits(np.array(bases, dtype=np.int64))
    for base, check in zip(bases, checks.tolist(), strict=True):
        cnpj = f"{base:012d}{check:02d}"
        assert len(set(cnpj)) == 1 or reference_cnpj_valid(cnpj)


def test_known_documents_are_present(con: Any) -> None:
    for cpf in KNOWN_CPFS:
        assert con.execute("SELECT count(*) FROM people WHERE cpf = ?", [cpf]).fetchone() == (1,)
    for cnpj in KNOWN_CNPJS:
        assert con.execute("SELECT count(*) FROM companies WHERE cnpj = ?", [cnpj]).fetchone() == (1,)
    assert set(KNOWN_CPFS) == {"52998224725", "11144477735"}
    assert KNOWN_CNPJS == ("11222333000181",)


def test_cities_states_ddd_and_cep_are_consistent(con: Any) -> None:
    cities = {(c.name, c.state): c for c in demo_names.CITIES}
    assert len({c.state for c in demo_names.CITIES}) == 27
    ddds_by_state: dict[str, set[int]] = {}
    for c in demo_names.CITIES:
        ddds_by_state.setdefault(c.state, set()).add(c.ddd)

    addresses = con.execute(
        "SELECT a.city, a.state, a.zip FROM people, unnest(addresses) AS u(a) "
        "UNION ALL SELECT address.city, address.state, address.zip FROM companies"
    ).fetchall()
    assert len(addresses) > PEOPLE
    for city, state, zip_code in addresses:
        known = cities[(city, state)]
        assert re.fullmatch(r"[0-9]{8}", zip_code)
        assert known.cep_from <= int(zip_code[:5]) <= known.cep_to

    phones = con.execute(
        "SELECT addresses[1].state, ph.number, ph.type FROM people, unnest(phones) AS u(ph) "
        "UNION ALL SELECT address.state, ph.number, ph.type FROM companies, unnest(phones) AS u(ph)"
    ).fetchall()
    for state, number, kind in phones:
        assert int(number[:2]) in ddds_by_state[state]
        if kind == "mobile":
            assert re.fullmatch(r"[1-9][0-9]9[6-9][0-9]{7}", number)
        else:
            assert kind == "landline" and re.fullmatch(r"[1-9][0-9][2-5][0-9]{7}", number)

    for city, state in con.execute(
        "SELECT p.city, p.state FROM people, unnest(protests) AS u(p) "
        "UNION ALL SELECT p.city, p.state FROM companies, unnest(protests) AS u(p)"
    ).fetchall():
        assert (city, state) in cities


def test_person_fields_are_plausible(con: Any) -> None:
    rows = con.execute(
        "SELECT birth_date, sign, gender, score, len(phones), len(emails), len(addresses), "
        "emails, death, name FROM people"
    ).fetchall()
    for birth, sign, gender, score, phones, emails, addresses, email_list, death, name in rows:
        assert dt.date(1940, 1, 1) <= birth <= dt.date(2006, 12, 31)
        assert sign == reference_sign(birth)
        assert gender in ("M", "F")
        assert 0 <= score <= 1000
        assert 1 <= phones <= 3 and 0 <= emails <= 2 and 1 <= addresses <= 2
        for email in email_list:
            assert re.fullmatch(r"[a-z0-9._]+@[a-z0-9.]+\.[a-z]{2,}", email)
        assert len(name.split()) >= 2
        if death is not None:
            assert birth < death["date"] <= dt.date(2025, 12, 31)
            assert death["registry_office"].startswith("Cartório de Registro Civil de ")

    rates = con.execute(
        "SELECT avg((len(protests) > 0)::INT), avg((len(financial_pendings) > 0)::INT), "
        "avg((death IS NOT NULL)::INT), avg((check_inquiries > 0)::INT) FROM people"
    ).fetchone()
    protests, pendings, deaths, ccf = rates
    assert 0.01 < protests < 0.06 and 0.025 < pendings < 0.09 and 0.002 < deaths < 0.025 and ccf < 0.08


def test_company_fields_are_plausible(con: Any) -> None:
    codes = {a.code for a in demo_names.ACTIVITIES}
    natures = {n[0] for n in demo_names.LEGAL_NATURES}
    rows = con.execute(
        "SELECT company_name, status, legal_nature, main_activity, size, share_capital, opening_date, "
        "partners FROM companies"
    ).fetchall()
    for name, status, nature, activity, size, capital, opening, partners in rows:
        assert status in ("ATIVA", "BAIXADA", "SUSPENSA", "INAPTA")
        assert nature in natures and activity["code"] in codes and size in ("ME", "EPP", "DEMAIS")
        assert name.endswith(("Ltda", "S.A.", "ME"))
        assert capital > 0 and opening <= dt.date(2025, 12, 31)
        assert 1 <= len(partners) <= 3
        assert len({p["document"] for p in partners}) == len(partners)
        assert all(p["since"] >= opening for p in partners)
    statuses = dict(con.execute("SELECT status, count(*) FROM companies GROUP BY status").fetchall())
    assert statuses["ATIVA"] > COMPANIES // 2


def test_rejects_empty_sizes(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        generate_demo_dataset(tmp_path / "x.duckdb", people=1, companies=1)

"""Deterministic, realistic pt-BR demo dataset for the ``local`` supplier.

``generate_demo_dataset`` writes a DuckDB file with these tables:

* ``people``    one row per CPF (PRIMARY KEY), nested phones/e-mails/addresses/societies/protests/
                financial pendings as LIST(STRUCT) columns and ``death`` as a nullable STRUCT;
* ``companies`` one row per CNPJ (unique by how it is written: a key index is held in memory whole
                as rows are written, too much for the CNPJ import), with address, activity, partners, protests;
* ``people_docs`` (cpf PRIMARY KEY, doc VARCHAR) with each person's lookup result as JSON, for fast
                point lookups (see ``bemtevi.infra.suppliers.local``; a company's is made from its row of
                ``companies`` when the lookup copy is built);
* ``dataset_info`` one row: seed, sizes, reference date, generated_at.

Conventions: documents, phone numbers and CEPs are stored as digits only (a UI formats them);
money is DECIMAL(12,2) / DECIMAL(15,2); absent optional values (father, complement, trade name)
are NULL. ``age`` is not stored: it depends on the day of the lookup and is derived from
``birth_date``. Every "as of" value of the generator (ages used for plausibility, latest
protest date, ...) is taken at the fixed ``REFERENCE_DATE`` so that the same seed and sizes
always give the same rows, whatever the day the dataset is generated.

Everything is generated column-wise with numpy (``default_rng(seed)``) and pyarrow compute and
bulk-inserted; there is no per-row Python loop.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from bemtevi.infra.demo_companies import make_companies, societies_column
from bemtevi.infra.demo_people import make_people
from bemtevi.infra.demo_values import KNOWN_CNPJS, KNOWN_CPFS, REFERENCE_DATE, IntArray, Words

PEOPLE_DDL = """
CREATE TABLE people (
    cpf VARCHAR PRIMARY KEY,
    name VARCHAR NOT NULL,
    gender VARCHAR NOT NULL,
    birth_date DATE NOT NULL,
    sign VARCHAR NOT NULL,
    mother VARCHAR,
    father VARCHAR,
    marital_status VARCHAR,
    education VARCHAR,
    profession VARCHAR,
    income DECIMAL(12, 2),
    social_class VARCHAR,
    score INTEGER,
    phones STRUCT(number VARCHAR, type VARCHAR)[],
    emails VARCHAR[],
    addresses STRUCT(street VARCHAR, number VARCHAR, complement VARCHAR, neighborhood VARCHAR,
                     city VARCHAR, state VARCHAR, zip VARCHAR)[],
    societies STRUCT(cnpj VARCHAR, company_name VARCHAR, role VARCHAR, since DATE)[],
    protests STRUCT(date DATE, amount DECIMAL(12, 2), notary VARCHAR, city VARCHAR, state VARCHAR)[],
    financial_pendings STRUCT(creditor VARCHAR, amount DECIMAL(12, 2), date DATE)[],
    check_inquiries INTEGER,
    death STRUCT(date DATE, book VARCHAR, sheet VARCHAR, registry_office VARCHAR)
)
"""

COMPANIES_DDL = """
CREATE TABLE companies (
    cnpj VARCHAR NOT NULL,
    company_name VARCHAR NOT NULL,
    trade_name VARCHAR,
    opening_date DATE NOT NULL,
    status VARCHAR NOT NULL,
    legal_nature VARCHAR NOT NULL,
    main_activity STRUCT(code VARCHAR, description VARCHAR),
    size VARCHAR,
    share_capital DECIMAL(15, 2),
    address STRUCT(street VARCHAR, number VARCHAR, complement VARCHAR, neighborhood VARCHAR,
                   city VARCHAR, state VARCHAR, zip VARCHAR),
    phones STRUCT(number VARCHAR, type VARCHAR)[],
    emails VARCHAR[],
    partners STRUCT(name VARCHAR, document VARCHAR, role VARCHAR, since DATE)[],
    score INTEGER,
    protests STRUCT(date DATE, amount DECIMAL(12, 2), notary VARCHAR, city VARCHAR, state VARCHAR)[],
    secondary_activities STRUCT(code VARCHAR, description VARCHAR)[],
    simples STRUCT(simples BOOLEAN, simples_since DATE, simples_until DATE, mei BOOLEAN, mei_since DATE,
                   mei_until DATE)
)
"""


def drop_company_key(con: duckdb.DuckDBPyConnection) -> None:
    """Datasets written before keyed ``companies`` by CNPJ: an index held whole in memory while rows are
    written (a CNPJ release's millions did not fit the import's). Their records move to the table as made now."""
    keyed = con.execute("SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'companies' "
                        "AND constraint_type = 'PRIMARY KEY'").fetchone()  # fmt: skip
    if not keyed or not keyed[0]:
        return
    con.execute("BEGIN")
    con.execute(COMPANIES_DDL.replace("TABLE companies", "TABLE companies_unkeyed"))
    con.execute("INSERT INTO companies_unkeyed BY NAME SELECT * FROM companies")
    con.execute("DROP TABLE companies")
    con.execute("ALTER TABLE companies_unkeyed RENAME TO companies")
    con.execute("COMMIT")


# The lookup documents: each row's result record as compact JSON, in the exact shape and key order the
# local supplier returns (``age`` is filled in at lookup time). Reading one VARCHAR by primary key
# costs ~0.25 ms, against ~1-1.5 ms for the same row's nested LIST/STRUCT columns, so the hot path
# reads these and SQL work (batch joins, search) reads the nested tables. Companies keep none here:
# the CNPJ import rewrites them monthly, and a stored copy cost it about a fifth of its CPU (compressed
# at each commit) and four fifths of the dataset's size; their documents are made when the lookup copy
# is built (bemtevi.infra.suppliers.local).
DOCS_DDL = """
CREATE TABLE people_docs (cpf VARCHAR PRIMARY KEY, doc VARCHAR NOT NULL);
"""

PEOPLE_DOCS_SQL = """
INSERT INTO people_docs
SELECT cpf, to_json(struct_pack(
    kind := 'person', cpf := cpf, name := name, gender := gender, birth_date := birth_date,
    age := NULL::INTEGER, sign := sign, mother := mother, father := father,
    marital_status := marital_status, education := education, profession := profession,
    income := income, social_class := social_class, score := score, phones := phones,
    emails := emails, addresses := addresses, societies := societies, protests := protests,
    financial_pendings := financial_pendings, check_inquiries := check_inquiries, death := death
))::VARCHAR
FROM people ORDER BY cpf
"""

INFO_DDL = """
CREATE TABLE dataset_info (
    seed BIGINT NOT NULL,
    people BIGINT NOT NULL,
    companies BIGINT NOT NULL,
    reference_date DATE NOT NULL,
    generated_at TIMESTAMP NOT NULL
)
"""


@dataclass(frozen=True)
class DatasetSummary:
    people: int
    companies: int
    seconds: float
    path: Path


def _sorted_by(table: pa.Table, key: IntArray) -> pa.Table:
    """Rows in order of ``key`` (the document as a number: same order as its zero-padded text)."""
    return table.take(pa.array(np.argsort(key, kind="stable"), pa.int64()))


def generate_demo_dataset(
    path: Path, people: int = 100_000, companies: int = 20_000, seed: int = 20111
) -> DatasetSummary:
    """Write the demo dataset to ``path`` (a DuckDB file), atomically; return what was made."""
    if people < len(KNOWN_CPFS) or companies < len(KNOWN_CNPJS):
        raise ValueError("the dataset needs at least 2 people and 1 company")
    started = time.perf_counter()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    words = Words()

    person = make_people(rng, words, people)
    company_table, cnpj_number, partner_rows = make_companies(rng, words, companies, person)
    people_table = person.table.append_column("societies", societies_column(people, partner_rows))
    company_table = _sorted_by(company_table, cnpj_number)

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
        leftover.unlink(missing_ok=True)
    try:
        con = duckdb.connect(str(tmp))
        try:
            con.execute(PEOPLE_DDL)
            con.execute(COMPANIES_DDL)
            con.execute(DOCS_DDL)
            con.execute(INFO_DDL)
            con.register("people_src", people_table)
            con.execute("INSERT INTO people BY NAME SELECT * FROM people_src")
            con.unregister("people_src")
            con.register("companies_src", company_table)
            con.execute("INSERT INTO companies BY NAME SELECT * FROM companies_src")
            con.unregister("companies_src")
            con.execute(PEOPLE_DOCS_SQL)
            con.execute(
                "INSERT INTO dataset_info VALUES (?, ?, ?, ?, ?)",
                [seed, people, companies, REFERENCE_DATE.item(), datetime.now(UTC).replace(tzinfo=None)],
            )
            con.execute("CHECKPOINT")
        finally:
            con.close()
        path.with_name(path.name + ".wal").unlink(missing_ok=True)  # a stale log would be replayed
        os.replace(tmp, path)
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
    return DatasetSummary(people, companies, time.perf_counter() - started, path)

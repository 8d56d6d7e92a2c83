"""Deterministic, realistic pt-BR demo dataset for the ``local`` supplier.

``generate_demo_dataset`` writes a DuckDB file with these tables:

* ``people``    one row per CPF (PRIMARY KEY), nested phones/e-mails/addresses/societies/protests/
                financial pendings as LIST(STRUCT) columns and ``death`` as a nullable STRUCT;
* ``companies`` one row per CNPJ (PRIMARY KEY), with address, activity, partners, protests;
* ``people_docs`` / ``company_docs``: (document PRIMARY KEY, doc VARCHAR) with each row's lookup
                result as JSON, for fast point lookups (see ``bemtevi.infra.suppliers.local``);
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
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from bemtevi.infra import demo_names as W

REFERENCE_DATE = np.datetime64("2025-06-30", "D")
MINIMUM_WAGE = 1518.0  # R$, 2025; social classes are bands of minimum wages

KNOWN_CPFS: tuple[str, ...] = ("52998224725", "11144477735")
KNOWN_CNPJS: tuple[str, ...] = ("11222333000181",)

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
DateArray = npt.NDArray[np.datetime64]

_CPF_W1 = np.arange(10, 1, -1, dtype=np.int64)
_CPF_W2 = np.arange(11, 1, -1, dtype=np.int64)
_CNPJ_W1 = np.array([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], dtype=np.int64)
_CNPJ_W2 = np.array([6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], dtype=np.int64)

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
    cnpj VARCHAR PRIMARY KEY,
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
    protests STRUCT(date DATE, amount DECIMAL(12, 2), notary VARCHAR, city VARCHAR, state VARCHAR)[]
)
"""

# The lookup documents: each row's result record as compact JSON, in the exact shape and key order the
# local supplier returns (``age`` is filled in at lookup time). Reading one VARCHAR by primary key
# costs ~0.25 ms, against ~1-1.5 ms for the same row's nested LIST/STRUCT columns, so the hot path
# reads these and SQL work (batch joins, search) reads the nested tables.
DOCS_DDL = """
CREATE TABLE people_docs (cpf VARCHAR PRIMARY KEY, doc VARCHAR NOT NULL);
CREATE TABLE company_docs (cnpj VARCHAR PRIMARY KEY, doc VARCHAR NOT NULL);
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

COMPANY_DOCS_SQL = """
INSERT INTO company_docs
SELECT cnpj, to_json(struct_pack(
    kind := 'company', cnpj := cnpj, company_name := company_name, trade_name := trade_name,
    opening_date := opening_date, status := status, legal_nature := legal_nature,
    main_activity := main_activity, size := size, share_capital := share_capital,
    address := address, phones := phones, emails := emails, partners := partners, score := score,
    protests := protests
))::VARCHAR
FROM companies ORDER BY cnpj
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


# ---------------------------------------------------------------------------------------------
# Documents


def _digit_matrix(values: IntArray, width: int) -> IntArray:
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return (values[:, None] // powers[None, :]) % 10


def _check_digit(digits: IntArray, weights: IntArray) -> IntArray:
    remainder = (digits @ weights) % 11
    return np.where(remainder < 2, 0, 11 - remainder)


def cpf_check_digits(base: IntArray) -> IntArray:
    """The two check digits (as a number 0..99) of each 9-digit CPF base."""
    digits = _digit_matrix(np.asarray(base, dtype=np.int64), 9)
    d1 = _check_digit(digits, _CPF_W1)
    d2 = _check_digit(np.concatenate([digits, d1[:, None]], axis=1), _CPF_W2)
    return d1 * 10 + d2


def cnpj_check_digits(base: IntArray) -> IntArray:
    """The two check digits (as a number 0..99) of each 12-digit CNPJ base (root + branch)."""
    digits = _digit_matrix(np.asarray(base, dtype=np.int64), 12)
    d1 = _check_digit(digits, _CNPJ_W1)
    d2 = _check_digit(np.concatenate([digits, d1[:, None]], axis=1), _CNPJ_W2)
    return d1 * 10 + d2


def _unique_cpf_bases(rng: np.random.Generator, region: IntArray, fixed: Sequence[int]) -> IntArray:
    """Unique 9-digit bases whose last digit is the fiscal region; ``fixed`` fill the first rows."""
    n = len(region)
    base = rng.integers(0, 10**8, n, dtype=np.int64) * 10 + region
    base[: len(fixed)] = fixed
    for _ in range(100):
        _, first = np.unique(base, return_index=True)
        redo = np.ones(n, dtype=bool)
        redo[first] = False
        redo |= base % 111_111_111 == 0  # 000000000, 111111111, ...: all-same-digit CPFs
        redo[: len(fixed)] = False
        if not redo.any():
            return base
        base[redo] = rng.integers(0, 10**8, int(redo.sum()), dtype=np.int64) * 10 + region[redo]
    raise RuntimeError("could not draw unique CPFs")  # pragma: no cover


def _unique_roots(rng: np.random.Generator, n: int, fixed: Sequence[int]) -> IntArray:
    root = rng.integers(1_000_000, 10**8, n, dtype=np.int64)
    root[: len(fixed)] = fixed
    for _ in range(100):
        _, first = np.unique(root, return_index=True)
        redo = np.ones(n, dtype=bool)
        redo[first] = False
        redo[: len(fixed)] = False
        if not redo.any():
            return root
        root[redo] = rng.integers(1_000_000, 10**8, int(redo.sum()), dtype=np.int64)
    raise RuntimeError("could not draw unique CNPJ roots")  # pragma: no cover


def _zero_padded(values: IntArray, width: int) -> pa.Array:
    return pc.utf8_lpad(pc.cast(pa.array(values, pa.int64()), pa.string()), width=width, padding="0")


# ---------------------------------------------------------------------------------------------
# Small helpers


def _ascii_slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in plain.lower() if ch.isalnum())


def _plain_surname(surname: str) -> str:
    """'da Silva' -> 'Silva' (company names and e-mails drop the particle)."""
    head, _, tail = surname.partition(" ")
    return tail if head in {"da", "de", "do", "das", "dos"} and tail else surname


def _zipf(n: int, exponent: float = 0.9, offset: float = 3.0) -> npt.NDArray[np.float64]:
    w = 1.0 / (np.arange(n, dtype=np.float64) + offset) ** exponent
    return w / w.sum()


def _strings(values: Sequence[str]) -> pa.Array:
    return pa.array(list(values), pa.string())


def _take(values: pa.Array, idx: IntArray) -> pa.Array:
    return values.take(pa.array(idx, pa.int64()))


def _join(*parts: pa.Array | str, sep: str = " ") -> pa.Array:
    return pc.binary_join_element_wise(*parts, sep)


def _offsets(counts: IntArray) -> npt.NDArray[np.int32]:
    offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def _list(counts: IntArray, values: pa.Array) -> pa.Array:
    return pa.ListArray.from_arrays(pa.array(_offsets(counts)), values)


def _owners(counts: IntArray) -> tuple[IntArray, IntArray]:
    """For items laid out row by row: the owning row and the item's position within its row."""
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    position = np.arange(len(owner), dtype=np.int64) - _offsets(counts)[owner].astype(np.int64)
    return owner, position


def _counts(rng: np.random.Generator, n: int, probabilities: Sequence[float], start: int = 0) -> IntArray:
    return rng.choice(len(probabilities), size=n, p=np.asarray(probabilities)).astype(np.int64) + start


def _dates(values: DateArray) -> pa.Array:
    return pa.array(values.astype("datetime64[D]"), pa.date32())


def _money(values: npt.NDArray[np.float64]) -> pa.Array:
    # Rounded doubles; DuckDB casts them to DECIMAL exactly on insert.
    return pa.array(np.round(values, 2), pa.float64())


def _add_years(dates: DateArray, years: int) -> DateArray:
    return dates + np.timedelta64(round(years * 365.25), "D")


def _uniform_dates(rng: np.random.Generator, low: DateArray, high: DateArray) -> DateArray:
    span = np.maximum((high - low).astype(np.int64), 0)
    return low + (rng.random(len(span)) * (span + 1)).astype(np.int64).astype("timedelta64[D]")


class _Words:
    """The word lists as arrow arrays, plus lookup tables derived from them."""

    def __init__(self) -> None:
        male = list(dict.fromkeys(W.MALE_FIRST_NAMES))
        female = list(dict.fromkeys(W.FEMALE_FIRST_NAMES))
        surnames = list(dict.fromkeys(W.SURNAMES))
        self.male = _strings(male)
        self.female = _strings(female)
        self.male_p = _zipf(len(male))
        self.female_p = _zipf(len(female))
        self.male_slug = _strings([_ascii_slug(n.split()[0]) for n in male])
        self.female_slug = _strings([_ascii_slug(n.split()[0]) for n in female])
        self.surnames = _strings(surnames)
        self.surname_p = _zipf(len(surnames), exponent=1.0, offset=2.0)
        self.surname_plain = _strings([_plain_surname(s) for s in surnames])
        self.surname_slug = _strings([_ascii_slug(_plain_surname(s).split()[-1]) for s in surnames])

        cities = W.CITIES
        self.city_name = _strings([c.name for c in cities])
        self.city_state = _strings([c.state for c in cities])
        self.city_ddd = np.array([c.ddd for c in cities], dtype=np.int64)
        self.cep_from = np.array([c.cep_from for c in cities], dtype=np.int64)
        self.cep_to = np.array([c.cep_to for c in cities], dtype=np.int64)
        weight = np.array([c.weight for c in cities], dtype=np.float64)
        self.city_p = weight / weight.sum()
        self.city_region = np.array([W.CPF_REGION_BY_STATE[c.state] for c in cities], dtype=np.int64)
        # Cities grouped by state, to draw a second address in the same state.
        order = np.argsort([c.state for c in cities], kind="stable")
        states = np.array([c.state for c in cities])[order]
        self.by_state = order.astype(np.int64)
        starts = {s: int(np.searchsorted(states, s, "left")) for s in set(states.tolist())}
        ends = {s: int(np.searchsorted(states, s, "right")) for s in set(states.tolist())}
        self.state_start = np.array([starts[c.state] for c in cities], dtype=np.int64)
        self.state_count = np.array([ends[c.state] - starts[c.state] for c in cities], dtype=np.int64)

        self.streets = _strings([f"{t} {n}" for t in W.STREET_TYPES for n in W.STREET_NAMES])
        self.street_types = _strings(W.STREET_TYPES)
        self.neighborhoods = _strings(W.NEIGHBORHOODS)
        self.complements = _strings(W.COMPLEMENTS)
        ordinals = ("1º", "2º", "3º")
        self.notaries = _strings([f"{o} Tabelionato de Protesto de {c.name}" for o in ordinals for c in cities])
        self.registry_offices = _strings([f"Cartório de Registro Civil de {c.name}" for c in cities])
        self.creditors = _strings(W.CREDITORS)
        self.email_domains = _strings(W.EMAIL_DOMAINS)


# ---------------------------------------------------------------------------------------------
# Shared nested fields


def _addresses(rng: np.random.Generator, words: _Words, city: IntArray) -> pa.StructArray:
    n = len(city)
    named_street = rng.random(n) < 0.35  # "Rua Maria Oliveira" style streets
    plain = _take(words.streets, rng.integers(0, len(words.streets), n))
    person_street = _join(
        _take(words.street_types, rng.integers(0, len(W.STREET_TYPES), n)),
        pc.if_else(
            pa.array(rng.random(n) < 0.5),
            _take(words.male, rng.integers(0, len(words.male), n)),
            _take(words.female, rng.integers(0, len(words.female), n)),
        ),
        _take(words.surname_plain, rng.integers(0, len(words.surnames), n)),
    )
    street = pc.if_else(pa.array(named_street), person_street, plain)
    number = pc.if_else(
        pa.array(rng.random(n) < 0.03),
        pa.scalar("S/N"),
        pc.cast(pa.array(np.minimum(rng.geometric(1 / 450, n), 9999), pa.int64()), pa.string()),
    )
    has_complement = rng.random(n) < 0.45
    complement = pc.if_else(
        pa.array(has_complement),
        _take(words.complements, rng.integers(0, len(W.COMPLEMENTS), n)),
        pa.scalar(None, pa.string()),
    )
    neighborhood = _take(words.neighborhoods, rng.integers(0, len(W.NEIGHBORHOODS), n))
    prefix = words.cep_from[city] + (rng.random(n) * (words.cep_to[city] - words.cep_from[city] + 1)).astype(np.int64)
    suffix = np.where(rng.random(n) < 0.2, 0, rng.integers(1, 1000, n))
    zip_code = _zero_padded(prefix * 1000 + suffix, 8)
    return pa.StructArray.from_arrays(
        [
            street,
            number,
            complement,
            neighborhood,
            _take(words.city_name, city),
            _take(words.city_state, city),
            zip_code,
        ],
        names=["street", "number", "complement", "neighborhood", "city", "state", "zip"],
    )


def _phones(rng: np.random.Generator, words: _Words, city: IntArray, mobile_share: float) -> pa.StructArray:
    n = len(city)
    mobile = rng.random(n) < mobile_share
    local = np.where(
        mobile,
        900_000_000 + rng.integers(60_000_000, 100_000_000, n),
        rng.integers(20_000_000, 60_000_000, n),
    )
    ddd = words.city_ddd[city]
    number = np.where(mobile, ddd * 1_000_000_000, ddd * 100_000_000) + local
    kind = pc.if_else(pa.array(mobile), pa.scalar("mobile"), pa.scalar("landline"))
    return pa.StructArray.from_arrays(
        [pc.cast(pa.array(number, pa.int64()), pa.string()), kind], names=["number", "type"]
    )


def _protests(rng: np.random.Generator, words: _Words, home_city: IntArray, counts: IntArray) -> pa.Array:
    owner, _ = _owners(counts)
    k = len(owner)
    city = np.where(rng.random(k) < 0.9, home_city[owner], rng.choice(len(W.CITIES), k, p=words.city_p))
    ordinal = rng.choice(3, k, p=[0.75, 0.2, 0.05])
    date = REFERENCE_DATE - rng.integers(1, 6 * 365, k).astype("timedelta64[D]")
    amount = np.clip(rng.lognormal(np.log(850), 1.1, k), 35, 250_000)
    items = pa.StructArray.from_arrays(
        [
            _dates(date),
            _money(amount),
            _take(words.notaries, ordinal * len(W.CITIES) + city),
            _take(words.city_name, city),
            _take(words.city_state, city),
        ],
        names=["date", "amount", "notary", "city", "state"],
    )
    return _list(counts, items)


# ---------------------------------------------------------------------------------------------
# People


@dataclass
class _People:
    table: pa.Table
    cpf: pa.Array
    name: pa.Array
    surname: IntArray  # index of the (father's) last surname
    birth: DateArray
    alive: BoolArray
    home_city: IntArray


def _sign_index(birth: DateArray) -> IntArray:
    months = birth.astype("datetime64[M]")
    month = months.astype(np.int64) % 12 + 1
    day = (birth - months.astype("datetime64[D]")).astype(np.int64) + 1
    return np.searchsorted(np.array(W.SIGN_STARTS), month * 100 + day, side="right").astype(np.int64) % 12


def _birth_dates(rng: np.random.Generator, n: int) -> DateArray:
    years = np.arange(1940, 2007)
    weight = 0.25 + np.clip((years - 1940) / 40.0, 0, 1)  # fewer people born in the 1940s-60s
    year = rng.choice(years, n, p=weight / weight.sum())
    start = (year - 1970).astype("datetime64[Y]").astype("datetime64[D]")
    length = ((year - 1969).astype("datetime64[Y]").astype("datetime64[D]") - start).astype(np.int64)
    return start + (rng.random(n) * length).astype(np.int64).astype("timedelta64[D]")


def _age(birth: DateArray, at: np.datetime64) -> IntArray:
    b_year = birth.astype("datetime64[Y]").astype(np.int64) + 1970
    b_md = (birth - birth.astype("datetime64[Y]").astype("datetime64[D]")).astype(np.int64)
    at_year = int(at.astype("datetime64[Y]").astype(np.int64)) + 1970
    at_md = int((at - at.astype("datetime64[Y]").astype("datetime64[D]")).astype(np.int64))
    # Day-of-year comparison is off by one day around 29 February at worst: fine for the generator.
    return (at_year - b_year - (b_md > at_md)).astype(np.int64)


def _people(rng: np.random.Generator, words: _Words, n: int) -> _People:
    # Home city and CPF first: 8 random digits + the fiscal region of the home state (10% elsewhere)
    # + check digits. Everything else is then drawn row by row in CPF order, so that the table comes
    # out sorted by its key without reordering nested columns.
    home_city = rng.choice(len(W.CITIES), n, p=words.city_p).astype(np.int64)
    rio = next(i for i, c in enumerate(W.CITIES) if c.name == "Rio de Janeiro")
    home_city[: len(KNOWN_CPFS)] = rio  # the known CPFs carry fiscal region 7 (RJ/ES)
    region = np.where(rng.random(n) < 0.9, words.city_region[home_city], rng.integers(0, 10, n))
    base = _unique_cpf_bases(rng, region.astype(np.int64), [int(c[:9]) for c in KNOWN_CPFS])
    known = np.zeros(n, dtype=bool)
    known[: len(KNOWN_CPFS)] = True
    order = np.argsort(base, kind="stable")
    base, home_city, known = base[order], home_city[order], known[order]
    cpf_number = base * 100 + cpf_check_digits(base)
    cpf = _zero_padded(cpf_number, 11)

    female = rng.random(n) < 0.515
    birth = _birth_dates(rng, n)
    age = _age(birth, REFERENCE_DATE)

    # Names: mother = F s1 s2, father = M s3 s4, person = first s2 s4.
    n_sur = len(words.surnames)
    s1, s2, s3, s4 = (rng.choice(n_sur, n, p=words.surname_p) for _ in range(4))
    mi = rng.choice(len(words.male), n, p=words.male_p)
    fi = rng.choice(len(words.female), n, p=words.female_p)
    mi2 = rng.choice(len(words.male), n, p=words.male_p)
    fi2 = rng.choice(len(words.female), n, p=words.female_p)
    female_a = pa.array(female)
    first = pc.if_else(female_a, _take(words.female, fi), _take(words.male, mi))
    second = pc.if_else(female_a, _take(words.female, fi2), _take(words.male, mi2))
    double = pa.array((rng.random(n) < 0.25) & (mi != mi2) & (fi != fi2))
    given = pc.if_else(double, _join(first, second), first)
    only_father = pa.array(s2 == s4)
    name = pc.if_else(
        only_father,
        _join(given, _take(words.surnames, s4)),
        _join(given, _take(words.surnames, s2), _take(words.surnames, s4)),
    )
    mother = _join(
        _take(words.female, rng.choice(len(words.female), n, p=words.female_p)),
        _take(words.surnames, s1),
        _take(words.surnames, s2),
    )
    father = pc.if_else(
        pa.array(rng.random(n) < 0.04),
        pa.scalar(None, pa.string()),
        _join(
            _take(words.male, rng.choice(len(words.male), n, p=words.male_p)),
            _take(words.surnames, s3),
            _take(words.surnames, s4),
        ),
    )

    # Education, profession, marital status, income, class.
    edu_p = np.asarray(W.EDUCATION_WEIGHTS)
    education = rng.choice(len(W.EDUCATION_LEVELS), n, p=edu_p / edu_p.sum()).astype(np.int64)
    education = np.where(age < 18, np.minimum(education, 2), education)
    education = np.where(age < 22, np.minimum(education, 4), education)
    tier = np.asarray(W.EDUCATION_TIER)[education]
    prof_tier = np.array([p[2] for p in W.PROFESSIONS])
    tier_start = np.searchsorted(prof_tier, np.arange(3), "left")
    tier_count = np.searchsorted(prof_tier, np.arange(3), "right") - tier_start
    prof = tier_start[tier] + (rng.random(n) * tier_count[tier]).astype(np.int64)
    n_prof = len(W.PROFESSIONS)
    prof_labels = _strings(
        [p[0] for p in W.PROFESSIONS]
        + [p[1] for p in W.PROFESSIONS]
        + ["Aposentado", "Aposentada", "Estudante", "Estudante"]
    )
    retired = (age >= 62) & (rng.random(n) < 0.7)
    student = (age < 24) & np.isin(education, (2, 4)) & (rng.random(n) < 0.6)
    fem = female.astype(np.int64)
    prof_idx = np.where(retired, 2 * n_prof + fem, np.where(student, 2 * n_prof + 2 + fem, prof + fem * n_prof))
    profession = _take(prof_labels, prof_idx)

    bracket = np.searchsorted(np.array([25, 40, 60]), age, side="right")
    marital_p = np.array(
        [
            [0.88, 0.06, 0.005, 0.0, 0.055],
            [0.45, 0.35, 0.06, 0.005, 0.135],
            [0.20, 0.52, 0.15, 0.03, 0.10],
            [0.10, 0.48, 0.12, 0.22, 0.08],
        ]
    )
    marital = (rng.random(n)[:, None] < np.cumsum(marital_p, axis=1)[bracket]).argmax(axis=1)
    marital_labels = _strings([m for pair in W.MARITAL_STATUSES for m in pair])
    marital_status = _take(marital_labels, marital * 2 + fem)

    income = np.asarray(W.EDUCATION_MEDIAN_INCOME)[education] * rng.lognormal(0.0, 0.55, n)
    income = np.where(student, income * 0.35, np.where(retired, income * 0.75, income))
    income = np.maximum(np.round(income, 2), 0.0)
    social = np.searchsorted(np.array([2, 4, 10, 20]) * MINIMUM_WAGE, income, side="right")
    social_class = _take(_strings(["E", "D", "C", "B", "A"]), social.astype(np.int64))

    # Credit events.
    protest_counts = np.where(rng.random(n) < 0.03, rng.integers(1, 4, n), 0).astype(np.int64)
    pending_counts = np.where(rng.random(n) < 0.05, rng.integers(1, 4, n), 0).astype(np.int64)
    ccf = np.where(rng.random(n) < np.where(pending_counts > 0, 0.15, 0.015), rng.integers(1, 6, n), 0).astype(np.int64)
    score = (
        560
        + 110 * np.log(np.maximum(income, 300) / 2500)
        + rng.normal(0, 120, n)
        - 170 * (protest_counts > 0)
        - 140 * (pending_counts > 0)
        - 45 * ccf
    )
    score = np.clip(np.round(score), 0, 1000).astype(np.int64)

    # Death (~1%, more likely for the elderly; the known CPFs stay alive).
    death_w = np.clip((age - 25) / 50.0, 0.03, 1.2) ** 2
    dead = rng.random(n) < death_w / death_w.mean() * 0.01
    dead[known] = False
    low = np.maximum(_add_years(birth, 1), np.datetime64("1995-01-01", "D"))
    death_date = _uniform_dates(rng, low, np.full(n, REFERENCE_DATE))
    book = pc.binary_join_element_wise("C-", pc.cast(pa.array(rng.integers(1, 480, n), pa.int64()), pa.string()), "")
    sheet = _zero_padded(rng.integers(1, 300, n), 3)
    death = pa.StructArray.from_arrays(
        [_dates(death_date), book, sheet, _take(words.registry_offices, home_city)],
        names=["date", "book", "sheet", "registry_office"],
        mask=pa.array(~dead),
    )

    # Addresses (1-2; the second mostly in the same state).
    addr_counts = _counts(rng, n, [0.7, 0.3], start=1)
    owner, pos = _owners(addr_counts)
    k = len(owner)
    same_state = words.by_state[
        words.state_start[home_city[owner]] + (rng.random(k) * words.state_count[home_city[owner]]).astype(np.int64)
    ]
    other = np.where(rng.random(k) < 0.7, same_state, rng.choice(len(W.CITIES), k, p=words.city_p))
    addr_city = np.where(pos == 0, home_city[owner], other)
    addresses = _list(addr_counts, _addresses(rng, words, addr_city))

    phone_counts = _counts(rng, n, [0.45, 0.4, 0.15], start=1)
    owner, _ = _owners(phone_counts)
    phones = _list(phone_counts, _phones(rng, words, home_city[owner], mobile_share=0.75))

    # E-mails from the name: five local-part patterns, distinct within a person.
    email_counts = _counts(rng, n, [0.25, 0.55, 0.2])
    owner, pos = _owners(email_counts)
    k = len(owner)
    first_slug = pc.if_else(
        pa.array(female[owner]), _take(words.female_slug, fi[owner]), _take(words.male_slug, mi[owner])
    )
    last_slug = _take(words.surname_slug, s4[owner])
    year2 = _zero_padded(birth[owner].astype("datetime64[Y]").astype(np.int64) % 100, 2)
    digits = _zero_padded(rng.integers(0, 100, k), 2)
    pattern = (rng.integers(0, 5, n)[owner] + pos * 2) % 5
    local = pc.case_when(
        pa.StructArray.from_arrays([pa.array(pattern == i) for i in range(4)], names=["p0", "p1", "p2", "p3"]),
        _join(first_slug, last_slug, sep="."),
        _join(first_slug, last_slug, digits, sep=""),
        _join(first_slug, last_slug, sep="_"),
        _join(_join(first_slug, last_slug, sep="."), year2, sep=""),
        _join(pc.utf8_slice_codeunits(first_slug, 0, 1), last_slug, digits, sep=""),
    )
    domain = _take(words.email_domains, rng.integers(0, len(W.EMAIL_DOMAINS), k))
    emails = _list(email_counts, _join(local, domain, sep="@"))

    # Financial pendings.
    owner, _ = _owners(pending_counts)
    k = len(owner)
    pendings = _list(
        pending_counts,
        pa.StructArray.from_arrays(
            [
                _take(words.creditors, rng.integers(0, len(W.CREDITORS), k)),
                _money(np.clip(rng.lognormal(np.log(650), 1.0, k), 20, 90_000)),
                _dates(REFERENCE_DATE - rng.integers(1, 5 * 365, k).astype("timedelta64[D]")),
            ],
            names=["creditor", "amount", "date"],
        ),
    )
    protests = _protests(rng, words, home_city, protest_counts)

    table = pa.table(
        {
            "cpf": cpf,
            "name": name,
            "gender": pc.if_else(female_a, pa.scalar("F"), pa.scalar("M")),
            "birth_date": _dates(birth),
            "sign": _take(_strings(W.SIGNS), _sign_index(birth)),
            "mother": mother,
            "father": father,
            "marital_status": marital_status,
            "education": _take(_strings(W.EDUCATION_LEVELS), education),
            "profession": profession,
            "income": _money(income),
            "social_class": social_class,
            "score": pa.array(score, pa.int32()),
            "phones": phones,
            "emails": emails,
            "addresses": addresses,
            "protests": protests,
            "financial_pendings": pendings,
            "check_inquiries": pa.array(ccf, pa.int32()),
            "death": death,
        }
    )
    return _People(table, cpf, name, s4.astype(np.int64), birth, ~dead, home_city)


# ---------------------------------------------------------------------------------------------
# Companies


def _companies(rng: np.random.Generator, words: _Words, m: int, people: _People) -> tuple[pa.Table, IntArray, pa.Table]:
    """The companies table, its CNPJs as numbers and the partnership rows (person, cnpj, ...)."""
    natures = W.LEGAL_NATURES
    nature_p = np.array([x[2] for x in natures])
    nature = rng.choice(len(natures), m, p=nature_p / nature_p.sum()).astype(np.int64)
    is_individual = nature == 1
    is_sa = np.isin(nature, (3, 4))
    act_p = _zipf(len(W.ACTIVITIES), exponent=0.7, offset=4.0)
    activity = rng.choice(len(W.ACTIVITIES), m, p=act_p).astype(np.int64)
    city = rng.choice(len(W.CITIES), m, p=words.city_p).astype(np.int64)

    # Partners: drawn among living adults; up to three distinct people per company.
    adult = np.flatnonzero(people.alive & (_age(people.birth, REFERENCE_DATE) >= 21)).astype(np.int64)
    if len(adult) == 0:  # only in tiny datasets
        adult = np.arange(len(people.birth), dtype=np.int64)
    e = len(adult)
    n_partners = np.where(
        is_individual, 1, np.where(is_sa, rng.integers(2, 4, m), _counts(rng, m, [0.3, 0.55, 0.15], 1))
    ).astype(np.int64)
    n_partners = np.minimum(n_partners, e)
    first = rng.integers(0, e, m)
    half = max(e // 2, 1)
    pick = np.stack(
        [
            first,
            (first + rng.integers(1, max(half, 2), m)) % e,
            (first + half + rng.integers(0, max(e - half - 1, 1), m)) % e,
        ],
        axis=1,
    )
    partner_person = adult[pick]  # (m, 3)
    p1 = partner_person[:, 0]

    # Opening date: recent companies are more common; never before the founder turned 18.
    opening = REFERENCE_DATE - np.minimum(rng.exponential(9 * 365, m), 50 * 365).astype(np.int64).astype(
        "timedelta64[D]"
    )
    opening = np.maximum(opening, _add_years(people.birth[p1], 18) + rng.integers(0, 700, m).astype("timedelta64[D]"))
    opening = np.minimum(opening, REFERENCE_DATE - np.timedelta64(1, "D"))

    status_labels = _strings(["ATIVA", "BAIXADA", "INAPTA", "SUSPENSA"])
    status = rng.choice(4, m, p=[0.8, 0.11, 0.06, 0.03]).astype(np.int64)
    size = np.where(
        is_sa,
        np.where(rng.random(m) < 0.85, 2, 1),
        np.where(is_individual, np.where(rng.random(m) < 0.9, 0, 1), rng.choice(3, m, p=[0.55, 0.3, 0.15])),
    ).astype(np.int64)
    capital_median = np.array([20_000.0, 180_000.0, 2_500_000.0])[size]
    capital = np.round(capital_median * rng.lognormal(0.0, 0.8, m), -2)
    capital = np.where(nature == 4, capital * 20, capital)

    # Names.
    sur1 = people.surname[p1]
    sur2 = people.surname[partner_person[:, 1]]
    s1 = _take(words.surname_plain, sur1)
    s2 = _take(words.surname_plain, sur2)
    phrase = _take(_strings([a.phrase for a in W.ACTIVITIES]), activity)
    suffix = _take(_strings([x[1] for x in natures]), nature)
    two_names = pa.array((n_partners >= 2) & ~is_sa & (sur1 != sur2))
    company_name = pc.if_else(
        two_names,
        _join(_join(s1, s2, sep=" & "), phrase, suffix),
        _join(s1, phrase, suffix),
    )
    trade_name = pc.if_else(
        pa.array(rng.random(m) < 0.15),
        pa.scalar(None, pa.string()),
        _join(_take(_strings([a.trade_prefix for a in W.ACTIVITIES]), activity), s1),
    )
    activity_struct = pa.StructArray.from_arrays(
        [
            _take(_strings([a.code for a in W.ACTIVITIES]), activity),
            _take(_strings([a.description for a in W.ACTIVITIES]), activity),
        ],
        names=["code", "description"],
    )
    address = _addresses(rng, words, city)

    phone_counts = _counts(rng, m, [0.6, 0.4], start=1)
    owner, _ = _owners(phone_counts)
    phones = _list(phone_counts, _phones(rng, words, city[owner], mobile_share=0.4))

    email_counts = _counts(rng, m, [0.3, 0.5, 0.2])
    owner, pos = _owners(email_counts)
    k = len(owner)
    mailbox = _strings(["contato", "financeiro", "comercial", "atendimento", "adm"])
    box = (rng.integers(0, 5, m)[owner] + pos) % 5
    domain_name = _join(
        _take(_strings([a.slug for a in W.ACTIVITIES]), activity[owner]),
        _take(words.surname_slug, sur1[owner]),
        sep="",
    )
    tld = _take(_strings([".com.br", ".com.br", ".com.br", ".com"]), rng.integers(0, 4, k))
    emails = _list(email_counts, _join(_take(mailbox, box), _join(domain_name, tld, sep=""), sep="@"))

    protest_counts = np.where(rng.random(m) < 0.04, rng.integers(1, 4, m), 0).astype(np.int64)
    protests = _protests(rng, words, city, protest_counts)
    score = np.clip(
        np.round(
            620
            + 60 * np.log10(np.maximum(capital, 1000) / 20_000)
            + rng.normal(0, 130, m)
            - 200 * (protest_counts > 0)
            - 250 * (status != 0)
        ),
        0,
        1000,
    ).astype(np.int64)

    # CNPJ: unique 8-digit roots, branch 0001 mostly.
    root = _unique_roots(rng, m, [int(c[:8]) for c in KNOWN_CNPJS])
    branch = np.where(rng.random(m) < 0.95, 1, rng.integers(2, 10, m))
    branch[: len(KNOWN_CNPJS)] = [int(c[8:12]) for c in KNOWN_CNPJS]
    base = root * 10_000 + branch
    cnpj_number = base * 100 + cnpj_check_digits(base)
    cnpj = _zero_padded(cnpj_number, 14)

    # Partnership rows (company-major, in partner order).
    owner, pos = _owners(n_partners)
    k = len(owner)
    person = partner_person[owner, pos]
    role_labels = _strings(["Sócio-Administrador", "Sócio", "Titular", "Presidente", "Diretor"])
    role = np.where(
        is_individual[owner], 2, np.where(is_sa[owner], np.where(pos == 0, 3, 4), np.where(pos == 0, 0, 1))
    ).astype(np.int64)
    later = rng.random(k) < 0.3
    since = np.where(
        (pos > 0) & later,
        _uniform_dates(rng, opening[owner], np.full(k, REFERENCE_DATE)),
        opening[owner],
    )
    since = np.maximum(since, _add_years(people.birth[person], 18))
    since = np.minimum(since, REFERENCE_DATE)
    partners_rows = pa.table(
        {
            "person": pa.array(person, pa.int64()),
            "cnpj": _take(cnpj, owner),
            "company_name": _take(company_name, owner),
            "name": _take(people.name, person),
            "document": _take(people.cpf, person),
            "role": _take(role_labels, role),
            "since": _dates(since),
        }
    )
    partners = _list(
        n_partners,
        pa.StructArray.from_arrays(
            [
                partners_rows["name"].combine_chunks(),
                partners_rows["document"].combine_chunks(),
                partners_rows["role"].combine_chunks(),
                partners_rows["since"].combine_chunks(),
            ],
            names=["name", "document", "role", "since"],
        ),
    )

    table = pa.table(
        {
            "cnpj": cnpj,
            "company_name": company_name,
            "trade_name": trade_name,
            "opening_date": _dates(opening),
            "status": _take(status_labels, status),
            "legal_nature": _take(_strings([x[0] for x in natures]), nature),
            "main_activity": activity_struct,
            "size": _take(_strings(["ME", "EPP", "DEMAIS"]), size),
            "share_capital": _money(capital),
            "address": address,
            "phones": phones,
            "emails": emails,
            "partners": partners,
            "score": pa.array(score, pa.int32()),
            "protests": protests,
        }
    )
    return table, cnpj_number, partners_rows


def _societies(n_people: int, partners_rows: pa.Table) -> pa.Array:
    """Each person's companies, ordered by CNPJ, from the partnership rows."""
    person = partners_rows["person"].to_numpy()
    cnpj = partners_rows["cnpj"].combine_chunks()
    cnpj_order = np.argsort(np.asarray(cnpj.to_numpy(zero_copy_only=False)), kind="stable")
    order = cnpj_order[np.argsort(person[cnpj_order], kind="stable")]
    rows = partners_rows.take(pa.array(order, pa.int64()))
    counts = np.bincount(person, minlength=n_people).astype(np.int64)
    items = pa.StructArray.from_arrays(
        [rows[c].combine_chunks() for c in ("cnpj", "company_name", "role", "since")],
        names=["cnpj", "company_name", "role", "since"],
    )
    return _list(counts, items)


# ---------------------------------------------------------------------------------------------
# Entry point


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
    words = _Words()

    person = _people(rng, words, people)
    company_table, cnpj_number, partner_rows = _companies(rng, words, companies, person)
    people_table = person.table.append_column("societies", _societies(people, partner_rows))
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
            con.execute(COMPANY_DOCS_SQL)
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

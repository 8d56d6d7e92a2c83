"""The demo dataset's people: one row per CPF, drawn column-wise."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from bemtevi.infra import demo_names as W
from bemtevi.infra.demo_contacts import address_column, phone_column, protest_column
from bemtevi.infra.demo_values import (
    KNOWN_CPFS,
    MINIMUM_WAGE,
    REFERENCE_DATE,
    BoolArray,
    DateArray,
    IntArray,
    Words,
    add_years,
    cpf_check_digits,
    date_column,
    draw_counts,
    joined,
    list_column,
    money_column,
    owners,
    string_array,
    take_at,
    uniform_dates,
    unique_cpf_bases,
    zero_padded,
)


@dataclass
class People:
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


def age_at(birth: DateArray, at: np.datetime64) -> IntArray:
    b_year = birth.astype("datetime64[Y]").astype(np.int64) + 1970
    b_md = (birth - birth.astype("datetime64[Y]").astype("datetime64[D]")).astype(np.int64)
    at_year = int(at.astype("datetime64[Y]").astype(np.int64)) + 1970
    at_md = int((at - at.astype("datetime64[Y]").astype("datetime64[D]")).astype(np.int64))
    # Day-of-year comparison is off by one day around 29 February at worst: fine for the generator.
    return (at_year - b_year - (b_md > at_md)).astype(np.int64)


def make_people(rng: np.random.Generator, words: Words, n: int) -> People:
    # Home city and CPF first: 8 random digits + the fiscal region of the home state (10% elsewhere)
    # + check digits. Everything else is then drawn row by row in CPF order, so that the table comes
    # out sorted by its key without reordering nested columns.
    home_city = rng.choice(len(W.CITIES), n, p=words.city_p).astype(np.int64)
    rio = next(i for i, c in enumerate(W.CITIES) if c.name == "Rio de Janeiro")
    home_city[: len(KNOWN_CPFS)] = rio  # the known CPFs carry fiscal region 7 (RJ/ES)
    region = np.where(rng.random(n) < 0.9, words.city_region[home_city], rng.integers(0, 10, n))
    base = unique_cpf_bases(rng, region.astype(np.int64), [int(c[:9]) for c in KNOWN_CPFS])
    known = np.zeros(n, dtype=bool)
    known[: len(KNOWN_CPFS)] = True
    order = np.argsort(base, kind="stable")
    base, home_city, known = base[order], home_city[order], known[order]
    cpf_number = base * 100 + cpf_check_digits(base)
    cpf = zero_padded(cpf_number, 11)

    female = rng.random(n) < 0.515
    birth = _birth_dates(rng, n)
    age = age_at(birth, REFERENCE_DATE)

    # Names: mother = F s1 s2, father = M s3 s4, person = first s2 s4.
    n_sur = len(words.surnames)
    s1, s2, s3, s4 = (rng.choice(n_sur, n, p=words.surname_p) for _ in range(4))
    mi = rng.choice(len(words.male), n, p=words.male_p)
    fi = rng.choice(len(words.female), n, p=words.female_p)
    mi2 = rng.choice(len(words.male), n, p=words.male_p)
    fi2 = rng.choice(len(words.female), n, p=words.female_p)
    female_a = pa.array(female)
    first = pc.if_else(female_a, take_at(words.female, fi), take_at(words.male, mi))
    second = pc.if_else(female_a, take_at(words.female, fi2), take_at(words.male, mi2))
    double = pa.array((rng.random(n) < 0.25) & (mi != mi2) & (fi != fi2))
    given = pc.if_else(double, joined(first, second), first)
    only_father = pa.array(s2 == s4)
    name = pc.if_else(
        only_father,
        joined(given, take_at(words.surnames, s4)),
        joined(given, take_at(words.surnames, s2), take_at(words.surnames, s4)),
    )
    mother = joined(
        take_at(words.female, rng.choice(len(words.female), n, p=words.female_p)),
        take_at(words.surnames, s1),
        take_at(words.surnames, s2),
    )
    father = pc.if_else(
        pa.array(rng.random(n) < 0.04),
        pa.scalar(None, pa.string()),
        joined(
            take_at(words.male, rng.choice(len(words.male), n, p=words.male_p)),
            take_at(words.surnames, s3),
            take_at(words.surnames, s4),
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
    prof_labels = string_array(
        [p[0] for p in W.PROFESSIONS]
        + [p[1] for p in W.PROFESSIONS]
        + ["Aposentado", "Aposentada", "Estudante", "Estudante"]
    )
    retired = (age >= 62) & (rng.random(n) < 0.7)
    student = (age < 24) & np.isin(education, (2, 4)) & (rng.random(n) < 0.6)
    fem = female.astype(np.int64)
    prof_idx = np.where(retired, 2 * n_prof + fem, np.where(student, 2 * n_prof + 2 + fem, prof + fem * n_prof))
    profession = take_at(prof_labels, prof_idx)

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
    marital_labels = string_array([m for pair in W.MARITAL_STATUSES for m in pair])
    marital_status = take_at(marital_labels, marital * 2 + fem)

    income = np.asarray(W.EDUCATION_MEDIAN_INCOME)[education] * rng.lognormal(0.0, 0.55, n)
    income = np.where(student, income * 0.35, np.where(retired, income * 0.75, income))
    income = np.maximum(np.round(income, 2), 0.0)
    social = np.searchsorted(np.array([2, 4, 10, 20]) * MINIMUM_WAGE, income, side="right")
    social_class = take_at(string_array(["E", "D", "C", "B", "A"]), social.astype(np.int64))

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
    low = np.maximum(add_years(birth, 1), np.datetime64("1995-01-01", "D"))
    death_date = uniform_dates(rng, low, np.full(n, REFERENCE_DATE))
    book = pc.binary_join_element_wise("C-", pc.cast(pa.array(rng.integers(1, 480, n), pa.int64()), pa.string()), "")
    sheet = zero_padded(rng.integers(1, 300, n), 3)
    death = pa.StructArray.from_arrays(
        [date_column(death_date), book, sheet, take_at(words.registry_offices, home_city)],
        names=["date", "book", "sheet", "registry_office"],
        mask=pa.array(~dead),
    )

    # Addresses (1-2; the second mostly in the same state).
    addr_counts = draw_counts(rng, n, [0.7, 0.3], start=1)
    owner, pos = owners(addr_counts)
    k = len(owner)
    same_state = words.by_state[
        words.state_start[home_city[owner]] + (rng.random(k) * words.state_count[home_city[owner]]).astype(np.int64)
    ]
    other = np.where(rng.random(k) < 0.7, same_state, rng.choice(len(W.CITIES), k, p=words.city_p))
    addr_city = np.where(pos == 0, home_city[owner], other)
    addresses = list_column(addr_counts, address_column(rng, words, addr_city))

    phone_counts = draw_counts(rng, n, [0.45, 0.4, 0.15], start=1)
    owner, _ = owners(phone_counts)
    phones = list_column(phone_counts, phone_column(rng, words, home_city[owner], mobile_share=0.75))

    # E-mails from the name: five local-part patterns, distinct within a person.
    email_counts = draw_counts(rng, n, [0.25, 0.55, 0.2])
    owner, pos = owners(email_counts)
    k = len(owner)
    first_slug = pc.if_else(
        pa.array(female[owner]), take_at(words.female_slug, fi[owner]), take_at(words.male_slug, mi[owner])
    )
    last_slug = take_at(words.surname_slug, s4[owner])
    year2 = zero_padded(birth[owner].astype("datetime64[Y]").astype(np.int64) % 100, 2)
    digits = zero_padded(rng.integers(0, 100, k), 2)
    pattern = (rng.integers(0, 5, n)[owner] + pos * 2) % 5
    local = pc.case_when(
        pa.StructArray.from_arrays([pa.array(pattern == i) for i in range(4)], names=["p0", "p1", "p2", "p3"]),
        joined(first_slug, last_slug, sep="."),
        joined(first_slug, last_slug, digits, sep=""),
        joined(first_slug, last_slug, sep="_"),
        joined(joined(first_slug, last_slug, sep="."), year2, sep=""),
        joined(pc.utf8_slice_codeunits(first_slug, 0, 1), last_slug, digits, sep=""),
    )
    domain = take_at(words.email_domains, rng.integers(0, len(W.EMAIL_DOMAINS), k))
    emails = list_column(email_counts, joined(local, domain, sep="@"))

    # Financial pendings.
    owner, _ = owners(pending_counts)
    k = len(owner)
    pendings = list_column(
        pending_counts,
        pa.StructArray.from_arrays(
            [
                take_at(words.creditors, rng.integers(0, len(W.CREDITORS), k)),
                money_column(np.clip(rng.lognormal(np.log(650), 1.0, k), 20, 90_000)),
                date_column(REFERENCE_DATE - rng.integers(1, 5 * 365, k).astype("timedelta64[D]")),
            ],
            names=["creditor", "amount", "date"],
        ),
    )
    protests = protest_column(rng, words, home_city, protest_counts)

    table = pa.table(
        {
            "cpf": cpf,
            "name": name,
            "gender": pc.if_else(female_a, pa.scalar("F"), pa.scalar("M")),
            "birth_date": date_column(birth),
            "sign": take_at(string_array(W.SIGNS), _sign_index(birth)),
            "mother": mother,
            "father": father,
            "marital_status": marital_status,
            "education": take_at(string_array(W.EDUCATION_LEVELS), education),
            "profession": profession,
            "income": money_column(income),
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
    return People(table, cpf, name, s4.astype(np.int64), birth, ~dead, home_city)

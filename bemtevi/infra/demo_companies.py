"""The demo dataset's companies: one row per CNPJ with partners drawn from the people, and each person's
societies."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from bemtevi.infra import demo_names as W
from bemtevi.infra.demo_contacts import address_column, phone_column, protest_column
from bemtevi.infra.demo_people import People, age_at
from bemtevi.infra.demo_values import (
    KNOWN_CNPJS,
    REFERENCE_DATE,
    IntArray,
    Words,
    add_years,
    cnpj_check_digits,
    date_column,
    draw_counts,
    joined,
    list_column,
    money_column,
    owners,
    string_array,
    take_at,
    uniform_dates,
    unique_roots,
    zero_padded,
    zipf_weights,
)


def make_companies(
    rng: np.random.Generator, words: Words, m: int, people: People
) -> tuple[pa.Table, IntArray, pa.Table]:
    """The companies table, its CNPJs as numbers and the partnership rows (person, cnpj, ...)."""
    natures = W.LEGAL_NATURES
    nature_p = np.array([x[2] for x in natures])
    nature = rng.choice(len(natures), m, p=nature_p / nature_p.sum()).astype(np.int64)
    is_individual = nature == 1
    is_sa = np.isin(nature, (3, 4))
    act_p = zipf_weights(len(W.ACTIVITIES), exponent=0.7, offset=4.0)
    activity = rng.choice(len(W.ACTIVITIES), m, p=act_p).astype(np.int64)
    city = rng.choice(len(W.CITIES), m, p=words.city_p).astype(np.int64)

    # Partners: drawn among living adults; up to three distinct people per company.
    adult = np.flatnonzero(people.alive & (age_at(people.birth, REFERENCE_DATE) >= 21)).astype(np.int64)
    if len(adult) == 0:  # only in tiny datasets
        adult = np.arange(len(people.birth), dtype=np.int64)
    e = len(adult)
    n_partners = np.where(
        is_individual, 1, np.where(is_sa, rng.integers(2, 4, m), draw_counts(rng, m, [0.3, 0.55, 0.15], 1))
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
    opening = np.maximum(opening, add_years(people.birth[p1], 18) + rng.integers(0, 700, m).astype("timedelta64[D]"))
    opening = np.minimum(opening, REFERENCE_DATE - np.timedelta64(1, "D"))

    status_labels = string_array(["ATIVA", "BAIXADA", "INAPTA", "SUSPENSA"])
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
    s1 = take_at(words.surname_plain, sur1)
    s2 = take_at(words.surname_plain, sur2)
    phrase = take_at(string_array([a.phrase for a in W.ACTIVITIES]), activity)
    suffix = take_at(string_array([x[1] for x in natures]), nature)
    two_names = pa.array((n_partners >= 2) & ~is_sa & (sur1 != sur2))
    company_name = pc.if_else(
        two_names,
        joined(joined(s1, s2, sep=" & "), phrase, suffix),
        joined(s1, phrase, suffix),
    )
    trade_name = pc.if_else(
        pa.array(rng.random(m) < 0.15),
        pa.scalar(None, pa.string()),
        joined(take_at(string_array([a.trade_prefix for a in W.ACTIVITIES]), activity), s1),
    )
    activity_struct = pa.StructArray.from_arrays(
        [
            take_at(string_array([a.code for a in W.ACTIVITIES]), activity),
            take_at(string_array([a.description for a in W.ACTIVITIES]), activity),
        ],
        names=["code", "description"],
    )
    address = address_column(rng, words, city)

    phone_counts = draw_counts(rng, m, [0.6, 0.4], start=1)
    owner, _ = owners(phone_counts)
    phones = list_column(phone_counts, phone_column(rng, words, city[owner], mobile_share=0.4))

    email_counts = draw_counts(rng, m, [0.3, 0.5, 0.2])
    owner, pos = owners(email_counts)
    k = len(owner)
    mailbox = string_array(["contato", "financeiro", "comercial", "atendimento", "adm"])
    box = (rng.integers(0, 5, m)[owner] + pos) % 5
    domain_name = joined(
        take_at(string_array([a.slug for a in W.ACTIVITIES]), activity[owner]),
        take_at(words.surname_slug, sur1[owner]),
        sep="",
    )
    tld = take_at(string_array([".com.br", ".com.br", ".com.br", ".com"]), rng.integers(0, 4, k))
    emails = list_column(email_counts, joined(take_at(mailbox, box), joined(domain_name, tld, sep=""), sep="@"))

    protest_counts = np.where(rng.random(m) < 0.04, rng.integers(1, 4, m), 0).astype(np.int64)
    protests = protest_column(rng, words, city, protest_counts)
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
    root = unique_roots(rng, m, [int(c[:8]) for c in KNOWN_CNPJS])
    branch = np.where(rng.random(m) < 0.95, 1, rng.integers(2, 10, m))
    branch[: len(KNOWN_CNPJS)] = [int(c[8:12]) for c in KNOWN_CNPJS]
    base = root * 10_000 + branch
    cnpj_number = base * 100 + cnpj_check_digits(base)
    cnpj = zero_padded(cnpj_number, 14)

    # Partnership rows (company-major, in partner order).
    owner, pos = owners(n_partners)
    k = len(owner)
    person = partner_person[owner, pos]
    role_labels = string_array(["Sócio-Administrador", "Sócio", "Titular", "Presidente", "Diretor"])
    role = np.where(
        is_individual[owner], 2, np.where(is_sa[owner], np.where(pos == 0, 3, 4), np.where(pos == 0, 0, 1))
    ).astype(np.int64)
    later = rng.random(k) < 0.3
    since = np.where(
        (pos > 0) & later,
        uniform_dates(rng, opening[owner], np.full(k, REFERENCE_DATE)),
        opening[owner],
    )
    since = np.maximum(since, add_years(people.birth[person], 18))
    since = np.minimum(since, REFERENCE_DATE)
    partners_rows = pa.table(
        {
            "person": pa.array(person, pa.int64()),
            "cnpj": take_at(cnpj, owner),
            "company_name": take_at(company_name, owner),
            "name": take_at(people.name, person),
            "document": take_at(people.cpf, person),
            "role": take_at(role_labels, role),
            "since": date_column(since),
        }
    )
    partners = list_column(
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
            "opening_date": date_column(opening),
            "status": take_at(status_labels, status),
            "legal_nature": take_at(string_array([x[0] for x in natures]), nature),
            "main_activity": activity_struct,
            "size": take_at(string_array(["ME", "EPP", "DEMAIS"]), size),
            "share_capital": money_column(capital),
            "address": address,
            "phones": phones,
            "emails": emails,
            "partners": partners,
            "score": pa.array(score, pa.int32()),
            "protests": protests,
        }
    )
    return table, cnpj_number, partners_rows


def societies_column(n_people: int, partners_rows: pa.Table) -> pa.Array:
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
    return list_column(counts, items)

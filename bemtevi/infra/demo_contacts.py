"""The demo dataset's nested fields shared by people and companies: addresses, phones and protests."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from bemtevi.infra import demo_names as W
from bemtevi.infra.demo_values import (
    REFERENCE_DATE,
    IntArray,
    Words,
    date_column,
    joined,
    list_column,
    money_column,
    owners,
    take_at,
    zero_padded,
)


def address_column(rng: np.random.Generator, words: Words, city: IntArray) -> pa.StructArray:
    n = len(city)
    named_street = rng.random(n) < 0.35  # "Rua Maria Oliveira" style streets
    plain = take_at(words.streets, rng.integers(0, len(words.streets), n))
    person_street = joined(
        take_at(words.street_types, rng.integers(0, len(W.STREET_TYPES), n)),
        pc.if_else(
            pa.array(rng.random(n) < 0.5),
            take_at(words.male, rng.integers(0, len(words.male), n)),
            take_at(words.female, rng.integers(0, len(words.female), n)),
        ),
        take_at(words.surname_plain, rng.integers(0, len(words.surnames), n)),
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
        take_at(words.complements, rng.integers(0, len(W.COMPLEMENTS), n)),
        pa.scalar(None, pa.string()),
    )
    neighborhood = take_at(words.neighborhoods, rng.integers(0, len(W.NEIGHBORHOODS), n))
    prefix = words.cep_from[city] + (rng.random(n) * (words.cep_to[city] - words.cep_from[city] + 1)).astype(np.int64)
    suffix = np.where(rng.random(n) < 0.2, 0, rng.integers(1, 1000, n))
    zip_code = zero_padded(prefix * 1000 + suffix, 8)
    return pa.StructArray.from_arrays(
        [
            street,
            number,
            complement,
            neighborhood,
            take_at(words.city_name, city),
            take_at(words.city_state, city),
            zip_code,
        ],
        names=["street", "number", "complement", "neighborhood", "city", "state", "zip"],
    )


def phone_column(rng: np.random.Generator, words: Words, city: IntArray, mobile_share: float) -> pa.StructArray:
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


def protest_column(rng: np.random.Generator, words: Words, home_city: IntArray, counts: IntArray) -> pa.Array:
    owner, _ = owners(counts)
    k = len(owner)
    city = np.where(rng.random(k) < 0.9, home_city[owner], rng.choice(len(W.CITIES), k, p=words.city_p))
    ordinal = rng.choice(3, k, p=[0.75, 0.2, 0.05])
    date = REFERENCE_DATE - rng.integers(1, 6 * 365, k).astype("timedelta64[D]")
    amount = np.clip(rng.lognormal(np.log(850), 1.1, k), 35, 250_000)
    items = pa.StructArray.from_arrays(
        [
            date_column(date),
            money_column(amount),
            take_at(words.notaries, ordinal * len(W.CITIES) + city),
            take_at(words.city_name, city),
            take_at(words.city_state, city),
        ],
        names=["date", "amount", "notary", "city", "state"],
    )
    return list_column(counts, items)

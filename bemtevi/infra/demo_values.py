"""The demo dataset's building blocks: its reference date, valid CPF/CNPJ numbers made column-wise, arrow and
numpy helpers, and the word lists (``demo_names``) as arrow arrays."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

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


def unique_cpf_bases(rng: np.random.Generator, region: IntArray, fixed: Sequence[int]) -> IntArray:
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


def unique_roots(rng: np.random.Generator, n: int, fixed: Sequence[int]) -> IntArray:
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


def zero_padded(values: IntArray, width: int) -> pa.Array:
    return pc.utf8_lpad(pc.cast(pa.array(values, pa.int64()), pa.string()), width=width, padding="0")


def _ascii_slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in plain.lower() if ch.isalnum())


def _plain_surname(surname: str) -> str:
    """'da Silva' -> 'Silva' (company names and e-mails drop the particle)."""
    head, _, tail = surname.partition(" ")
    return tail if head in {"da", "de", "do", "das", "dos"} and tail else surname


def zipf_weights(n: int, exponent: float = 0.9, offset: float = 3.0) -> npt.NDArray[np.float64]:
    w = 1.0 / (np.arange(n, dtype=np.float64) + offset) ** exponent
    return w / w.sum()


def string_array(values: Sequence[str]) -> pa.Array:
    return pa.array(list(values), pa.string())


def take_at(values: pa.Array, idx: IntArray) -> pa.Array:
    return values.take(pa.array(idx, pa.int64()))


def joined(*parts: pa.Array | str, sep: str = " ") -> pa.Array:
    return pc.binary_join_element_wise(*parts, sep)


def _offsets(counts: IntArray) -> npt.NDArray[np.int32]:
    offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def list_column(counts: IntArray, values: pa.Array) -> pa.Array:
    return pa.ListArray.from_arrays(pa.array(_offsets(counts)), values)


def owners(counts: IntArray) -> tuple[IntArray, IntArray]:
    """For items laid out row by row: the owning row and the item's position within its row."""
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    position = np.arange(len(owner), dtype=np.int64) - _offsets(counts)[owner].astype(np.int64)
    return owner, position


def draw_counts(rng: np.random.Generator, n: int, probabilities: Sequence[float], start: int = 0) -> IntArray:
    return rng.choice(len(probabilities), size=n, p=np.asarray(probabilities)).astype(np.int64) + start


def date_column(values: DateArray) -> pa.Array:
    return pa.array(values.astype("datetime64[D]"), pa.date32())


def money_column(values: npt.NDArray[np.float64]) -> pa.Array:
    # Rounded doubles; DuckDB casts them to DECIMAL exactly on insert.
    return pa.array(np.round(values, 2), pa.float64())


def add_years(dates: DateArray, years: int) -> DateArray:
    return dates + np.timedelta64(round(years * 365.25), "D")


def uniform_dates(rng: np.random.Generator, low: DateArray, high: DateArray) -> DateArray:
    span = np.maximum((high - low).astype(np.int64), 0)
    return low + (rng.random(len(span)) * (span + 1)).astype(np.int64).astype("timedelta64[D]")


class Words:
    """The word lists as arrow arrays, plus lookup tables derived from them."""

    def __init__(self) -> None:
        male = list(dict.fromkeys(W.MALE_FIRST_NAMES))
        female = list(dict.fromkeys(W.FEMALE_FIRST_NAMES))
        surnames = list(dict.fromkeys(W.SURNAMES))
        self.male = string_array(male)
        self.female = string_array(female)
        self.male_p = zipf_weights(len(male))
        self.female_p = zipf_weights(len(female))
        self.male_slug = string_array([_ascii_slug(n.split()[0]) for n in male])
        self.female_slug = string_array([_ascii_slug(n.split()[0]) for n in female])
        self.surnames = string_array(surnames)
        self.surname_p = zipf_weights(len(surnames), exponent=1.0, offset=2.0)
        self.surname_plain = string_array([_plain_surname(s) for s in surnames])
        self.surname_slug = string_array([_ascii_slug(_plain_surname(s).split()[-1]) for s in surnames])

        cities = W.CITIES
        self.city_name = string_array([c.name for c in cities])
        self.city_state = string_array([c.state for c in cities])
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

        self.streets = string_array([f"{t} {n}" for t in W.STREET_TYPES for n in W.STREET_NAMES])
        self.street_types = string_array(W.STREET_TYPES)
        self.neighborhoods = string_array(W.NEIGHBORHOODS)
        self.complements = string_array(W.COMPLEMENTS)
        ordinals = ("1º", "2º", "3º")
        self.notaries = string_array([f"{o} Tabelionato de Protesto de {c.name}" for o in ordinals for c in cities])
        self.registry_offices = string_array([f"Cartório de Registro Civil de {c.name}" for c in cities])
        self.creditors = string_array(W.CREDITORS)
        self.email_domains = string_array(W.EMAIL_DOMAINS)

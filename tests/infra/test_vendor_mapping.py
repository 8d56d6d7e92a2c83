"""A vendor's JSON is untrusted input: whatever it sends, the mapping gives the unified record's types
(or refuses the answer as a bad one), and every value it could not map is named with a reason."""

from __future__ import annotations

import datetime as dt
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.infra.suppliers.simulator import company, person
from bemtevi.infra.suppliers.vendor_error import VendorError
from bemtevi.infra.suppliers.vendor_mapping import Dropped, map_record

CPF = "39053344705"
CNPJ = "11444777000161"


def _digits(least: int, most: int) -> st.SearchStrategy[str]:
    """What the pattern ``\\d{least,most}`` matches (any Unicode decimal digit), drawn without a regex: the
    same strings, at a fraction of hypothesis's cost of drawing from a pattern."""
    return st.text(st.characters(categories=["Nd"]), min_size=least, max_size=most)


# A vendor's text is UTF-8 (no lone surrogate): what ``.{0,5}`` matches in it.
_any_but_newline = st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=5)
_signed = st.tuples(st.sampled_from(["", "-"]), _digits(1, 25)).map("".join)
# Any JSON value orjson can give (its integers stop at 64 bits, its floats are finite).
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    # Dates and numbers as vendors write them, with the odd ones among them: the strings of the patterns
    # -?\d{1,25}/-?\d{1,25}/-?\d{1,25} and \d{4}-\d{2}-\d{2}.{0,5}
    | st.tuples(_signed, _signed, _signed).map("/".join)
    | st.tuples(_digits(4, 4), _digits(2, 2), _digits(2, 2), _any_but_newline).map(
        lambda p: f"{p[0]}-{p[1]}-{p[2]}{p[3]}"
    )
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def sections(sample: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Data sections with the vendor's own keys (so the mapping reads them) holding any JSON value, and
    the sample's lists holding objects of its own keys with any value."""

    def shaped(value: Any) -> st.SearchStrategy[Any]:
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return st.lists(st.fixed_dictionaries({}, optional={k: json_values for k in value[0]}), max_size=3)
        if isinstance(value, dict):
            return st.fixed_dictionaries({}, optional={k: json_values for k in value}) | json_values
        return json_values

    return st.fixed_dictionaries({}, optional={k: shaped(v) | json_values for k, v in sample.items()})


PERSON_KEYS = {**person(CPF), "obito": {"data": "", "livro": "", "folha": "", "cartorio": ""}}
PERSON_KEYS["sociedades"] = [{"cnpj": "", "razao_social": "", "cargo": "", "desde": ""}]
PERSON_KEYS["protestos"] = [{"data": "", "valor": 0, "cartorio": "", "cidade": "", "uf": ""}]
PERSON_KEYS["pendencias"] = [{"credor": "", "valor": 0, "data": ""}]
COMPANY_KEYS = {**company(CNPJ), "protestos": PERSON_KEYS["protestos"]}


def check_types(value: Any, where: str = "") -> None:
    """Every leaf is what the web app shows: text, a finite number a browser reads exactly, a bool, None."""
    if isinstance(value, dict):
        for k, v in value.items():
            check_types(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_types(v, f"{where}[{i}]")
    elif isinstance(value, str):
        assert "\x00" not in value, where
    elif isinstance(value, int | float) and not isinstance(value, bool):
        assert abs(value) <= 2**53, where
    else:
        assert value is None, where


def check_dates(record: dict[str, Any]) -> None:
    for key in ("birth_date", "opening_date"):
        if record.get(key) is not None:
            dt.date.fromisoformat(record[key])
    for item in record.get("protests", []) + record.get("financial_pendings", []):
        assert item["date"] is None or dt.date.fromisoformat(item["date"])


def mapped(kind: Any, number: str, answer: Any) -> tuple[dict[str, Any] | None, Dropped]:
    dropped: Dropped = []
    try:
        record = map_record(kind, number, answer, "Fornecedor", dropped)
    except VendorError as e:
        assert e.reason == "bad_answer"
        return None, dropped
    return record, dropped


@settings(max_examples=examples(400), deadline=None)
@given(answer=json_values)
def test_any_json_maps_or_is_a_bad_answer(answer: Any) -> None:
    for kind, number in (("cpf", CPF), ("cnpj", CNPJ)):
        record, _ = mapped(kind, number, answer)
        if record is not None:
            check_types(record)


@settings(max_examples=examples(500), deadline=None)
@given(section=sections(PERSON_KEYS))
def test_any_person_section_maps_to_the_records_types(section: dict[str, Any]) -> None:
    record, dropped = mapped("cpf", CPF, {"status": "ok", "pessoa": section})
    assert record is not None and record["cpf"] == CPF and record["kind"] == "person"
    check_types(record)
    check_dates(record)
    orjson.dumps(record)  # kept as JSON
    assert all(isinstance(where, str) and why for where, why in dropped)
    if record["birth_date"] is not None:
        assert record["birth_date"] <= dt.date.today().isoformat() and record["age"] >= 0
    else:
        assert record["age"] is None
    for phone in record["phones"]:
        assert set(phone) == {"number", "type"}
    if section.get("nascimento") not in (None, "") and record["birth_date"] is None:
        assert any(where == "birth_date" for where, _ in dropped)


@settings(max_examples=examples(300), deadline=None)
@given(section=sections(COMPANY_KEYS))
def test_any_company_section_maps_to_the_records_types(section: dict[str, Any]) -> None:
    record, dropped = mapped("cnpj", CNPJ, {"status": "ok", "empresa": section})
    assert record is not None and record["cnpj"] == CNPJ and record["kind"] == "company"
    check_types(record)
    check_dates(record)
    orjson.dumps(record)
    if section.get("abertura") not in (None, "") and record["opening_date"] is None:
        assert any(where == "opening_date" for where, _ in dropped)


@pytest.mark.parametrize(
    ("values", "where", "why"),
    [
        ({"nascimento": "01/01/99999999999999999999"}, "birth_date", "not a valid date"),
        ({"nascimento": "31/02/1990"}, "birth_date", "not a valid date"),
        ({"nascimento": "01/01/9999"}, "birth_date", "in the future"),
        ({"nascimento": 19900101}, "birth_date", "not a date"),
        ({"renda": "muito"}, "income", "not a number"),
        ({"score": 2**64 - 1}, "score", "out of range"),
        ({"nome": {"primeiro": "Ana"}}, "name", "not text"),
        ({"mae": "Ana\x00Silva"}, "mother", "contains a NUL character"),
        ({"ccf": -1}, "check_inquiries", "not a count"),
        ({"emails": ["a@b.com.br", 7]}, "emails[1]", "not text"),
        ({"sociedades": [{"cnpj": "1"}, "11988880000"]}, "societies[1]", "not an object"),
        ({"enderecos": {"cidade": "Recife"}}, "addresses", "not a list"),
        ({"obito": "sim"}, "death", "not an object"),
        ({"protestos": [{"data": "2020-13-01"}]}, "protests[0].date", "not a valid date"),
    ],
)
def test_a_value_that_cannot_map_is_dropped_with_its_reason(values: dict[str, Any], where: str, why: str) -> None:
    section = {**person(CPF), **values}
    record, dropped = mapped("cpf", CPF, {"status": "ok", "pessoa": section})
    assert record is not None and record["phones"]  # the rest of the answer is kept
    assert (where, why) in dropped


def test_a_well_formed_answer_drops_nothing() -> None:
    assert mapped("cpf", CPF, {"status": "ok", "pessoa": person(CPF)})[1] == []
    assert mapped("cnpj", CNPJ, {"status": "ok", "empresa": company(CNPJ)})[1] == []

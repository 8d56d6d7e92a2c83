"""The advanced query's rules without a platform: which criteria a search takes, and how each is normalised so
that accents, case and phone formatting never change what is found."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bemtevi.domain.advanced_errors import AdvancedCriteriaRequired, AdvancedCriterionTooShort
from bemtevi.domain.advanced_query import (
    AdvancedCriteria,
    advanced_consultation_id,
    fold,
    iso_birth,
    mask_document,
    phone_digits,
)
from bemtevi.domain.errors import InvalidData, InvalidPhone

ACCENTED = {"a": "áàâãä", "e": "éèêë", "i": "íìîï", "o": "óòôõö", "u": "úùûü", "c": "ç", "n": "ñ"}
letters = st.sampled_from("abcdefghijklmnopqrstuvwxyz ")
words = st.text(letters, min_size=1, max_size=30)


def _dress(plain: str, data: st.DataObject) -> str:
    """The same text with accents on some letters, any case, and blanks doubled."""
    out = []
    for ch in plain:
        if ch in ACCENTED and data.draw(st.booleans()):
            ch = data.draw(st.sampled_from(ACCENTED[ch]))
        if data.draw(st.booleans()):
            ch = ch.upper()
        if ch == " " and data.draw(st.booleans()):
            ch = "  "
        out.append(ch)
    return "".join(out)


@given(st.data(), words)
def test_accents_case_and_blanks_fold_to_one_text(data: st.DataObject, plain: str) -> None:
    dressed = _dress(plain, data)
    assert fold(dressed) == fold(plain) == " ".join(plain.split())


@given(st.text(max_size=40))
@example("𝑨")  # a mathematical capital: upper case again once decomposed
def test_a_folded_text_is_lower_case_without_combining_marks_and_folding_it_again_changes_nothing(text: str) -> None:
    folded = fold(text)
    assert fold(folded) == folded
    assert not any(unicodedata.combining(ch) for ch in unicodedata.normalize("NFKD", folded))
    assert not any(unicodedata.category(ch).startswith("C") for ch in folded)  # no NUL reaches the index


area = st.integers(11, 99).filter(lambda n: n % 10 != 0)
subscriber = st.from_regex(r"9[0-9]{8}|[2-5][0-9]{7}", fullmatch=True)


@given(
    area, subscriber, st.sampled_from(["{a}{s}", "({a}) {h}-{t}", "+55 {a} {h} {t}", "0{a}{s}", "0055 ({a}) {h}.{t}"])
)
def test_a_phone_is_one_number_however_it_is_written(a: int, s: str, pattern: str) -> None:
    written = pattern.format(a=a, s=s, h=s[:-4], t=s[-4:])
    assert phone_digits(written) == f"{a}{s}"


@pytest.mark.parametrize("written", ["1234", "(11) 1234", "55 11 98765 4321 99", "abc"])
def test_a_phone_of_the_wrong_length_is_refused(written: str) -> None:
    with pytest.raises(InvalidPhone):
        phone_digits(written)


def test_an_empty_form_is_refused_and_blank_fields_count_as_empty() -> None:
    with pytest.raises(AdvancedCriteriaRequired):
        AdvancedCriteria.parse({})
    with pytest.raises(AdvancedCriteriaRequired):
        AdvancedCriteria.parse({"name": "  ", "city": None, "email": ""})


def test_a_text_needs_a_word_of_three_letters_the_index_can_match() -> None:
    with pytest.raises(AdvancedCriterionTooShort) as refused:
        AdvancedCriteria.parse({"name": "Jo da"})
    assert refused.value.field == "name"
    assert AdvancedCriteria.parse({"name": "Jo da Silva"}).name == "jo da silva"


def test_each_field_is_normalised() -> None:
    criteria = AdvancedCriteria.parse(
        {"name": "JOSÉ Conceição", "state": "sp", "cellphone": "(11) 98765-4321", "birth": "06/09/1997"}
    )
    assert criteria.recorded() == {
        "name": "jose conceicao",
        "state": "SP",
        "cellphone": "11987654321",
        "birth": "1997-09-06",
    }
    with pytest.raises(InvalidData):
        AdvancedCriteria.parse({"state": "XX"})
    with pytest.raises(InvalidData):
        iso_birth("31/02/2000")
    assert iso_birth("2000-02-29") == "2000-02-29"


@given(st.from_regex(r"[0-9]{11}", fullmatch=True))
def test_a_list_never_shows_a_whole_cpf(cpf: str) -> None:
    masked = mask_document(cpf, "cpf")
    assert cpf not in masked.replace(".", "").replace("-", "") and masked.count("*") == 5


def test_a_result_opened_again_from_one_search_is_one_consultation() -> None:
    from uuid import uuid4

    search, other = uuid4(), uuid4()
    assert advanced_consultation_id(search, "52998224725") == advanced_consultation_id(search, "52998224725")
    assert advanced_consultation_id(search, "52998224725") != advanced_consultation_id(other, "52998224725")

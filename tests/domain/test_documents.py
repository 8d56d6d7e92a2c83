"""CPF / CNPJ rules of the specification (section 5)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bemtevi.domain.documents import (
    Document,
    cnpj_check_digits,
    cpf_check_digits,
    format_cnpj,
    format_cpf,
    is_valid_cnpj,
    is_valid_cpf,
    only_digits,
)
from bemtevi.domain.errors import InvalidDocument, InvalidDocumentType


def _digits(n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="0123456789", min_size=n, max_size=n)


@st.composite
def valid_cpfs(draw: st.DrawFn) -> str:
    base = draw(_digits(9))
    number = base + cpf_check_digits(base)
    if len(set(number)) == 1:
        number = "52998224725"
    return number


@st.composite
def valid_cnpjs(draw: st.DrawFn) -> str:
    base = draw(_digits(12))
    number = base + cnpj_check_digits(base)
    if len(set(number)) == 1:
        number = "11222333000181"
    return number


valid_documents = st.one_of(valid_cpfs(), valid_cnpjs())
punctuation = st.text(alphabet=" .-/()\t", max_size=3)


# --- known examples ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["529.982.247-25", "111.444.777-35", "52998224725", "11144477735"])
def test_known_valid_cpfs(value: str) -> None:
    assert is_valid_cpf(value)
    assert Document.parse(value).kind == "cpf"


@pytest.mark.parametrize("value", ["11.222.333/0001-81", "11.444.777/0001-61", "11222333000181"])
def test_known_valid_cnpjs(value: str) -> None:
    assert is_valid_cnpj(value)
    assert Document.parse(value).kind == "cnpj"


@pytest.mark.parametrize("value", ["529.982.247-24", "111.444.777-53", "123.456.789-00"])
def test_known_invalid_cpfs(value: str) -> None:
    assert not is_valid_cpf(value)
    with pytest.raises(InvalidDocument) as info:
        Document.parse(value)
    assert info.value.field == "document"
    assert info.value.message == "The informed document is invalid"


@pytest.mark.parametrize("value", ["11.222.333/0001-82", "11.444.777/0001-16", "12.345.678/0001-00"])
def test_known_invalid_cnpjs(value: str) -> None:
    assert not is_valid_cnpj(value)
    with pytest.raises(InvalidDocument):
        Document.parse(value)


def test_check_digits_of_known_examples() -> None:
    assert cpf_check_digits("529982247") == "25"
    assert cpf_check_digits("111444777") == "35"
    assert cnpj_check_digits("112223330001") == "81"
    assert cnpj_check_digits("114447770001") == "61"


@pytest.mark.parametrize("bad", ["", "12345678", "1234567890", "12345678a", "１２３４５６７８９"])
def test_check_digit_functions_refuse_bad_bases(bad: str) -> None:
    with pytest.raises(ValueError):
        cpf_check_digits(bad)
    with pytest.raises(ValueError):
        cnpj_check_digits(bad)


def test_formatting() -> None:
    assert format_cpf("52998224725") == "529.982.247-25"
    assert format_cnpj("11222333000181") == "11.222.333/0001-81"
    assert Document.parse("52998224725").formatted == "529.982.247-25"
    assert Document.parse("11222333000181").formatted == "11.222.333/0001-81"
    with pytest.raises(ValueError):
        format_cpf("123")
    with pytest.raises(ValueError):
        format_cnpj("123")


def test_only_digits_keeps_ascii_digits_only() -> None:
    assert only_digits(" 529.982.247-25 ") == "52998224725"
    assert only_digits("a1²٣3") == "13"


def test_document_is_an_immutable_value() -> None:
    doc = Document.parse("529.982.247-25")
    assert doc == Document("cpf", "52998224725")
    assert hash(doc) == hash(Document("cpf", "52998224725"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.number = "11144477735"  # type: ignore[misc]


def test_document_constructor_validates() -> None:
    with pytest.raises(InvalidDocument):
        Document("cpf", "52998224724")
    with pytest.raises(InvalidDocumentType):
        Document("cpf", "11222333000181")
    with pytest.raises(InvalidDocumentType):
        Document("cnpj", "11.222.333/0001-81")
    with pytest.raises(InvalidDocumentType):
        Document("rg", "52998224725")  # type: ignore[arg-type]


# --- properties --------------------------------------------------------------------------------


@given(valid_cpfs())
def test_every_generated_cpf_is_valid(number: str) -> None:
    assert is_valid_cpf(number)
    assert Document.parse(number) == Document("cpf", number)


@given(valid_cnpjs())
def test_every_generated_cnpj_is_valid(number: str) -> None:
    assert is_valid_cnpj(number)
    assert Document.parse(number) == Document("cnpj", number)


def _one_digit_changes(number: str) -> list[tuple[int, str]]:
    return [
        (position, number[:position] + digit + number[position + 1 :])
        for position in range(len(number))
        for digit in "0123456789"
        if digit != number[position]
    ]


# Reference check-digit arithmetic, written from the official weights independently of the code
# under test. ``raw`` is the remainder before the fold that turns it into a single digit (CPF:
# remainder 10 becomes 0; CNPJ: remainders 0 and 1 both become 0). The fold is the only way a
# one-digit change can go undetected: e.g. 067.079.161-06 and 167.079.161-06 are both valid.
_CPF_FOLD = {0, 10}
_CNPJ_FOLD = {0, 1}


def _cpf_raw(base9: str) -> tuple[int, int]:
    digits = [int(c) for c in base9]
    r1 = sum(d * w for d, w in zip(digits, range(10, 1, -1), strict=True)) * 10 % 11
    digits.append(r1 % 10)
    r2 = sum(d * w for d, w in zip(digits, range(11, 1, -1), strict=True)) * 10 % 11
    return r1, r2


def _cnpj_raw(base12: str) -> tuple[int, int]:
    weights = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    digits = [int(c) for c in base12]
    r1 = sum(d * w for d, w in zip(digits, weights, strict=True)) % 11
    digits.append(0 if r1 < 2 else 11 - r1)
    r2 = sum(d * w for d, w in zip(digits, [6, *weights], strict=True)) % 11
    return r1, r2


@pytest.mark.parametrize("number", ["52998224725", "11144477735", "11222333000181", "11444777000161"])
def test_every_one_digit_change_of_the_known_examples_is_invalid(number: str) -> None:
    for _, changed in _one_digit_changes(number):
        assert not (is_valid_cpf(changed) or is_valid_cnpj(changed)), changed
        with pytest.raises(InvalidDocument):
            Document.parse(changed)


def test_the_check_digit_fold_can_hide_a_one_digit_change() -> None:
    # A property of the official algorithm, not of this code: both are genuinely valid CPFs.
    assert is_valid_cpf("067.079.161-06")
    assert is_valid_cpf("167.079.161-06")


@given(valid_documents, st.data())
def test_any_one_digit_change_fails_unless_hidden_by_the_fold(number: str, data: st.DataObject) -> None:
    position, changed = data.draw(st.sampled_from(_one_digit_changes(number)))
    is_cpf = len(number) == 11
    base_length, raw, fold = (9, _cpf_raw, _CPF_FOLD) if is_cpf else (12, _cnpj_raw, _CNPJ_FOLD)
    still_valid = is_valid_cpf(changed) if is_cpf else is_valid_cnpj(changed)
    if position >= base_length:
        # A changed check digit is always caught.
        assert not still_valid
    else:
        (r1, r2), (s1, s2) = raw(number[:base_length]), raw(changed[:base_length])
        # The weighted sum always notices the change...
        assert r1 != s1
        # ...and the document survives only if the fold maps both remainders to the same digit,
        # for the first check digit and (when that was unchanged) for the second.
        hidden = {r1, s1} <= fold and (r2 == s2 or {r2, s2} <= fold)
        assert still_valid == hidden
    if not still_valid:
        with pytest.raises(InvalidDocument):
            Document.parse(changed)


@given(valid_documents)
def test_formatted_and_unformatted_parse_alike(number: str) -> None:
    doc = Document.parse(number)
    assert Document.parse(doc.formatted) == doc
    assert only_digits(doc.formatted) == number


@given(valid_documents, st.data())
def test_interleaved_punctuation_is_ignored(number: str, data: st.DataObject) -> None:
    noisy = data.draw(punctuation) + "".join(ch + data.draw(punctuation) for ch in number)
    assert Document.parse(noisy) == Document.parse(number)


@given(st.text(alphabet="0123456789 .-/", max_size=20).filter(lambda s: len(only_digits(s)) not in (11, 14)))
def test_wrong_digit_counts_are_an_invalid_document_type(value: str) -> None:
    with pytest.raises(InvalidDocumentType) as info:
        Document.parse(value)
    assert info.value.field == "document"
    assert info.value.message == "Invalid document type"


@pytest.mark.parametrize("digit", "0123456789")
def test_all_same_digit_documents_are_invalid(digit: str) -> None:
    for length in (11, 14):
        assert not is_valid_cpf(digit * length)
        assert not is_valid_cnpj(digit * length)
        with pytest.raises(InvalidDocument):
            Document.parse(digit * length)


# --- the parser against the rules, for every input ----------------------------------------------
# ``Document.parse`` and the constructor check numbers with their own arithmetic (no lists, no
# regular expression for bare digits, no second check in the constructor). Here they are compared
# with the rules written out plainly from the reference arithmetic above, on any text at all and
# on text made to sit close to the rules' edges (right digit counts, valid numbers, one digit off,
# punctuation and non-ASCII digits around them).


def _reference_check_digits(digits: str) -> str:
    if len(digits) == 11:
        r1, r2 = _cpf_raw(digits[:9])
        return f"{r1 % 10}{r2 % 10}"
    r1, r2 = _cnpj_raw(digits[:12])
    return f"{0 if r1 < 2 else 11 - r1}{0 if r2 < 2 else 11 - r2}"


def _reference_valid(digits: str, length: int) -> bool:
    return len(digits) == length and len(set(digits)) > 1 and _reference_check_digits(digits) == digits[-2:]


def _reference_parse(value: str) -> tuple[str, str]:
    """Section 5: only the ASCII digits count; 11 is a CPF, 14 a CNPJ, any other count is the
    wrong type; all digits the same, or a wrong check digit, is an invalid document."""
    digits = "".join(ch for ch in value if ch in "0123456789")
    kinds = {11: "cpf", 14: "cnpj"}
    if len(digits) not in kinds:
        raise InvalidDocumentType(field="document")
    if not _reference_valid(digits, len(digits)):
        raise InvalidDocument(field="document")
    return kinds[len(digits)], digits


def _reference_construct(kind: str, number: str) -> tuple[str, str]:
    lengths = {"cpf": 11, "cnpj": 14}
    if kind not in lengths or len(number) != lengths[kind] or any(ch not in "0123456789" for ch in number):
        raise InvalidDocumentType(field="document")
    if not _reference_valid(number, lengths[kind]):
        raise InvalidDocument(field="document")
    return kind, number


def _outcome(make: object, *args: str) -> tuple[str, ...]:
    """What a call gives, comparable: the document's fields, or the error's class and fields."""
    try:
        result = make(*args)  # type: ignore[operator]
    except (InvalidDocument, InvalidDocumentType) as error:
        return type(error).__name__, error.code, error.message, str(error.field), str(error)
    if isinstance(result, Document):
        assert type(result) is Document
        return "ok", result.kind, result.number
    return ("ok", *result)


_NEAR_DIGITS = "0123456789" + "0123456789" + " .-/\t()a٣²０"


@st.composite
def near_documents(draw: st.DrawFn) -> str:
    """Text close to a document: valid, one digit changed, a digit more or less, noisy."""
    number = draw(st.one_of(valid_documents, _digits(11), _digits(14), _digits(10), _digits(12), _digits(15)))
    if draw(st.booleans()) and number:
        # One digit changed, sometimes to a digit that is not ASCII (str.isdigit() holds for it).
        position = draw(st.integers(0, len(number) - 1))
        number = number[:position] + draw(st.sampled_from("0123456789٣²０𝟗")) + number[position + 1 :]
    if draw(st.booleans()):
        number = draw(st.sampled_from(["", "0", "00"])) + number + draw(st.sampled_from(["", "1", "99"]))
    if draw(st.booleans()):
        noise = st.text(alphabet=_NEAR_DIGITS[20:], max_size=2)
        number = draw(noise) + "".join(ch + draw(noise) for ch in number)
    return number


any_text = st.one_of(st.text(), st.text(alphabet=_NEAR_DIGITS, max_size=20), near_documents())


@given(any_text)
def test_parse_follows_the_rules_for_any_text(value: str) -> None:
    assert _outcome(Document.parse, value) == _outcome(_reference_parse, value)


@given(any_text)
def test_validity_checks_follow_the_rules_for_any_text(value: str) -> None:
    digits = "".join(ch for ch in value if ch in "0123456789")
    assert is_valid_cpf(value) == _reference_valid(digits, 11)
    assert is_valid_cnpj(value) == _reference_valid(digits, 14)


@given(st.one_of(st.sampled_from(["cpf", "cnpj"]), st.text(max_size=5)), any_text)
def test_the_constructor_follows_the_rules_for_any_fields(kind: str, number: str) -> None:
    assert _outcome(Document, kind, number) == _outcome(_reference_construct, kind, number)


@given(valid_documents)
def test_a_parsed_document_is_the_constructed_one(number: str) -> None:
    parsed, built = Document.parse(number), Document("cpf" if len(number) == 11 else "cnpj", number)
    assert parsed == built and hash(parsed) == hash(built) and repr(parsed) == repr(built)
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.kind = "cnpj"  # type: ignore[misc]


def test_every_cpf_base_check_digit_pair_agrees_with_the_rules() -> None:
    # Exhaustive over the check digits of a spread of bases: all 100 endings of each.
    for base in ("000000001", "529982247", "111444777", "067079161", "999999998", "123456789"):
        for ending in range(100):
            number = f"{base}{ending:02d}"
            assert is_valid_cpf(number) == _reference_valid(number, 11), number
    for base in ("000000000001", "112223330001", "114447770001", "999999999998", "123456789012"):
        for ending in range(100):
            number = f"{base}{ending:02d}"
            assert is_valid_cnpj(number) == _reference_valid(number, 14), number


@given(_digits(9), _digits(12))
def test_the_check_digits_made_for_any_base_follow_the_rules(cpf_base: str, cnpj_base: str) -> None:
    # They share their arithmetic with the validity checks: held here to the reference on their own.
    assert cpf_check_digits(cpf_base) == _reference_check_digits(cpf_base + "00")
    assert cnpj_check_digits(cnpj_base) == _reference_check_digits(cnpj_base + "00")

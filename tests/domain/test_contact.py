"""E-mail and phone rules of the specification (section 5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bemtevi.domain.contact import is_valid_email, normalise_email, normalise_phone
from bemtevi.domain.errors import InvalidEmail, InvalidPhone


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ana@example.com", "ana@example.com"),
        ("  Ana.Silva@Example.COM.BR ", "ana.silva@example.com.br"),
        ("joao_souza-01@mail.empresa.info", "joao_souza-01@mail.empresa.info"),
        ("x@y.io", "x@y.io"),
        ("ana@example.comp", "ana@example.comp"),  # 4-letter ending
        ("ana@example.com\n", "ana@example.com"),  # surrounding white space is trimmed
        ("user@sub-domain.example.org", "user@sub-domain.example.org"),
    ],
)
def test_valid_emails(value: str, expected: str) -> None:
    assert is_valid_email(value)
    assert normalise_email(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "ana.example.com",  # no @
        "ana@",
        "@example.com",
        "ana@example",  # no ending
        "ana@example.abcde",  # 5-letter ending
        "ana@example.c",  # 1-letter ending
        "ana@example.c0m",  # digit in ending
        "ana silva@example.com",  # space inside
        "ana@exa mple.com",
        "ana@@example.com",
        "ana@example..com",
        "ana+tag@example.com",  # '+' is not an allowed character
        "ana@example.com\nx",
        "ána@example.com",
    ],
)
def test_invalid_emails(value: str) -> None:
    assert not is_valid_email(value)
    with pytest.raises(InvalidEmail) as info:
        normalise_email(value)
    assert info.value.field == "email"
    assert info.value.message == "Invalid email"


_local = st.text(alphabet="abcXYZ019._-", min_size=1, max_size=12)
_label = st.text(alphabet="abcXYZ019-", min_size=1, max_size=8)
_ending = st.text(alphabet="abcdeXYZ", min_size=2, max_size=4)


@given(_local, st.lists(_label, min_size=1, max_size=3), _ending, st.text(alphabet=" \t", max_size=2))
def test_generated_emails_are_accepted_and_normalisation_is_idempotent(
    local: str, labels: list[str], ending: str, pad: str
) -> None:
    email = pad + local + "@" + ".".join(labels) + "." + ending + pad
    normalised = normalise_email(email)
    assert normalised == email.strip().lower()
    assert normalise_email(normalised) == normalised


@given(st.text(max_size=30))
def test_normalisation_is_idempotent_or_refuses(value: str) -> None:
    try:
        normalised = normalise_email(value)
    except InvalidEmail:
        assert not is_valid_email(value)
    else:
        assert is_valid_email(value)
        assert normalise_email(normalised) == normalised


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1133334444", "1133334444"),
        ("11987654321", "11987654321"),
        ("(11) 98765-4321", "11987654321"),
        ("(11) 3333-4444", "1133334444"),
        ("+55 11 98765-4321", "5511987654321"),
        ("+55 (11) 3333-4444", "551133334444"),
    ],
)
def test_valid_phones(value: str, expected: str) -> None:
    assert normalise_phone(value) == expected


@pytest.mark.parametrize(
    "value",
    ["", "987654321", "(11) 8765-432", "phone", "12345678901234", "441133334444", "4411987654321"],
)
def test_invalid_phones(value: str) -> None:
    with pytest.raises(InvalidPhone) as info:
        normalise_phone(value)
    assert info.value.field == "phone"


@given(st.text(alphabet="0123456789", min_size=10, max_size=11), st.data())
def test_phone_punctuation_is_stripped(digits: str, data: st.DataObject) -> None:
    noise = st.text(alphabet=" ()-.+", max_size=2)
    noisy = "".join(data.draw(noise) + ch for ch in digits) + data.draw(noise)
    assert normalise_phone(noisy) == digits

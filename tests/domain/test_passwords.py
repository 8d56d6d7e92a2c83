"""Password policy and generator (specification, section 5)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.domain.errors import PasswordsDoNotMatch, WeakPassword
from bemtevi.domain.passwords import (
    GENERATED_PASSWORD_ALPHABET,
    GENERATED_PASSWORD_LENGTH,
    PASSWORD_MIN_LENGTH,
    check_new_password,
    generate_password,
    password_is_strong,
)


@pytest.mark.parametrize(
    ("password", "strong"),
    [
        ("Abcdef1!", True),  # exactly 8
        ("Abcde1!", False),  # 7 characters
        ("abcdef1!", False),  # no upper case
        ("ABCDEF1!", False),  # no lower case
        ("Abcdefg!", False),  # no digit
        ("Abcdefg1", False),  # no special character
        ("Abcdef 1", False),  # a space is not a special character
        ("Senha.Forte2024", True),
        ("Ção-Pão9x", True),  # non-ASCII letters count
        ("P@ssw0rd-with-a-long-tail", True),
        ("", False),
    ],
)
def test_policy(password: str, strong: bool) -> None:
    assert password_is_strong(password) is strong


def test_check_new_password() -> None:
    check_new_password("Abcdef1!")
    check_new_password("Abcdef1!", "Abcdef1!")
    with pytest.raises(WeakPassword) as weak:
        check_new_password("abc", "abc")
    assert weak.value.field == "password"
    assert weak.value.message == "Your password is weak"
    with pytest.raises(PasswordsDoNotMatch) as mismatch:
        check_new_password("Abcdef1!", "Abcdef1?")
    assert mismatch.value.field == "confirmation"
    assert mismatch.value.message == "Passwords do not match"


def test_constants() -> None:
    assert PASSWORD_MIN_LENGTH == 8
    assert GENERATED_PASSWORD_LENGTH == 12
    assert set("!@#$%^&*()") <= set(GENERATED_PASSWORD_ALPHABET)


def test_default_generated_password() -> None:
    password = generate_password()
    assert len(password) == GENERATED_PASSWORD_LENGTH
    assert password_is_strong(password)


def test_generator_refuses_lengths_that_cannot_be_strong() -> None:
    with pytest.raises(ValueError):
        generate_password(PASSWORD_MIN_LENGTH - 1)


@settings(max_examples=examples(300))
@given(st.integers(min_value=PASSWORD_MIN_LENGTH, max_value=64))
def test_every_generated_password_is_strong(length: int) -> None:
    password = generate_password(length)
    assert len(password) == length
    assert set(password) <= set(GENERATED_PASSWORD_ALPHABET)
    assert password_is_strong(password)
    check_new_password(password, password)


def test_generated_passwords_differ() -> None:
    assert len({generate_password() for _ in range(50)}) == 50

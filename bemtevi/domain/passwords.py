"""The password policy and the random password generator (specification, section 5).

A new password has at least 8 characters, among them a digit, a special character (anything
that is neither a letter, a digit nor white space), a lower-case and an upper-case letter.
"""

from __future__ import annotations

import secrets
import string

from bemtevi.domain.errors import PasswordsDoNotMatch, WeakPassword

PASSWORD_MIN_LENGTH = 8
# The stored hash of a user who has no password yet (an invited owner): no password verifies against it
# (it is not an argon2 hash), so nobody signs in as them until they choose one from their invitation.
NO_PASSWORD_HASH = "!"
GENERATED_PASSWORD_LENGTH = 12
GENERATED_PASSWORD_SPECIALS = "!@#$%^&*()"
GENERATED_PASSWORD_ALPHABET = string.ascii_letters + string.digits + GENERATED_PASSWORD_SPECIALS

_GENERATED_CLASSES = (
    string.ascii_lowercase,
    string.ascii_uppercase,
    string.digits,
    GENERATED_PASSWORD_SPECIALS,
)


def _is_special(ch: str) -> bool:
    return not ch.isalnum() and not ch.isspace()


def password_is_strong(value: str) -> bool:
    """Whether ``value`` satisfies the password policy."""
    return (
        len(value) >= PASSWORD_MIN_LENGTH
        and any(ch.isdigit() for ch in value)
        and any(_is_special(ch) for ch in value)
        and any(ch.islower() for ch in value)
        and any(ch.isupper() for ch in value)
    )


def check_new_password(password: str, confirmation: str | None = None) -> None:
    """Refuse a weak password (``WeakPassword``), then a confirmation that differs from it
    (``PasswordsDoNotMatch``); ``None`` means no confirmation was asked for."""
    if not password_is_strong(password):
        raise WeakPassword(field="password")
    if confirmation is not None and not secrets.compare_digest(password.encode("utf-8"), confirmation.encode("utf-8")):
        raise PasswordsDoNotMatch(field="confirmation")


def generate_password(length: int = GENERATED_PASSWORD_LENGTH) -> str:
    """A random password of ``length`` characters from ``GENERATED_PASSWORD_ALPHABET`` that
    satisfies the policy (it always holds a character of each class)."""
    if length < PASSWORD_MIN_LENGTH:
        raise ValueError(f"a generated password needs at least {PASSWORD_MIN_LENGTH} characters")
    chars = [secrets.choice(cls) for cls in _GENERATED_CLASSES]
    chars += [secrets.choice(GENERATED_PASSWORD_ALPHABET) for _ in range(length - len(chars))]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)

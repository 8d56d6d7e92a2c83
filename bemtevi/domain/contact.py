"""E-mail addresses and phone numbers (specification, section 5)."""

from __future__ import annotations

import re

from bemtevi.domain.documents import only_digits
from bemtevi.domain.errors import InvalidCredentials, InvalidEmail, InvalidPhone

# Letters, digits, dot, underscore and hyphen; then "@"; a domain of one or more labels; then a
# dot and an ending of 2 to 4 letters. ASCII only.
_EMAIL = re.compile(r"[A-Za-z0-9._-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,4}")

PHONE_MIN_DIGITS = 10
PHONE_MAX_DIGITS = 13
PHONE_COUNTRY_PREFIX = "55"
_NATIONAL_MAX_DIGITS = 11


def is_valid_email(value: str) -> bool:
    """Whether ``value`` (surrounding spaces ignored) is an e-mail address of the accepted form."""
    return _EMAIL.fullmatch(value.strip()) is not None


def normalise_email(value: str) -> str:
    """The trimmed, lower-cased address; ``InvalidEmail`` when it is not of the accepted form."""
    email = value.strip()
    if _EMAIL.fullmatch(email) is None:
        raise InvalidEmail(field="email")
    return email.lower()


def normalise_phone(value: str) -> str:
    """The digits of a phone number; ``InvalidPhone`` unless it has 10 to 13 of them.

    Up to 11 digits is a national number (area code + number); 12 or 13 digits must start with
    the Brazilian country prefix 55.
    """
    digits = only_digits(value)
    if not PHONE_MIN_DIGITS <= len(digits) <= PHONE_MAX_DIGITS:
        raise InvalidPhone(field="phone")
    if len(digits) > _NATIONAL_MAX_DIGITS and not digits.startswith(PHONE_COUNTRY_PREFIX):
        raise InvalidPhone(field="phone")
    return digits


def email_key(email: str) -> str:
    """The sign-in key of an e-mail: trimmed and lower-cased.

    The specification's strict format (2-4 letter ending) applies to e-mails people type into
    registration forms; operator-configured addresses such as the default admin@bemtevi.local
    must still sign in, so the key itself is lenient.
    """
    value = email.strip().lower()
    if "@" not in value or value.startswith("@") or value.endswith("@"):
        raise InvalidCredentials()
    return value

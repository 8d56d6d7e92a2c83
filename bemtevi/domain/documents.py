"""Brazilian taxpayer documents: CPF (people) and CNPJ (companies).

Rules of the specification (section 5): punctuation is ignored (only the digits count); a CPF
has 11 digits, a CNPJ 14; a document whose digits are all the same is invalid; both check
digits must be right. A query document of the wrong length is an ``InvalidDocumentType``; one
of the right length that fails the other rules is an ``InvalidDocument``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from operator import mul
from typing import Literal

from bemtevi.domain.errors import InvalidDocument, InvalidDocumentType

DocumentKind = Literal["cpf", "cnpj"]

CPF_LENGTH = 11
CNPJ_LENGTH = 14

_NON_DIGITS = re.compile(r"[^0-9]")
_CNPJ_WEIGHTS_1 = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
_CNPJ_WEIGHTS_2 = (6, *_CNPJ_WEIGHTS_1)
_CPF_WEIGHTS_1 = tuple(range(10, 1, -1))
_CPF_WEIGHTS_2 = tuple(range(11, 1, -1))
# The weighted sums below run over the digits' ASCII codes (``ord("0")`` is 48): minus these.
_ZERO = ord("0")
_CPF_BIAS_1, _CPF_BIAS_2 = _ZERO * sum(_CPF_WEIGHTS_1), _ZERO * sum(_CPF_WEIGHTS_2)
_CNPJ_BIAS_1, _CNPJ_BIAS_2 = _ZERO * sum(_CNPJ_WEIGHTS_1), _ZERO * sum(_CNPJ_WEIGHTS_2)


def only_digits(value: str) -> str:
    """The ASCII digits of ``value``, in order (every other character is dropped)."""
    return _NON_DIGITS.sub("", value)


def _ascii_digits(value: str) -> bool:
    """Whether ``value`` is ASCII digits only (no regular expression: parsing is on every lookup)."""
    return value.isascii() and value.isdigit()


def _require_digits(value: str, length: int, what: str) -> None:
    if len(value) != length or not _ascii_digits(value):
        raise ValueError(f"{what} must be exactly {length} digits, got {value!r}")


# The check-digit arithmetic, shared by the functions that make check digits and the validity
# checks made on every lookup. It runs over the digits' ASCII codes (no list of ints, no
# generator: parsing a document costs about a third of what it did, see bench/hot_path_cpu.py);
# ``map`` stops at the weights, so the codes may run past the digits a check digit covers.
# tests/domain/test_documents.py compares the results with the rules for any input.


def _cpf_digit(codes: bytes, weights: tuple[int, ...], bias: int) -> int:
    # Remainder 10 gives check digit 0, so the check digit is the remainder modulo 10.
    return (sum(map(mul, codes, weights)) - bias) * 10 % 11 % 10


def _cnpj_digit(codes: bytes, weights: tuple[int, ...], bias: int) -> int:
    remainder = (sum(map(mul, codes, weights)) - bias) % 11
    return 0 if remainder < 2 else 11 - remainder


def cpf_check_digits(base9: str) -> str:
    """The two check digits of a CPF whose first nine digits are ``base9``."""
    _require_digits(base9, 9, "CPF base")
    codes = base9.encode("ascii")
    first = _cpf_digit(codes, _CPF_WEIGHTS_1, _CPF_BIAS_1)
    return f"{first}{_cpf_digit(codes + bytes((_ZERO + first,)), _CPF_WEIGHTS_2, _CPF_BIAS_2)}"


def cnpj_check_digits(base12: str) -> str:
    """The two check digits of a CNPJ whose first twelve digits are ``base12``."""
    _require_digits(base12, 12, "CNPJ base")
    codes = base12.encode("ascii")
    first = _cnpj_digit(codes, _CNPJ_WEIGHTS_1, _CNPJ_BIAS_1)
    return f"{first}{_cnpj_digit(codes + bytes((_ZERO + first,)), _CNPJ_WEIGHTS_2, _CNPJ_BIAS_2)}"


def _cpf_digits_valid(digits: str) -> bool:
    """Whether 11 ASCII digits are a valid CPF (not all the same digit, both check digits right)."""
    if digits.count(digits[0]) == CPF_LENGTH:
        return False
    codes = digits.encode("ascii")
    return (
        _cpf_digit(codes, _CPF_WEIGHTS_1, _CPF_BIAS_1) == codes[9] - _ZERO
        and _cpf_digit(codes, _CPF_WEIGHTS_2, _CPF_BIAS_2) == codes[10] - _ZERO
    )


def _cnpj_digits_valid(digits: str) -> bool:
    """Whether 14 ASCII digits are a valid CNPJ (not all the same digit, both check digits right)."""
    if digits.count(digits[0]) == CNPJ_LENGTH:
        return False
    codes = digits.encode("ascii")
    return (
        _cnpj_digit(codes, _CNPJ_WEIGHTS_1, _CNPJ_BIAS_1) == codes[12] - _ZERO
        and _cnpj_digit(codes, _CNPJ_WEIGHTS_2, _CNPJ_BIAS_2) == codes[13] - _ZERO
    )


def is_valid_cpf(value: str) -> bool:
    """Whether ``value`` (punctuation allowed) is a valid CPF."""
    digits = only_digits(value)
    return len(digits) == CPF_LENGTH and _cpf_digits_valid(digits)


def is_valid_cnpj(value: str) -> bool:
    """Whether ``value`` (punctuation allowed) is a valid CNPJ."""
    digits = only_digits(value)
    return len(digits) == CNPJ_LENGTH and _cnpj_digits_valid(digits)


def format_cpf(digits: str) -> str:
    """``000.000.000-00``; ``digits`` may carry punctuation but must hold 11 digits."""
    d = only_digits(digits)
    _require_digits(d, CPF_LENGTH, "CPF")
    return f"{d[:3]}.{d[3:6]}.{d[6:9]}-{d[9:]}"


def format_cnpj(digits: str) -> str:
    """``00.000.000/0000-00``; ``digits`` may carry punctuation but must hold 14 digits."""
    d = only_digits(digits)
    _require_digits(d, CNPJ_LENGTH, "CNPJ")
    return f"{d[:2]}.{d[2:5]}.{d[5:8]}/{d[8:12]}-{d[12:]}"


@dataclass(frozen=True, slots=True)
class Document:
    """A valid CPF or CNPJ; ``number`` holds the digits only."""

    kind: DocumentKind
    number: str

    def __post_init__(self) -> None:
        if self.kind == "cpf":
            expected_length, valid = CPF_LENGTH, _cpf_digits_valid
        elif self.kind == "cnpj":
            expected_length, valid = CNPJ_LENGTH, _cnpj_digits_valid
        else:
            raise InvalidDocumentType(field="document")
        if len(self.number) != expected_length or not _ascii_digits(self.number):
            raise InvalidDocumentType(field="document")
        if not valid(self.number):
            raise InvalidDocument(field="document")

    @classmethod
    def parse(cls, value: str) -> Document:
        """Read a CPF (11 digits) or CNPJ (14 digits), ignoring punctuation and spaces.

        Raises ``InvalidDocumentType`` when the digit count is neither, and
        ``InvalidDocument`` when the count is right but the document is not valid.
        """
        # Bare digits (what API clients mostly send) need no regular expression.
        digits = value if type(value) is str and _ascii_digits(value) else only_digits(value)
        length = len(digits)
        if length == CPF_LENGTH:
            kind: DocumentKind = "cpf"
            valid = _cpf_digits_valid(digits)
        elif length == CNPJ_LENGTH:
            kind = "cnpj"
            valid = _cnpj_digits_valid(digits)
        else:
            raise InvalidDocumentType(field="document")
        if not valid:
            raise InvalidDocument(field="document")
        if cls is not Document:
            return cls(kind, digits)
        # Checked just above: made without the constructor's checks (once more the same work).
        document = _new_document(Document)
        _set_kind(document, kind)
        _set_number(document, digits)
        return document

    @property
    def formatted(self) -> str:
        return format_cpf(self.number) if self.kind == "cpf" else format_cnpj(self.number)

    def __str__(self) -> str:
        return self.number


_new_document = object.__new__
# The slots' own setters: they write a frozen instance's fields, as the dataclass's __init__ does.
_set_kind = Document.__dict__["kind"].__set__
_set_number = Document.__dict__["number"].__set__

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
_ASCII_DIGITS = re.compile(r"[0-9]*")
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


def _require_digits(value: str, length: int, what: str) -> None:
    if len(value) != length or only_digits(value) != value:
        raise ValueError(f"{what} must be exactly {length} digits, got {value!r}")


def cpf_check_digits(base9: str) -> str:
    """The two check digits of a CPF whose first nine digits are ``base9``."""
    _require_digits(base9, 9, "CPF base")
    digits = [int(ch) for ch in base9]
    for _ in range(2):
        total = sum(d * w for d, w in zip(digits, range(len(digits) + 1, 1, -1), strict=True))
        remainder = (total * 10) % 11
        digits.append(0 if remainder == 10 else remainder)
    return f"{digits[-2]}{digits[-1]}"


def cnpj_check_digits(base12: str) -> str:
    """The two check digits of a CNPJ whose first twelve digits are ``base12``."""
    _require_digits(base12, 12, "CNPJ base")
    digits = [int(ch) for ch in base12]
    for weights in (_CNPJ_WEIGHTS_1, _CNPJ_WEIGHTS_2):
        remainder = sum(d * w for d, w in zip(digits, weights, strict=True)) % 11
        digits.append(0 if remainder < 2 else 11 - remainder)
    return f"{digits[-2]}{digits[-1]}"


# The checks of a whole number, made on every lookup: the arithmetic of the two functions above
# without their argument checks, lists and generators (parsing a document costs about a third of
# what it did; see bench/hot_path_cpu.py). ``digits`` must be ASCII digits of the right length;
# tests/domain/test_documents.py compares the results with the rules for any input.


def _cpf_digits_valid(digits: str) -> bool:
    """Whether 11 ASCII digits are a valid CPF (not all the same digit, both check digits right)."""
    if digits.count(digits[0]) == CPF_LENGTH:
        return False
    codes = digits.encode("ascii")
    # Remainder 10 gives check digit 0, so the check digit is the remainder modulo 10.
    if (sum(map(mul, codes, _CPF_WEIGHTS_1)) - _CPF_BIAS_1) * 10 % 11 % 10 != codes[9] - _ZERO:
        return False
    return (sum(map(mul, codes, _CPF_WEIGHTS_2)) - _CPF_BIAS_2) * 10 % 11 % 10 == codes[10] - _ZERO


def _cnpj_digits_valid(digits: str) -> bool:
    """Whether 14 ASCII digits are a valid CNPJ (not all the same digit, both check digits right)."""
    if digits.count(digits[0]) == CNPJ_LENGTH:
        return False
    codes = digits.encode("ascii")
    remainder = (sum(map(mul, codes, _CNPJ_WEIGHTS_1)) - _CNPJ_BIAS_1) % 11
    if (0 if remainder < 2 else 11 - remainder) != codes[12] - _ZERO:
        return False
    remainder = (sum(map(mul, codes, _CNPJ_WEIGHTS_2)) - _CNPJ_BIAS_2) % 11
    return (0 if remainder < 2 else 11 - remainder) == codes[13] - _ZERO


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
        if len(self.number) != expected_length or _ASCII_DIGITS.fullmatch(self.number) is None:
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
        digits = value if type(value) is str and value.isascii() and value.isdigit() else only_digits(value)
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

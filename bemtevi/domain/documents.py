"""Brazilian taxpayer documents: CPF (people) and CNPJ (companies).

Rules of the specification (section 5): punctuation is ignored (only the digits count); a CPF
has 11 digits, a CNPJ 14; a document whose digits are all the same is invalid; both check
digits must be right. A query document of the wrong length is an ``InvalidDocumentType``; one
of the right length that fails the other rules is an ``InvalidDocument``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bemtevi.domain.errors import InvalidDocument, InvalidDocumentType

DocumentKind = Literal["cpf", "cnpj"]

CPF_LENGTH = 11
CNPJ_LENGTH = 14

_NON_DIGITS = re.compile(r"[^0-9]")
_CNPJ_WEIGHTS_1 = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
_CNPJ_WEIGHTS_2 = (6, *_CNPJ_WEIGHTS_1)


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


def _all_same(digits: str) -> bool:
    return len(set(digits)) <= 1


def is_valid_cpf(value: str) -> bool:
    """Whether ``value`` (punctuation allowed) is a valid CPF."""
    digits = only_digits(value)
    if len(digits) != CPF_LENGTH or _all_same(digits):
        return False
    return cpf_check_digits(digits[:9]) == digits[9:]


def is_valid_cnpj(value: str) -> bool:
    """Whether ``value`` (punctuation allowed) is a valid CNPJ."""
    digits = only_digits(value)
    if len(digits) != CNPJ_LENGTH or _all_same(digits):
        return False
    return cnpj_check_digits(digits[:12]) == digits[12:]


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
            expected_length, valid = CPF_LENGTH, is_valid_cpf
        elif self.kind == "cnpj":
            expected_length, valid = CNPJ_LENGTH, is_valid_cnpj
        else:
            raise InvalidDocumentType(field="document")
        if len(self.number) != expected_length or only_digits(self.number) != self.number:
            raise InvalidDocumentType(field="document")
        if not valid(self.number):
            raise InvalidDocument(field="document")

    @classmethod
    def parse(cls, value: str) -> Document:
        """Read a CPF (11 digits) or CNPJ (14 digits), ignoring punctuation and spaces.

        Raises ``InvalidDocumentType`` when the digit count is neither, and
        ``InvalidDocument`` when the count is right but the document is not valid.
        """
        digits = only_digits(value)
        if len(digits) == CPF_LENGTH:
            return cls("cpf", digits)
        if len(digits) == CNPJ_LENGTH:
            return cls("cnpj", digits)
        raise InvalidDocumentType(field="document")

    @property
    def formatted(self) -> str:
        return format_cpf(self.number) if self.kind == "cpf" else format_cnpj(self.number)

    def __str__(self) -> str:
        return self.number

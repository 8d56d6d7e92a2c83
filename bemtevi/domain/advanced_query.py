"""The advanced query (issue 36): a search of people and companies by name, address, city, state, phones,
e-mail or birth date, then a charged opening of one result.

Pure rules: which criteria a search takes and how each is normalised (accents and case folded, phones as
bare digits, dates as ISO text), what a result list may show before a result is opened (``LIST_FIELDS``),
and the ``AdvancedSearch`` aggregate that records every search (who, which group, which criteria).
Charging is per opened result, one advanced credit, once per search and document
(``advanced_consultation_id``); the search itself is free (docs/architecture.md, "advanced query").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.advanced_errors import AdvancedCriteriaRequired, AdvancedCriterionTooShort
from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.errors import InvalidData, InvalidPhone

# The form's fields, in the order of the spec's route (advanced-query-result-list/:name?/...).
FIELDS = ("name", "address", "city", "state", "telephone", "cellphone", "email", "birth")
TEXT_FIELDS = ("name", "address", "city", "email")
# What a result list shows before a result is opened and charged: no phone, e-mail, address or birth date,
# and the document masked; ``ref`` names the row for opening it.
LIST_FIELDS = ("ref", "kind", "name", "maskedDocument", "city", "state")
CREDITS_PER_RESULT = 1
# At most this many matches are listed: a search that matches more asks for more criteria (a list of a million
# names helps no one, and the bound keeps every search's time bounded).
MAX_MATCHES = 1000
MIN_TERM = 3  # the index keeps the first 3 characters of every word (its prefix index)
_UF_TEXT = "AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO"
UFS = frozenset(_UF_TEXT.split(" "))
_SPACES = re.compile(r"\s+")
_NOT_DIGITS = re.compile(r"\D")
_BR_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_NAMESPACE = uuid5(NAMESPACE_URL, "https://bemtevi.example/advanced-query")


def fold(text: str) -> str:
    """Lower case, accents dropped, runs of blanks made one space: 'JOSÉ  da Conceição' -> 'jose da conceicao'."""
    # Lower case after the compatibility decomposition too: '𝑨' decomposes to 'A', which lower() had passed by.
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).lower())
    # Combining marks dropped; control and format characters (a NUL ends the index's query text) made blanks.
    bare = "".join(
        " " if unicodedata.category(ch).startswith("C") else ch for ch in decomposed if not unicodedata.combining(ch)
    )
    return _SPACES.sub(" ", bare).strip()


def phone_digits(text: str) -> str:
    """A Brazilian phone, formatted or not, as its area code and number (10 or 11 digits): '+55 (11) 98765-4321',
    '011 98765 4321' and '11987654321' are one number."""
    digits = _NOT_DIGITS.sub("", text).lstrip("0")  # a trunk or international prefix's zeros
    if len(digits) in (12, 13) and digits.startswith("55"):
        digits = digits[2:]
    if len(digits) not in (10, 11):
        raise InvalidPhone()
    return digits


def iso_birth(text: str) -> str:
    """A birth date typed as YYYY-MM-DD or DD/MM/YYYY, as YYYY-MM-DD."""
    text = text.strip()
    match = _BR_DATE.fullmatch(text)
    try:
        if match:
            day, month, year = (int(part) for part in match.groups())
            return date(year, month, day).isoformat()
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise InvalidData("Invalid birth date", field="birth") from None


def terms(folded: str) -> tuple[str, ...]:
    """The words a text criterion must all contain (partial words match: 'mar silv' finds 'Maria da Silva');
    words shorter than ``MIN_TERM`` ('da', 'de') are left out; a criterion with none longer is refused."""
    return tuple(w for w in folded.split() if len(w) >= MIN_TERM)


@dataclass(frozen=True, slots=True)
class AdvancedCriteria:
    """A search's criteria, normalised: text folded, state upper case, phones as digits, birth as ISO."""

    name: str | None = None
    address: str | None = None
    city: str | None = None
    state: str | None = None
    telephone: str | None = None
    cellphone: str | None = None
    email: str | None = None
    birth: str | None = None

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> AdvancedCriteria:
        """The form's values validated; refuses an empty form and criteria the index cannot match."""
        values: dict[str, str] = {}
        for name in FIELDS:
            value = raw.get(name)
            if value is None or not str(value).strip():
                continue
            text = str(value)
            if name in TEXT_FIELDS:
                folded = fold(text)
                if not terms(folded):
                    raise AdvancedCriterionTooShort(field=name)
                values[name] = folded
            elif name == "state":
                uf = fold(text).upper()
                if uf not in UFS:
                    raise InvalidData("Invalid state", field="state")
                values[name] = uf
            elif name in ("telephone", "cellphone"):
                try:
                    values[name] = phone_digits(text)
                except InvalidPhone:
                    raise InvalidPhone(field=name) from None
            else:
                values[name] = iso_birth(text)
        if not values:
            raise AdvancedCriteriaRequired()
        return cls(**values)

    def recorded(self) -> dict[str, str]:
        """The criteria as an event records them: only those given."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def mask_document(document: str, kind: str) -> str:
    """A CPF or CNPJ as a list shows it before the result is opened: only its middle digits."""
    if kind == "cpf" and len(document) == 11:
        return f"***.{document[3:6]}.{document[6:9]}-**"
    if kind == "cnpj" and len(document) == 14:
        return f"**.{document[2:5]}.{document[5:8]}/****-**"
    return "*" * len(document)


def advanced_consultation_id(search_id: UUID, document: str) -> UUID:
    """The consultation of a document opened from a search: one per search and document, so opening it again
    (a retry, a second tab) is charged once."""
    return uuid5(_NAMESPACE, f"{search_id}:{document}")


class AdvancedSearch(AuditedAggregate):
    """One advanced search: who ran it for which group, with which criteria, and how many it matched. Its
    events are the record of the search (the criteria are personal data the customer typed)."""

    class Searched(AuditedAggregate.Created):
        group_id: UUID
        user_id: UUID | None
        criteria: dict[str, str]
        matches: int

    @event(Searched)
    def __init__(self, group_id: UUID, user_id: UUID | None, criteria: dict[str, str], matches: int) -> None:
        self.group_id = group_id
        self.user_id = user_id
        self.criteria = dict(criteria)
        self.matches = matches

    def criteria_value(self) -> AdvancedCriteria:
        return AdvancedCriteria(**self.criteria)

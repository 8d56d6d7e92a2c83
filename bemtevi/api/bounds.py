"""Bounds of what a request may carry, defined once for every route and request model.

Every text of a request is one of these types (so it has a largest length in the schema and is
refused beyond it before any command runs), every list has a largest count, and every number a
range. Emptiness, formats and the product's own rules stay with the domain; these only keep
sizes sane (a 1 MB company name, or a page number past 64 bits, is invalid input, not data).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StringConstraints

from bemtevi.domain.consultations import PURPOSE_MAX

# A page number: (PAGE_MAX - 1) * the largest page size stays far inside the read side's 64-bit
# OFFSET, and no screen pages that far.
PAGE_MAX = 1_000_000
# Event-store positions are 64-bit.
POSITION_MAX = 2**63 - 1
# Credits granted, limited or moved at once; totals of many such stay inside 64-bit counters.
CREDITS_MAX = 1_000_000_000

PERSON_NAME_MAX = 120
COMPANY_NAME_MAX = 200
EMAIL_MAX = 254  # the longest address SMTP carries
PHONE_MAX = 30
DOCUMENT_MAX = 32  # a CPF or CNPJ, punctuation allowed
HOST_MAX = 253  # a domain name
KEY_MAX = 64  # ids, unique keys, codes, query-type keys, digests
PASSWORD_MAX = 200
TOKEN_MAX = 8_000  # a signed token (ours, or Google's ID token)
SHORT_TEXT_MAX = 120  # a few words: functions, a title, a colour, a filter
SEARCH_MAX = 100
TEXT_MAX = 1_000  # free text of a profile: a biography, a link
LIST_MAX = 100  # items of a list field (e.g. enabled query types)


PersonName = Annotated[str, StringConstraints(max_length=PERSON_NAME_MAX)]
CompanyName = Annotated[str, StringConstraints(max_length=COMPANY_NAME_MAX)]
Email = Annotated[str, StringConstraints(max_length=EMAIL_MAX)]
Phone = Annotated[str, StringConstraints(max_length=PHONE_MAX)]
DocumentText = Annotated[str, StringConstraints(max_length=DOCUMENT_MAX)]
HostName = Annotated[str, StringConstraints(max_length=HOST_MAX)]
Key = Annotated[str, StringConstraints(max_length=KEY_MAX)]
Password = Annotated[str, StringConstraints(max_length=PASSWORD_MAX)]
Token = Annotated[str, StringConstraints(max_length=TOKEN_MAX)]
ShortText = Annotated[str, StringConstraints(max_length=SHORT_TEXT_MAX)]
SearchText = Annotated[str, StringConstraints(max_length=SEARCH_MAX)]
Text = Annotated[str, StringConstraints(max_length=TEXT_MAX)]
# A consultation's purpose as typed: its blanks are folded before ``consultations.PURPOSE_MAX`` is checked, so the
# edge allows more (a text over the purpose's limit is refused with that limit, ``text_too_long``).
PurposeText = Annotated[str, StringConstraints(max_length=TEXT_MAX)]
PURPOSE_DESCRIPTION = (
    "What the consultation is for (LGPD art. 6 I), recorded with it and shown in the data-subject report: free text, "
    f"at most {PURPOSE_MAX} characters once its blanks are folded; required when the group says so "
    "(else `purpose_required`)"
)


def purpose_field() -> Any:
    """The optional ``purpose`` field of a request that looks documents up."""
    return Field(default=None, description=PURPOSE_DESCRIPTION)


Credits = Annotated[int, Field(ge=-CREDITS_MAX, le=CREDITS_MAX)]
CreditQuantity = Annotated[int, Field(ge=0, le=CREDITS_MAX)]

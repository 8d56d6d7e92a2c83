"""A customer (a group a parent registers) as the specification's sections 3 and 5 describe it."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from bemtevi.domain.contact import normalise_email, normalise_phone
from bemtevi.domain.documents import Document
from bemtevi.domain.errors import DefaultQueryRequired, InvalidData, ParentDoesNotAllow
from bemtevi.domain.groups import (
    ALLOW_CREATE_WHITE_LABEL,
    ALLOW_DELETE_CANCEL,
    ALLOW_UPLOAD_MANUAL,
    TOGGLES,
    GroupType,
)
from bemtevi.domain.query_types import Category

_SPACES = re.compile(r"\s+")


def name_key(name: str) -> str:
    """A company name as uniqueness sees it: case, accents and spacing do not make it new."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return _SPACES.sub(" ", folded).strip().casefold()


@dataclass(frozen=True, slots=True)
class CustomerForm:
    group_type: GroupType
    cnpj: str
    company_name: str
    trade_name: str
    person_in_charge: str
    phone: str
    email: str
    default_query: bool
    consult_protest: bool
    enabled_query_types: tuple[str, ...]
    panel_access: bool
    api_access: bool
    quantities: dict[Category, int] = field(default_factory=dict)
    seller: str | None = None
    white_label_url: str | None = None
    # Layout ids the customer may use (never beyond its parent's); None on an edit: unchanged.
    enabled_layouts: tuple[str, ...] | None = None

    def validated(self) -> CustomerForm:
        """The form with values normalised; the first broken rule raises with its field."""

        def required(value: str, name: str) -> str:
            text = value.strip()
            if not text:
                raise InvalidData("Invalid data structure: missing required fields", field=name)
            return text

        document = Document.parse(required(self.cnpj, "cnpj"))
        if document.kind != "cnpj":
            raise InvalidData("The informed document is invalid", field="cnpj")
        company_name = required(self.company_name, "companyName")
        trade_name = required(self.trade_name, "tradeName")
        person = required(self.person_in_charge, "personInCharge")
        phone = normalise_phone(required(self.phone, "phone"))
        email = normalise_email(required(self.email, "email"))
        if not self.enabled_query_types:
            raise InvalidData("At least one default query required", field="enabledQueryTypes")
        if not (self.panel_access or self.api_access):
            raise InvalidData("Select at least one of panel or API", field="access")
        for category, amount in self.quantities.items():
            if amount < 0:
                raise InvalidData("A quantity cannot be negative", field=f"quantities.{category.value}")
        url = (self.white_label_url or "").strip() or None
        if self.group_type == GroupType.WHITE_LABEL and url is None:
            raise InvalidData("Invalid data structure: missing required fields", field="whiteLabelUrl")
        return CustomerForm(
            group_type=self.group_type,
            cnpj=document.number,
            company_name=company_name,
            trade_name=trade_name,
            person_in_charge=person,
            phone=phone,
            email=email,
            default_query=self.default_query,
            consult_protest=self.consult_protest,
            enabled_query_types=tuple(dict.fromkeys(self.enabled_query_types)),
            panel_access=self.panel_access,
            api_access=self.api_access,
            quantities={c: self.quantities.get(c, 0) for c in Category},
            seller=(self.seller or "").strip() or None,
            white_label_url=url,
            enabled_layouts=None if self.enabled_layouts is None else tuple(dict.fromkeys(self.enabled_layouts)),
        )

    def profile(self) -> dict[str, Any]:
        """What the group keeps of the form besides name, type, domain and query types."""
        return {
            "tradeName": self.trade_name,
            "personInCharge": self.person_in_charge,
            "phone": self.phone,
            "email": self.email,
            "seller": self.seller,
            "defaultQuery": self.default_query,
            "consultProtest": self.consult_protest,
            "panelAccess": self.panel_access,
            "apiAccess": self.api_access,
        }


def consults_protests(profile: dict[str, Any] | None) -> bool:
    """The form's "consult protest": off, the group's lookups answer no protests (a group registered without
    the flag, as the root, had them)."""
    return (profile or {}).get("consultProtest") is not False


def uses_default_query(profile: dict[str, Any] | None) -> bool:
    """The form's "default query": on, a lookup that names no query type runs the document's default one; off,
    the group's users choose the type of each lookup (a group registered without the flag had the default)."""
    return (profile or {}).get("defaultQuery") is not False


def without_protests(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A lookup's result as a group that does not consult protests sees it: no protests at all (not an empty
    list, which would say "nothing on record")."""
    if result is None or "protests" not in result:
        return result
    return {k: v for k, v in result.items() if k != "protests"}


def check_default_query(form: CustomerForm, defaults: frozenset[str]) -> None:
    """A group set to use a default query must be given one of the catalogue's default types (``defaults``)."""
    if form.default_query and not defaults.intersection(form.enabled_query_types):
        raise DefaultQueryRequired(field="enabledQueryTypes")


# Which types of customer a parent of each type may register.
MAY_REGISTER: dict[GroupType, frozenset[GroupType]] = {
    GroupType.WHITE_LABEL: frozenset(GroupType),
    GroupType.RESELLER: frozenset({GroupType.RESELLER, GroupType.COMPANY}),
    GroupType.COMPANY: frozenset(),
}


TOGGLE_LABELS = {
    ALLOW_CREATE_WHITE_LABEL: "creating white-label companies",
    ALLOW_UPLOAD_MANUAL: "Manual Query",
    ALLOW_DELETE_CANCEL: "cancelling or deleting batch queries",
}


def checked_toggles(
    requested: dict[str, bool] | None, parent: dict[str, bool], defaults: dict[str, bool]
) -> dict[str, bool]:
    """The child's toggles: unknown names refused, none beyond the parent's (a clear refusal)."""
    values = dict(defaults)
    for name, value in (requested or {}).items():
        if name not in TOGGLES:
            raise InvalidData("Unknown permission", field=f"toggles.{name}")
        values[name] = bool(value)
    for name in TOGGLES:
        if values[name] and not parent.get(name, False):
            raise ParentDoesNotAllow(f"Parent group does not allow {TOGGLE_LABELS[name]}", field=f"toggles.{name}")
    return values

"""Query types: the catalogue of lookups a tenant may run (specification sections 3 to 5).

A query type is an aggregate (``QueryTypeDefinition``, id uuid5 of its key) with the
specification's fields: name (at least 3 characters), description, icon, identification badge,
the phone / CPF / CNPJ / benefit / status toggles, the default flag, the result component, and
cache and validity days (cache never beyond validity). ``QueryTypeDefaults`` (one aggregate) names
the default query type of each document kind and every key of the catalogue; it is saved with every
query type change, so "at least one default" holds under concurrency (two changes collide on its
version). The two types the first cut shipped are the seeded catalogue (``SEEDED``, created at
bootstrap with the same keys, so groups' enabled types stay valid).

What the write side reads of it is ``QueryType`` (a frozen value) through one interface,
``QueryTypeCatalogue`` (``get(key)``, ``default_for(kind)``): ``choose_query_type`` decides which
type a lookup runs on it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any, Literal, Protocol
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.errors import (
    CacheExceedsValidity,
    DefaultQueryRequired,
    InvalidData,
    NameTooShort,
    QueryNotAllowed,
    QueryNotFound,
    QueryTypeInactive,
    RequiredField,
)

DocumentKind = Literal["cpf", "cnpj"]
DOCUMENT_KINDS: tuple[DocumentKind, ...] = ("cpf", "cnpj")


class Category(StrEnum):
    """Credit categories of the specification (section 9)."""

    UNIT = "unit"
    ADVANCED = "advanced"
    BATCH = "batch"
    API = "api"


# The result screens the web app has: a person's report and a company's.
COMPONENTS = ("person", "company")
TOGGLE_NAMES = ("phone", "cpf", "cnpj", "benefit", "status")
MAX_DAYS = 3650


@dataclass(frozen=True, slots=True)
class QueryType:
    """A query type as a lookup reads it (the write side's view of the catalogue)."""

    key: str
    name: str
    # The document its lookups take first (a type taking both answers for either).
    document_kind: DocumentKind
    component: str
    cache_days: int
    validity_days: int
    description: str = ""
    icon: str = ""
    badge: str = ""
    toggles: dict[str, bool] = field(default_factory=dict)
    default: bool = False
    active: bool = True

    def takes(self, kind: DocumentKind) -> bool:
        if self.toggles:
            return bool(self.toggles.get(kind))
        return kind == self.document_kind


def _toggles(kind: DocumentKind) -> dict[str, bool]:
    return {"phone": True, "cpf": kind == "cpf", "cnpj": kind == "cnpj", "benefit": False, "status": True}


PERSON_COMPLETE = QueryType(
    "cpf-complete",
    "Pessoa física completa",
    "cpf",
    "person",
    30,
    90,
    description="Cadastro, endereços, telefones, participações societárias, renda, score e óbito",
    icon="person",
    badge="PF",
    toggles=_toggles("cpf"),
    default=True,
)
COMPANY_COMPLETE = QueryType(
    "cnpj-complete",
    "Pessoa jurídica completa",
    "cnpj",
    "company",
    30,
    90,
    description="Cadastro da Receita Federal, endereço, telefones, sócios e situação",
    icon="business",
    badge="PJ",
    toggles=_toggles("cnpj"),
    default=True,
)
# The seeded catalogue: created at bootstrap, with the keys groups have enabled since the first cut.
SEEDED: tuple[QueryType, ...] = (PERSON_COMPLETE, COMPANY_COMPLETE)
SEEDED_KEYS: tuple[str, ...] = tuple(q.key for q in SEEDED)

_NAMESPACE = uuid5(NAMESPACE_URL, "https://bemtevi.example/query-type")
DEFAULTS_ID = uuid5(_NAMESPACE, "defaults")


@lru_cache(maxsize=4096)
def query_type_id(key: str) -> UUID:
    """A type's aggregate id from its key (remembered: a lookup asks it several times, and uuid5 hashes)."""
    return uuid5(_NAMESPACE, key)


_NOT_KEY = re.compile(r"[^a-z0-9]+")


def key_for(name: str) -> str:
    """A new type's key from its name: lower-case ASCII words joined by hyphens (fixed once created)."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return _NOT_KEY.sub("-", folded).strip("-")[:60] or "query"


# -- the form ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QueryTypeForm:
    """What add and edit send; ``validated`` raises the first broken rule with its field."""

    name: str
    description: str
    icon: str
    badge: str
    toggles: dict[str, bool]
    default: bool
    component: str
    cache_days: int | None
    validity_days: int | None

    def validated(self) -> QueryTypeForm:
        name = self.name.strip()
        if len(name) < 3:
            raise NameTooShort(field="name")
        texts = {}
        for field_name in ("badge", "icon", "description"):
            text = getattr(self, field_name).strip()
            if not text:
                raise RequiredField(field=field_name)
            texts[field_name] = text
        if self.component not in COMPONENTS:
            raise InvalidData("Invalid data structure: missing required fields", field="component")
        toggles = {t: bool(self.toggles.get(t, False)) for t in TOGGLE_NAMES}
        if not (toggles["cpf"] or toggles["cnpj"]):
            raise InvalidData("A query type takes a CPF, a CNPJ or both", field="cpf")
        for field_name, days in (("cacheDays", self.cache_days), ("validityDays", self.validity_days)):
            if days is None:
                raise RequiredField(field=field_name)
            if not 0 <= days <= MAX_DAYS:
                raise InvalidData(f"Days must be between 0 and {MAX_DAYS}", field=field_name)
        assert self.cache_days is not None and self.validity_days is not None
        if self.cache_days > self.validity_days:
            raise CacheExceedsValidity(field="cacheDays")
        return QueryTypeForm(
            name=name,
            description=texts["description"],
            icon=texts["icon"],
            badge=texts["badge"],
            toggles=toggles,
            default=self.default,
            component=self.component,
            cache_days=self.cache_days,
            validity_days=self.validity_days,
        )

    def definition(self) -> dict[str, Any]:
        """The fields an event records (``default`` apart: the defaults aggregate decides it)."""
        return {
            "name": self.name,
            "description": self.description,
            "icon": self.icon,
            "badge": self.badge,
            "toggles": dict(self.toggles),
            "component": self.component,
            "cache_days": self.cache_days,
            "validity_days": self.validity_days,
        }


def form_of(query_type: QueryType) -> QueryTypeForm:
    return QueryTypeForm(
        name=query_type.name,
        description=query_type.description,
        icon=query_type.icon,
        badge=query_type.badge,
        toggles=dict(query_type.toggles),
        default=query_type.default,
        component=query_type.component,
        cache_days=query_type.cache_days,
        validity_days=query_type.validity_days,
    )


# -- aggregates --------------------------------------------------------------------------------


class QueryTypeDefinition(AuditedAggregate):
    """One query type of the catalogue; every event carries the whole definition it leaves."""

    class Created(AuditedAggregate.Created):
        key: str
        definition: dict[str, Any]

    @event(Created)
    def __init__(self, key: str, definition: dict[str, Any]) -> None:
        self.key = key
        self.definition = dict(definition)
        self.active = True
        self.default = False

    @staticmethod
    def create_id(key: str, definition: dict[str, Any]) -> UUID:
        return query_type_id(key)

    class Edited(AuditedAggregate.Event):
        definition: dict[str, Any]

    @event(Edited)
    def edit(self, definition: dict[str, Any]) -> None:
        self.definition = dict(definition)

    class DefaultChanged(AuditedAggregate.Event):
        default: bool

    @event(DefaultChanged)
    def set_default(self, default: bool) -> None:
        self.default = default

    class Activated(AuditedAggregate.Event):
        pass

    @event(Activated)
    def activate(self) -> None:
        self.active = True

    class Inactivated(AuditedAggregate.Event):
        pass

    @event(Inactivated)
    def inactivate(self) -> None:
        self.active = False

    def value(self) -> QueryType:
        d = self.definition
        toggles = {t: bool(d["toggles"].get(t)) for t in TOGGLE_NAMES}
        return QueryType(
            key=self.key,
            name=d["name"],
            document_kind="cpf" if toggles["cpf"] else "cnpj",
            component=d["component"],
            cache_days=int(d["cache_days"]),
            validity_days=int(d["validity_days"]),
            description=d["description"],
            icon=d["icon"],
            badge=d["badge"],
            toggles=toggles,
            default=self.default,
            active=self.active,
        )


class QueryTypeDefaults(AuditedAggregate):
    """Every key of the catalogue and the default type of each document kind (one aggregate, id
    ``DEFAULTS_ID``): saved with each query type change, so two changes at once collide on it."""

    class Started(AuditedAggregate.Created):
        defaults: dict[str, str]

    @event(Started)
    def __init__(self, defaults: dict[str, str]) -> None:
        self.keys: list[str] = []
        self.defaults = dict(defaults)

    @staticmethod
    def create_id(defaults: dict[str, str]) -> UUID:
        return DEFAULTS_ID

    class Listed(AuditedAggregate.Event):
        key: str

    @event(Listed)
    def list_key(self, key: str) -> None:
        self.keys = [*self.keys, key]

    class DefaultsChanged(AuditedAggregate.Event):
        defaults: dict[str, str]

    @event(DefaultsChanged)
    def change_defaults(self, defaults: dict[str, str]) -> None:
        self.defaults = dict(defaults)


# -- the rules that cross query types -----------------------------------------------------------


def next_defaults(
    current: dict[str, str], key: str, takes: dict[str, bool], default: bool, active: bool
) -> dict[str, str]:
    """The defaults per document kind once ``key`` is saved with these toggles, flag and status.

    Setting the flag makes ``key`` the default of each kind it takes; clearing it (or inactivating it,
    or no longer taking a kind it was the default of) while it is some kind's default is refused: at
    least one default must always exist, so another type is made the default instead."""
    result = dict(current)
    for kind in DOCUMENT_KINDS:
        was_default = current.get(kind) == key
        if default and active and takes.get(kind):
            result[kind] = key
        elif was_default:
            raise DefaultQueryRequired(field="default")
    return result


# -- what the write side reads -----------------------------------------------------------------


class QueryTypeCatalogue(Protocol):
    """The one way the write side reads query types (the ledger's decision, a lookup's outcome)."""

    def get(self, key: str) -> QueryType:
        """The query type of ``key``, active or not; ``QueryNotFound`` when there is none."""
        ...

    def default_for(self, kind: DocumentKind) -> QueryType:
        """The default query type of a document kind; ``DefaultQueryNotFound`` when there is none."""
        ...


def choose_query_type(
    catalogue: QueryTypeCatalogue, requested: str | None, document_kind: DocumentKind, enabled: frozenset[str]
) -> QueryType:
    """The query type to run for a document, refusing what the tenant may not run."""
    if requested:
        query_type = catalogue.get(requested)
        if not query_type.takes(document_kind):
            raise QueryNotFound(field="query_type")
    else:
        query_type = catalogue.default_for(document_kind)
    if not query_type.active:
        raise QueryTypeInactive(field="query_type")
    if query_type.key not in enabled:
        raise QueryNotAllowed(field="query_type")
    return query_type

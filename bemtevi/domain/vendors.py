"""Suppliers reached over HTTP ("vendors"): their form, its rules, and the aggregate that keeps them.

The specification (sections 3-5) lists a supplier's fields: name, contact, route, URL, server, port,
HTTP method, authentication (basic with user and password, bearer token, token, prefix), embedded in
URL base, base complement, input type, request body JSON, allowed layouts and consultations, cache and
validity days. A request goes to ``<scheme of URL>://<server>:<port><path of URL><base complement><route>``;
``{document}`` in the route, the base complement or the body template is replaced by the document's
digits. With "embedded in URL base" the credential goes into the URL's path (``/<token>`` after the
base) instead of the Authorization header.

Secrets (the basic password, the token) never live here in plain text: the command seals them with
the server's key before an event is made, and the aggregate keeps only the sealed text
(``secrets_sealed``: the audit log hides fields named so). Which secrets are set is public ("set" /
"not set"), their values never are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cache
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.errors import (
    BearerTokenRequired,
    CacheExceedsValidity,
    InvalidData,
    InvalidRequestBody,
)

NAME_MIN = 3
MAX_DAYS = 3650
# The cap on a vendor's answer body (KB): its default, and the most a supplier may allow.
DEFAULT_MAX_BODY_KB = 1024
MAX_BODY_KB = 16 * 1024
# The secrets a supplier may hold, by the field the form sends them in.
SECRET_FIELDS = ("password", "token")
_NAMESPACE = UUID("5d3c3f1e-8f1b-4b53-9b0f-6a0f9e1e7a11")


class AuthMethod(StrEnum):
    BASIC = "basic"  # Authorization: Basic base64(username:password)
    BEARER = "bearer"  # Authorization: Bearer <token>
    TOKEN = "token"  # Authorization: <token>
    PREFIX = "prefix"  # Authorization: <prefix> <token>


class HttpMethod(StrEnum):
    GET = "GET"
    POST = "POST"


class InputType(StrEnum):
    """Which documents the supplier takes."""

    CPF = "cpf"
    CNPJ = "cnpj"
    BOTH = "both"


def _missing(name: str) -> InvalidData:
    return InvalidData("Invalid data structure: missing required fields", field=name)


@dataclass(frozen=True, slots=True)
class VendorForm:
    """What the add/edit supplier form sends (secrets: None keeps the stored one, "" clears it)."""

    name: str
    contact: str
    url: str
    server: str
    port: int | None
    route: str
    http_method: HttpMethod
    auth_method: AuthMethod
    input_type: InputType
    username: str = ""
    prefix: str = ""
    embedded_in_url_base: bool = False
    base_complement: str = ""
    request_body: str = ""
    allowed_layouts: tuple[str, ...] = ()
    allowed_query_types: tuple[str, ...] = ()
    cache_days: int | None = None
    validity_days: int | None = None
    max_body_kb: int = DEFAULT_MAX_BODY_KB
    password: str | None = None
    token: str | None = None

    def validated(self, stored_secrets: frozenset[str] = frozenset()) -> VendorForm:
        """The form normalised; the first broken rule raises with its field.

        ``stored_secrets`` names the secrets already kept (an edit may leave them out)."""

        def required(value: str, name: str) -> str:
            text = (value or "").strip()
            if not text:
                raise _missing(name)
            return text

        name = required(self.name, "name")
        if len(name) < NAME_MIN:
            raise InvalidData("Name must have at least 3 characters", field="name")
        contact = required(self.contact, "contact")
        url = required(self.url, "url")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise InvalidData("Invalid URL", field="url")
        server = required(self.server, "server")
        if any(c in server for c in "/:@ ?#"):
            raise InvalidData("Invalid server", field="server")
        if self.port is None:
            raise _missing("port")
        if not 1 <= self.port <= 65535:
            raise InvalidData("Invalid port", field="port")
        route = required(self.route, "route")
        if not route.startswith("/"):
            route = "/" + route
        complement = (self.base_complement or "").strip()
        if complement and not complement.startswith("/"):
            complement = "/" + complement
        if self.input_type is None:
            raise _missing("inputType")

        def secret(which: str) -> bool:
            value = getattr(self, which)
            return bool(value) or (value is None and which in stored_secrets)

        username = (self.username or "").strip()
        prefix = (self.prefix or "").strip()
        if self.auth_method == AuthMethod.BASIC:
            if not username:
                raise _missing("username")
            if not secret("password"):
                raise _missing("password")
        elif self.auth_method == AuthMethod.BEARER:
            if not secret("token"):
                raise BearerTokenRequired(field="token")
        else:
            if self.auth_method == AuthMethod.PREFIX and not prefix:
                raise _missing("prefix")
            if not secret("token"):
                raise _missing("token")
        body = (self.request_body or "").strip()
        if body:
            try:
                json.loads(body.replace("{document}", "00000000000"))
            except ValueError:
                raise InvalidRequestBody(field="requestBody") from None
        elif self.http_method == HttpMethod.POST:
            raise _missing("requestBody")
        if self.cache_days is None:
            raise _missing("cacheDays")
        if self.validity_days is None:
            raise _missing("validityDays")
        for days, days_field in ((self.cache_days, "cacheDays"), (self.validity_days, "validityDays")):
            if not 0 <= days <= MAX_DAYS:
                raise InvalidData(f"Days must be between 0 and {MAX_DAYS}", field=days_field)
        if not 1 <= self.max_body_kb <= MAX_BODY_KB:
            raise InvalidData(f"Answer size limit must be between 1 and {MAX_BODY_KB} KB", field="maxBodyKb")
        if self.cache_days > self.validity_days:
            raise CacheExceedsValidity(field="cacheDays")
        if not self.allowed_query_types:
            raise InvalidData("Select at least one consultation", field="allowedQueryTypes")
        return replace(
            self,
            name=name,
            contact=contact,
            url=url.rstrip("/"),
            server=server.lower(),
            route=route,
            base_complement=complement.rstrip("/"),
            username=username if self.auth_method == AuthMethod.BASIC else "",
            prefix=prefix if self.auth_method == AuthMethod.PREFIX else "",
            request_body=body,
            allowed_layouts=tuple(dict.fromkeys(s.strip() for s in self.allowed_layouts if s.strip())),
            allowed_query_types=tuple(dict.fromkeys(s.strip() for s in self.allowed_query_types if s.strip())),
        )

    def config(self) -> dict[str, Any]:
        """The plain (not secret) settings, as the events keep them."""
        return {
            "name": self.name,
            "contact": self.contact,
            "url": self.url,
            "server": self.server,
            "port": self.port,
            "route": self.route,
            "http_method": self.http_method.value,
            "auth_method": self.auth_method.value,
            "input_type": self.input_type.value,
            "username": self.username,
            "prefix": self.prefix,
            "embedded_in_url_base": self.embedded_in_url_base,
            "base_complement": self.base_complement,
            "request_body": self.request_body,
            "allowed_layouts": list(self.allowed_layouts),
            "allowed_query_types": list(self.allowed_query_types),
            "cache_days": self.cache_days,
            "validity_days": self.validity_days,
            "max_body_kb": self.max_body_kb,
        }


def name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


@cache
def vendor_list_id() -> UUID:
    """The one ``VendorList`` aggregate: which suppliers exist, in the order they were added."""
    return uuid5(_NAMESPACE, "vendor-list")


@dataclass(frozen=True, slots=True)
class VendorConfig:
    """A supplier as the HTTP adapter needs it: settings and opened secrets."""

    id: UUID
    version: int
    name: str
    url: str
    server: str
    port: int
    route: str
    http_method: str
    auth_method: str
    input_type: str
    username: str
    prefix: str
    embedded_in_url_base: bool
    base_complement: str
    request_body: str
    allowed_query_types: tuple[str, ...]
    cache_days: int
    validity_days: int
    max_body_kb: int = DEFAULT_MAX_BODY_KB
    password: str = field(default="", repr=False)
    token: str = field(default="", repr=False)

    def takes(self, document_kind: str) -> bool:
        return self.input_type in (InputType.BOTH.value, document_kind)


class Vendor(AuditedAggregate):
    """One HTTP supplier: its settings (``config``), sealed secrets, and whether it is active."""

    class Registered(AuditedAggregate.Created):
        config: dict[str, Any]
        secrets_sealed: dict[str, str]

    @event(Registered)
    def __init__(self, config: dict[str, Any], secrets_sealed: dict[str, str]) -> None:
        self.config = config
        self.secrets_sealed = secrets_sealed
        self.active = True

    class Edited(AuditedAggregate.Event):
        config: dict[str, Any]
        secrets_sealed: dict[str, str]

    @event(Edited)
    def edit(self, config: dict[str, Any], secrets_sealed: dict[str, str]) -> None:
        self.config = config
        self.secrets_sealed = secrets_sealed

    class StatusChanged(AuditedAggregate.Event):
        active: bool

    @event(StatusChanged)
    def set_active(self, active: bool) -> None:
        self.active = active

    @property
    def secrets_set(self) -> frozenset[str]:
        return frozenset(k for k, v in self.secrets_sealed.items() if v)


class VendorList(AuditedAggregate):
    """The suppliers in the order they were added (the order lookups try them in)."""

    class Started(AuditedAggregate.Created):
        pass

    @event(Started)
    def __init__(self) -> None:
        self.vendor_ids: list[UUID] = []

    @staticmethod
    def create_id() -> UUID:
        return vendor_list_id()

    class Added(AuditedAggregate.Event):
        vendor_id: UUID

    @event(Added)
    def add(self, vendor_id: UUID) -> None:
        self.vendor_ids.append(vendor_id)

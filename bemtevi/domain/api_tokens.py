"""ApiToken: an API client's credential for one group (specification sections 3 and 4: access key, access
token, status, query ids; generated, regenerated, activated, inactivated).

The access key is public (it names the token: the aggregate's id is uuid5 of it); the secret is shown once
and kept only as a keyed hash (HMAC-SHA256 with the server's key, ``infra.api_secrets``): a token is checked
on every API call, so the hash must be fast, and a keyed hash of a long random secret needs no password
hash's slowness to resist guessing. Every change is an event, so the audit log shows who did it.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.errors import InvalidData

_NAMESPACE = uuid5(NAMESPACE_URL, "https://bemtevi.example/api-tokens")
ACCESS_KEY_PREFIX = "bk_"
NAME_MAX = 80
# The most query types a token lists (a group has a few dozen at most).
QUERY_TYPES_MAX = 100


def api_token_id(access_key: str) -> UUID:
    """The token's aggregate id: found from the access key a client sends, without an index."""
    return uuid5(_NAMESPACE, access_key)


def split_access_token(text: str) -> tuple[str, str] | None:
    """``<access key>.<secret>`` (the access token as shown once) → its two parts; None when malformed."""
    key, dot, secret = text.partition(".")
    if not dot or not key.startswith(ACCESS_KEY_PREFIX) or not secret or len(text) > 200:
        return None
    return key, secret


@dataclass(frozen=True, slots=True)
class TokenLimits:
    """Requests a token may make per second and per day (None: the group's ceiling)."""

    per_second: int | None = None
    per_day: int | None = None


@dataclass(frozen=True, slots=True)
class TokenForm:
    """What an owner or admin sets on a token: its name, the query types it may run, its limits."""

    name: str
    query_types: tuple[str, ...]
    limits: TokenLimits = TokenLimits()

    def validated(self, enabled: frozenset[str], ceiling: TokenLimits) -> TokenForm:
        """The form with its name trimmed; refuses a type the group may not run and a limit above its ceiling."""
        name = self.name.strip()
        if not name or len(name) > NAME_MAX:
            raise InvalidData("Invalid data structure: missing required fields", field="name")
        types = tuple(dict.fromkeys(self.query_types))
        if not types:
            raise InvalidData("Select at least one query type", field="queryTypes")
        if len(types) > QUERY_TYPES_MAX:
            raise InvalidData("Too many query types", field="queryTypes")
        for key in types:
            if key not in enabled:
                raise InvalidData("Group does not have permission for this query type", field="queryTypes")
        limits = TokenLimits(
            _within(self.limits.per_second, ceiling.per_second, "limits.perSecond"),
            _within(self.limits.per_day, ceiling.per_day, "limits.perDay"),
        )
        return TokenForm(name, types, limits)


def _within(value: int | None, ceiling: int | None, field: str) -> int | None:
    if value is None:
        return ceiling
    if value < 1 or (ceiling is not None and value > ceiling):
        raise InvalidData("The limit must be between 1 and what the group allows", field=field)
    return value


class ApiToken(AuditedAggregate):
    class Generated(AuditedAggregate.Created):
        group_id: UUID
        name: str
        access_key: str
        secret_hash: str
        query_types: list[str]
        created_by: UUID | None
        per_second: int | None
        per_day: int | None

    @event(Generated)
    def __init__(
        self,
        group_id: UUID,
        name: str,
        access_key: str,
        secret_hash: str,
        query_types: list[str],
        created_by: UUID | None,
        per_second: int | None,
        per_day: int | None,
    ) -> None:
        self.group_id = group_id
        self.name = name
        self.access_key = access_key
        self.secret_hash = secret_hash
        self.query_types = list(query_types)
        self.created_by = created_by
        self.per_second = per_second
        self.per_day = per_day
        self.active = True

    @classmethod
    def generate(
        cls, group_id: UUID, form: TokenForm, access_key: str, secret_hash: str, created_by: UUID | None
    ) -> ApiToken:
        return cls._create(
            cls.Generated,
            id=api_token_id(access_key),
            group_id=group_id,
            name=form.name,
            access_key=access_key,
            secret_hash=secret_hash,
            query_types=list(form.query_types),
            created_by=created_by,
            per_second=form.limits.per_second,
            per_day=form.limits.per_day,
        )

    @property
    def limits(self) -> TokenLimits:
        return TokenLimits(self.per_second, self.per_day)

    class Regenerated(AuditedAggregate.Event):
        secret_hash: str

    @event(Regenerated)
    def regenerate(self, secret_hash: str) -> None:
        """A new secret: the old one stops at once (the access key stays)."""
        self.secret_hash = secret_hash

    class Edited(AuditedAggregate.Event):
        name: str
        query_types: list[str]
        per_second: int | None
        per_day: int | None

    @event(Edited)
    def edit(self, name: str, query_types: list[str], per_second: int | None, per_day: int | None) -> None:
        self.name = name
        self.query_types = list(query_types)
        self.per_second = per_second
        self.per_day = per_day

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

    def may_run(self, query_type_key: str) -> bool:
        return query_type_key in self.query_types


def api_access(profile: dict[str, object] | None) -> bool:
    """The customer form's API access (a group registered without the flag, as the root, has it)."""
    return (profile or {}).get("apiAccess") is not False


def panel_access(profile: dict[str, object] | None) -> bool:
    """The customer form's panel access (a group registered without the flag has it)."""
    return (profile or {}).get("panelAccess") is not False

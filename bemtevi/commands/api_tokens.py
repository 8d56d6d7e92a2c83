"""API tokens (issue 34): generate, regenerate, edit, activate and inactivate a group's tokens, and check the
token of every call to the public API (``/api/v1``).

A checked token is remembered by its exact text with the aggregates it was decided on (the token, its group
and the group's ancestors) and forgotten at every save of one of them: at once for this process's saves, and
within the cache invalidator's poll (``streams.invalidator``) for another process's, so an inactivated or
regenerated token stops on every API process within a second without a read per call.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.domain.api_client_errors import ApiAccessDisabled, ApiTokenInactive, ApiTokenInvalid, ApiTokenNotFound
from bemtevi.domain.api_tokens import ApiToken, TokenForm, TokenLimits, api_access, api_token_id, split_access_token
from bemtevi.domain.audit import acting_as
from bemtevi.domain.errors import AccessDenied, GroupInactive, GroupNotFound
from bemtevi.domain.groups import Group
from bemtevi.domain.principals import Principal, with_group_flags
from bemtevi.domain.users import Role
from bemtevi.infra.api_secrets import ApiSecrets

# Who manages a group's tokens: its owners and admins (and the super-admin of the root).
MANAGERS = frozenset({Role.OWNER, Role.ADMIN, Role.SUPER_ADMIN})


@dataclass(frozen=True, slots=True)
class ApiCaller:
    """The caller of a public API request: its token, acting for the token's group.

    ``principal`` is what the commands take (lookups, batches, balances): its user is the token (the
    consultation records it as the one who consulted, the audit log as the actor), with a plain user's role.
    """

    principal: Principal
    token_id: UUID
    access_key: str
    query_types: frozenset[str]
    limits: TokenLimits


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A token just generated or regenerated: the secret is in ``access_token`` and is never shown again."""

    token_id: UUID
    access_key: str
    access_token: str
    position: int


class _KnownCallers:
    """Tokens that passed every check, with the aggregates they were decided on; an entry goes at every save
    of one of those (``BemteviApplication.on_stale``). ``generation`` counts saves, so an entry decided
    while one happened (on a copy it made stale) is not remembered."""

    MAX_ENTRIES = 20_000

    def __init__(self) -> None:
        self._entries: dict[str, tuple[ApiCaller, tuple[UUID, ...]]] = {}
        self._texts_of: dict[UUID, set[str]] = {}
        self._lock = threading.Lock()
        self.generation = 0

    def get(self, text: str) -> ApiCaller | None:
        entry = self._entries.get(text)
        return entry[0] if entry is not None else None

    def remember(self, text: str, caller: ApiCaller, ids: tuple[UUID, ...], generation: int) -> None:
        with self._lock:
            if generation != self.generation:
                return
            if len(self._entries) >= self.MAX_ENTRIES:
                self._entries.clear()
                self._texts_of.clear()
            self._entries[text] = (caller, ids)
            for aggregate_id in ids:
                self._texts_of.setdefault(aggregate_id, set()).add(text)

    def forget(self, aggregate_ids: Iterable[UUID]) -> None:
        with self._lock:
            self.generation += 1
            for aggregate_id in aggregate_ids:
                for text in self._texts_of.pop(aggregate_id, ()):
                    entry = self._entries.pop(text, None)
                    if entry is None:
                        continue
                    for other in entry[1]:
                        texts = self._texts_of.get(other)
                        if texts is not None:
                            texts.discard(text)


class ApiTokenCommands:
    def __init__(self, app: BemteviApplication, secrets: ApiSecrets, ceiling: TokenLimits) -> None:
        self._app = app
        self._secrets = secrets
        # The most a token of any group may be set to (BEMTEVI_API_MAX_PER_SECOND, _PER_DAY).
        self.ceiling = ceiling
        self._known = _KnownCallers()
        app.on_stale(self._known.forget)

    # -- management (owners and admins of the group) -------------------------------------------------

    def _group_managed_by(self, principal: Principal) -> Group:
        if principal.role not in MANAGERS:
            raise AccessDenied()
        group = self._app.find(principal.group_id, Group)
        if group is None:
            raise GroupNotFound()
        return group

    def _token_of(self, principal: Principal, token_id: UUID) -> ApiToken:
        """A token of the principal's own group (another group's is not found: its existence is not told)."""
        self._group_managed_by(principal)
        token = self._app.find(token_id, ApiToken)
        if token is None or token.group_id != principal.group_id:
            raise ApiTokenNotFound()
        return token

    def generate(self, principal: Principal, form: TokenForm) -> IssuedToken:
        group = self._group_managed_by(principal)
        checked = form.validated(frozenset(group.enabled_query_types), self.ceiling)
        access_key, secret = self._secrets.new_access_key(), self._secrets.new_secret()
        with acting_as(principal.actor):
            token = ApiToken.generate(group.id, checked, access_key, self._secrets.digest(secret), principal.user_id)
        try:
            position = self._app.save_all(token)
        except IntegrityError:  # an access key drawn twice (96 random bits): never in practice
            raise ApiTokenInvalid() from None
        return IssuedToken(token.id, access_key, f"{access_key}.{secret}", position)

    def regenerate(self, principal: Principal, token_id: UUID) -> IssuedToken:
        secret = self._secrets.new_secret()

        def decide() -> IssuedToken:
            token = self._token_of(principal, token_id)
            with acting_as(principal.actor):
                token.regenerate(self._secrets.digest(secret))
            position = self._app.save_all(token)
            return IssuedToken(token.id, token.access_key, f"{token.access_key}.{secret}", position)

        return retry_on_conflict(decide)

    def edit(self, principal: Principal, token_id: UUID, form: TokenForm) -> int:
        def decide() -> int:
            group = self._group_managed_by(principal)
            token = self._token_of(principal, token_id)
            checked = form.validated(frozenset(group.enabled_query_types), self.ceiling)
            with acting_as(principal.actor):
                token.edit(checked.name, list(checked.query_types), checked.limits.per_second, checked.limits.per_day)
            return self._app.save_all(token)

        return retry_on_conflict(decide)

    def set_active(self, principal: Principal, token_id: UUID, active: bool) -> int:
        def decide() -> int:
            token = self._token_of(principal, token_id)
            if token.active == active:
                return self._app.max_position()
            with acting_as(principal.actor):
                token.activate() if active else token.inactivate()
            return self._app.save_all(token)

        return retry_on_conflict(decide)

    # -- the public API's caller ------------------------------------------------------------------------

    def authenticate(self, text: str) -> ApiCaller:
        """The caller of an access token (``<access key>.<secret>``), or the refusal with its code."""
        known = self._known.get(text)
        if known is not None:
            return known
        generation = self._known.generation
        parts = split_access_token(text)
        if parts is None:
            raise ApiTokenInvalid()
        access_key, secret = parts
        token = self._app.find_readonly(api_token_id(access_key), ApiToken)
        if token is None or not self._secrets.matches(secret, token.secret_hash):
            raise ApiTokenInvalid()
        if not token.active:
            raise ApiTokenInactive()
        group, chain = self._active_chain(token.group_id)
        if not api_access(getattr(group, "profile", None)):
            raise ApiAccessDisabled()
        caller = ApiCaller(
            principal=with_group_flags(
                Principal(user_id=token.id, group_id=token.group_id, role=Role.USER, session_id=token.id), group.profile
            ),
            token_id=token.id,
            access_key=token.access_key,
            query_types=frozenset(token.query_types),
            limits=token.limits,
        )
        self._known.remember(text, caller, (token.id, *chain), generation)
        return caller

    def _active_chain(self, group_id: UUID) -> tuple[Group, tuple[UUID, ...]]:
        """The token's group, when it and every ancestor are active, and the ids looked up."""
        group = self._app.find_readonly(group_id, Group)
        if group is None:
            raise ApiTokenInvalid()
        looked_up = [group.id]
        current: Group | None = group
        while current is not None:
            if not current.active:
                raise GroupInactive()
            if not current.parent_id or current.parent_id in looked_up:
                break
            looked_up.append(current.parent_id)
            current = self._app.find_readonly(current.parent_id, Group)
        return group, tuple(looked_up)

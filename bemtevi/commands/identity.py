"""Identity use cases: first start, groups, users, sign-in, sign-out, token checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.commands.group_commit import Outcome
from bemtevi.commands.known_principals import KnownPrincipals
from bemtevi.commands.ledger import LedgerClient, open_accounts
from bemtevi.commands.throttle import Throttle
from bemtevi.domain.api_client_errors import PanelAccessDisabled, SessionPanelAccessDisabled
from bemtevi.domain.api_tokens import panel_access
from bemtevi.domain.audit import Actor, AuditedAggregate, acting_as
from bemtevi.domain.brand import DEFAULT_BRAND, Brand
from bemtevi.domain.contact import email_key, normalise_email
from bemtevi.domain.errors import (
    DuplicateValue,
    ExpiredToken,
    FirstAccessRequired,
    GroupInactive,
    GroupNotFound,
    InvalidCredentials,
    SessionGroupInactive,
    SessionUserInactive,
    Unauthorized,
    UserInactive,
    WeakPassword,
)
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.hosts import domain_candidates, normalise_domain
from bemtevi.domain.indexes import GROUP_DOMAIN, USER_EMAIL, UniqueIndex, index_id
from bemtevi.domain.passwords import NO_PASSWORD_HASH, check_new_password, generate_password
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal, with_group_flags
from bemtevi.domain.query_types import SEEDED_KEYS, Category
from bemtevi.domain.sessions import Session
from bemtevi.domain.users import Role, User, UserStatus
from bemtevi.infra.passwords import PasswordHasher
from bemtevi.infra.tokens import TokenClaims, TokenIssuer


@dataclass(frozen=True, slots=True)
class BootstrapResult:
    created: bool
    admin_email: str
    generated_password: str | None
    position: int


@dataclass(frozen=True, slots=True)
class SignedIn:
    user: User
    group: Group
    token: str
    position: int


class IdentityCommands:
    def __init__(
        self,
        app: BemteviApplication,
        hasher: PasswordHasher,
        tokens: TokenIssuer,
        token_ttl: timedelta,
        throttle: Throttle,
        max_account_failures: int = 5,
        max_address_failures: int = 20,
        *,
        ledger: LedgerClient,
    ) -> None:
        self._app = app
        # Where a registration's credit accounts are opened, in the append of its group.
        self.ledger = ledger
        self._hasher = hasher
        self._tokens = tokens
        self._token_ttl = token_ttl
        # Failed sign-ins and recovery-code tries, per account and per client address.
        self.throttle = throttle
        self._max_account_failures = max_account_failures
        self._max_address_failures = max_address_failures
        # A real hash to verify against when the e-mail is unknown, so timing does not tell.
        self._dummy_hash = hasher.hash(generate_password())
        self._known = KnownPrincipals()
        app.on_stale(self._known.forget)

    # -- first start -------------------------------------------------------------------------

    def bootstrap(
        self, admin_email: str, admin_password: str | None, *, ledger: LedgerClient | None = None
    ) -> BootstrapResult:
        """On an empty store: the default white-label group and its super-admin. ``ledger``: where the
        root's accounts are opened (default: this platform's; cluster mode passes this process's group
        commit, since no ledger worker need be running at a first start, and the root's accounts have no
        other owner before they exist)."""
        if self._app.exists(ROOT_GROUP_ID):
            return BootstrapResult(False, admin_email, None, self._app.max_position())
        generated = None
        if admin_password is None:
            generated = admin_password = generate_password()
        with acting_as(SYSTEM):
            group = Group.register(
                name="Bemtevi",
                group_type=GroupType.WHITE_LABEL,
                parent_id=None,
                domain_url=None,
                brand=DEFAULT_BRAND,
                enabled_query_types=sorted(SEEDED_KEYS),
                group_id=ROOT_GROUP_ID,
            )
            user, index = self._new_user(
                group.id, "Administrador", email_key(admin_email), admin_password, Role.SUPER_ADMIN
            )
        # The root of every tree is unlimited in every category; it grants to its children.
        outcome = self.open_group(SYSTEM, group, dict.fromkeys(Category), [user, index], {}, ledger=ledger)
        if not outcome.value:  # another process bootstrapped at the same moment
            return BootstrapResult(False, admin_email, None, self._app.max_position())
        return BootstrapResult(True, email_key(admin_email), generated, outcome.position)

    def open_group(
        self,
        actor: Actor,
        group: Group,
        quantities: Mapping[Category, int | None],
        others: list[AuditedAggregate],
        claims: Mapping[tuple[str, str], tuple[str, str | None]],
        *,
        ledger: LedgerClient | None = None,
    ) -> Outcome[bool]:
        """Register ``group`` with ``others`` (its owner, claims, mail) and its credit accounts (each
        ``quantities`` of its category, granted by the parent) in one append, made by the ledger once no
        value of ``claims`` ((kind, value) -> the refusal's message and field) is taken. Answers False
        when the group existed already (nothing appended)."""
        request = open_accounts(self._app, actor, group, quantities, others, claims)
        outcome: Outcome[bool] = (ledger or self.ledger).submit(request)
        return outcome

    # -- groups and users ---------------------------------------------------------------------

    def register_group(
        self,
        actor: Actor,
        *,
        name: str,
        group_type: GroupType,
        parent_id: UUID,
        domain_url: str | None = None,
        brand: Brand | None = None,
        enabled_query_types: list[str] | None = None,
        unit_credit_limit: int | None = 0,
    ) -> tuple[UUID, int]:
        parent = self._app.find(parent_id, Group)
        if parent is None:
            raise GroupNotFound()
        enabled = enabled_query_types if enabled_query_types is not None else list(parent.enabled_query_types)
        # A child never gets a query type its parent does not have.
        enabled = [q for q in enabled if q in parent.enabled_query_types]
        domain = normalise_domain(domain_url)
        with acting_as(actor):
            group = Group.register(
                name=name,
                group_type=group_type,
                parent_id=parent_id,
                domain_url=domain,
                brand=brand or Brand(),
                enabled_query_types=enabled,
            )
            claims = [UniqueIndex(kind=GROUP_DOMAIN, value=domain, ref=group.id)] if domain else []
        refusals = {(GROUP_DOMAIN, domain): ("Domain already registered", "domain_url")} if domain else {}
        outcome = self.open_group(actor, group, {Category.UNIT: unit_credit_limit}, list(claims), refusals)
        return group.id, outcome.position

    def register_user(
        self,
        actor: Actor,
        *,
        group_id: UUID,
        name: str,
        email: str,
        password: str,
        role: Role = Role.USER,
        status: UserStatus = UserStatus.ACTIVE,
        strict_email: bool = True,
    ) -> tuple[UUID, int]:
        if self._app.find(group_id, Group) is None:
            raise GroupNotFound()
        key = normalise_email(email) if strict_email else email_key(email)
        check_new_password(password)
        with acting_as(actor):
            user, index = self._new_user(group_id, name, key, password, role, status)
            try:
                position = self._app.save_all(user, index)
            except IntegrityError as e:
                raise DuplicateValue("Email already registered", field="email") from e
        return user.id, position

    def new_user(
        self, group_id: UUID, name: str, email: str, password: str | None, role: Role, status: UserStatus
    ) -> tuple[User, UniqueIndex]:
        """A user and the claim on its e-mail, not saved: for commands that save them with more.
        ``password`` None: none yet (an invited owner chooses theirs from the invitation's link)."""
        return self._new_user(group_id, name, email, password, role, status)

    def _new_user(
        self,
        group_id: UUID,
        name: str,
        email: str,
        password: str | None,
        role: Role,
        status: UserStatus = UserStatus.ACTIVE,
    ) -> tuple[User, UniqueIndex]:
        normalised = email_key(email)
        user = User.register(
            group_id=group_id,
            name=name,
            email=normalised,
            role=role,
            status=status,
            password_hash=NO_PASSWORD_HASH if password is None else self._hasher.hash(password),
        )
        return user, UniqueIndex(kind=USER_EMAIL, value=normalised, ref=user.id)

    # -- sessions -----------------------------------------------------------------------------

    def find_user_by_email(self, email: str) -> User | None:
        index = self._app.find(index_id(USER_EMAIL, email_key(email)), UniqueIndex)
        return None if index is None or not index.taken else self._app.find(index.ref, User)

    def find_group_by_domain(self, domain_url: str | None) -> Group | None:
        for candidate in domain_candidates(domain_url):
            index = self._app.find(index_id(GROUP_DOMAIN, candidate), UniqueIndex)
            if index is not None and index.taken:
                return self._app.find(index.ref, Group)
        return None

    def is_within(self, group: Group, ancestor_id: UUID) -> bool:
        """True when ``ancestor_id`` is the group itself or one of its ancestors."""
        return self._is_within(group, ancestor_id)

    def inactive_in_chain(self, group_id: UUID) -> Group | None:
        """The group, or the nearest ancestor, that is inactive (an inactive parent stops its subtree)."""
        return self._chain_check(group_id)[0]

    def _chain_check(self, group_id: UUID) -> tuple[Group | None, tuple[UUID, ...]]:
        """``inactive_in_chain``, and the ids of the groups it looked up."""
        looked_up = [group_id]
        current = self._app.find_readonly(group_id, Group)
        seen: set[UUID] = set()
        while current is not None and current.id not in seen:
            if not current.active:
                return current, tuple(looked_up)
            seen.add(current.id)
            if not current.parent_id:
                break
            looked_up.append(current.parent_id)
            current = self._app.find_readonly(current.parent_id, Group)
        return None, tuple(looked_up)

    def _is_within(self, group: Group, ancestor_id: UUID) -> bool:
        current: Group | None = group
        while current is not None:
            if current.id == ancestor_id:
                return True
            current = self._app.find(current.parent_id, Group) if current.parent_id else None
        return False

    def attempt_limits(self, kind: str, account: str | None, client: str | None) -> list[tuple[str, int]]:
        """The throttle keys of one attempt ("login" or "code") and their failure limits."""
        limits = [(f"{kind}:account:{account}", self._max_account_failures)] if account else []
        return [*limits, (f"{kind}:address:{client}", self._max_address_failures)] if client else limits

    def sign_in(self, email: str, password: str, domain_url: str | None, client: str | None = None) -> SignedIn:
        return self.open_session(*self.check_password(email, password, domain_url, client), password)

    def check_password(self, email: str, password: str, site: str | None, client: str | None) -> tuple[User, Group]:
        """The user of a right e-mail and password, and their group, when they may sign in on ``site``."""
        limits = self.attempt_limits("login", email_key(email), client)
        self.throttle.check(limits)
        user = self.find_user_by_email(email)
        if user is None or user.password_hash == NO_PASSWORD_HASH:
            # As long as a real check: the answer's time never tells an invited owner's e-mail from an unknown one.
            self._hasher.verify(self._dummy_hash, password)
            self.throttle.record(*(key for key, _ in limits))
            raise InvalidCredentials()
        if not self._hasher.verify(user.password_hash, password):
            self.throttle.record(*(key for key, _ in limits))
            raise InvalidCredentials()
        group = self.check_may_sign_in(user, site)
        # A right password ends the account's count (not the address's: it may try others).
        self.throttle.clear(limits[0][0])
        return user, group

    def check_may_sign_in(self, user: User, domain_url: str | None) -> Group:
        """The user's group, when the user and the group are active and the site admits them."""
        if not user.may_sign_in:
            raise UserInactive()
        group = self._app.get(user.group_id, Group)
        if not group.active or self.inactive_in_chain(group.id) is not None:
            raise GroupInactive()
        if not panel_access(group.profile):
            raise PanelAccessDisabled()  # an API-only customer: its tokens work, its users stay out
        # On a tenant's own domain only that tenant's subtree may sign in.
        site = self.find_group_by_domain(domain_url)
        if site is not None and not self._is_within(group, site.id):
            raise InvalidCredentials()
        return group

    def open_session(self, user: User, group: Group, password: str | None = None, *spent: AuditedAggregate) -> SignedIn:
        """A new session and its token, appended with what it uses up (``spent``, a two-factor challenge: one
        session per code); ``password`` (when known) upgrades an old hash."""
        now = datetime.now(UTC)
        expires_at = now + self._token_ttl
        with acting_as(Actor(user.id, group.id)):
            session = Session(user_id=user.id, group_id=group.id, role=user.role.value, expires_at=expires_at)
            to_save: list[AuditedAggregate] = [*spent, session]
            if password is not None and self._hasher.needs_rehash(user.password_hash):
                user.rehash_password(self._hasher.hash(password))
                to_save.append(user)
            position = self._app.save_all(*to_save)
        token = self._tokens.issue(TokenClaims(session.id, user.id, group.id, user.role.value), expires_at)
        return SignedIn(user=user, group=group, token=token, position=position)

    def authenticate(self, token: str, allow_first_access: bool = False) -> Principal:
        """The caller of ``token``. A user at first access is refused (``FirstAccessRequired``)
        unless the call is one they may make (choosing the password, logout)."""
        principal = self._known.get(token)
        if principal is None:
            principal = self._check(token)
        if principal.first_access and not allow_first_access:
            raise FirstAccessRequired()
        return principal

    def _check(self, token: str) -> Principal:
        """Every check of a token, its session, its group chain and its user; the principal is
        remembered (``KnownPrincipals``) until one of those is saved again or the token expires."""
        generation = self._known.generation
        self._known.forget_token(token)
        claims, token_expires = self._tokens.read_expiring(token)
        session = self._app.find_readonly(claims.session_id, Session)
        if session is None or session.user_id != claims.user_id:
            raise Unauthorized()
        if not session.is_open(datetime.now(UTC)):
            raise Unauthorized() if session.closed else ExpiredToken()
        # Inactivating a group (or an ancestor) stops its open sessions at once.
        inactive, groups = self._chain_check(session.group_id)
        if inactive is not None:
            raise SessionGroupInactive()
        group = self._app.find_readonly(session.group_id, Group)
        if group is not None and not panel_access(group.profile):
            raise SessionPanelAccessDisabled()
        # Inactivating or archiving a user stops their open sessions at once, and a role an
        # admin changed applies from the next call (the caches are evicted by every save).
        user = self._app.find_readonly(session.user_id, User)
        if user is None or not user.may_sign_in:
            raise SessionUserInactive()
        principal = with_group_flags(
            Principal(session.user_id, session.group_id, user.role, session.id, user.status == UserStatus.FIRST_ACCESS),
            getattr(group, "profile", None),
        )
        expires = min(float(token_expires), session.expires_at.timestamp())
        self._known.remember(token, principal, expires, (session.id, session.user_id, *groups), generation)
        return principal

    def choose_first_password(self, principal: Principal, password: str, confirmation: str) -> int:
        """First access: the user's own password replaces the generated one and the user is active."""
        check_new_password(password, confirmation)
        password_hash = self._hasher.hash(password)

        def decide() -> int:
            user = self._app.get(principal.user_id, User)
            if user.status != UserStatus.FIRST_ACCESS:
                return self._app.max_position()
            if self._hasher.verify(user.password_hash, password):
                # The generated password is not one the user chose.
                raise WeakPassword(field="password")
            with acting_as(principal.actor):
                user.change_password_hash(password_hash)
            return self._app.save_all(user)

        return retry_on_conflict(decide)

    def sign_out(self, principal: Principal) -> int:
        def decide() -> int:
            session = self._app.get(principal.session_id, Session)
            if session.closed:
                return self._app.max_position()
            with acting_as(principal.actor):
                session.close("logout")
            return self._app.save_all(session)

        return retry_on_conflict(decide)

"""Ways into an account: create one, Google sign-in, and forgotten passwords.

Creating an account registers a company group with its owner (the person signing up), its
credit accounts and its unique claims in one append, like a customer a parent registers
(``commands/customers.py``), then signs the owner in. Password recovery keeps only a keyed hash
of its 6-digit code in a ``PasswordRecovery`` and queues the mail carrying it in the same
append; an unknown e-mail gets the same answer as a known one.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.commands.customers import CustomerCommands, opening_quantities
from bemtevi.commands.identity import IdentityCommands, SignedIn
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.brand import Brand
from bemtevi.domain.contact import normalise_email, normalise_phone
from bemtevi.domain.customers import MAY_REGISTER, name_key
from bemtevi.domain.errors import (
    DuplicateValue,
    GroupInactive,
    InvalidCode,
    InvalidData,
    InvalidEmail,
    TermsNotAccepted,
    UserNotFoundCreateAccount,
)
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.hosts import normalise_domain
from bemtevi.domain.indexes import GROUP_NAME, USER_EMAIL, UniqueIndex, index_id
from bemtevi.domain.mail import Mail
from bemtevi.domain.passwords import check_new_password
from bemtevi.domain.principals import ROOT_GROUP_ID
from bemtevi.domain.recovery import PasswordRecovery, new_code, new_unique_key
from bemtevi.domain.users import Role, User, UserStatus
from bemtevi.infra.google import GoogleIdTokenVerifier
from bemtevi.infra.passwords import PasswordHasher

# Index kind -> (message, form field) when a sign-up value is taken (specification section 8).
SIGN_UP_DUPLICATES = {
    GROUP_NAME: ("Company name already registered", "companyName"),
    USER_EMAIL: ("Email already registered", "email"),
}

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


@dataclass(frozen=True, slots=True)
class SignUpForm:
    name: str
    last_name: str
    email: str
    company_name: str
    phone: str
    password: str
    confirmation: str
    accept_terms: bool
    domain_url: str | None = None
    locale: str = "pt-BR"


@dataclass(frozen=True, slots=True)
class RecoveryTicket:
    """What a recovery request answers, the same shape for known and unknown e-mails."""

    id: UUID
    unique_key: str
    position: int | None


def _link_base(host: str | None) -> str:
    host = host or "localhost:8000"
    bare = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
    scheme = "http" if bare in LOOPBACK_HOSTS else "https"
    return f"{scheme}://{host}"


_MAIL_TEXTS = {
    "pt-BR": {
        "recovery_subject": "Seu código de recuperação de senha",
        "recovery_text": (
            "Olá, {name}.\n\nRecebemos um pedido para redefinir a senha da sua conta.\n"
            "Seu código de verificação é: {code}\n\n"
            "Você também pode abrir este link para confirmá-lo:\n{link}\n\n"
            "O código vale por {minutes} minutos e só pode ser usado uma vez. "
            "Se você não pediu a recuperação, ignore esta mensagem: sua senha continua a mesma.\n"
        ),
        "welcome_subject": "Bem-vindo(a), sua conta foi criada",
        "welcome_text": (
            "Olá, {name}.\n\nA conta da empresa {company} foi criada e você já pode entrar com o e-mail {email}.\n"
        ),
    },
    "en-US": {
        "recovery_subject": "Your password recovery code",
        "recovery_text": (
            "Hello, {name}.\n\nWe received a request to reset the password of your account.\n"
            "Your verification code is: {code}\n\n"
            "You can also open this link to confirm it:\n{link}\n\n"
            "The code is valid for {minutes} minutes and can be used once. "
            "If you did not ask for it, ignore this message: your password stays the same.\n"
        ),
        "welcome_subject": "Welcome, your account was created",
        "welcome_text": (
            "Hello, {name}.\n\nThe account of {company} was created and you can sign in with the e-mail {email}.\n"
        ),
    },
}


def _texts(locale: str) -> dict[str, str]:
    return _MAIL_TEXTS.get(locale, _MAIL_TEXTS["pt-BR"])


class AccountCommands:
    def __init__(
        self,
        app: BemteviApplication,
        identity: IdentityCommands,
        customers: CustomerCommands,
        hasher: PasswordHasher,
        secret_key: str,
        google: GoogleIdTokenVerifier | None = None,
        recovery_minutes: int = 15,
    ) -> None:
        self._app = app
        self._identity = identity
        self._customers = customers
        self._hasher = hasher
        self._secret = secret_key.encode("utf-8")
        self.google = google
        self._recovery_ttl = timedelta(minutes=recovery_minutes)

    # -- create account -----------------------------------------------------------------------

    def _sign_up_parent(self, domain_url: str | None) -> Group:
        """The group a new company goes under: the one whose domain served the page (or its
        nearest ancestor that may register companies), else the root white-label."""
        group = self._identity.find_group_by_domain(domain_url) or self._app.get(ROOT_GROUP_ID, Group)
        while GroupType.COMPANY not in MAY_REGISTER[group.group_type] and group.parent_id is not None:
            group = self._app.get(group.parent_id, Group)
        if not group.active or self._identity.inactive_in_chain(group.id) is not None:
            raise GroupInactive()
        return group

    def create_account(self, form: SignUpForm) -> SignedIn:
        def required(value: str, field: str) -> str:
            text = value.strip()
            if not text:
                raise InvalidData(field=field)
            return text

        name = required(form.name, "name")
        last_name = required(form.last_name, "lastName")
        email = normalise_email(required(form.email, "email"))
        company = required(form.company_name, "companyName")
        phone = normalise_phone(required(form.phone, "phone"))
        check_new_password(form.password, form.confirmation)
        if not form.accept_terms:
            raise TermsNotAccepted(field="acceptTerms")
        parent = self._sign_up_parent(form.domain_url)
        claims = {GROUP_NAME: name_key(company), USER_EMAIL: email}
        self._refuse_taken(claims)
        full_name = f"{name} {last_name}"
        texts = _texts(form.locale)

        group_id = uuid.uuid4()
        # The person signing up acts for the company they are creating.
        actor = Actor(user_id=None, tenant_id=group_id)
        with acting_as(actor):
            group = Group.register(
                name=company,
                group_type=GroupType.COMPANY,
                parent_id=parent.id,
                domain_url=None,
                brand=Brand(),
                enabled_query_types=list(parent.enabled_query_types),
                profile={
                    "tradeName": company,
                    "personInCharge": full_name,
                    "phone": phone,
                    "email": email,
                    "panelAccess": True,
                    "apiAccess": False,
                    "selfRegistered": True,
                },
                group_id=group_id,
            )
            owner, email_index = self._identity.new_user(
                group.id, full_name, email, form.password, Role.OWNER, UserStatus.ACTIVE
            )
            name_index = UniqueIndex(kind=GROUP_NAME, value=claims[GROUP_NAME], ref=group.id)
            welcome = Mail.queue(
                to=email,
                subject=texts["welcome_subject"],
                text=texts["welcome_text"].format(name=name, company=company, email=email),
                reason="welcome",
            )
        # No credits yet: the parent grants them later (the same accounts a customer gets). The ledger
        # checks the claims again (someone may take a value meanwhile) and appends it all at once.
        refusals = {(kind, value): SIGN_UP_DUPLICATES[kind] for kind, value in claims.items()}
        self._identity.open_group(
            actor, group, opening_quantities({}), [owner, email_index, name_index, welcome], refusals
        )
        return self._identity.open_session(owner, group)

    def _refuse_taken(self, claims: dict[str, str]) -> None:
        for kind, value in claims.items():
            index = self._app.find(index_id(kind, value), UniqueIndex)
            if index is not None and getattr(index, "taken", True):
                message, field = SIGN_UP_DUPLICATES[kind]
                raise DuplicateValue(message, field=field)

    # -- Google sign-in -----------------------------------------------------------------------

    def sign_in_with_google(self, id_token: str, domain_url: str | None) -> SignedIn:
        return self._identity.open_session(*self.google_user(id_token, domain_url))

    def google_user(self, id_token: str, domain_url: str | None) -> tuple[User, Group]:
        """The user Google vouches for, and their group, when they may sign in here."""
        if self.google is None:
            raise UserNotFoundCreateAccount()
        email = self.google.verified_email(id_token)
        user = self._identity.find_user_by_email(email)
        if user is None:
            raise UserNotFoundCreateAccount()
        return user, self._identity.check_may_sign_in(user, domain_url)

    # -- password recovery --------------------------------------------------------------------

    def code_hash(self, unique_key: str, code: str) -> str:
        return hmac.new(self._secret, f"{unique_key}:{code}".encode(), hashlib.sha256).hexdigest()

    def request_recovery(
        self, email: str, domain_url: str | None, locale: str = "pt-BR", client: str | None = None
    ) -> RecoveryTicket:
        """Queue a recovery code for the account of ``email``; an unknown e-mail answers alike."""
        key = email.strip().lower()
        if "@" not in key:
            raise InvalidEmail(field="email")
        # Requests count like failures: a flood of codes to one inbox or from one address stops.
        limits = self._identity.attempt_limits("recovery", key, client)
        self._identity.throttle.check(limits)
        self._identity.throttle.record(*(k for k, _ in limits))
        user = self._identity.find_user_by_email(key)
        admitted = user is not None and user.may_sign_in
        if user is not None and admitted:
            try:
                self._identity.check_may_sign_in(user, domain_url)
            except Exception:
                admitted = False
        if user is None or not admitted:
            # Never stored: verifying it answers "Invalid code" like a wrong code would.
            return RecoveryTicket(uuid.uuid4(), new_unique_key(), None)
        code = new_code()
        unique_key = new_unique_key()
        texts = _texts(locale)
        host = normalise_domain(domain_url) or self.tenant_domain(user.group_id)
        with acting_as(Actor(user_id=None, tenant_id=user.group_id)):
            recovery = PasswordRecovery.request(
                user_id=user.id,
                code_hash=self.code_hash(unique_key, code),
                unique_key=unique_key,
                expires_at=datetime.now(UTC) + self._recovery_ttl,
            )
            link = f"{_link_base(host)}/verify-code/{code}/{unique_key}/{recovery.id}"
            mail = Mail.queue(
                to=user.email,
                subject=texts["recovery_subject"],
                text=texts["recovery_text"].format(
                    name=user.name.split(" ")[0],
                    code=code,
                    link=link,
                    minutes=int(self._recovery_ttl.total_seconds() // 60),
                ),
                reason="password-recovery",
                sender_name=self.label_name(user.group_id),
            )
            position = self._app.save_all(recovery, mail)
        return RecoveryTicket(recovery.id, unique_key, position)

    def label_name(self, group_id: UUID) -> str | None:
        """The name the mails of a white label's users are from: the nearest white-label's title, else its
        trade name or name; None under the platform itself (the configured sender)."""
        current = self._app.find(group_id, Group)
        while current is not None and current.parent_id is not None:
            if current.group_type == GroupType.WHITE_LABEL:
                brand = current.brand_value
                return brand.appTitle or current.profile.get("tradeName") or current.name
            current = self._app.find(current.parent_id, Group)
        return None

    def tenant_domain(self, group_id: UUID) -> str | None:
        current = self._app.find(group_id, Group)
        while current is not None:
            if current.domain_url:
                return str(current.domain_url)
            current = self._app.find(current.parent_id, Group) if current.parent_id else None
        return None

    def _checked_recovery(
        self, code: str, unique_key: str, recovery_id: UUID, client: str | None
    ) -> tuple[PasswordRecovery, User]:
        """The recovery whose code this is, still usable; each wrong try counts."""
        limits = self._identity.attempt_limits("code", str(recovery_id), client)
        self._identity.throttle.check(limits)
        recovery = self._app.find(recovery_id, PasswordRecovery)
        now = datetime.now(UTC)
        if (
            recovery is None
            or not secrets.compare_digest(recovery.unique_key.encode(), unique_key.encode())
            or not recovery.usable(now)
        ):
            self._identity.throttle.record(*(k for k, _ in limits))
            raise InvalidCode()
        expected = self.code_hash(unique_key, code.strip())
        if not hmac.compare_digest(recovery.code_hash, expected):
            self._identity.throttle.record(*(k for k, _ in limits))
            tenant = self._app.get(recovery.user_id, User).group_id

            def record_failure() -> int:
                latest = self._app.get(recovery_id, PasswordRecovery)
                with acting_as(Actor(user_id=None, tenant_id=tenant)):
                    latest.code_failed()
                return self._app.save_all(latest)

            retry_on_conflict(record_failure)  # every wrong try counts, even simultaneous ones
            raise InvalidCode()
        return recovery, self._app.get(recovery.user_id, User)

    def verify_code(self, code: str, unique_key: str, recovery_id: UUID, client: str | None = None) -> int:
        """ "Code active": the code is right, current and unspent."""
        recovery, user = self._checked_recovery(code, unique_key, recovery_id, client)
        if recovery.verified:
            return self._app.max_position()
        with acting_as(Actor(user_id=user.id, tenant_id=user.group_id)):
            recovery.code_verified()
        return self._app.save_all(recovery)

    def redefine_password(
        self,
        code: str,
        unique_key: str,
        recovery_id: UUID,
        password: str,
        confirmation: str,
        client: str | None = None,
    ) -> int:
        """The new password (the policy of section 5) replaces the old one; the code is spent."""
        check_new_password(password, confirmation)
        password_hash = self._hasher.hash(password)
        recovery, user = self._checked_recovery(code, unique_key, recovery_id, client)
        with acting_as(Actor(user_id=user.id, tenant_id=user.group_id)):
            if not recovery.verified:
                recovery.code_verified()
            user.change_password_hash(password_hash)
            recovery.complete()
        # The spent code and the new password are one append: a second use collides or finds it spent.
        try:
            position = self._app.save_all(recovery, user)
        except IntegrityError as e:
            raise InvalidCode() from e
        self._identity.throttle.clear(f"login:account:{user.email}")
        return position

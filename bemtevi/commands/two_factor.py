"""Two-factor sign-in: a group's setting, the mailed code after a right password, its check and its resend.

The code is made, hashed and mailed as a recovery code is (``domain/recovery.new_code``,
``AccountCommands.code_hash``, a ``Mail`` in the same append, sent by the mailer over SMTP); the challenge it
belongs to is an aggregate (``domain/two_factor``), so any API process checks it and the audit log shows each
code sent, failed and verified. The right code opens the session in the append that spends the challenge.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import UUID

from bemtevi.commands.accounts import AccountCommands
from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.commands.brand import CUSTOMERS_ROUTE
from bemtevi.commands.identity import IdentityCommands, SignedIn
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.errors import AccessDenied, GroupNotFound
from bemtevi.domain.groups import Group
from bemtevi.domain.mail import Mail
from bemtevi.domain.menus import may_open
from bemtevi.domain.principals import Principal
from bemtevi.domain.recovery import new_code, new_unique_key
from bemtevi.domain.two_factor import CODE_TTL, SignInChallenge
from bemtevi.domain.two_factor_errors import TwoFactorChallengeNotFound, TwoFactorCodeInvalid
from bemtevi.domain.users import Role, User

TWO_FACTOR_REASON = "two-factor"
# Who may switch it for their own group; a customer's is switched where its form is edited (CUSTOMERS_ROUTE).
OWN_GROUP_ROLES = (Role.OWNER, Role.ADMIN, Role.SUPER_ADMIN)

_TEXTS = {
    "pt-BR": (
        "Seu código de acesso",
        "Olá, {name}.\n\nPara concluir a entrada na sua conta, digite este código:\n{code}\n\n"
        "O código vale por {minutes} minutos e só pode ser usado uma vez. "
        "Se não foi você quem tentou entrar, troque a sua senha.\n",
    ),
    "en-US": (
        "Your sign-in code",
        "Hello, {name}.\n\nTo finish signing in to your account, type this code:\n{code}\n\n"
        "The code is valid for {minutes} minutes and can be used once. "
        "If it was not you signing in, change your password.\n",
    ),
}


@dataclass(frozen=True, slots=True)
class ChallengeSent:
    """A right password in a group that requires a code: the code went by mail; no session yet."""

    id: UUID
    resend_after: int
    position: int


class TwoFactorCommands:
    def __init__(
        self,
        app: BemteviApplication,
        identity: IdentityCommands,
        accounts: AccountCommands,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._app = app
        self._identity = identity
        self._accounts = accounts
        self._clock = clock

    # -- the group's setting ------------------------------------------------------------------

    def _editable(self, principal: Principal, group_id: UUID) -> Group:
        """One's own group (owner, admin, super-admin), or a customer below it (whoever edits customers)."""
        group = self._app.find(group_id, Group)
        if group is None or not self._identity.is_within(group, principal.group_id):
            raise GroupNotFound()
        if group.id == principal.group_id:
            if principal.role not in OWN_GROUP_ROLES:
                raise AccessDenied()
        elif not may_open(principal.role, CUSTOMERS_ROUTE):
            raise AccessDenied()
        return group

    def setting(self, principal: Principal, group_id: UUID) -> bool:
        return self._editable(principal, group_id).requires_two_factor

    def change_setting(self, principal: Principal, group_id: UUID, enabled: bool) -> int:
        def decide() -> int:
            group = self._editable(principal, group_id)
            if group.requires_two_factor == enabled:
                return self._app.max_position()
            with acting_as(principal.actor):
                group.change_two_factor(enabled)
            return self._app.save_all(group)

        return retry_on_conflict(decide)

    # -- signing in ---------------------------------------------------------------------------

    def sign_in(
        self, email: str, password: str, domain_url: str | None, client: str | None = None, locale: str = "pt-BR"
    ) -> SignedIn | ChallengeSent:
        user, group = self._identity.check_password(email, password, domain_url, client)
        return self.admit(user, group, locale, password)

    def admit(
        self, user: User, group: Group, locale: str = "pt-BR", password: str | None = None
    ) -> SignedIn | ChallengeSent:
        """After a right password (or Google): the session, or the mailed code when the group requires one."""
        if not group.requires_two_factor:
            return self._identity.open_session(user, group, password)
        now = self._clock()
        code, key = new_code(), new_unique_key()
        with acting_as(Actor(user.id, group.id)):
            challenge = SignInChallenge.request(
                user_id=user.id, group_id=group.id, code_hash=self._accounts.code_hash(key, code), hash_key=key, now=now
            )
            mail = self._mail(user, code, locale)
        position = self._app.save_all(challenge, mail)
        return ChallengeSent(challenge.id, challenge.resend_wait(now), position)

    def _mail(self, user: User, code: str, locale: str) -> Mail:
        subject, text = _TEXTS.get(locale, _TEXTS["pt-BR"])
        minutes = int(CODE_TTL.total_seconds() // 60)
        return Mail.queue(
            to=user.email,
            subject=subject,
            text=text.format(name=user.name.split(" ")[0], code=code, minutes=minutes),
            reason=TWO_FACTOR_REASON,
            sender_name=self._accounts.label_name(user.group_id),
        )

    def _challenge(self, challenge_id: UUID) -> SignInChallenge:
        challenge = self._app.find(challenge_id, SignInChallenge)
        if challenge is None:
            raise TwoFactorChallengeNotFound()
        return challenge

    def verify(self, challenge_id: UUID, code: str, client: str | None = None) -> SignedIn:
        """The right code, in time, unspent and before the lock: the session, as a sign-in answers it."""
        # The challenge counts its own wrong tries; the address's count stops one guessing many challenges.
        limits = self._identity.attempt_limits("code", None, client)
        if limits:
            self._identity.throttle.check(limits)
        code = code.strip()
        challenge = self._challenge(challenge_id)
        refusal = challenge.refusal(self._clock())
        if refusal is not None:
            raise refusal
        if not self._matches(challenge, code):
            self._identity.throttle.record(*(k for k, _ in limits))

            def record_failure() -> SignInChallenge:
                latest = self._challenge(challenge_id)
                with acting_as(Actor(latest.user_id, latest.group_id)):
                    latest.code_failed()
                self._app.save_all(latest)
                return latest

            latest = retry_on_conflict(record_failure)  # every wrong try counts, even simultaneous ones
            # The try that locks the challenge says so; the ones before, that the code was wrong.
            raise latest.refusal(self._clock()) or TwoFactorCodeInvalid()

        def spend() -> SignedIn:
            # Decided again on the latest state: another process may have spent it, or a new code replaced it.
            latest = self._challenge(challenge_id)
            refusal = latest.refusal(self._clock())
            if refusal is not None:
                raise refusal
            if not self._matches(latest, code):
                raise TwoFactorCodeInvalid()
            user = self._app.get(latest.user_id, User)
            # The user or the group may have been inactivated since the password was checked.
            group = self._identity.check_may_sign_in(user, None)
            with acting_as(Actor(user.id, group.id)):
                latest.verify()
            return self._identity.open_session(user, group, None, latest)

        return retry_on_conflict(spend)

    def _matches(self, challenge: SignInChallenge, code: str) -> bool:
        return hmac.compare_digest(challenge.code_hash, self._accounts.code_hash(challenge.hash_key, code))

    def resend(self, challenge_id: UUID, locale: str = "pt-BR") -> ChallengeSent:
        """A new code replaces the old one (after ``RESEND_AFTER``, a bounded number of times)."""

        def decide() -> ChallengeSent:
            challenge = self._challenge(challenge_id)
            now = self._clock()
            refusal = challenge.resend_refusal(now)
            if refusal is not None:
                raise refusal
            user = self._app.get(challenge.user_id, User)
            code, key = new_code(), new_unique_key()
            with acting_as(Actor(user.id, challenge.group_id)):
                challenge.resend(code_hash=self._accounts.code_hash(key, code), hash_key=key, sent_at=now)
                mail = self._mail(user, code, locale)
            position = self._app.save_all(challenge, mail)
            return ChallengeSent(challenge.id, challenge.resend_wait(now), position)

        return retry_on_conflict(decide)

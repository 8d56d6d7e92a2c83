"""A new customer's owner is invited by e-mail to choose their own password: nobody passes a password on.

The invitation is a ``PasswordRecovery`` of a week and the ``Mail`` carrying its link, appended with the
customer's registration (``CustomerCommands.register``'s ``invite``): the owner opens the link on their
own domain (the customer's, else its nearest white-label's, else the one the customer was registered on),
chooses a password there and is active from then on (``User.change_password_hash``). The mail names the
company and the site, never the platform.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from uuid import UUID

from bemtevi.commands.accounts import AccountCommands, _link_base
from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.groups import GroupType
from bemtevi.domain.hosts import normalise_domain
from bemtevi.domain.mail import Mail
from bemtevi.domain.recovery import PasswordRecovery, new_code, new_unique_key
from bemtevi.domain.users import User

INVITATION_TTL = timedelta(days=7)
FIRST_ACCESS_REASON = "first-access"

_TEXTS = {
    "pt-BR": (
        "Convite: escolha a sua senha",
        "Olá, {name}.\n\nA conta da empresa {company} foi criada e você é o responsável por ela.\n"
        "Para entrar, escolha a sua senha neste link:\n{link}\n\n"
        "O link vale por 7 dias e só pode ser usado uma vez. Depois, entre com o e-mail {email} em {site}.\n",
    ),
    "en-US": (
        "Invitation: choose your password",
        "Hello, {name}.\n\nThe account of {company} was created and you are in charge of it.\n"
        "To sign in, choose your password at this link:\n{link}\n\n"
        "The link is valid for 7 days and can be used once. Then sign in with the e-mail {email} at {site}.\n",
    ),
}

# What the registration calls with the new owner, the customer's name, domain, parent and type.
Invite = Callable[[User, str, str | None, UUID, str], list[AuditedAggregate]]


def inviter(accounts: AccountCommands, request_host: str | None, locale: str = "pt-BR") -> Invite:
    """The ``invite`` of a registration made from ``request_host``, in the registering user's language."""

    def invite(owner: User, company: str, domain: str | None, parent_id: UUID, kind: str) -> list[AuditedAggregate]:
        host = domain or accounts.tenant_domain(parent_id) or normalise_domain(request_host)
        code, unique_key = new_code(), new_unique_key()
        recovery = PasswordRecovery.request(
            user_id=owner.id,
            code_hash=accounts.code_hash(unique_key, code),
            unique_key=unique_key,
            expires_at=datetime.now(UTC) + INVITATION_TTL,
        )
        site = _link_base(host)
        subject, text = _TEXTS.get(locale, _TEXTS["pt-BR"])
        link = f"{site}/verify-code/{code}/{unique_key}/{recovery.id}"
        body = text.format(name=owner.name.split(" ")[0], company=company, link=link, email=owner.email, site=site)
        # A new white label invites in its own name; anyone else in their white label's (if any).
        sender = company if kind == GroupType.WHITE_LABEL else accounts.label_name(parent_id)
        mail = Mail.queue(to=owner.email, subject=subject, text=body, reason=FIRST_ACCESS_REASON, sender_name=sender)
        return [recovery, mail]

    return invite

"""Contact and trial requests from the public site: the request and the team's e-mail in one append."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import UUID
from zoneinfo import ZoneInfo

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.identity import IdentityCommands
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.contact_requests import ContactForm, ContactRequest
from bemtevi.domain.documents import format_cnpj, format_cpf
from bemtevi.domain.hosts import normalise_domain
from bemtevi.domain.mail import Mail
from bemtevi.domain.principals import ROOT_GROUP_ID

_SAO_PAULO = ZoneInfo("America/Sao_Paulo")


@dataclass(frozen=True, slots=True)
class ReceivedContact:
    request_id: UUID
    mail_id: UUID
    tenant_id: UUID
    position: int


class ContactCommands:
    def __init__(self, app: BemteviApplication, identity: IdentityCommands, team_email: str) -> None:
        self._app = app
        self._identity = identity
        self._team_email = team_email

    def receive(self, form: ContactForm, host: str | None) -> ReceivedContact:
        """Record an accepted form (``form.problems()`` empty) sent from the site at ``host``.

        The tenant is the group whose domain served the page, or the root group on the product's
        own site. A visitor has no user: the actor is the system acting for that tenant.
        """
        form = form.normalised()
        site = normalise_domain(host) if host else None
        group = self._identity.find_group_by_domain(site) if site else None
        tenant_id = group.id if group is not None else ROOT_GROUP_ID
        with acting_as(Actor(user_id=None, tenant_id=tenant_id)):
            request = ContactRequest.receive(form, site)
            mail = Mail.queue(
                to=self._team_email,
                subject=f"Contato pelo site: {request.service_label} — {form.name}",
                text=self._mail_text(request, group.name if group is not None else None),
                reason="contact",
                reply_to=form.email,
            )
            # Both aggregates are new: nothing to conflict with, one atomic save.
            position = self._app.save_all(request, mail)
        return ReceivedContact(request.id, mail.id, tenant_id, position)

    @staticmethod
    def _mail_text(request: ContactRequest, tenant_name: str | None) -> str:
        document = format_cpf(request.document) if len(request.document) == 11 else format_cnpj(request.document)
        received = datetime.now(UTC).astimezone(_SAO_PAULO).strftime("%d/%m/%Y %H:%M")
        lines = [
            "Nova solicitação recebida pelo formulário de contato do site.",
            "",
            f"Assunto:   {request.service_label}",
            f"Nome:      {request.name}",
            f"CPF/CNPJ:  {document}",
            f"E-mail:    {request.email}",
            f"Telefone:  {request.phone or '-'}",
            f"Site:      {request.host or '-'}" + (f" ({tenant_name})" if tenant_name else ""),
            f"Recebida:  {received} (horário de Brasília)",
            "",
            "Mensagem:",
            request.message,
            "",
            f"Responda a este e-mail para falar diretamente com {request.name}.",
            f"Protocolo: {request.id}",
        ]
        return "\n".join(lines)

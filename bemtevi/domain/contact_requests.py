"""Contact and trial requests sent from the public site (specification, sections 1, 2 and 5).

A visitor fills the contact form (name, CPF or CNPJ, e-mail, optional phone, the service of
interest or a trial, a message). The request is recorded as a ``ContactRequest`` for the tenant
whose site served the form, and the product team is told by e-mail in the same append.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.contact import is_valid_email, normalise_phone
from bemtevi.domain.documents import is_valid_cnpj, is_valid_cpf, only_digits
from bemtevi.domain.errors import InvalidPhone

NAME_MIN = 3
MESSAGE_MIN = 10
NAME_MAX = 120
MESSAGE_MAX = 4000


class ContactService(StrEnum):
    """What a visitor may ask about: the eight advertised services, or a trial."""

    DYNAMIC_QUERIES = "dynamic-queries"
    BATCH_ENRICHMENT = "batch-enrichment"
    MAILING_LISTS = "mailing-lists"
    ENRICHMENT_LAYOUTS = "enrichment-layouts"
    ONLINE_SYSTEM = "online-system"
    API = "api"
    AUTOMATIC_DIALER = "automatic-dialer"
    SMS = "sms"
    TRIAL = "trial"


# Names the product team reads in the notification e-mail (the team works in Portuguese).
SERVICE_LABELS = {
    ContactService.DYNAMIC_QUERIES: "Consultas dinâmicas de pessoas e empresas",
    ContactService.BATCH_ENRICHMENT: "Enriquecimento em lote",
    ContactService.MAILING_LISTS: "Mailing atualizado por CNPJ",
    ContactService.ENRICHMENT_LAYOUTS: "Mais de 200 layouts de enriquecimento",
    ContactService.ONLINE_SYSTEM: "Sistema online",
    ContactService.API: "API",
    ContactService.AUTOMATIC_DIALER: "Discador automático",
    ContactService.SMS: "SMS short code e long code",
    ContactService.TRIAL: "Teste gratuito",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One refused field: ``kind`` is "isNotEmpty", "isEnum" or "constraint"."""

    field: str
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class ContactForm:
    name: str
    document: str
    email: str
    service: str
    message: str
    phone: str | None = None

    def problems(self) -> list[Problem]:
        """Every rule the form breaks, in the form's field order (empty when it is acceptable)."""
        found: list[Problem] = []
        name = self.name.strip()
        if not name:
            found.append(Problem("name", "isNotEmpty", "name should not be empty"))
        elif len(name) < NAME_MIN:
            found.append(Problem("name", "constraint", f"name must have at least {NAME_MIN} characters"))
        document = only_digits(self.document)
        if not self.document.strip():
            found.append(Problem("document", "isNotEmpty", "document should not be empty"))
        elif not (is_valid_cpf(document) or is_valid_cnpj(document)):
            found.append(Problem("document", "constraint", "The informed document is invalid"))
        if not self.email.strip():
            found.append(Problem("email", "isNotEmpty", "email should not be empty"))
        elif not is_valid_email(self.email):
            found.append(Problem("email", "constraint", "Invalid email"))
        if self.phone is not None and self.phone.strip():
            try:
                normalise_phone(self.phone)
            except InvalidPhone:
                found.append(Problem("phone", "constraint", "Invalid phone"))
        if not self.service.strip():
            found.append(Problem("service", "isNotEmpty", "service should not be empty"))
        elif self.service.strip() not in {s.value for s in ContactService}:
            found.append(Problem("service", "isEnum", "service must be a valid enum value"))
        message = self.message.strip()
        if not message:
            found.append(Problem("message", "isNotEmpty", "message should not be empty"))
        elif len(message) < MESSAGE_MIN:
            found.append(Problem("message", "constraint", f"message must have at least {MESSAGE_MIN} characters"))
        return found

    def normalised(self) -> ContactForm:
        """The accepted form with trimmed text, digits-only document and phone, lower-cased e-mail.

        Call after ``problems()`` came back empty.
        """
        phone = normalise_phone(self.phone) if self.phone and self.phone.strip() else None
        return ContactForm(
            name=" ".join(self.name.split()),
            document=only_digits(self.document),
            email=self.email.strip().lower(),
            service=self.service.strip(),
            message=self.message.strip(),
            phone=phone,
        )


class ContactRequest(AuditedAggregate):
    """A visitor's contact or trial request, kept for the tenant whose site served the form."""

    class Received(AuditedAggregate.Created):
        name: str
        document: str
        email: str
        phone: str | None
        service: str
        message: str
        host: str | None

    @event(Received)
    def __init__(
        self,
        name: str,
        document: str,
        email: str,
        phone: str | None,
        service: str,
        message: str,
        host: str | None,
    ) -> None:
        self.name = name
        self.document = document
        self.email = email
        self.phone = phone
        self.service = service
        self.message = message
        # The site (host[:port]) the form was sent from.
        self.host = host

    @classmethod
    def receive(cls, form: ContactForm, host: str | None) -> ContactRequest:
        return cls(
            name=form.name,
            document=form.document,
            email=form.email,
            phone=form.phone,
            service=form.service,
            message=form.message,
            host=host,
        )

    @property
    def service_label(self) -> str:
        try:
            return SERVICE_LABELS[ContactService(self.service)]
        except ValueError:
            return self.service

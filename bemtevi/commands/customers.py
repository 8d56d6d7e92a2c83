"""Registering a customer: the group, its credits granted by the parent, and its owner, in one append."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.commands.identity import IdentityCommands, Principal, normalise_domain
from bemtevi.domain.audit import acting_as
from bemtevi.domain.brand import Brand
from bemtevi.domain.credits import NOT_ENOUGH_TO_PROVIDE_MESSAGES, CreditAccount, credit_account_id
from bemtevi.domain.customers import MAY_REGISTER, CustomerForm, name_key
from bemtevi.domain.errors import AccessDenied, DuplicateValue, GroupInactive, NotEnoughToProvide, QueryNotAllowed
from bemtevi.domain.groups import Group
from bemtevi.domain.indexes import GROUP_CNPJ, GROUP_DOMAIN, GROUP_NAME, GROUP_PHONE, USER_EMAIL, UniqueIndex, index_id
from bemtevi.domain.passwords import generate_password
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role, UserStatus

# Index kind -> (message, form field) when the value is already taken (specification section 8).
DUPLICATES = {
    GROUP_NAME: ("Company name already registered", "companyName"),
    GROUP_CNPJ: ("CNPJ already registered", "cnpj"),
    GROUP_DOMAIN: ("Domain already registered", "whiteLabelUrl"),
    USER_EMAIL: ("Administrator email already registered", "email"),
    GROUP_PHONE: ("Phone already registered", "phone"),
}


@dataclass(frozen=True, slots=True)
class RegisteredCustomer:
    group_id: UUID
    owner_id: UUID
    owner_email: str
    # Shown once to whoever registered the customer; the owner must change it at first access.
    generated_password: str
    position: int


class CustomerCommands:
    def __init__(self, app: BemteviApplication, identity: IdentityCommands) -> None:
        self._app = app
        self._identity = identity

    def register(self, principal: Principal, form: CustomerForm) -> RegisteredCustomer:
        form = form.validated()
        parent = self._app.get(principal.group_id, Group)
        if not parent.active:
            raise GroupInactive()
        if form.group_type not in MAY_REGISTER[parent.group_type]:
            raise AccessDenied()
        # A child never gets a query type its parent does not have.
        if not set(form.enabled_query_types) <= set(parent.enabled_query_types):
            raise QueryNotAllowed(field="enabledQueryTypes")
        domain = normalise_domain(form.white_label_url)
        claims = {
            GROUP_NAME: name_key(form.company_name),
            GROUP_CNPJ: form.cnpj,
            GROUP_PHONE: form.phone,
            USER_EMAIL: form.email,
        }
        if domain:
            claims[GROUP_DOMAIN] = domain
        self._refuse_taken(claims)
        password = generate_password()

        def decide() -> RegisteredCustomer:
            with acting_as(principal.actor):
                group = Group.register(
                    name=form.company_name,
                    group_type=form.group_type,
                    parent_id=parent.id,
                    domain_url=domain,
                    brand=Brand(),
                    enabled_query_types=list(form.enabled_query_types),
                    cnpj=form.cnpj,
                    profile=form.profile(),
                )
                accounts = self._granted_accounts(parent.id, group.id, form.quantities)
                owner, email_index = self._identity.new_user(
                    group.id, form.person_in_charge, form.email, password, Role.OWNER, UserStatus.FIRST_ACCESS
                )
                indexes = [
                    UniqueIndex(kind=kind, value=value, ref=group.id)
                    for kind, value in claims.items()
                    if kind != USER_EMAIL
                ]
                try:
                    position = self._app.save_all(group, *accounts, owner, email_index, *indexes)
                except IntegrityError:
                    self._refuse_taken(claims)  # someone registered one of the values meanwhile
                    raise  # a parent account moved meanwhile: decide again
            return RegisteredCustomer(group.id, owner.id, form.email, password, position)

        return retry_on_conflict(decide)

    def _refuse_taken(self, claims: dict[str, str]) -> None:
        for kind, value in claims.items():
            if self._app.find(index_id(kind, value), UniqueIndex) is not None:
                message, field = DUPLICATES[kind]
                raise DuplicateValue(message, field=field)

    def _granted_accounts(
        self, parent_id: UUID, group_id: UUID, quantities: dict[Category, int]
    ) -> list[CreditAccount]:
        """The customer's accounts, each holding its quantity granted by the parent's account."""
        accounts: list[CreditAccount] = []
        for category in Category:
            amount = quantities.get(category, 0)
            parent = self._app.find(credit_account_id(parent_id, category), CreditAccount)
            if parent is not None and parent.unlimited:
                accounts.append(CreditAccount.open(group_id, category, amount))
                continue
            child = CreditAccount.open(group_id, category, 0)
            accounts.append(child)
            if amount == 0:
                continue
            if parent is None:
                raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
            parent.grant_to(child, amount)
            accounts.append(parent)
        return accounts

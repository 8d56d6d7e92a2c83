"""Registering a customer: the group, its credits granted by the parent, and its owner, in one append."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.commands.identity import IdentityCommands
from bemtevi.domain.audit import AuditedAggregate, acting_as
from bemtevi.domain.brand import Brand
from bemtevi.domain.customers import (
    MAY_REGISTER,
    TOGGLE_LABELS,
    CustomerForm,
    check_default_query,
    checked_toggles,
    name_key,
)
from bemtevi.domain.errors import (
    AccessDenied,
    DomainError,
    DuplicateValue,
    GroupInactive,
    GroupNotFound,
    LayoutNotAllowed,
    ParentDoesNotAllow,
    QueryNotAllowed,
)
from bemtevi.domain.groups import ALLOW_CREATE_WHITE_LABEL, Group, GroupType, default_toggles
from bemtevi.domain.hosts import normalise_domain
from bemtevi.domain.indexes import (
    GROUP_CNPJ,
    GROUP_DOMAIN,
    GROUP_EMAIL,
    GROUP_NAME,
    GROUP_PHONE,
    USER_EMAIL,
    UniqueIndex,
    index_id,
)
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import DOCUMENT_KINDS, Category, QueryTypeCatalogue
from bemtevi.domain.users import Role, User, UserStatus

# Index kind -> (message, form field) when the value is already taken (specification section 8).
DUPLICATES = {
    GROUP_NAME: ("Company name already registered", "companyName"),
    GROUP_CNPJ: ("CNPJ already registered", "cnpj"),
    GROUP_DOMAIN: ("Domain already registered", "whiteLabelUrl"),
    USER_EMAIL: ("Administrator email already registered", "email"),
    GROUP_EMAIL: ("Administrator email already registered", "email"),
    GROUP_PHONE: ("Phone already registered", "phone"),
}


@dataclass(frozen=True, slots=True)
class RegisteredCustomer:
    group_id: UUID
    owner_id: UUID
    # Where the owner's invitation went: the owner has no password until they choose one from it.
    owner_email: str
    position: int
    unique_key: str = ""


def opening_quantities(quantities: Mapping[Category, int]) -> dict[Category, int | None]:
    """A new customer's four accounts: each holding its quantity (none: 0), granted by the parent's."""
    return {category: quantities.get(category, 0) for category in Category}


class CustomerCommands:
    def __init__(
        self, app: BemteviApplication, identity: IdentityCommands, query_types: QueryTypeCatalogue | None = None
    ) -> None:
        self._app = app
        self._identity = identity
        self._query_types = query_types

    def _check_default_query(self, form: CustomerForm) -> None:
        """A group set to use a default query is given one of the catalogue's defaults (both kinds' looked up)."""
        if self._query_types is None or not form.default_query:
            return
        defaults = set()
        for kind in DOCUMENT_KINDS:
            try:
                defaults.add(self._query_types.default_for(kind).key)
            except DomainError:
                continue  # that kind has none: the other's may do
        check_default_query(form, frozenset(defaults))

    def register(
        self,
        principal: Principal,
        form: CustomerForm,
        toggles: dict[str, bool] | None = None,
        invite: Callable[[User, str, str | None, UUID, str], list[AuditedAggregate]] | None = None,
    ) -> RegisteredCustomer:
        """``invite``: the owner's first-access invitation (``commands.invitations``), appended with the
        customer, so the owner chooses their own password from the e-mail."""
        form = form.validated()
        parent = self._app.get(principal.group_id, Group)
        if not parent.active:
            raise GroupInactive()
        self._check_type(parent, form.group_type)
        # Toggles default to the type's, limited to the parent's; asking for more is refused.
        parent_toggles = parent.current_toggles()
        defaults = {k: v and parent_toggles.get(k, False) for k, v in default_toggles(form.group_type).items()}
        child_toggles = checked_toggles(toggles, parent_toggles, defaults)
        # A child never gets a query type its parent does not have.
        if not set(form.enabled_query_types) <= set(parent.enabled_query_types):
            raise QueryNotAllowed(field="enabledQueryTypes")
        self._check_default_query(form)
        layouts = list(form.enabled_layouts or ())
        if not set(layouts) <= set(parent.current_layouts()):
            raise LayoutNotAllowed(field="enabledLayouts")
        domain = normalise_domain(form.white_label_url)
        claims = {
            GROUP_NAME: name_key(form.company_name),
            GROUP_CNPJ: form.cnpj,
            GROUP_PHONE: form.phone,
            USER_EMAIL: form.email,
            GROUP_EMAIL: form.email,
        }
        if domain:
            claims[GROUP_DOMAIN] = domain
        self._refuse_taken(claims)
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
                toggles=child_toggles,
                enabled_layouts=layouts,
            )
            owner, email_index = self._identity.new_user(
                group.id, form.person_in_charge, form.email, None, Role.OWNER, UserStatus.FIRST_ACCESS
            )
            indexes = [self._claim(kind, value, group.id) for kind, value in claims.items() if kind != USER_EMAIL]
            name = form.trade_name or form.company_name
            invitation = invite(owner, name, domain, parent.id, form.group_type) if invite else []
        # The ledger checks the claims again (someone may take a value meanwhile) and appends the accounts,
        # granted by the parent's, with the group, its owner and the claims.
        refusals = {(kind, value): DUPLICATES[kind] for kind, value in claims.items()}
        outcome = self._identity.open_group(
            principal.actor,
            group,
            opening_quantities(form.quantities),
            [owner, email_index, *indexes, *invitation],
            refusals,
        )
        return RegisteredCustomer(group.id, owner.id, form.email, outcome.position, group.unique_key)

    def _refuse_taken(self, claims: dict[str, str], owner: UUID | None = None) -> None:
        """Refuses the first value another holds (``owner``'s own claims are not duplicates)."""
        for kind, value in claims.items():
            index = self._app.find(index_id(kind, value), UniqueIndex)
            if index is not None and index.taken and index.ref != owner:
                if kind == USER_EMAIL and owner is not None and self._user_group(index.ref) == owner:
                    continue
                message, field = DUPLICATES[kind]
                raise DuplicateValue(message, field=field)
        if owner is not None and GROUP_EMAIL in claims:
            # An e-mail some user already signs in with belongs to that user's group.
            self._refuse_taken({USER_EMAIL: claims[GROUP_EMAIL]}, owner=owner)

    def _user_group(self, user_id: UUID) -> UUID | None:
        user = self._app.find(user_id, User)
        return None if user is None else user.group_id

    # -- editing ------------------------------------------------------------------------------

    def _child_of(self, principal: Principal, group_id: UUID) -> Group:
        """A group strictly below the caller's; anything else is 'not found' (never says it exists)."""
        group = self._app.find(group_id, Group)
        if group is None or group.id == principal.group_id or not self._identity.is_within(group, principal.group_id):
            raise GroupNotFound()
        return group

    def edit(
        self,
        principal: Principal,
        group_id: UUID,
        form: CustomerForm,
        toggles: dict[str, bool] | None,
        descendants: list[UUID],
    ) -> int:
        """The customer form on an existing customer, with its toggles and query types.

        Values that must stay unused by others are claimed anew when they change (and the old
        claims released) in the same append; a narrowing of query types or toggles is carried
        down to ``descendants`` (the customer's subtree) so a child never keeps more.
        """
        form = form.validated()

        def decide() -> int:
            group = self._child_of(principal, group_id)
            parent = self._app.get(group.parent_id, Group) if group.parent_id else None
            if parent is None:
                raise AccessDenied()
            self._check_type(parent, form.group_type)
            if not set(form.enabled_query_types) <= set(parent.enabled_query_types):
                raise QueryNotAllowed(field="enabledQueryTypes")
            self._check_default_query(form)
            if form.enabled_layouts is not None and not set(form.enabled_layouts) <= set(parent.current_layouts()):
                raise LayoutNotAllowed(field="enabledLayouts")
            new_toggles = checked_toggles(toggles, parent.current_toggles(), group.current_toggles())
            domain = normalise_domain(form.white_label_url)
            old = self._claims_of(group)
            new = {
                GROUP_NAME: name_key(form.company_name),
                GROUP_CNPJ: form.cnpj,
                GROUP_PHONE: form.phone,
                GROUP_EMAIL: form.email,
                GROUP_DOMAIN: domain,
            }
            changed = {k: v for k, v in new.items() if v != old.get(k)}
            self._refuse_taken({k: v for k, v in changed.items() if v}, owner=group.id)
            with acting_as(principal.actor):
                group.edit(
                    name=form.company_name,
                    group_type=form.group_type.value,
                    cnpj=form.cnpj,
                    domain_url=domain,
                    profile={**group.profile, **form.profile()},
                )
                to_save: list[AuditedAggregate] = [group]
                for kind, value in changed.items():
                    previous = old.get(kind)
                    if previous:
                        released = self._app.find(index_id(kind, previous), UniqueIndex)
                        if released is not None and released.taken and released.ref == group.id:
                            released.release()
                            to_save.append(released)
                    if value:
                        to_save.append(self._claim(kind, value, group.id))
                types = list(form.enabled_query_types)
                if types != list(group.enabled_query_types) or new_toggles != group.current_toggles():
                    group.change_permissions(types, new_toggles)
                    to_save += self._narrow(descendants, group.id, set(types), new_toggles)
                layouts = list(form.enabled_layouts) if form.enabled_layouts is not None else group.current_layouts()
                if layouts != group.current_layouts():
                    group.change_layouts(layouts)
                    # A child narrowed above already is narrowed again on the same copy (one version each).
                    loaded = {g.id: g for g in to_save if isinstance(g, Group)}
                    for child in self._narrow_layouts(descendants, group.id, set(layouts), loaded):
                        if child.id not in loaded:
                            to_save.append(child)
                try:
                    return self._app.save_all(*to_save)
                except IntegrityError:
                    self._refuse_taken({k: v for k, v in changed.items() if v}, owner=group.id)
                    raise  # the group or a descendant moved meanwhile: decide again

        return retry_on_conflict(decide)

    def set_status(self, principal: Principal, group_id: UUID, active: bool) -> int:
        """Activate or inactivate a customer; an inactive group's users and lookups stop."""

        def decide() -> int:
            group = self._child_of(principal, group_id)
            if group.active == active:
                return self._app.max_position()
            with acting_as(principal.actor):
                group.activate() if active else group.inactivate()
            return self._app.save_all(group)

        return retry_on_conflict(decide)

    # -- the purpose setting: a group's own consultations must say what they are for --

    def _own_or_below(self, principal: Principal, group_id: UUID) -> Group:
        """The principal's group or one below it (anything else is not found, as another tenant's is)."""
        group = self._app.find(group_id, Group)
        if group is None or not self._identity.is_within(group, principal.group_id):
            raise GroupNotFound()
        return group

    def purpose_required(self, principal: Principal, group_id: UUID) -> bool:
        return self._own_or_below(principal, group_id).requires_purpose()

    def require_purpose(self, principal: Principal, group_id: UUID, required: bool) -> int:
        """The group's setting (its owners and admins, or those of a group above it; the API checks the role)."""

        def decide() -> int:
            group = self._own_or_below(principal, group_id)
            if group.requires_purpose() == required:
                return self._app.max_position()
            with acting_as(principal.actor):
                group.require_purpose(required)
            return self._app.save_all(group)

        return retry_on_conflict(decide)

    def _check_type(self, parent: Group, group_type: GroupType) -> None:
        if group_type not in MAY_REGISTER[parent.group_type]:
            raise AccessDenied()
        if group_type == GroupType.WHITE_LABEL and not parent.allows(ALLOW_CREATE_WHITE_LABEL):
            raise ParentDoesNotAllow(
                f"Parent group does not allow {TOGGLE_LABELS[ALLOW_CREATE_WHITE_LABEL]}", field="type"
            )

    @staticmethod
    def _claims_of(group: Group) -> dict[str, str | None]:
        profile = group.profile or {}
        return {
            GROUP_NAME: name_key(group.name),
            GROUP_CNPJ: group.cnpj,
            GROUP_PHONE: profile.get("phone"),
            GROUP_EMAIL: profile.get("email"),
            GROUP_DOMAIN: group.domain_url,
        }

    def _claim(self, kind: str, value: str, ref: UUID) -> UniqueIndex:
        """A new claim, or a released one taken again (same id: concurrent claims still collide)."""
        existing = self._app.find(index_id(kind, value), UniqueIndex)
        if existing is None:
            return UniqueIndex(kind=kind, value=value, ref=ref)
        if existing.taken and existing.ref != ref:
            message, field = DUPLICATES[kind]
            raise DuplicateValue(message, field=field)
        existing.reclaim(ref)
        return existing

    def _narrow_layouts(
        self, descendants: list[UUID], root: UUID, layouts: set[str], loaded: dict[UUID, Group]
    ) -> list[Group]:
        """Descendants that had layouts the new set lacks, narrowed to it (a child never keeps more)."""
        narrowed: list[Group] = []
        for group_id in descendants:
            if group_id == root:
                continue
            child = loaded.get(group_id) or self._app.find(group_id, Group)
            if child is None:
                continue
            kept = [layout for layout in child.current_layouts() if layout in layouts]
            if kept != child.current_layouts():
                child.change_layouts(kept)
                narrowed.append(child)
        return narrowed

    def _narrow(self, descendants: list[UUID], root: UUID, types: set[str], toggles: dict[str, bool]) -> list[Group]:
        """Descendants that had more than the new permissions, narrowed to them."""
        narrowed: list[Group] = []
        for group_id in descendants:
            if group_id == root:
                continue
            child = self._app.find(group_id, Group)
            if child is None:
                continue
            child_types = [t for t in child.enabled_query_types if t in types]
            child_toggles = {k: v and toggles.get(k, False) for k, v in child.current_toggles().items()}
            if child_types != list(child.enabled_query_types) or child_toggles != child.current_toggles():
                child.change_permissions(child_types, child_toggles)
                narrowed.append(child)
        return narrowed

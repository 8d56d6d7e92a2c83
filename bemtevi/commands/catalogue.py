"""The enrichment catalogue: query types and layouts (list on the read side; add, edit, activate and
inactivate here, by appending events) (the write side reads query
types through ``commands.query_types.StoredQueryTypes``).

Who manages it: a super-admin (the specification's menus give Suppliers, Layout and Types of queries to
the super-admin only). The catalogue is the root group's: a new query type or layout is enabled for the
root in the same append (every other group gets it from its parent, never beyond it, as customers do).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.domain.audit import AuditedAggregate, acting_as
from bemtevi.domain.errors import (
    AccessDenied,
    DuplicateValue,
    GroupNotFound,
    LayoutNotFound,
    QueryNotFound,
)
from bemtevi.domain.groups import Group
from bemtevi.domain.layouts import Layout, LayoutSpec, RecordPreview, record_preview
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.query_types import (
    DEFAULTS_ID,
    SEEDED,
    QueryTypeDefaults,
    QueryTypeDefinition,
    QueryTypeForm,
    form_of,
    key_for,
    next_defaults,
    query_type_id,
)
from bemtevi.domain.ready_layouts import READY_LAYOUTS
from bemtevi.domain.suppliers import Supplier
from bemtevi.domain.users import Role
from bemtevi.infra.demo_values import KNOWN_CNPJS, KNOWN_CPFS


@dataclass(frozen=True, slots=True)
class Saved:
    id: str
    position: int


class CatalogueCommands:
    def __init__(self, app: BemteviApplication) -> None:
        self._app = app

    @staticmethod
    def _require_manager(principal: Principal) -> None:
        if principal.role != Role.SUPER_ADMIN:
            raise AccessDenied()

    @staticmethod
    def _require_layout_author(principal: Principal) -> None:
        """Who writes layouts: a super-admin (the platform's), an owner or an admin (their group's own)."""
        if principal.role not in (Role.SUPER_ADMIN, Role.OWNER, Role.ADMIN):
            raise AccessDenied()

    # -- first start -------------------------------------------------------------------------

    def seed(self) -> int:
        """The seeded query types and the defaults, on a store that has none (every start; idempotent:
        two processes starting at once collide on the defaults and the second appends nothing)."""
        if self._app.exists(DEFAULTS_ID):
            return self._app.max_position()
        with acting_as(SYSTEM):
            defaults = QueryTypeDefaults(defaults={})
            definitions: list[AuditedAggregate] = []
            chosen: dict[str, str] = {}
            for seeded in SEEDED:
                definition = QueryTypeDefinition(key=seeded.key, definition=form_of(seeded).definition())
                definition.set_default(True)
                defaults.list_key(seeded.key)
                chosen[seeded.document_kind] = seeded.key
                definitions.append(definition)
            defaults.change_defaults(chosen)
        try:
            return self._app.save_all(defaults, *definitions)
        except IntegrityError:
            return self._app.max_position()

    def seed_layouts(self) -> int:
        """The ready layouts, on a store that lacks them (every start; idempotent: their ids come from their
        keys, so a second process starting at once collides and appends nothing). The root enables them, so
        a customer may be given them as they are, or copy one into its own layouts (``copy_layout``)."""
        missing = [r for r in READY_LAYOUTS if not self._app.exists(r.id)]  # their ids are theirs alone
        if not missing:
            return self._app.max_position()

        def decide() -> int:
            root = self._root()
            with acting_as(SYSTEM):
                layouts = [Layout(spec=r.spec.as_dict(), ready=r.key) for r in missing]
                known = root.current_layouts()
                root.change_layouts([*known, *(str(x.id) for x in layouts if str(x.id) not in known)])
            return self._app.save_all(*layouts, root)

        try:
            return retry_on_conflict(decide)
        except IntegrityError:
            return self._app.max_position()

    # -- query types ---------------------------------------------------------------------------

    def _root(self) -> Group:
        root = self._app.find(ROOT_GROUP_ID, Group)
        if root is None:
            raise GroupNotFound()
        return root

    def add_query_type(self, principal: Principal, form: QueryTypeForm) -> Saved:
        self._require_manager(principal)
        form = form.validated()

        def decide() -> Saved:
            defaults = self._app.get(DEFAULTS_ID, QueryTypeDefaults)
            key = key_for(form.name)
            if key in defaults.keys or self._app.find(query_type_id(key), QueryTypeDefinition) is not None:
                raise DuplicateValue("A query type with this name already exists", field="name")
            root = self._root()
            with acting_as(principal.actor):
                definition = QueryTypeDefinition(key=key, definition=form.definition())
                defaults.list_key(key)
                chosen = next_defaults(defaults.defaults, key, form.toggles, form.default, True)
                to_save: list[AuditedAggregate] = [definition, defaults, root]
                if form.default:
                    definition.set_default(True)
                    to_save += self._defaults_changed(defaults, chosen, exclude=key)
                # The catalogue is the root's: every other group gets a new type from its parent.
                root.change_permissions([*root.enabled_query_types, key], root.current_toggles())
            return Saved(key, self._app.save_all(*to_save))

        return retry_on_conflict(decide)

    def _defaults_changed(
        self, defaults: QueryTypeDefaults, chosen: dict[str, str], exclude: str
    ) -> list[AuditedAggregate]:
        """Record new defaults; types that are no kind's default any more lose their flag."""
        changed: list[AuditedAggregate] = []
        if chosen != defaults.defaults:
            defaults.change_defaults(chosen)
        still = set(chosen.values())
        for key in defaults.keys:
            if key == exclude or key in still:
                continue
            other = self._app.find(query_type_id(key), QueryTypeDefinition)
            if other is not None and other.default:
                other.set_default(False)
                changed.append(other)
        return changed

    def _definition(self, key: str) -> QueryTypeDefinition:
        found = self._app.find(query_type_id(key), QueryTypeDefinition)
        if found is None:
            raise QueryNotFound(field="key")
        return found

    def edit_query_type(self, principal: Principal, key: str, form: QueryTypeForm) -> Saved:
        self._require_manager(principal)
        form = form.validated()

        def decide() -> Saved:
            definition = self._definition(key)
            defaults = self._app.get(DEFAULTS_ID, QueryTypeDefaults)
            chosen = next_defaults(defaults.defaults, key, form.toggles, form.default, definition.active)
            with acting_as(principal.actor):
                to_save: list[AuditedAggregate] = [definition, defaults]
                if form.definition() != definition.definition:
                    definition.edit(form.definition())
                is_default = key in chosen.values()
                if is_default != definition.default:
                    definition.set_default(is_default)
                to_save += self._defaults_changed(defaults, chosen, exclude=key)
            return Saved(key, self._app.save_all(*to_save))

        return retry_on_conflict(decide)

    def set_query_type_active(self, principal: Principal, key: str, active: bool) -> Saved:
        """Activate or inactivate; a kind's default cannot be inactivated (make another the default
        first): an inactive type runs no new lookup, and groups keep it enabled for when it returns."""
        self._require_manager(principal)

        def decide() -> Saved:
            definition = self._definition(key)
            if definition.active == active:
                return Saved(key, self._app.max_position())
            defaults = self._app.get(DEFAULTS_ID, QueryTypeDefaults)
            value = definition.value()
            next_defaults(defaults.defaults, key, value.toggles, value.default, active)
            with acting_as(principal.actor):
                if active:
                    definition.activate()
                else:
                    definition.inactivate()
            # The defaults aggregate is saved unchanged: a default set at the same moment collides here.
            return Saved(key, self._app.save_all(definition, defaults))

        return retry_on_conflict(decide)

    # -- layouts -------------------------------------------------------------------------------

    def add_layout(self, principal: Principal, spec: LayoutSpec) -> Saved:
        """A super-admin's layout is the platform's (the root enables it); an owner's or an admin's is
        their group's own, usable by the group at once."""
        self._require_layout_author(principal)
        spec = spec.validated()

        def decide() -> Saved:
            if principal.role == Role.SUPER_ADMIN:
                root = self._root()
                with acting_as(principal.actor):
                    layout = Layout(spec=spec.as_dict())
                    root.change_layouts([*root.current_layouts(), str(layout.id)])
                return Saved(str(layout.id), self._app.save_all(layout, root))
            with acting_as(principal.actor):
                layout = Layout(spec=spec.as_dict(), group_id=str(principal.group_id))
            return Saved(str(layout.id), self._app.save_all(layout))

        return retry_on_conflict(decide)

    def copy_layout(self, principal: Principal, layout_id: str) -> Saved:
        """A ready layout (or one of the group's own) copied into the caller's group's own layouts: an
        independent layout (its own id and events), named after the original with ``(cópia)``."""
        self._require_layout_author(principal)

        def decide() -> Saved:
            source = self._layout(layout_id)
            mine = source.owner() == str(principal.group_id)
            if not (getattr(source, "ready", None) or mine):
                raise LayoutNotFound(field="id")
            spec = dict(source.spec)
            spec["file_name"] = f"{spec['file_name']} (cópia)"[:120]
            with acting_as(principal.actor):
                copy = Layout(spec=spec, group_id=str(principal.group_id), copied_from=layout_id)
            return Saved(str(copy.id), self._app.save_all(copy))

        return retry_on_conflict(decide)

    def _layout(self, layout_id: str) -> Layout:
        try:
            found = self._app.find(UUID(layout_id), Layout)
        except ValueError:
            found = None
        if found is None:
            raise LayoutNotFound(field="id")
        return found

    def _may_write(self, principal: Principal, layout: Layout) -> None:
        """A super-admin writes any layout; an owner or an admin only their group's own (another's is not found)."""
        self._require_layout_author(principal)
        if principal.role != Role.SUPER_ADMIN and layout.owner() != str(principal.group_id):
            raise LayoutNotFound(field="id")

    def edit_layout(self, principal: Principal, layout_id: str, spec: LayoutSpec) -> Saved:
        self._require_layout_author(principal)
        spec = spec.validated()

        def decide() -> Saved:
            layout = self._layout(layout_id)
            self._may_write(principal, layout)
            if spec.as_dict() == layout.spec:
                return Saved(layout_id, self._app.max_position())
            with acting_as(principal.actor):
                layout.edit(spec.as_dict())
            return Saved(layout_id, self._app.save_all(layout))

        return retry_on_conflict(decide)

    def set_layout_active(self, principal: Principal, layout_id: str, active: bool) -> Saved:
        self._require_layout_author(principal)

        def decide() -> Saved:
            layout = self._layout(layout_id)
            self._may_write(principal, layout)
            if layout.active == active:
                return Saved(layout_id, self._app.max_position())
            with acting_as(principal.actor):
                if active:
                    layout.activate()
                else:
                    layout.inactivate()
            return Saved(layout_id, self._app.save_all(layout))

        return retry_on_conflict(decide)


# The documents a layout's preview shows: the demo data's own (a preview is free, so it never looks up
# a document its author chose: that would be a consultation without a charge).
DEMO_DOCUMENTS: dict[Literal["cpf", "cnpj"], str] = {"cpf": KNOWN_CPFS[0], "cnpj": KNOWN_CNPJS[0]}


@dataclass(frozen=True)
class LayoutRecordPreview:
    document: str
    found: bool
    shown: RecordPreview


def demo_record_preview(supplier: Supplier, spec: LayoutSpec, kind: Literal["cpf", "cnpj"]) -> LayoutRecordPreview:
    """One demo record written by the layout's exit rows, as a batch would write it: no event, no charge."""
    document = DEMO_DOCUMENTS[kind]
    record = supplier.lookup(kind, document)
    return LayoutRecordPreview(document, record is not None, record_preview(spec, record, document, dt.date.today()))

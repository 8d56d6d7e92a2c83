"""Group: a tenant (white-label, reseller or company) with its brand and permissions."""

from __future__ import annotations

import secrets
from enum import StrEnum
from typing import Any
from uuid import UUID

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.brand import Brand


class GroupType(StrEnum):
    WHITE_LABEL = "white-label"
    RESELLER = "reseller"
    COMPANY = "company"


# Per-group toggles (specification section 6): create white-label companies, upload manual batch
# queries, cancel/delete batch queries. A child never has a toggle its parent lacks.
ALLOW_CREATE_WHITE_LABEL = "allowCreatedWhiteLabel"
ALLOW_UPLOAD_MANUAL = "allowUploadingManualQueries"
ALLOW_DELETE_CANCEL = "allowDeletedAndCancelled"
TOGGLES = (ALLOW_CREATE_WHITE_LABEL, ALLOW_UPLOAD_MANUAL, ALLOW_DELETE_CANCEL)


def default_toggles(group_type: str) -> dict[str, bool]:
    """What a group registered without toggles may do: only white-labels create white-labels."""
    return {
        ALLOW_CREATE_WHITE_LABEL: group_type == GroupType.WHITE_LABEL,
        ALLOW_UPLOAD_MANUAL: True,
        ALLOW_DELETE_CANCEL: True,
    }


class Group(AuditedAggregate):
    class Registered(AuditedAggregate.Created):
        name: str
        group_type: str
        parent_id: UUID | None
        domain_url: str | None
        brand: dict[str, Any]
        enabled_query_types: list[str]
        unique_key: str
        cnpj: str | None
        profile: dict[str, Any] | None
        toggles: dict[str, bool] | None
        enabled_layouts: list[str] | None

    @event(Registered)
    def __init__(
        self,
        name: str,
        group_type: str,
        parent_id: UUID | None,
        domain_url: str | None,
        brand: dict[str, Any],
        enabled_query_types: list[str],
        unique_key: str,
        cnpj: str | None = None,
        profile: dict[str, Any] | None = None,
        toggles: dict[str, bool] | None = None,
        enabled_layouts: list[str] | None = None,
    ) -> None:
        self.name = name
        self.group_type = GroupType(group_type)
        self.parent_id = parent_id
        self.domain_url = domain_url
        self.brand = dict(brand)
        self.enabled_query_types = list(enabled_query_types)
        self.unique_key = unique_key
        self.cnpj = cnpj
        # The customer form's other fields (trade name, person in charge, contact, access).
        self.profile = dict(profile or {})
        self.toggles = {**default_toggles(group_type), **(toggles or {})}
        # Layout ids (text) the group may use; a group registered before layouts existed has none.
        self.enabled_layouts = list(enabled_layouts or [])
        self.active = True

    @classmethod
    def register(
        cls,
        *,
        name: str,
        group_type: GroupType,
        parent_id: UUID | None,
        domain_url: str | None,
        brand: Brand,
        enabled_query_types: list[str],
        cnpj: str | None = None,
        profile: dict[str, Any] | None = None,
        toggles: dict[str, bool] | None = None,
        group_id: UUID | None = None,
        enabled_layouts: list[str] | None = None,
    ) -> Group:
        kwargs: dict[str, Any] = {
            "name": name,
            "group_type": group_type.value,
            "parent_id": parent_id,
            "domain_url": domain_url,
            "brand": brand.as_dict(),
            "enabled_query_types": enabled_query_types,
            "unique_key": secrets.token_hex(16),
            "cnpj": cnpj,
            "profile": profile,
            "toggles": toggles,
            "enabled_layouts": enabled_layouts,
        }
        if group_id is not None:
            return cls._create(cls.Registered, id=group_id, **kwargs)
        return cls(**kwargs)

    @property
    def brand_value(self) -> Brand:
        return Brand.from_dict(self.brand)

    class BrandChanged(AuditedAggregate.Event):
        brand: dict[str, Any]

    @event(BrandChanged)
    def change_brand(self, brand: dict[str, Any]) -> None:
        self.brand = dict(brand)

    class Edited(AuditedAggregate.Event):
        name: str
        group_type: str
        cnpj: str | None
        domain_url: str | None
        profile: dict[str, Any]

    @event(Edited)
    def edit(
        self,
        name: str,
        group_type: str,
        cnpj: str | None,
        domain_url: str | None,
        profile: dict[str, Any],
    ) -> None:
        """The customer form's registration fields, changed by the parent (or an ancestor)."""
        self.name = name
        self.group_type = GroupType(group_type)
        self.cnpj = cnpj
        self.domain_url = domain_url
        self.profile = dict(profile)

    class PermissionsChanged(AuditedAggregate.Event):
        enabled_query_types: list[str]
        toggles: dict[str, bool]

    @event(PermissionsChanged)
    def change_permissions(self, enabled_query_types: list[str], toggles: dict[str, bool]) -> None:
        """Query types and toggles; also what a parent's narrowing takes away from its subtree."""
        self.enabled_query_types = list(enabled_query_types)
        self.toggles = dict(toggles)

    class LayoutsChanged(AuditedAggregate.Event):
        enabled_layouts: list[str]

    @event(LayoutsChanged)
    def change_layouts(self, enabled_layouts: list[str]) -> None:
        """The layouts the group may use (never beyond its parent's; a narrowing is carried down)."""
        self.enabled_layouts = list(enabled_layouts)

    def current_layouts(self) -> list[str]:
        return list(getattr(self, "enabled_layouts", None) or [])

    def current_toggles(self) -> dict[str, bool]:
        # A snapshot taken before toggles existed has none: the type's defaults apply.
        return {**default_toggles(self.group_type), **(getattr(self, "toggles", None) or {})}

    def allows(self, toggle: str) -> bool:
        return bool(self.current_toggles().get(toggle, False))

    class TwoFactorChanged(AuditedAggregate.Event):
        two_factor: bool

    @event(TwoFactorChanged)
    def change_two_factor(self, two_factor: bool) -> None:
        """Whether the group's users sign in with a mailed code after their password (API tokens never do)."""
        self.two_factor = two_factor

    @property
    def requires_two_factor(self) -> bool:
        # Groups (and snapshots) from before the setting have it off.
        return bool(getattr(self, "two_factor", False))

    class PurposeRequirementChanged(AuditedAggregate.Event):
        purpose_required: bool

    # Not a toggle: toggles are permissions a child may only narrow, this is a duty a group sets for its own users.
    @event(PurposeRequirementChanged)
    def require_purpose(self, purpose_required: bool) -> None:
        """Whether every consultation of the group must say its purpose (off by default)."""
        self.purpose_required = purpose_required

    def requires_purpose(self) -> bool:
        # A group registered (or snapshotted) before the setting existed has never required it.
        return bool(getattr(self, "purpose_required", False))

    class Activated(AuditedAggregate.Event):
        pass

    @event(Activated)
    def activate(self) -> None:
        self.active = True

    class Inactivated(AuditedAggregate.Event):
        pass

    @event(Inactivated)
    def inactivate(self) -> None:
        self.active = False

    def may_run(self, query_type_key: str) -> bool:
        return query_type_key in self.enabled_query_types

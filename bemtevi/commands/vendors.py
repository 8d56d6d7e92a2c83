"""Suppliers (HTTP vendors): add, edit, activate / inactivate (super-admin), and the active ones a lookup tries.

Secrets are sealed (``infra.secrets.SecretBox``, the server's key) before any event is made: the
event store, the audit log and the read models only ever see sealed text, and the API answers
"set" / "not set". A vendor is added to the ``VendorList`` (the order lookups try them in) in the
same append that registers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.domain.audit import acting_as
from bemtevi.domain.errors import AccessDenied, DuplicateValue, SupplierNotFound
from bemtevi.domain.principals import Principal
from bemtevi.domain.users import Role
from bemtevi.domain.vendors import (
    DEFAULT_MAX_BODY_KB,
    SECRET_FIELDS,
    Vendor,
    VendorConfig,
    VendorForm,
    VendorList,
    name_key,
    vendor_list_id,
)
from bemtevi.infra.secrets import SecretBox


@dataclass(frozen=True, slots=True)
class SavedVendor:
    vendor_id: UUID
    position: int


class VendorCommands:
    def __init__(self, app: BemteviApplication, box: SecretBox) -> None:
        self._app = app
        self._box = box

    @staticmethod
    def _check(principal: Principal) -> None:
        if principal.role != Role.SUPER_ADMIN:
            raise AccessDenied()

    def _sealed(self, form: VendorForm, stored: dict[str, str]) -> dict[str, str]:
        """Each secret sealed anew when the form sends one, kept when it sends none (None), cleared by ""."""
        sealed = {}
        for name in SECRET_FIELDS:
            value = getattr(form, name)
            sealed[name] = stored.get(name, "") if value is None else self._box.seal(value)
        return sealed

    def _vendors(self) -> list[Vendor]:
        listed = self._app.find(vendor_list_id(), VendorList)
        if listed is None:
            return []
        return [v for v in (self._app.find(i, Vendor) for i in listed.vendor_ids) if v is not None]

    def _refuse_duplicate_name(self, name: str, vendor_id: UUID | None) -> None:
        for other in self._vendors():
            if other.id != vendor_id and name_key(other.config["name"]) == name_key(name):
                raise DuplicateValue("Supplier name already registered", field="name")

    def register(self, principal: Principal, form: VendorForm) -> SavedVendor:
        self._check(principal)
        form = form.validated()
        self._refuse_duplicate_name(form.name, None)

        def decide() -> SavedVendor:
            listed = self._app.find(vendor_list_id(), VendorList)
            with acting_as(principal.actor):
                if listed is None:
                    listed = VendorList()
                vendor = Vendor(config=form.config(), secrets_sealed=self._sealed(form, {}))
                listed.add(vendor.id)
            return SavedVendor(vendor.id, self._app.save_all(listed, vendor))

        return retry_on_conflict(decide)

    def edit(self, principal: Principal, vendor_id: UUID, form: VendorForm) -> SavedVendor:
        self._check(principal)

        def decide() -> SavedVendor:
            vendor = self._app.find(vendor_id, Vendor)
            if vendor is None:
                raise SupplierNotFound()
            checked = form.validated(vendor.secrets_set)
            self._refuse_duplicate_name(checked.name, vendor_id)
            with acting_as(principal.actor):
                vendor.edit(config=checked.config(), secrets_sealed=self._sealed(checked, vendor.secrets_sealed))
            return SavedVendor(vendor.id, self._app.save_all(vendor))

        return retry_on_conflict(decide)

    def set_active(self, principal: Principal, vendor_id: UUID, active: bool) -> SavedVendor:
        self._check(principal)

        def decide() -> SavedVendor:
            vendor = self._app.find(vendor_id, Vendor)
            if vendor is None:
                raise SupplierNotFound()
            if vendor.active == active:
                return SavedVendor(vendor.id, self._app.save_all())
            with acting_as(principal.actor):
                vendor.set_active(active)
            return SavedVendor(vendor.id, self._app.save_all(vendor))

        return retry_on_conflict(decide)


class VendorDirectory:
    """The active suppliers a lookup of a query type tries, in the order they were added, with their
    secrets opened. Read from the application's read cache (evicted by every save, this process's and,
    through the invalidator, others'), so a lookup that reaches the vendors costs no store read."""

    def __init__(self, app: BemteviApplication, box: SecretBox) -> None:
        self._app = app
        self._box = box
        self._configs: dict[tuple[UUID, int], VendorConfig] = {}

    def for_query_type(self, query_type: str, document_kind: str) -> list[VendorConfig]:
        listed = self._app.find_readonly(vendor_list_id(), VendorList)
        if listed is None:
            return []
        found = []
        for vendor_id in listed.vendor_ids:
            vendor = self._app.find_readonly(vendor_id, Vendor)
            if vendor is None or not vendor.active:
                continue
            config = self._config(vendor)
            if query_type in config.allowed_query_types and config.takes(document_kind):
                found.append(config)
        return found

    def _config(self, vendor: Vendor) -> VendorConfig:
        key = (vendor.id, vendor.version)
        config = self._configs.get(key)
        if config is None:
            c = vendor.config
            config = VendorConfig(
                id=vendor.id,
                version=vendor.version,
                name=c["name"],
                url=c["url"],
                server=c["server"],
                port=c["port"],
                route=c["route"],
                http_method=c["http_method"],
                auth_method=c["auth_method"],
                input_type=c["input_type"],
                username=c["username"],
                prefix=c["prefix"],
                embedded_in_url_base=c["embedded_in_url_base"],
                base_complement=c["base_complement"],
                request_body=c["request_body"],
                allowed_query_types=tuple(c["allowed_query_types"]),
                cache_days=c["cache_days"],
                validity_days=c["validity_days"],
                # Suppliers saved before the cap was a setting have the default.
                max_body_kb=c.get("max_body_kb", DEFAULT_MAX_BODY_KB),
                password=self._box.open(vendor.secrets_sealed.get("password", "")),
                token=self._box.open(vendor.secrets_sealed.get("token", "")),
            )
            self._configs = {k: v for k, v in self._configs.items() if k[0] != vendor.id}
            self._configs[key] = config
        return config

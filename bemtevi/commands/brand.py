"""Editing a group's brand: title, colours, contact data and images (checked to their exact sizes).

Images are content-addressed ``BrandImage`` aggregates (the bytes in their one event); the
group's brand records the image's address, so a brand with its fallbacks is resolved from the
groups read model alone and each upload gets a new address (no stale browser caches).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from uuid import UUID

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.commands.identity import IdentityCommands
from bemtevi.domain.audit import AuditedAggregate, acting_as
from bemtevi.domain.brand import (
    COLOUR_FIELDS,
    CONTACT_FIELDS,
    IMAGE_SIZES,
    BrandImage,
    check_image,
    image_id,
    image_url,
    valid_colour,
    valid_contact,
)
from bemtevi.domain.errors import AccessDenied, GroupNotFound, InvalidData
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.menus import may_open
from bemtevi.domain.principals import Principal
from bemtevi.infra.images import inspect_image

OWN_BRAND_ROUTE = "brand-settings"
CUSTOMERS_ROUTE = "add-new-customer"


@dataclass(frozen=True, slots=True)
class StoredImage:
    content_type: str
    data: bytes
    digest: str


class BrandCommands:
    def __init__(self, app: BemteviApplication, identity: IdentityCommands) -> None:
        self._app = app
        self._identity = identity

    def _editable(self, principal: Principal, group_id: UUID) -> Group:
        """One's own white-label group (brand screen), or a customer below one's own (customer form)."""
        group = self._app.find(group_id, Group)
        if group is None or not self._identity.is_within(group, principal.group_id):
            raise GroupNotFound()
        if group.id == principal.group_id:
            if not may_open(principal.role, OWN_BRAND_ROUTE) or group.group_type != GroupType.WHITE_LABEL:
                raise AccessDenied()
        elif not may_open(principal.role, CUSTOMERS_ROUTE):
            raise AccessDenied()
        return group

    def change(self, principal: Principal, group_id: UUID, values: dict[str, str | None]) -> int:
        """Title, colours and contact data; an empty value falls back to the parent's (then the
        default; under a white-label, the title and contact data never fall back to the platform's)."""
        changes: dict[str, str | None] = {}
        for name, value in values.items():
            if name in COLOUR_FIELDS:
                changes[name] = valid_colour(value, name)
            elif name == "appTitle":
                title = (value or "").strip()
                if len(title) > 60:
                    raise InvalidData("The title must have at most 60 characters", field=name)
                changes[name] = title or None
            elif name in CONTACT_FIELDS:
                changes[name] = valid_contact(value, name)
            else:
                raise InvalidData("Unknown brand field", field=name)

        def decide() -> int:
            group = self._editable(principal, group_id)
            brand = {**group.brand, **changes}
            if brand == group.brand:
                return self._app.max_position()
            with acting_as(principal.actor):
                group.change_brand(brand)
            return self._app.save_all(group)

        return retry_on_conflict(decide)

    def check_editable(self, principal: Principal, group_id: UUID) -> None:
        """Refuses, as an upload or a change would, a group the principal may not brand."""
        self._editable(principal, group_id)

    def upload(self, principal: Principal, group_id: UUID, kind: str, data: bytes) -> tuple[str, int]:
        """Stores the image (once per content) and points the brand at it; answers its address.

        Who may brand the group is checked first; the image's type and exact size are checked
        from its header, and only then is it decoded."""
        if kind not in IMAGE_SIZES:
            raise InvalidData("Unknown brand image", field=kind)
        self._editable(principal, group_id)
        # A canvas beyond ``MAX_PIXELS`` is refused as too large, any other wrong size by its
        # exact expected size, both from the header.
        info = inspect_image(
            data,
            kind,
            check=lambda header: check_image(kind, header.content_type, header.width, header.height, len(data)),
        )
        digest = hashlib.sha256(data).hexdigest()

        def decide() -> tuple[str, int]:
            group = self._editable(principal, group_id)
            url = image_url(group.id, kind, digest)
            to_save: list[AuditedAggregate] = []
            with acting_as(principal.actor):
                if self._app.find(image_id(digest), BrandImage) is None:
                    to_save.append(
                        BrandImage(
                            digest=digest,
                            content_type=info.content_type,
                            width=info.width,
                            height=info.height,
                            data=base64.b64encode(data).decode("ascii"),
                        )
                    )
                if group.brand.get(kind) != url:
                    group.change_brand({**group.brand, kind: url})
                    to_save.append(group)
            if not to_save:
                return url, self._app.max_position()
            return url, self._app.save_all(*to_save)

        return retry_on_conflict(decide)

    def remove(self, principal: Principal, group_id: UUID, kind: str) -> int:
        """Drops the group's own image: the parent's (then the default) shows again."""
        if kind not in IMAGE_SIZES:
            raise InvalidData("Unknown brand image", field=kind)

        def decide() -> int:
            group = self._editable(principal, group_id)
            if not group.brand.get(kind):
                return self._app.max_position()
            with acting_as(principal.actor):
                group.change_brand({**group.brand, kind: None})
            return self._app.save_all(group)

        return retry_on_conflict(decide)

    def image(self, digest: str) -> StoredImage | None:
        stored = self._app.find_readonly(image_id(digest), BrandImage)
        if stored is None:
            return None
        return StoredImage(stored.content_type, base64.b64decode(stored.data), stored.digest)

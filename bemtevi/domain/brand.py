"""Tenant brand: colours, title, images and contact data, with the specification's defaults (section 3).

A white-label's brand names its owner, never the platform: its title and contact data fall back
only as far as the white-label itself (``label_brand``), then to the white-label's name and to
nothing (the web app shows neutral texts); colours and images fall back to the platform's.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.contact import normalise_email, normalise_phone
from bemtevi.domain.errors import ImageWrongSize, InvalidData, InvalidEmail, InvalidPhone, TextTooLong

DEFAULT_APP_TITLE = "Bemtevi"
DEFAULT_PRIMARY = "#034507"
DEFAULT_SECONDARY = "#2BB32A"
DEFAULT_LIGHTER = "#D5EFD4"

BRAND_FIELDS = (
    "appTitle",
    "primaryColor",
    "secondaryColor",
    "lighterColor",
    "horizontalLogo",
    "iconogram",
    "loginBanner",
    "advancedQueryBanner",
    "contactEmail",
    "contactPhone",
    "contactAddress",
    "aboutText",
)
# What names a tenant: on a white-label's pages these never come from above the white-label.
NAMING_FIELDS = ("appTitle", "contactEmail", "contactPhone", "contactAddress", "aboutText")
CONTACT_FIELDS = ("contactEmail", "contactPhone", "contactAddress", "aboutText")
CONTACT_LIMITS = {"contactEmail": 120, "contactPhone": 20, "contactAddress": 200, "aboutText": 1000}


@dataclass(frozen=True, slots=True)
class Brand:
    appTitle: str | None = None
    primaryColor: str | None = None
    secondaryColor: str | None = None
    lighterColor: str | None = None
    horizontalLogo: str | None = None
    iconogram: str | None = None
    loginBanner: str | None = None
    advancedQueryBanner: str | None = None
    contactEmail: str | None = None
    contactPhone: str | None = None
    contactAddress: str | None = None
    aboutText: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> Brand:
        values = values or {}
        return cls(**{k: values.get(k) for k in BRAND_FIELDS})


DEFAULT_BRAND = Brand(
    appTitle=DEFAULT_APP_TITLE,
    primaryColor=DEFAULT_PRIMARY,
    secondaryColor=DEFAULT_SECONDARY,
    lighterColor=DEFAULT_LIGHTER,
)


def resolve_brand(own: Brand, *ancestors: Brand) -> Brand:
    """Each field falls back to the nearest ancestor that has it, then to the defaults."""
    chain = (own, *ancestors, DEFAULT_BRAND)
    resolved: dict[str, str | None] = {}
    for field in BRAND_FIELDS:
        resolved[field] = next((getattr(b, field) for b in chain if getattr(b, field)), None)
    return Brand(**resolved)


def label_brand(chain: list[Brand], label_depth: int | None, label_name: str | None) -> tuple[Brand, bool]:
    """The brand as it shows for ``chain`` (the group's own brand, then each ancestor's up to the
    platform), and whether it is a customer's white label.

    ``label_depth`` is the index in ``chain`` of the nearest white-label below the platform (None
    when the group is the platform's own or a direct customer of it). Under a white label, the
    naming fields come from the chain up to that white-label only: its title falls back to
    ``label_name`` and its contact data to nothing, never to the platform's."""
    brand = resolve_brand(chain[0], *chain[1:])
    if label_depth is None:
        return brand, False
    named = chain[: label_depth + 1]
    naming: dict[str, str | None] = {
        field: next((getattr(b, field) for b in named if getattr(b, field)), None) for field in NAMING_FIELDS
    }
    naming["appTitle"] = naming["appTitle"] or label_name
    return Brand(**{**brand.as_dict(), **naming}), True


def luminance(hex_colour: str) -> float:
    """Weighted luminance in [0, 1] (0.299 R + 0.587 G + 0.114 B)."""
    value = hex_colour.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return (0.299 * r + 0.587 * g + 0.114 * b) / 255


def contrast_text(hex_colour: str) -> str:
    return "#000000" if luminance(hex_colour) > 0.5 else "#FFFFFF"


# -- editing ---------------------------------------------------------------------------------

_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
COLOUR_FIELDS = ("primaryColor", "secondaryColor", "lighterColor")

# Brand images and their exact sizes in pixels (width, height), specification section 3.
IMAGE_SIZES: dict[str, tuple[int, int]] = {
    "horizontalLogo": (208, 68),
    "iconogram": (500, 500),
    "loginBanner": (708, 896),
    "advancedQueryBanner": (200, 1134),
}
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")
MAX_IMAGE_BYTES = 2 * 1024 * 1024


def valid_colour(value: str | None, field: str) -> str | None:
    """A colour as '#rrggbb' (upper-case), or None when empty; anything else is refused."""
    text = (value or "").strip()
    if not text:
        return None
    if not _HEX.match(text):
        raise InvalidData("Invalid colour: use #RGB or #RRGGBB", field=field)
    if len(text) == 4:
        text = "#" + "".join(c * 2 for c in text[1:])
    return text.upper()


def valid_contact(value: str | None, field: str) -> str | None:
    """A contact field as it will show (trimmed; an e-mail lower-cased), or None when empty.

    An e-mail must be of the accepted form (``invalid_email``), a phone have 10 to 13 digits
    (``invalid_phone``, kept as typed), and no text pass its limit (``text_too_long``)."""
    text = (value or "").strip()
    if not text:
        return None
    if len(text) > CONTACT_LIMITS[field]:
        raise TextTooLong(CONTACT_LIMITS[field], field=field)
    if field == "contactEmail":
        try:
            return normalise_email(text)
        except InvalidEmail as e:
            raise InvalidEmail(field=field) from e
    if field == "contactPhone":
        try:
            normalise_phone(text)
        except InvalidPhone as e:
            raise InvalidPhone(field=field) from e
    return text


def check_image(kind: str, content_type: str, width: int, height: int, size: int) -> None:
    """Refuses an image of the wrong kind, type, weight or size, naming the expected size."""
    if kind not in IMAGE_SIZES:
        raise InvalidData("Unknown brand image", field=kind)
    if content_type not in IMAGE_TYPES:
        raise InvalidData("The image must be PNG, JPEG or WebP", field=kind)
    if size > MAX_IMAGE_BYTES:
        raise InvalidData("The image exceeds 2MB", field=kind)
    expected = IMAGE_SIZES[kind]
    if (width, height) != expected:
        raise ImageWrongSize(expected, (width, height), field=kind)


def image_url(group_id: UUID, kind: str, digest: str) -> str:
    """Where the web app fetches a group's image; the digest makes each upload a new address."""
    return f"/api/group/{group_id}/brand/{kind}?v={digest}"


def image_id(digest: str) -> UUID:
    return uuid5(_IMAGES, digest)


_IMAGES = uuid5(NAMESPACE_URL, "https://bemtevi.example/brand-images")


class BrandImage(AuditedAggregate):
    """One uploaded image, addressed by its content (sha-256): the same bytes are stored once.

    The bytes live in the event (base64), in an aggregate of their own: a few hundred kB at
    most, written once, and never replayed with the group (whose brand records only the digest).
    """

    class Uploaded(AuditedAggregate.Created):
        digest: str
        content_type: str
        width: int
        height: int
        data: str

    @event(Uploaded)
    def __init__(self, digest: str, content_type: str, width: int, height: int, data: str) -> None:
        self.digest = digest
        self.content_type = content_type
        self.width = width
        self.height = height
        self.data = data

    @staticmethod
    def create_id(digest: str, **_: Any) -> UUID:
        return image_id(digest)

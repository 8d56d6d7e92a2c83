"""Tenant brand: colours, title and images, with the specification's defaults (section 3)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

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
)


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


def luminance(hex_colour: str) -> float:
    """Weighted luminance in [0, 1] (0.299 R + 0.587 G + 0.114 B)."""
    value = hex_colour.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return (0.299 * r + 0.587 * g + 0.114 * b) / 255


def contrast_text(hex_colour: str) -> str:
    return "#000000" if luminance(hex_colour) > 0.5 else "#FFFFFF"

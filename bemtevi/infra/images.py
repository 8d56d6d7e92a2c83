"""Reading an uploaded image's real type and size with Pillow (never trusting its name or header)."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from bemtevi.domain.errors import InvalidData

_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


@dataclass(frozen=True, slots=True)
class ImageInfo:
    content_type: str
    width: int
    height: int


def inspect_image(data: bytes, field: str) -> ImageInfo:
    """The decoded format and pixel size; anything Pillow cannot fully decode is refused."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()  # checks the file's structure without keeping pixels
        with Image.open(io.BytesIO(data)) as image:
            image.load()  # a truncated or corrupt file fails here
            fmt, (width, height) = image.format or "", image.size
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as e:
        raise InvalidData("The file is not a readable image (PNG, JPEG or WebP)", field=field) from e
    if fmt not in _TYPES:
        raise InvalidData("The image must be PNG, JPEG or WebP", field=field)
    return ImageInfo(_TYPES[fmt], width, height)

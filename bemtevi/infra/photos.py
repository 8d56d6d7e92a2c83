"""Profile photos: decode the upload with Pillow, refuse what is not an image, keep a small copy."""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

from PIL import Image, ImageOps

from bemtevi.domain.errors import ImageTooLarge
from bemtevi.domain.profiles import PHOTO_MAX_BYTES
from bemtevi.infra.images import opened_image

PHOTO_SIDE = 256


@dataclass(frozen=True, slots=True)
class StoredPhoto:
    data: bytes
    content_type: str
    digest: str


def resized_photo(upload: bytes) -> StoredPhoto:
    """The upload decoded, oriented, cropped to a square and scaled to 256x256 WebP.

    A canvas over ``infra.images.MAX_PIXELS`` is refused from its header, before decoding."""
    if len(upload) >= PHOTO_MAX_BYTES:
        raise ImageTooLarge(field="photo")
    with opened_image(upload, "photo") as image:
        image.load()
        oriented = ImageOps.exif_transpose(image)
        mode = "RGBA" if "A" in oriented.getbands() or "transparency" in oriented.info else "RGB"
        square = ImageOps.fit(oriented.convert(mode), (PHOTO_SIDE, PHOTO_SIDE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    square.save(out, format="WEBP", quality=85, method=4)
    data = out.getvalue()
    return StoredPhoto(data=data, content_type="image/webp", digest=hashlib.sha256(data).hexdigest()[:32])

"""Profile photos: decode the upload with Pillow, refuse what is not an image, keep a small copy."""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

from bemtevi.domain.errors import ImageTooLarge, InvalidImage
from bemtevi.domain.profiles import PHOTO_MAX_BYTES

ACCEPTED_FORMATS = frozenset({"PNG", "JPEG", "WEBP"})
PHOTO_SIDE = 256
# A small file may still declare an enormous canvas (a "decompression bomb"): refuse it before decoding.
MAX_PIXELS = 40_000_000


@dataclass(frozen=True, slots=True)
class StoredPhoto:
    data: bytes
    content_type: str
    digest: str


def resized_photo(upload: bytes) -> StoredPhoto:
    """The upload decoded, oriented, cropped to a square and scaled to 256x256 WebP."""
    if len(upload) >= PHOTO_MAX_BYTES:
        raise ImageTooLarge(field="photo")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(upload)) as image:
                if image.format not in ACCEPTED_FORMATS:
                    raise InvalidImage(field="photo")
                width, height = image.size
                if width * height > MAX_PIXELS or width < 1 or height < 1:
                    raise InvalidImage(field="photo")
                image.load()
                oriented = ImageOps.exif_transpose(image)
                mode = "RGBA" if "A" in oriented.getbands() or "transparency" in oriented.info else "RGB"
                square = ImageOps.fit(oriented.convert(mode), (PHOTO_SIDE, PHOTO_SIDE), Image.Resampling.LANCZOS)
    except (
        UnidentifiedImageError,
        OSError,
        SyntaxError,
        ValueError,
        Image.DecompressionBombError,
        Image.DecompressionBombWarning,
    ) as e:
        raise InvalidImage(field="photo") from e
    out = io.BytesIO()
    square.save(out, format="WEBP", quality=85, method=4)
    data = out.getvalue()
    return StoredPhoto(data=data, content_type="image/webp", digest=hashlib.sha256(data).hexdigest()[:32])

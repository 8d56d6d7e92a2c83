"""Opening uploaded images with Pillow: the header first, pixels only for what may be kept.

Pillow's ``Image.open`` is lazy: it reads the file's header (format, declared size) and decodes
no pixel until ``load``. Every upload (brand images, profile photos) is opened here: a format we
do not take, or a declared canvas over the caller's pixel bound, is refused from the header at
once, so a small file declaring 13000x13000 costs microseconds instead of seconds and hundreds
of MB. Callers check who may upload before calling in (``commands/brand.py``, ``commands/users.py``).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from bemtevi.domain.errors import ImageDimensionsTooLarge, InvalidImage

CONTENT_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
# The largest canvas any upload may declare (a photo from a phone camera fits); callers may ask less.
MAX_PIXELS = 40_000_000
# Pillow's own bomb check, from the header at open: it raises beyond twice this. Ours is stricter
# and comes first; this stands behind it for any other opening in the process.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS

UNREADABLE = "The file is not a readable image (PNG, JPEG or WebP)"
WRONG_FORMAT = "The image must be PNG, JPEG or WebP"
# What Pillow raises on a file it cannot read or decode.
_DECODING_ERRORS = (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError)


@dataclass(frozen=True, slots=True)
class ImageInfo:
    content_type: str
    width: int
    height: int


@contextmanager
def opened_image(data: bytes, field: str, max_pixels: int = MAX_PIXELS) -> Iterator[Image.Image]:
    """The upload opened from its header alone, once its format and declared pixel count pass;
    a failure to decode it inside the block is refused as not an image."""
    try:
        image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as e:  # beyond Pillow's own bound, which does not say the size
        raise ImageDimensionsTooLarge(None, max_pixels, field=field) from e
    except _DECODING_ERRORS as e:
        raise InvalidImage(UNREADABLE, field=field) from e
    with image:
        if image.format not in CONTENT_TYPES:
            raise InvalidImage(WRONG_FORMAT, field=field)
        width, height = image.size
        if width < 1 or height < 1:
            raise InvalidImage(UNREADABLE, field=field)
        if width * height > max_pixels:
            raise ImageDimensionsTooLarge((width, height), max_pixels, field=field)
        try:
            yield image
        except _DECODING_ERRORS as e:
            raise InvalidImage(UNREADABLE, field=field) from e


def inspect_image(
    data: bytes,
    field: str,
    max_pixels: int = MAX_PIXELS,
    check: Callable[[ImageInfo], None] | None = None,
) -> ImageInfo:
    """The format and pixel size, after decoding the whole file; ``check`` refuses from the
    header (an expected size, say) before anything is decoded."""
    with opened_image(data, field, max_pixels) as image:
        info = ImageInfo(CONTENT_TYPES[str(image.format)], *image.size)
        if check is not None:
            check(info)
        image.load()  # a truncated or corrupt file fails here
    with opened_image(data, field, max_pixels) as image:
        image.verify()  # the file's structure (chunk checksums) as well
    return info

"""Image uploads (brand images, profile photos): who may upload is checked before anything is
decoded, and a small file declaring an enormous canvas is refused from its header at once.

A 13000x13000 PNG of one colour compresses to a few hundred kB, well within the byte limits,
and decoding it costs seconds of CPU and hundreds of MB; four at once took a server from 0.5 to
2.8 GB. Pillow's own functions are watched (wrapped, still run) to show what was decoded.
"""

from __future__ import annotations

import io
import struct
import time
import zlib
from functools import cache
from typing import Any
from uuid import uuid4

import pytest
from fastapi.testclient import TestClient
from PIL import Image, ImageFile
from support import sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role

pytestmark = pytest.mark.backends("sqlite")

PASSWORD = "Strong!pass1"
# CPU seconds of this process (its threads serve the request): a refusal from the header, not a decode. CPU time
# and not the clock, which a busy machine stretches.
FAST = 0.2


@pytest.fixture
def api(api: TestClient) -> TestClient:
    """A warmed-up server: Pillow's plugins loaded and a first request answered, as in a running one."""
    Image.init()
    for _ in range(2):
        api.put("/api/me/photo", content=b"", headers={"Content-Type": "image/png"})
    return api


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@cache
def declared_png(width: int, height: int) -> bytes:
    """A real, complete grey PNG of this size, all one colour (it compresses about 1000 to 1)."""
    packer = zlib.compressobj(9)
    row = b"\x00" * (width + 1)  # filter byte, then one byte per grey pixel
    parts = [packer.compress(row) for _ in range(height)]
    parts.append(packer.flush())
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", b"".join(parts)) + _chunk(b"IEND", b"")


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "#123456").save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def pillow(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many images Pillow opened and how many it decoded (the real functions still run)."""
    calls = {"open": 0, "load": 0}
    real_open, real_load = Image.open, ImageFile.ImageFile.load

    def counted_open(*args: Any, **kwargs: Any) -> Any:
        calls["open"] += 1
        return real_open(*args, **kwargs)

    def counted_load(self: Any) -> Any:
        calls["load"] += 1
        return real_load(self)

    monkeypatch.setattr(Image, "open", counted_open)
    monkeypatch.setattr(ImageFile.ImageFile, "load", counted_load)
    return calls


def owner_of(platform: Platform, api: TestClient, name: str) -> tuple[str, dict[str, str]]:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name=name, group_type=GroupType.WHITE_LABEL, parent_id=ROOT_GROUP_ID
    )
    email = f"dono@{name.lower().replace(' ', '')}.com.br"
    platform.identity.register_user(
        SYSTEM, group_id=group_id, name="Dono", email=email, password=PASSWORD, role=Role.OWNER
    )
    return str(group_id), sign_in(api, email, PASSWORD)


def timed_put(api: TestClient, url: str, headers: dict[str, str], body: bytes) -> tuple[Any, float]:
    started = time.process_time()
    response = api.put(url, headers={**headers, "Content-Type": "image/png"}, content=body)
    return response, time.process_time() - started


BOMB = (13_000, 13_000)


def test_the_bomb_is_a_small_complete_image(monkeypatch: pytest.MonkeyPatch) -> None:
    data = declared_png(*BOMB)
    assert len(data) < 1024 * 1024  # within both byte limits (2 MB brand, 1 MB photo)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", None)  # the process refuses it at open otherwise
    with Image.open(io.BytesIO(data)) as image:
        assert (image.format, image.size) == ("PNG", BOMB)
        image.verify()


def test_pillow_refuses_such_canvases_at_open_anywhere_in_the_process() -> None:
    with pytest.raises(Image.DecompressionBombError):
        Image.open(io.BytesIO(declared_png(*BOMB)))


def test_another_tenants_group_is_refused_before_the_image_is_even_opened(
    platform: Platform, api: TestClient, pillow: dict[str, int]
) -> None:
    _, owner_a = owner_of(platform, api, "Marca A")
    group_b, _ = owner_of(platform, api, "Marca B")
    for target in (group_b, str(uuid4())):
        response, elapsed = timed_put(api, f"/api/group/{target}/brand/iconogram", owner_a, declared_png(*BOMB))
        assert (response.status_code, response.json()["code"]) == (404, "group_not_found"), response.text
        assert elapsed < FAST, f"refused with {elapsed:.2f} CPU s"
    assert pillow == {"open": 0, "load": 0}
    # Nor is a well-formed image of the right size looked at for someone else's group.
    response, _ = timed_put(api, f"/api/group/{group_b}/brand/iconogram", owner_a, png(500, 500))
    assert response.status_code == 404 and pillow == {"open": 0, "load": 0}


def test_a_brand_image_declaring_huge_pixels_is_refused_from_its_header(
    platform: Platform, api: TestClient, pillow: dict[str, int]
) -> None:
    group_a, owner_a = owner_of(platform, api, "Marca A")
    response, elapsed = timed_put(api, f"/api/group/{group_a}/brand/iconogram", owner_a, declared_png(*BOMB))
    assert response.status_code == 422, response.text
    assert (response.json()["code"], response.json()["field"]) == ("image_dimensions_too_large", "iconogram")
    assert "pixels" in response.json()["message"]
    assert elapsed < FAST, f"refused with {elapsed:.2f} CPU s"
    assert pillow["load"] == 0, "never decoded"
    # A readable image of another size is refused from its header too, naming both sizes.
    wrong, _ = timed_put(api, f"/api/group/{group_a}/brand/iconogram", owner_a, png(600, 600))
    assert wrong.json()["message"] == "The image must be 500x500 pixels (it is 600x600)"
    assert pillow["load"] == 0
    # The right one is decoded (checked whole) and stored.
    done, _ = timed_put(api, f"/api/group/{group_a}/brand/iconogram", owner_a, png(500, 500))
    assert done.status_code == 200, done.text
    assert pillow["load"] >= 1


def test_a_photo_declaring_huge_pixels_is_refused_from_its_header(
    platform: Platform, api: TestClient, pillow: dict[str, int]
) -> None:
    _, owner_a = owner_of(platform, api, "Marca A")
    response, elapsed = timed_put(api, "/api/me/photo", owner_a, declared_png(*BOMB))
    assert response.status_code == 422, response.text
    assert (response.json()["code"], response.json()["field"]) == ("image_dimensions_too_large", "photo")
    assert elapsed < FAST, f"refused with {elapsed:.2f} CPU s"
    # Below Pillow's own bound (twice ours), the size is named.
    response, elapsed = timed_put(api, "/api/me/photo", owner_a, declared_png(8000, 6000))
    assert (response.status_code, response.json()["code"]) == (422, "image_dimensions_too_large")
    assert response.json()["message"] == "The image is 8000x6000 pixels: at most 40,000,000 pixels are accepted"
    assert elapsed < FAST, f"refused with {elapsed:.2f} CPU s"
    assert pillow["load"] == 0, "never decoded"


def test_another_tenants_user_photo_is_refused_before_the_image_is_even_opened(
    platform: Platform, api: TestClient, pillow: dict[str, int]
) -> None:
    _, owner_a = owner_of(platform, api, "Marca A")
    owner_of(platform, api, "Marca B")
    user_b = platform.identity.find_user_by_email("dono@marcab.com.br")
    assert user_b is not None
    for target in (str(user_b.id), str(uuid4())):
        response, elapsed = timed_put(api, f"/api/users/{target}/photo", owner_a, declared_png(*BOMB))
        assert (response.status_code, response.json()["code"]) == (404, "user_not_found"), response.text
        assert elapsed < FAST, f"refused with {elapsed:.2f} CPU s"
    assert pillow == {"open": 0, "load": 0}

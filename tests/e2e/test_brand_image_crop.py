"""End to end: a brand image of other pixels is cropped and resized in the browser to the exact size
the specification asks (208x68 for the logo), and the server serves exactly that; an image already of
the exact size goes as it is."""

from __future__ import annotations

import io
import re
from pathlib import Path

import httpx
import pytest
from e2e_support import Sessions, choose_language, screenshot, settle
from PIL import Image
from playwright.sync_api import Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD

from bemtevi.domain.documents import cnpj_check_digits, format_cnpj

pytestmark = pytest.mark.e2e

CNPJ_BASE = "44556677" + "0001"
RED, GOLD, BLUE = (139, 0, 0), (218, 165, 32), (20, 40, 160)


def striped_photo(path: Path, size: tuple[int, int]) -> str:
    """A photo far larger than any brand image: red above, a gold band across the middle, blue below."""
    width, height = size
    image = Image.new("RGB", size, RED)
    image.paste(GOLD, (0, height // 3, width, 2 * height // 3))
    image.paste(BLUE, (0, 2 * height // 3, width, height))
    image.save(path, format="PNG")
    return str(path)


def white_label(server_url: str) -> dict[str, str]:
    token = httpx.post(
        f"{server_url}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}, timeout=30
    ).json()["token"]
    registered = httpx.post(
        f"{server_url}/api/customers",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "type": "white-label",
            "cnpj": format_cnpj(CNPJ_BASE + cnpj_check_digits(CNPJ_BASE)),
            "companyName": "Recorte Fino Consultas Ltda",
            "tradeName": "Recorte Fino",
            "personInCharge": "Marta Souza",
            "phone": "(41) 97777-3322",
            "email": "marta@recortefino.com.br",
            "seller": None,
            "defaultQuery": True,
            "consultProtest": False,
            "quantities": {"unit": 0, "batch": 0, "advanced": 0, "api": 0},
            "enabledQueryTypes": ["cpf-complete"],
            "panelAccess": True,
            "apiAccess": False,
            "whiteLabelUrl": "consultas.recortefino.test",
        },
        timeout=30,
    )
    assert registered.status_code == 200, registered.text
    return dict(registered.json()["data"])


def served(page: Page, server_url: str, selector: str) -> httpx.Response:
    src = page.locator(selector).get_attribute("src")
    assert src, selector
    response = httpx.get(f"{server_url}{src}", timeout=30)
    assert response.status_code == 200, response.text
    return response


def fits(page: Page) -> bool:
    """The crop dialog needs no sideways scrolling: nothing in it is wider than its paper."""
    return bool(
        page.get_by_test_id("crop-dialog")
        .locator(".MuiDialog-paper")
        .evaluate("p => p.scrollWidth <= p.clientWidth && p.getBoundingClientRect().width <= window.innerWidth")
    )


def test_an_oversized_logo_is_cropped_to_its_exact_size_and_an_exact_one_goes_as_it_is(
    page: Page, server_url: str, sessions: Sessions, tmp_path: Path
) -> None:
    customer = white_label(server_url)
    sessions.resume(page)
    page.goto(f"{server_url}/add-new-customer/{customer['uniqueKey']}/{customer['id']}")
    editor = page.get_by_test_id("customer-brand")
    expect(editor.get_by_test_id("brand-editor")).to_be_visible()

    # A 1200x900 photo for the 208x68 logo: the crop dialog opens, its frame locked to 208:68.
    photo = striped_photo(tmp_path / "photo.png", (1200, 900))
    editor.get_by_test_id("brand-file-horizontalLogo").set_input_files(photo)
    dialog = page.get_by_test_id("crop-dialog")
    expect(dialog).to_contain_text("Ajustar imagem: Logo horizontal")
    expect(dialog.get_by_test_id("crop-source")).to_contain_text("1200x900")
    frame = dialog.get_by_test_id("crop-frame")
    expect(frame).to_be_visible()
    box = frame.bounding_box()
    assert box is not None and abs(box["width"] / box["height"] - 208 / 68) < 0.02, box
    preview = dialog.get_by_test_id("crop-preview")
    assert preview.evaluate("c => [c.width, c.height, c.clientWidth, c.clientHeight]") == [208, 68, 208, 68]

    # Zoom in with the slider's keys, then drag the photo sideways in the frame (the gold band stays in the middle).
    zoom = dialog.get_by_role("slider", name="Zoom")
    zoom.focus()
    zoom.press("PageUp")
    zoom.press("PageUp")
    expect(zoom).to_have_attribute("aria-valuenow", "1.5")
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 80, y, steps=8)
    page.mouse.up()
    settle(page)
    screenshot(page, "brand-crop-logo-1440-pt")
    page.set_viewport_size({"width": 375, "height": 812})
    settle(page)
    assert fits(page), "the dialog is wider than a 375 px screen"
    screenshot(page, "brand-crop-logo-375-pt")
    page.set_viewport_size({"width": 1440, "height": 900})

    dialog.get_by_test_id("crop-apply").click()
    expect(page.get_by_text("Imagem salva.")).to_be_visible()
    expect(dialog).to_have_count(0)
    # The customer's own logo, not the one it showed before (inherited) while the brand is read again.
    own = f"/api/group/{customer['id']}/brand"
    expect(editor.locator("img.preview-logo")).to_have_attribute("src", re.compile(rf"{own}/horizontalLogo\?v="))
    response = served(page, server_url, "[data-testid=customer-brand] img.preview-logo")
    assert response.headers["content-type"] == "image/png"
    with Image.open(io.BytesIO(response.content)) as image:
        assert image.size == (208, 68)
        pixels = image.convert("RGB")
        # Zoomed in 1.5 times, the frame holds only the gold band (at zoom 1 its top and bottom would be red and blue).
        for point in [(104, 34), (1, 1), (206, 1), (1, 66), (206, 66)]:
            colour = pixels.getpixel(point)
            assert isinstance(colour, tuple) and max(abs(a - b) for a, b in zip(colour, GOLD, strict=True)) < 12, (
                point,
                colour,
            )

    # A JPEG of exactly 500x500 for the icon opens no dialog: the server keeps its very bytes.
    exact = tmp_path / "icon.jpg"
    Image.new("RGB", (500, 500), BLUE).save(exact, format="JPEG")
    editor.get_by_test_id("brand-file-iconogram").set_input_files(str(exact))
    expect(editor.locator("img.preview-icon")).to_have_attribute("src", re.compile(rf"{own}/iconogram\?v="))
    expect(page.get_by_test_id("crop-dialog")).to_have_count(0)
    icon = served(page, server_url, "[data-testid=customer-brand] img.preview-icon")
    assert icon.headers["content-type"] == "image/jpeg" and icon.content == exact.read_bytes()

    # The dialog in English, for the tall advanced-query banner, wide and narrow.
    choose_language(page, "en-US")
    editor.get_by_test_id("brand-file-advancedQueryBanner").set_input_files(
        striped_photo(tmp_path / "wide.png", (1600, 1000))
    )
    expect(dialog).to_contain_text("Adjust image: Advanced query banner")
    expect(dialog).to_contain_text("Real size (200x1134 px)")
    settle(page)
    screenshot(page, "brand-crop-banner-1440-en")
    page.set_viewport_size({"width": 375, "height": 812})
    settle(page)
    assert fits(page), "the dialog is wider than a 375 px screen"
    screenshot(page, "brand-crop-banner-375-en")
    dialog.get_by_test_id("crop-cancel").click()
    expect(dialog).to_have_count(0)

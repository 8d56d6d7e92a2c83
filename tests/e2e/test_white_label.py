"""End to end: a white-label customer with its own domain and brand, seen on that domain's login page;
then edited and inactivated from the customer list."""

from __future__ import annotations

import io
import re
from pathlib import Path
from urllib.parse import urlparse

from e2e_support import Sessions, screenshot
from PIL import Image
from playwright.sync_api import Browser, Page, expect

# The white-label's own domain: `brand_browser` resolves it to the test server (no DNS involved).
BRAND_HOST = "consultas.marca-exemplo.test"


def png(tmp_path: Path, name: str, size: tuple[int, int]) -> str:
    path = tmp_path / name
    image = Image.new("RGB", size, "#8B0000")
    for x in range(8, min(size[0], 60)):  # a mark, so the logo is visibly an image
        for y in range(8, min(size[1], 60)):
            image.putpixel((x, y), (255, 215, 0))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    path.write_bytes(buffer.getvalue())
    return str(path)


def test_a_white_label_shows_its_own_brand_on_its_domain_and_can_be_edited_and_inactivated(
    page: Page, server_url: str, sessions: Sessions, brand_browser: Browser, tmp_path: Path
) -> None:
    port = urlparse(server_url).port
    brand_url = f"http://{BRAND_HOST}:{port}"
    sessions.resume(page)

    # Register the white-label with its domain.
    page.goto(f"{server_url}/add-new-customer")
    page.get_by_test_id("customer-type").select_option("white-label")
    page.get_by_test_id("customer-cnpj").fill("45.723.174/0001-10")
    page.get_by_test_id("customer-company-name").fill("Marca Exemplo Consultas Ltda")
    page.get_by_test_id("customer-trade-name").fill("Marca Exemplo")
    page.get_by_test_id("customer-person").fill("Beatriz Lima")
    page.get_by_test_id("customer-phone").fill("(41) 98765-4321")
    page.get_by_test_id("customer-email").fill("beatriz@marcaexemplo.com.br")
    page.get_by_test_id("customer-url").fill(f"{BRAND_HOST}:{port}")
    page.get_by_test_id("customer-submit").click()
    expect(page.get_by_test_id("customer-registered")).to_contain_text("beatriz@marcaexemplo.com.br")

    # Edit it: the form comes back filled; change the trade name and set the brand.
    page.goto(f"{server_url}/customer-list")  # searched: on page 1 whatever the session registered
    page.get_by_test_id("customer-search").fill("Marca Exemplo Consultas Ltda")
    row = page.get_by_test_id("customer-row").filter(has_text="Marca Exemplo Consultas Ltda")
    row.get_by_test_id("customer-edit").click()
    expect(page).to_have_url(re.compile(r"/add-new-customer/[0-9a-f]+/[0-9a-f-]{36}$"))
    expect(page.get_by_test_id("customer-company-name")).to_have_value("Marca Exemplo Consultas Ltda")
    expect(page.get_by_test_id("customer-url")).to_have_value(f"{BRAND_HOST}:{port}")
    page.get_by_test_id("customer-trade-name").fill("Marca Exemplo Premium")

    editor = page.get_by_test_id("customer-brand")
    editor.get_by_test_id("brand-title").fill("marca exemplo consultas")
    editor.get_by_test_id("brand-primaryColor").fill("#8B0000")
    editor.get_by_test_id("brand-secondaryColor").fill("#DAA520")
    editor.get_by_test_id("brand-save").click()
    expect(page.get_by_text("Marca salva.")).to_be_visible()
    # A logo of other pixels opens the crop dialog for 208x68 (cancelled here); the exact size goes as it is.
    editor.get_by_test_id("brand-file-horizontalLogo").set_input_files(png(tmp_path, "wrong.png", (300, 100)))
    expect(page.get_by_test_id("crop-dialog")).to_contain_text("208x68")
    page.get_by_test_id("crop-cancel").click()
    expect(page.get_by_test_id("crop-dialog")).to_have_count(0)
    editor.get_by_test_id("brand-file-horizontalLogo").set_input_files(png(tmp_path, "logo.png", (208, 68)))
    expect(page.get_by_text("Imagem salva.")).to_be_visible()
    preview = editor.get_by_test_id("brand-preview")
    expect(preview.locator("img.preview-logo")).to_have_attribute("src", re.compile(r"/brand/horizontalLogo\?v="))
    expect(preview).to_contain_text("Marca Exemplo Consultas")
    screenshot(page, "white-label-edit")
    page.get_by_test_id("customer-submit").click()
    expect(page).to_have_url(re.compile(r"/customer-list$"))
    expect(page.get_by_test_id("customer-row").filter(has_text="Marca Exemplo Premium")).to_have_count(1)

    # On its own domain the login page wears its brand: title, colours and logo.
    context = brand_browser.new_context(viewport={"width": 1440, "height": 900}, locale="pt-BR")
    try:
        brand_page = context.new_page()
        brand_page.goto(f"{brand_url}/")
        expect(brand_page).to_have_url(re.compile(r"/login$"))  # not the product's main domain
        expect(brand_page).to_have_title("Marca Exemplo Consultas")
        logo = brand_page.locator(".login-brand img.brand-logo")
        expect(logo).to_have_attribute("src", re.compile(r"/brand/horizontalLogo\?v="))
        brand_page.wait_for_function("document.querySelector('.login-brand img').naturalWidth === 208")
        primary = brand_page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--primary').trim()")
        assert primary.upper() == "#8B0000"
        screenshot(brand_page, "white-label-login")
    finally:
        context.close()

    # Inactivate it from the list, with confirmation.
    page.goto(f"{server_url}/customer-list")
    page.get_by_test_id("customer-search").fill("Marca Exemplo Consultas Ltda")
    row = page.get_by_test_id("customer-row").filter(has_text="Marca Exemplo Consultas Ltda")
    row.get_by_test_id("customer-status").click()
    expect(page.get_by_test_id("confirm-dialog")).to_contain_text("Marca Exemplo Consultas Ltda")
    page.get_by_test_id("confirm-yes").click()
    expect(row).to_contain_text("Inativo")
    expect(row.get_by_test_id("customer-status")).to_have_text("Ativar")
    screenshot(page, "white-label-inactivated")

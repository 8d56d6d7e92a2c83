"""End to end: a customer's own domain names the customer, never the platform. Its public pages, legal
pages and login page, walked in Chromium in both languages, show no platform name, e-mail, phone or
story in their text, title or images' alt, and no platform bird; the contact data the customer set on
its brand show instead (neutral texts before it set any)."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from e2e_support import Sessions, screenshot
from playwright.sync_api import Browser, Page, expect

LABEL_HOST = "atendimento.outra-marca.test"
# What would name the platform: its name, its contact data, its story's figures and its address.
PLATFORM_TRACES = ("bemtevi", "4000-2011", "2011", "900 ", "paulista")
PAGES = ("/about", "/services", "/contact", "/terms-of-use", "/privacy-policy", "/login", "/create-account")

# Everything a visitor reads or a screen reader says: text, title, images' alt and names, the icon.
_SEEN = """() => [
  document.title,
  document.body.innerText,
  ...[...document.querySelectorAll('img')].map((i) => `alt=${i.alt} src=${i.getAttribute('src')}`),
  ...[...document.querySelectorAll('[aria-label], [title]')].map((e) => e.getAttribute('aria-label') || e.title),
  ...[...document.querySelectorAll('link[rel="icon"]')].map((l) => l.getAttribute('href')),
]"""
# The platform's bird (its mark's wing), in the header, footer, sign-in card or login art.
_BIRDS = """() => document.querySelectorAll('path[d^="M8 18c3-6"]').length"""


def platform_traces(page: Page) -> list[str]:
    seen: list[str] = page.evaluate(_SEEN)
    found = [f"{trace!r} in {text[:120]!r}" for text in seen for trace in PLATFORM_TRACES if trace in text.lower()]
    if page.evaluate(_BIRDS):
        found.append("the platform's bird")
    if any(text == "/favicon.svg" for text in seen):
        found.append("the platform's icon")
    return found


def walk(brand_browser: Browser, url: str, locale: str, title: str, shots: str) -> Page:
    """Every public and sign-in page of the domain in ``locale``; answers the page, left on /contact."""
    context = brand_browser.new_context(viewport={"width": 1440, "height": 900}, locale=locale)
    context.add_init_script(f"localStorage.setItem('locale', '{locale}')")
    page = context.new_page()
    page.goto(f"{url}/")
    expect(page).to_have_url(re.compile(r"/login$"))  # not the product's main domain: no platform home page
    for path in PAGES:
        page.goto(f"{url}{path}")
        expect(page).to_have_title(title)  # the brand is in: the page shows what a visitor sees
        expect(page.locator("main").first).to_be_visible()
        assert platform_traces(page) == [], f"{path} ({locale})"
        if path in ("/about", "/contact", "/login"):
            screenshot(page, f"{shots}{path.replace('/', '-')}-1440")
            page.set_viewport_size({"width": 375, "height": 800})
            assert platform_traces(page) == [], f"{path} ({locale}, 375 px)"
            screenshot(page, f"{shots}{path.replace('/', '-')}-375")
            page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{url}/contact")
    expect(page).to_have_title(title)
    return page


def test_a_customer_domain_never_names_the_platform(
    page: Page, server_url: str, sessions: Sessions, brand_browser: Browser
) -> None:
    port = urlparse(server_url).port
    label_url = f"http://{LABEL_HOST}:{port}"
    sessions.resume(page)
    page.goto(f"{server_url}/add-new-customer")
    page.get_by_test_id("customer-type").select_option("white-label")
    page.get_by_test_id("customer-cnpj").fill("62.418.903/0001-44")
    page.get_by_test_id("customer-company-name").fill("Outra Marca Dados Ltda")
    page.get_by_test_id("customer-trade-name").fill("Outra Marca")
    page.get_by_test_id("customer-person").fill("Carla Mendes")
    page.get_by_test_id("customer-phone").fill("(51) 98765-1234")
    page.get_by_test_id("customer-email").fill("carla@outramarca.com.br")
    page.get_by_test_id("customer-url").fill(f"{LABEL_HOST}:{port}")
    page.get_by_test_id("customer-submit").click()
    expect(page.get_by_test_id("customer-registered")).to_contain_text("carla@outramarca.com.br")

    # Before the customer gives any contact data: its trade name and neutral texts, nothing of the platform.
    visitor = walk(brand_browser, label_url, "pt-BR", "Outra Marca", "label-neutral-pt")
    expect(visitor.get_by_test_id("contact-neutral")).to_be_visible()
    expect(visitor.get_by_test_id("footer-email")).to_have_count(0)
    visitor.context.close()

    # The customer's contact data, on its brand: a wrong e-mail is refused at its field, then saved.
    page.goto(f"{server_url}/customer-list")
    page.get_by_test_id("customer-search").fill("Outra Marca Dados Ltda")  # on page 1 whatever the session registered
    row = page.get_by_test_id("customer-row").filter(has_text="Outra Marca Dados Ltda")
    row.get_by_test_id("customer-edit").click()
    editor = page.get_by_test_id("customer-brand")
    editor.get_by_test_id("brand-contactEmail").fill("atendimento@outramarca")
    editor.get_by_test_id("brand-save").click()
    expect(editor.get_by_test_id("brand-error-contactEmail")).to_have_text("E-mail inválido")
    editor.get_by_test_id("brand-contactEmail").fill("atendimento@outramarca.com.br")
    editor.get_by_test_id("brand-contactPhone").fill("(51) 3222-1100")
    editor.get_by_test_id("brand-contactAddress").fill("Rua dos Andradas, 500 — Porto Alegre/RS")
    about = "A Outra Marca atende o varejo gaúcho.\n\nDados com responsabilidade."
    editor.get_by_test_id("brand-aboutText").fill(about)
    editor.get_by_test_id("brand-save").click()
    expect(page.get_by_text("Marca salva.")).to_be_visible()
    expect(editor.get_by_test_id("brand-error-contactEmail")).to_have_count(0)
    screenshot(page, "label-brand-contact-1440")

    # Now its pages show the customer's own contact data, in English as in Portuguese.
    for locale in ("en-US", "pt-BR"):
        visitor = walk(brand_browser, label_url, locale, "Outra Marca", f"label-contact-{locale[:2]}")
        details = visitor.get_by_test_id("contact-details")
        expect(details).to_contain_text("atendimento@outramarca.com.br")
        expect(details).to_contain_text("(51) 3222-1100")
        expect(details).to_contain_text("Porto Alegre/RS")
        expect(visitor.get_by_test_id("footer-email")).to_have_text("atendimento@outramarca.com.br")
        visitor.goto(f"{label_url}/about")
        expect(visitor.get_by_test_id("about-text")).to_contain_text("A Outra Marca atende o varejo gaúcho.")
        visitor.goto(f"{label_url}/privacy-policy")
        expect(visitor.get_by_test_id("legal-contact")).to_contain_text("atendimento@outramarca.com.br")
        visitor.context.close()

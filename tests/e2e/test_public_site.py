"""End to end: the public site's pages, menus, language switch and contact form in Chromium."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import httpx
from e2e_support import screenshot, settle
from playwright.sync_api import Browser, Page, expect

PAGES = {
    "home": ("/", "public-home"),
    "about": ("/about", "public-about"),
    "services": ("/services", "public-services"),
    "contact": ("/contact", "public-contact"),
    "terms": ("/terms-of-use", "public-terms"),
    "privacy": ("/privacy-policy", "public-privacy"),
}


def test_header_and_footer_lead_to_every_public_page(page: Page, server_url: str) -> None:
    page.goto(f"{server_url}/")
    expect(page.get_by_test_id("public-home")).to_be_visible()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Informação confiável")
    # Eight service cards, the impact figure counting up to its target, customer marks.
    expect(page.get_by_test_id("service-cards").locator("li")).to_have_count(8)
    page.get_by_test_id("impact-records").scroll_into_view_if_needed()
    expect(page.get_by_test_id("impact-records")).to_have_text("360M+")
    expect(page.get_by_role("img", name="Vale Norte")).to_be_visible()

    for key, label in [("about", "Sobre"), ("services", "Serviços"), ("contact", "Contato"), ("home", "Início")]:
        page.get_by_test_id(f"public-nav-{key}").click()
        path, test_id = PAGES[key]
        expect(page).to_have_url(re.compile(re.escape(path) + "$"))
        expect(page.get_by_test_id(test_id)).to_be_visible()
        expect(page.get_by_test_id(f"public-nav-{key}")).to_have_text(label)

    for key, page_key in [
        ("terms", "terms"),
        ("privacy", "privacy"),
        ("about", "about"),
        ("services", "services"),
        ("contact", "contact"),
        ("home", "home"),
    ]:
        page.get_by_test_id(f"footer-{key}").click()
        path, test_id = PAGES[page_key]
        expect(page).to_have_url(re.compile(re.escape(path) + "$"))
        expect(page.get_by_test_id(test_id)).to_be_visible()
    # The blog has no route: shown, not a link.
    expect(page.get_by_test_id("footer-blog")).to_contain_text("Blog")
    assert page.get_by_test_id("footer-blog").evaluate("e => e.tagName") == "SPAN"

    expect(page.get_by_test_id("public-terms")).to_have_count(0)
    page.goto(f"{server_url}/privacy-policy")
    expect(page.get_by_role("heading", name="Política de privacidade", level=1)).to_be_visible()
    expect(page.get_by_text("Autoridade Nacional de Proteção de Dados")).to_be_visible()

    page.get_by_test_id("public-login").click()
    expect(page).to_have_url(re.compile(r"/login$"))


def test_language_switch_to_english(page: Page, server_url: str) -> None:
    page.goto(f"{server_url}/")
    page.get_by_test_id("language-switch").select_option("en-US")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Reliable information on people and companies")
    expect(page.get_by_test_id("public-nav-about")).to_have_text("About")
    expect(page.get_by_test_id("public-login")).to_have_text("Login")
    expect(page.get_by_test_id("footer-terms")).to_have_text("Terms of Use")
    page.get_by_test_id("footer-terms").click()
    expect(page.get_by_role("heading", name="Terms of Use", level=1)).to_be_visible()
    # The choice is kept in local storage and survives a reload.
    page.reload()
    expect(page.get_by_role("heading", name="Terms of Use", level=1)).to_be_visible()
    assert page.evaluate("localStorage.getItem('locale')") == "en-US"
    page.get_by_test_id("language-switch").select_option("pt-BR")
    expect(page.get_by_role("heading", name="Termos de uso", level=1)).to_be_visible()


def test_demo_request_goes_to_the_trial_form_and_is_sent(page: Page, server_url: str) -> None:
    page.goto(f"{server_url}/")
    page.get_by_test_id("hero-demo").click()
    expect(page).to_have_url(re.compile(r"/contact\?service=trial$"))
    expect(page.get_by_test_id("contact-service")).to_have_value("trial")
    expect(page.get_by_role("heading", name="Peça o seu teste gratuito")).to_be_visible()

    # Client-side rules: every problem shown, nothing sent, what was typed stays.
    page.get_by_test_id("contact-name").fill("Al")
    page.get_by_test_id("contact-document").fill("529.982.247-24")
    page.get_by_test_id("contact-email").fill("mariana@empresa")
    page.get_by_test_id("contact-phone").fill("11 9876-543")
    page.get_by_test_id("contact-message").fill("Curta")
    page.get_by_test_id("contact-submit").click()
    expect(page.get_by_test_id("contact-name-error")).to_have_text("Informe pelo menos 3 caracteres")
    expect(page.get_by_test_id("contact-document-error")).to_have_text("O documento informado é inválido")
    expect(page.get_by_test_id("contact-email-error")).to_have_text("E-mail inválido")
    expect(page.get_by_test_id("contact-phone-error")).to_have_text("O telefone deve ter pelo menos 10 dígitos")
    expect(page.get_by_test_id("contact-message-error")).to_have_text("A mensagem deve ter pelo menos 10 caracteres")
    expect(page.get_by_test_id("contact-name")).to_have_value("Al")
    expect(page.get_by_test_id("contact-name")).to_be_focused()
    screenshot(page, "public-contact-errors-1440")

    page.get_by_test_id("contact-name").fill("Mariana Costa")
    page.get_by_test_id("contact-document").fill("529.982.247-25")
    page.get_by_test_id("contact-email").fill("mariana.costa@empresa.com.br")
    page.get_by_test_id("contact-phone").fill("(11) 98765-4321")
    page.get_by_test_id("contact-message").fill("Queremos testar o enriquecimento em lote na nossa carteira.")
    with page.expect_response(lambda r: r.url.endswith("/api/contact")) as answer:
        page.get_by_test_id("contact-submit").click()
    assert answer.value.status == 202
    expect(page.get_by_test_id("contact-success")).to_contain_text("Obrigado, Mariana Costa")
    screenshot(page, "public-contact-sent-1440")


def test_server_refusals_keep_the_form_filled(page: Page, server_url: str) -> None:
    """The server's answer (here a refusal the browser rules cannot foresee) never empties the form."""
    page.goto(f"{server_url}/contact")
    expect(page.get_by_test_id("contact-service")).to_have_value("")
    page.route(
        "**/api/contact",
        lambda route: route.fulfill(
            status=429,
            content_type="application/json",
            body='{"statusCode":429,"message":"Too many requests","code":"too_many_requests"}',
        ),
    )
    page.get_by_test_id("contact-name").fill("Paulo Ribeiro")
    page.get_by_test_id("contact-document").fill("11.222.333/0001-81")
    page.get_by_test_id("contact-email").fill("paulo@ribeira.com.br")
    page.get_by_test_id("contact-service").select_option("api")
    page.get_by_test_id("contact-message").fill("Gostaria de conhecer a documentação da API.")
    page.get_by_test_id("contact-submit").click()
    expect(page.get_by_test_id("contact-failure")).to_contain_text("Muitas mensagens enviadas")
    expect(page.get_by_test_id("contact-name")).to_have_value("Paulo Ribeiro")
    expect(page.get_by_test_id("contact-message")).to_have_value("Gostaria de conhecer a documentação da API.")
    page.unroute("**/api/contact")


def test_the_api_refuses_what_the_form_would_refuse(server_url: str) -> None:
    response = httpx.post(
        f"{server_url}/api/contact",
        json={
            "name": "Mariana",
            "document": "123",
            "email": "x@y.com",
            "service": "trial",
            "message": "Mensagem longa.",
        },
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["property"] == "document"


DIST = Path(__file__).resolve().parents[2] / "webapp" / "dist"
FIRST_LOAD_BUDGET = 250 * 1024


def test_the_home_page_first_load_stays_light(page: Page, server_url: str) -> None:
    """Every script the browser fetches for "/" (no signed-in screen among them), under 250 KB gzipped."""
    scripts: list[str] = []
    page.on("request", lambda r: scripts.append(r.url) if r.resource_type == "script" else None)
    page.goto(f"{server_url}/")
    expect(page.get_by_test_id("public-home")).to_be_visible()
    page.wait_for_load_state("networkidle")
    names = [url.split("/assets/", 1)[1] for url in scripts if "/assets/" in url]
    assert any(n.startswith("HomePage-") for n in names)
    for signed_in in ("SignedInLayout-", "DashboardPage-", "CustomersPage-", "BalancesPage-", "LoginPage-"):
        assert not any(n.startswith(signed_in) for n in names), names
    total = sum(len(gzip.compress((DIST / "assets" / n).read_bytes(), 9)) for n in names)
    print(f"first load of /: {len(names)} scripts, {total / 1024:.1f} KB gzipped")
    assert total < FIRST_LOAD_BUDGET


def test_screenshots_at_375_and_1440(browser: Browser, server_url: str) -> None:
    for width, height in [(375, 812), (1440, 900)]:
        context = browser.new_context(viewport={"width": width, "height": height}, locale="pt-BR")
        page = context.new_page()
        for key, (path, test_id) in PAGES.items():
            page.goto(f"{server_url}{path}")
            expect(page.get_by_test_id(test_id)).to_be_visible()
            # Scroll through as a reader would, so every figure counts up (1 s) before the picture.
            page.evaluate(
                """async () => {
                    for (let y = 0; y < document.body.scrollHeight; y += window.innerHeight / 2) {
                        window.scrollTo(0, y)
                        await new Promise((r) => setTimeout(r, 60))
                    }
                }"""
            )
            # Every figure at its target (the count-up done) and the page at rest, instead of a fixed 1.2 s. A busy
            # machine may draw no frame while a figure passes through the view: the first still counting is brought
            # into view again until none is left.
            page.wait_for_function(
                """() => {
                    const counting = [...document.querySelectorAll('.pub-count')].filter(
                        (figure) => figure.textContent.replace(/\\D/g, '') !== figure.dataset.target)
                    if (counting.length) counting[0].scrollIntoView({ block: 'center' })
                    return counting.length === 0
                }""",
                polling=250,
            )
            settle(page)
            page.evaluate("window.scrollTo(0, 0)")
            screenshot(page, f"public-{key}-{width}")
            # No horizontal scrolling at any width.
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), (key, width)
        if width < 1024:
            toggle = page.get_by_test_id("public-menu-toggle")
            expect(page.get_by_test_id("public-nav-about")).to_be_hidden()
            toggle.click()
            expect(page.get_by_test_id("public-nav-about")).to_be_visible()
            page.screenshot(path=str(_results() / f"public-menu-{width}.png"))
            page.get_by_test_id("public-nav-about").click()
            expect(page.get_by_test_id("public-about")).to_be_visible()
            expect(page.get_by_test_id("public-nav-about")).to_be_hidden()
        context.close()


def _results():  # type: ignore[no-untyped-def]
    from e2e_support import SCREENSHOTS

    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS

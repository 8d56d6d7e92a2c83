"""End to end: the catalogue's screens (queries-list, add-new-query, layout-list, add-new-layout).

A super-admin creates, edits, inactivates and activates a query type and a layout; the forms' rules
answer their messages; the layout form's preview shows a sample line read and written live. Every
screen is screenshotted at 375 and 1440 px in both languages (catalogue-<screen>-<language>-<width>.png).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from e2e_support import Sessions, follow_menu, pick_option, screenshot, settle, sign_in
from playwright.sync_api import Browser, Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD, accept_invitation

from bemtevi.domain.documents import cnpj_check_digits, format_cnpj

pytestmark = pytest.mark.e2e


def fill_query_type(page: Page, name: str, cache: str = "7", validity: str = "30") -> None:
    page.get_by_test_id("query-type-name").fill(name)
    page.get_by_test_id("query-type-badge").fill("PF")
    # The icon is picked from the drawn ones, by its name on screen.
    pick_option(
        page,
        page.get_by_test_id("query-type-icon").get_by_role("combobox"),
        page.get_by_test_id("query-type-icon-person"),
    )
    page.get_by_test_id("query-type-description").fill("Cadastro e telefones de uma pessoa")
    page.get_by_test_id("query-type-cache").fill(cache)
    page.get_by_test_id("query-type-validity").fill(validity)


def test_a_query_type_is_created_edited_inactivated_and_activated(
    page: Page, server_url: str, sessions: Sessions
) -> None:
    sessions.resume(page)
    page.goto(f"{server_url}/queries-list")
    expect(page.get_by_test_id("query-type-row").filter(has_text="cpf-complete")).to_contain_text("Padrão")
    page.get_by_test_id("query-type-add").click()
    expect(page).to_have_url(re.compile(r"/add-new-query$"))

    # The form's rules, before anything reaches the server.
    page.get_by_test_id("query-type-save").click()
    form = page.get_by_test_id("query-type-form")
    expect(form.get_by_text("Campo obrigatório").first).to_be_visible()
    fill_query_type(page, "PF", cache="40", validity="30")
    page.get_by_test_id("query-type-save").click()
    expect(form).to_contain_text("O nome deve ter ao menos 3 caracteres")
    expect(form).to_contain_text("Os dias de cache não podem passar dos dias de validade")
    screenshot(page, "catalogue-query-type-errors")

    fill_query_type(page, "Pessoa física básica e2e")
    page.get_by_test_id("query-type-save").click()
    expect(page).to_have_url(re.compile(r"/queries-list$"))
    row = page.get_by_test_id("query-type-row").filter(has_text="Pessoa física básica e2e")
    expect(row).to_contain_text("7 / 30 dias")
    expect(row).to_contain_text("Ativo")

    row.get_by_test_id("query-type-edit").click()
    expect(page).to_have_url(re.compile(r"/add-new-query/pessoa-fisica-basica-e2e$"))
    expect(page.get_by_test_id("query-type-name")).to_have_value("Pessoa física básica e2e")
    page.get_by_test_id("query-type-cache").fill("3")
    page.get_by_test_id("query-type-save").click()
    expect(row).to_contain_text("3 / 30 dias")

    row.get_by_test_id("query-type-status").click()
    expect(page.get_by_test_id("confirm-dialog")).to_contain_text("Inativar Pessoa física básica e2e?")
    page.get_by_test_id("confirm-yes").click()
    expect(row).to_contain_text("Inativo")
    row.get_by_test_id("query-type-status").click()
    page.get_by_test_id("confirm-yes").click()
    expect(row).to_contain_text("Ativo")

    # The default of CPFs cannot stop being one while no other type is.
    page.get_by_test_id("query-type-row").filter(has_text="cpf-complete").get_by_test_id("query-type-edit").click()
    expect(page.get_by_test_id("query-type-default")).to_be_checked()
    page.get_by_test_id("query-type-default").uncheck()
    page.get_by_test_id("query-type-save").click()
    expect(page.get_by_test_id("query-type-error")).to_have_text("É necessária ao menos uma consulta padrão")

    # The normal query offers the types the group may run, from the catalogue.
    page.goto(f"{server_url}/normal-query")
    expect(page.get_by_test_id("query-type").locator("option", has_text="Pessoa física básica e2e")).to_have_count(1)


def test_a_layout_is_created_with_a_live_preview_edited_and_inactivated(
    page: Page, server_url: str, sessions: Sessions
) -> None:
    sessions.resume(page)
    page.goto(f"{server_url}/layout-list")
    page.get_by_test_id("layout-add").click()
    expect(page).to_have_url(re.compile(r"/add-new-layout$"))
    page.get_by_test_id("layout-save").click()
    form = page.get_by_test_id("layout-form")
    expect(form.get_by_text("Campo obrigatório").first).to_be_visible()

    page.get_by_test_id("layout-file-name").fill("clientes-e2e")
    page.get_by_test_id("layout-final-file-name").fill("clientes-e2e-enriquecidos")
    page.get_by_test_id("layout-table-name").fill("pessoas")
    page.get_by_test_id("layout-kind").select_option("fixed")
    # Entry: the CPF (11) then a name (10); exit: the CPF then the name (12).
    page.get_by_test_id("layout-row-add").click()
    rows = page.get_by_test_id("layout-row-form")
    expect(rows).to_have_count(2)
    third = rows.nth(1)
    third.get_by_test_id("layout-row-name").fill("nome")
    third.get_by_test_id("layout-row-order").fill("2")
    page.get_by_test_id("layout-save").click()
    expect(third).to_contain_text("Informe o tamanho (1 a 1000)")
    third.get_by_test_id("layout-row-size").fill("10")
    # The name read in is written back after the CPF: picked from the entries, its width typed.
    page.get_by_test_id("exit-field-search").fill("nome")
    settle(page)  # the options drawn for the search (a click on a list still redrawing was once lost)
    page.get_by_test_id("exit-field-option").filter(has_text="repete a entrada").click()
    items = page.get_by_test_id("exit-field-item")
    expect(items).to_have_count(2)
    items.nth(1).get_by_test_id("exit-field-size").fill("12")

    page.get_by_test_id("layout-sample").fill("01234567890Ana Souza")
    values = page.get_by_test_id("layout-preview-values")
    expect(values).to_contain_text("01234567890")
    expect(values).to_contain_text("Ana Souza")
    expect(page.get_by_test_id("layout-preview-exit")).to_have_text("01234567890Ana Souza   ")
    screenshot(page, "catalogue-layout-preview")

    page.get_by_test_id("layout-save").click()
    expect(page).to_have_url(re.compile(r"/layout-list$"))
    row = page.get_by_test_id("layout-row").filter(has_text="clientes-e2e")
    expect(row).to_contain_text("Posicional")
    row.get_by_test_id("layout-edit").click()
    expect(page.get_by_test_id("layout-file-name")).to_have_value("clientes-e2e")
    page.get_by_test_id("layout-table-name").fill("empresas")
    page.get_by_test_id("layout-save").click()
    expect(row).to_contain_text("empresas")

    row.get_by_test_id("layout-status").click()
    expect(page.get_by_test_id("confirm-dialog")).to_contain_text("Inativar o layout clientes-e2e?")
    page.get_by_test_id("confirm-yes").click()
    expect(row).to_contain_text("Inativo")
    row.get_by_test_id("layout-status").click()
    page.get_by_test_id("confirm-yes").click()
    expect(row).to_contain_text("Ativo")


@pytest.fixture
def sized_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[tuple[Page, int, str]]:
    width, language = request.param
    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    context.add_init_script(f"try {{ window.localStorage.setItem('locale', '{language}') }} catch {{}}")
    page = context.new_page()
    yield page, width, language
    context.close()


VIEWS = [(375, "pt-BR"), (375, "en-US"), (1440, "pt-BR"), (1440, "en-US")]

# (path, what shows it is drawn, title in pt-BR, title in en-US)
SCREENS = [
    ("queries-list", "query-type-row", "Tipos de consulta", "Query types"),
    ("add-new-query", "query-type-form", "Cadastrar tipo de consulta", "Register a query type"),
    ("add-new-query/cpf-complete", "query-type-form", "Editar tipo de consulta", "Edit query type"),
    ("layout-list", "layout-table", "Layouts", "Layouts"),
    ("layout-list?ready", "layout-table", "Layouts", "Layouts"),
    ("add-new-layout", "layout-form", "Cadastrar layout", "Register a layout"),
]


@pytest.mark.parametrize("sized_page", VIEWS, ids=[f"{w}-{lang}" for w, lang in VIEWS], indirect=True)
def test_the_catalogue_screens_fit_and_speak_the_language(
    sized_page: tuple[Page, int, str], server_url: str, sessions: Sessions
) -> None:
    page, width, language = sized_page
    english = language == "en-US"
    sessions.resume(page)
    for path, shown, title_pt, title_en in SCREENS:
        page.goto(f"{server_url}/{path.split('?')[0]}")
        if path.endswith("?ready"):
            page.get_by_test_id("layout-scope-ready").click()
            expect(page.get_by_test_id("layout-copy").first).to_be_visible()
        expect(page.get_by_role("heading", level=1)).to_contain_text(title_en if english else title_pt)
        expect(page.get_by_test_id(shown).first).to_be_visible()
        if path == "add-new-layout":
            page.get_by_test_id("exit-field-search").fill("nasc")
            page.get_by_test_id("exit-field-option").first.click()
            record = page.get_by_test_id("layout-record-line")
            expect(record).to_contain_text(re.compile(r"52998224725;\d\d/\d\d/\d{4}"))
            expect(page.get_by_test_id("layout-record-free")).to_contain_text(
                "no credit" if english else "não consome créditos"
            )
            page.get_by_test_id("layout-sample").fill("52998224725")
            expect(page.get_by_test_id("layout-preview-exit")).to_have_text(re.compile(r"^52998224725;"))
        if path == "add-new-query/cpf-complete":
            expect(page.get_by_test_id("query-type-name")).to_have_value("Pessoa física completa")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"/{path} scrolls sideways by {overflow}px at {width}px"
        settle(page)
        name = path.replace("/", "-").replace("?", "-")
        screenshot(page, f"catalogue-{name}-{language}-{width}")


def test_a_layout_built_with_the_picker_previews_a_real_record_and_a_ready_one_is_copied(
    page: Page, server_url: str, sessions: Sessions
) -> None:
    """No hidden knowledge: the exit fields are picked by their labels (not typed as names), the preview
    shows the demo CPF's real record written by the layout (free), and a ready layout is copied in one click."""
    sessions.resume(page)
    page.goto(f"{server_url}/add-new-layout")
    page.get_by_test_id("layout-file-name").fill("picker-e2e")
    page.get_by_test_id("layout-final-file-name").fill("picker-e2e-retorno")
    page.get_by_test_id("layout-table-name").fill("pessoas")
    for typed, label in (("nome", "Nome / razão social"), ("nasc", "Data de nascimento"), ("cidade", "Cidade")):
        page.get_by_test_id("exit-field-search").fill(typed)
        page.get_by_test_id("exit-field-option").filter(has_text=label).click()
    items = page.get_by_test_id("exit-field-item")
    expect(items).to_have_count(4)  # the CPF written back, then the three picked
    expect(items.nth(2).get_by_test_id("exit-field-format")).to_have_value("dd/mm/aaaa")
    # The city goes before the birth date.
    items.nth(3).get_by_test_id("exit-field-up").click()
    expect(items.nth(2)).to_have_attribute("data-name", "CIDADE")

    values = page.get_by_test_id("layout-record-value")
    expect(values).to_have_count(4)
    expect(page.get_by_test_id("layout-record-free")).to_contain_text("não consome créditos")
    line = page.get_by_test_id("layout-record-line")
    expect(line).to_contain_text("cpf;NOME;CIDADE;NASCIMENTO")
    expect(line).to_contain_text(re.compile(r"52998224725;[^;\s]+[^;]*;[^;]+;\d\d/\d\d/\d{4}"))
    for name in ("NOME", "CIDADE"):
        expect(page.locator(f"[data-testid='layout-record-value'][data-name='{name}'] dd")).not_to_have_text("-")
    screenshot(page, "catalogue-layout-picker-record")
    page.get_by_test_id("layout-save").click()
    expect(page).to_have_url(re.compile(r"/layout-list$"))
    expect(page.get_by_test_id("layout-row").filter(has_text="picker-e2e")).to_be_visible()

    # A ready layout, copied into one's own in one click, opens to be adjusted; the original stays.
    page.get_by_test_id("layout-scope-ready").click()
    ready = page.get_by_test_id("layout-row").filter(has_text="CPF básico (CSV)")
    ready.get_by_test_id("layout-copy").click()
    expect(page).to_have_url(re.compile(r"/add-new-layout/[0-9a-f-]+/[0-9a-f-]+$"))
    expect(page.get_by_test_id("layout-file-name")).to_have_value("cpf_basico_csv (cópia)")
    expect(page.get_by_test_id("exit-field-item").nth(1)).to_have_attribute("data-name", "NOME")
    expect(page.get_by_test_id("layout-record-line")).to_contain_text(re.compile(r"\d\d/\d\d/\d{4}"))


def test_a_customer_copies_a_ready_layout_into_its_own_and_sees_a_real_record(page: Page, server_url: str) -> None:
    """A customer's owner starts with no layout of its own: the list points to the ready ones, one click
    copies one into the company's layouts, and its form previews the demo CPF's record through it."""
    token = httpx.post(
        f"{server_url}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}, timeout=30
    ).json()["token"]
    base = "66778811" + "0001"  # a CNPJ of its own: the browser tests share one server
    registered = httpx.post(
        f"{server_url}/api/customers",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "type": "company",
            "cnpj": format_cnpj(base + cnpj_check_digits(base)),
            "companyName": "Layouts Prontos Comércio Ltda",
            "tradeName": "Layouts Prontos",
            "personInCharge": "Marta Lima",
            "phone": "(31) 97777-1122",
            "email": "marta@layoutsprontos.com.br",
            "seller": None,
            "defaultQuery": True,
            "consultProtest": False,
            "quantities": {"unit": 0, "batch": 0, "advanced": 0, "api": 0},
            "enabledQueryTypes": ["cpf-complete"],
            "panelAccess": True,
            "apiAccess": False,
        },
        timeout=30,
    )
    assert registered.status_code == 200, registered.text
    password = "L@youts-Pr0ntos"
    # The owner was invited by e-mail: they choose their password from the invitation's link.
    with httpx.Client(base_url=server_url, timeout=30) as api:
        accept_invitation(api, "marta@layoutsprontos.com.br", password)

    sign_in(page, server_url, "marta@layoutsprontos.com.br", password)
    follow_menu(page, "register", "layouts")
    expect(page).to_have_url(f"{server_url}/layout-list")
    page.get_by_test_id("layout-see-ready").click()
    ready = page.get_by_test_id("layout-row").filter(has_text="CPF contatos (CSV)")
    ready.get_by_test_id("layout-copy").click()
    expect(page).to_have_url(re.compile(r"/add-new-layout/[0-9a-f-]+/[0-9a-f-]+$"))
    expect(page.get_by_test_id("layout-file-name")).to_have_value("cpf_contatos_csv (cópia)")
    expect(page.get_by_test_id("layout-record-free")).to_contain_text("não consome créditos")
    expect(page.locator("[data-testid='layout-record-value'][data-name='NOME'] dd")).not_to_have_text("-")
    expect(page.get_by_test_id("layout-record-line")).to_contain_text("CPF;NOME;TELEFONE1")
    screenshot(page, "catalogue-customer-copied-layout")
    page.get_by_test_id("layout-save").click()
    expect(page).to_have_url(re.compile(r"/layout-list$"))
    page.get_by_test_id("layout-scope-mine").click()
    expect(page.get_by_test_id("layout-row").filter(has_text="cpf_contatos_csv (cópia)")).to_be_visible()

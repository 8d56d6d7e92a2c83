"""End to end: the batch screens (batch-query, manual-enrichment, new-manual-enrichment).

A super-admin uploads a small CSV in a layout of its group, sees the free preview, confirms, watches
the batch move on and downloads the return file; a file that is not what it says shows its translated
message and nothing is charged; a manual enrichment is sent for a customer. Each screen is
screenshotted at 375 and 1440 px in both languages (batches-<screen>-<language>-<width>.png).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
from e2e_support import Sessions, pick_option, screenshot, sign_in
from playwright.sync_api import Browser, Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD, accept_invitation, cpf_layout

from bemtevi.domain.documents import cnpj_check_digits, cpf_check_digits

pytestmark = pytest.mark.e2e

LAYOUT_NAME = "lote_e2e"
CUSTOMER = "Cliente Lote Sanhaço"
# How long the runner may take for a few records on a busy machine.
PROCESSING_TIMEOUT_MS = 60_000


def admin_headers(api: httpx.Client) -> dict[str, str]:
    signed = api.post(
        "/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "domain_url": "localhost"}
    )
    assert signed.status_code == 200, signed.text
    return {"Authorization": f"Bearer {signed.json()['token']}"}


def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.text
    return dict(response.json())


@pytest.fixture(scope="module")
def layout_id(server_url: str) -> str:
    """A CSV layout of the root group: the CPF in, the CPF and the name out."""
    with httpx.Client(base_url=server_url, timeout=30) as api:
        saved = ok(
            api.post(
                "/api/layouts",
                headers=admin_headers(api),
                json=cpf_layout(LAYOUT_NAME, "NOME"),
            )
        )
    return str(saved["id"])


@pytest.fixture(scope="module")
def layout(layout_id: str) -> str:
    return LAYOUT_NAME


@pytest.fixture(scope="module")
def people(dataset_path: Path) -> list[tuple[str, str]]:
    """Three (cpf, name) of the server's dataset."""
    with duckdb.connect(str(dataset_path), read_only=True) as db:
        return [(str(c), str(n)) for c, n in db.execute("SELECT cpf, name FROM people ORDER BY cpf LIMIT 3").fetchall()]


@pytest.fixture(scope="module")
def customer(server_url: str, layout_id: str) -> str:
    """A company below the root with the layout and 10 enrichment credits."""
    with httpx.Client(base_url=server_url, timeout=30) as api:
        ok(
            api.post(
                "/api/customers",
                headers=admin_headers(api),
                json={
                    "type": "company",
                    "cnpj": "11222333000181",
                    "companyName": CUSTOMER,
                    "tradeName": "Lote Sanhaço",
                    "personInCharge": "Responsável Lote",
                    "phone": "(11) 91234-5678",
                    "email": "dono@lote-sanhaco.com.br",
                    "defaultQuery": True,
                    "consultProtest": False,
                    "quantities": {"unit": 0, "batch": 10, "advanced": 0, "api": 0},
                    "enabledQueryTypes": ["cpf-complete"],
                    "enabledLayouts": [layout_id],
                    "panelAccess": True,
                    "apiAccess": False,
                },
            )
        )
    return CUSTOMER


@pytest.fixture
def csv_file(tmp_path: Path, people: list[tuple[str, str]]) -> Path:
    path = tmp_path / "clientes.csv"
    lines = ["cpf", *(cpf for cpf, _ in people), "", "123"]  # an empty line (skipped) and an invalid CPF
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def choose(page: Page, test_id: str, option: str) -> None:
    """Pick the option named ``option`` of the MUI select ``test_id``."""
    pick_option(
        page,
        page.get_by_test_id(test_id).get_by_role("combobox"),
        page.get_by_role("option", name=re.compile(re.escape(option))).first,
    )


def test_a_batch_is_previewed_confirmed_processed_and_returned(
    page: Page, server_url: str, sessions: Sessions, layout: str, csv_file: Path, people: list[tuple[str, str]]
) -> None:
    sessions.resume(page)
    page.goto(f"{server_url}/batch-query")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Consulta em lote")
    # The server's limits on one file, said under the file field before anything is sent.
    expect(page.get_by_test_id("batch-file-error")).to_have_text("TXT, CSV ou XLSX, até 10 MB e 1.000.000 registros.")

    # The form's rules, before anything reaches the server.
    page.get_by_test_id("batch-preview-button").click()
    expect(page.get_by_test_id("batch-upload")).to_contain_text("Escolha o layout")
    expect(page.get_by_test_id("batch-file-error")).to_have_text("Escolha o arquivo")

    choose(page, "batch-layout", layout)
    page.get_by_test_id("batch-file").set_input_files(str(csv_file))
    expect(page.get_by_test_id("batch-file-name")).to_contain_text("clientes.csv")
    page.get_by_test_id("batch-observation").fill("lote de teste")
    page.get_by_test_id("batch-preview-button").click()
    preview = page.get_by_test_id("batch-preview")
    expect(page.get_by_test_id("batch-preview-records")).to_contain_text("4")
    expect(page.get_by_test_id("batch-preview-valid")).to_contain_text("3")
    expect(page.get_by_test_id("batch-preview-invalid")).to_contain_text("1")
    expect(page.get_by_test_id("batch-preview-found")).to_contain_text("3")
    expect(preview).to_contain_text("Nada foi cobrado ainda")
    screenshot(page, "batches-preview")

    page.get_by_test_id("batch-confirm").click()
    expect(preview).to_have_count(0)
    row = page.get_by_test_id("batch-row").filter(has_text="clientes.csv")
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("batch-status")).to_have_text(re.compile("Aguardando|Processando|Disponível"))
    expect(row.get_by_test_id("batch-status")).to_have_text("Disponível", timeout=PROCESSING_TIMEOUT_MS)
    expect(row.get_by_test_id("batch-progress")).to_contain_text("4 de 4")
    # What the server allows the super-admin now: delete the batch that is over, nothing to cancel.
    expect(row.get_by_test_id("batch-delete")).to_be_visible()
    expect(row.get_by_test_id("batch-cancel")).to_have_count(0)
    screenshot(page, "batches-available")

    with page.expect_download() as caught:
        row.get_by_test_id("batch-download-return").click()
    returned = Path(caught.value.path()).read_text(encoding="utf-8")
    for cpf, name in people:
        assert cpf in returned and name in returned, returned
    with page.expect_download() as sent:
        row.get_by_test_id("batch-download-sent").click()
    assert Path(sent.value.path()).read_text(encoding="utf-8") == csv_file.read_text(encoding="utf-8")


def test_a_file_that_is_not_what_it_says_is_refused_and_nothing_is_charged(
    page: Page, server_url: str, sessions: Sessions, layout: str, tmp_path: Path
) -> None:
    image = tmp_path / "foto.csv"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    sessions.resume(page)
    page.goto(f"{server_url}/batch-query")
    choose(page, "batch-layout", layout)
    page.get_by_test_id("batch-file").set_input_files(str(image))
    page.get_by_test_id("batch-preview-button").click()
    expect(page.get_by_test_id("batch-error")).to_contain_text("Tipo de arquivo não permitido")
    expect(page.get_by_test_id("batch-preview")).to_have_count(0)
    expect(page.get_by_test_id("batch-row").filter(has_text="foto.csv")).to_have_count(0)
    screenshot(page, "batches-refused")


def test_a_webhook_into_the_servers_own_network_is_refused_under_its_field_and_can_be_corrected(
    page: Page, server_url: str, sessions: Sessions, layout: str, csv_file: Path
) -> None:
    sessions.resume(page)
    page.goto(f"{server_url}/batch-query")
    choose(page, "batch-layout", layout)
    page.get_by_test_id("batch-file").set_input_files(str(csv_file))
    page.get_by_test_id("batch-webhook-url").fill("http://169.254.169.254/latest/meta-data")
    page.get_by_test_id("batch-preview-button").click()
    expect(page.get_by_test_id("batch-preview")).to_be_visible()
    page.get_by_test_id("batch-confirm").click()
    form = page.get_by_test_id("batch-upload")
    expect(form).to_contain_text("Use um endereço http(s) da internet pública")
    expect(page.get_by_test_id("batch-preview")).to_be_visible()  # nothing submitted: still to confirm
    screenshot(page, "batches-webhook-refused")
    page.get_by_test_id("batch-webhook-url").fill("")
    expect(form).not_to_contain_text("Use um endereço http(s) da internet pública")
    page.get_by_test_id("batch-confirm").click()
    expect(page.get_by_test_id("batch-preview")).to_have_count(0)


def test_a_manual_enrichment_is_sent_for_a_customer(
    page: Page, server_url: str, sessions: Sessions, layout: str, customer: str, csv_file: Path
) -> None:
    sessions.resume(page)
    page.goto(f"{server_url}/manual-enrichment")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Enriquecimento manual")
    page.get_by_test_id("manual-add").click()
    expect(page).to_have_url(re.compile(r"/new-manual-enrichment$"))
    page.get_by_test_id("batch-preview-button").click()
    form = page.get_by_test_id("batch-upload")
    expect(form).to_contain_text("Escolha o layout")
    expect(form).to_contain_text("Escolha a extensão do arquivo")

    choose(page, "batch-customer", customer)
    choose(page, "batch-layout", layout)
    choose(page, "batch-extension", "CSV")
    page.get_by_test_id("batch-file").set_input_files(str(csv_file))
    page.get_by_test_id("batch-preview-button").click()
    expect(page.get_by_test_id("batch-preview-valid")).to_contain_text("3")
    page.get_by_test_id("batch-confirm").click()
    expect(page).to_have_url(re.compile(r"/manual-enrichment$"))
    row = page.get_by_test_id("batch-row").filter(has_text=customer)
    expect(row).to_have_count(1)
    expect(row).to_contain_text("clientes.csv")


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
    ("batch-query", "batch-upload", "Consulta em lote", "Batch query"),
    ("manual-enrichment", "batch-table", "Enriquecimento manual", "Manual enrichment"),
    ("new-manual-enrichment", "batch-upload", "Novo enriquecimento manual", "New manual enrichment"),
]


@pytest.mark.parametrize("sized_page", VIEWS, ids=[f"{w}-{lang}" for w, lang in VIEWS], indirect=True)
def test_the_batch_screens_fit_and_speak_the_language(
    sized_page: tuple[Page, int, str], server_url: str, sessions: Sessions, layout: str, csv_file: Path
) -> None:
    page, width, language = sized_page
    english = language == "en-US"
    sessions.resume(page)
    for path, shown, title_pt, title_en in SCREENS:
        page.goto(f"{server_url}/{path}")
        expect(page.get_by_role("heading", level=1)).to_contain_text(title_en if english else title_pt)
        expect(page.get_by_test_id(shown).first).to_be_visible()
        if path == "batch-query":
            # the preview card on screen too
            choose(page, "batch-layout", layout)
            page.get_by_test_id("batch-file").set_input_files(str(csv_file))
            page.get_by_test_id("batch-preview-button").click()
            expect(page.get_by_test_id("batch-preview")).to_be_visible()
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"/{path} scrolls sideways by {overflow}px at {width}px"
        screenshot(page, f"batches-{path}-{language}-{width}")


LOCKED_EMAIL = "dona@lote-trava.com.br"
LOCKED_PASSWORD = "N0va!Senha"
LOCKED_FILE = "trava.csv"


def locked_csv(rows: int) -> bytes:
    """``rows`` valid CPFs: enough work that a cancel sent right after the submit finds the batch still open."""
    cpfs = (f"{n:09d}" + cpf_check_digits(f"{n:09d}") for n in range(100_000_001, 100_000_001 + rows))
    return ("cpf\n" + "\n".join(cpfs) + "\n").encode()


@pytest.fixture(scope="module")
def locked_owner(server_url: str, layout_id: str) -> str:
    """The owner (past first access) of a customer whose ``allowDeletedAndCancelled`` is off, with one batch the
    super-admin canceled: the owner may neither cancel nor delete anything."""
    base = "33445566" + "0001"  # not the customers test's CNPJ: the e2e server is shared
    body: dict[str, Any] = {
        "type": "company",
        "cnpj": base + cnpj_check_digits(base),
        "companyName": "Lote Trava Ltda",
        "tradeName": "Lote Trava",
        "personInCharge": "Responsável Trava",
        "phone": "(11) 93333-4444",
        "email": LOCKED_EMAIL,
        "defaultQuery": True,
        "consultProtest": False,
        "quantities": {"unit": 0, "batch": 50_000, "advanced": 0, "api": 0},
        "enabledQueryTypes": ["cpf-complete"],
        "enabledLayouts": [layout_id],
        "panelAccess": True,
        "apiAccess": False,
    }
    with httpx.Client(base_url=server_url, timeout=60) as api:
        admin = admin_headers(api)
        data = ok(api.post("/api/customers", headers=admin, json=body))["data"]
        toggles = {"allowUploadingManualQueries": True, "allowDeletedAndCancelled": False}
        edited = {**{k: v for k, v in body.items() if k != "quantities"}, "toggles": toggles}
        ok(api.put(f"/api/customers/{data['id']}", headers=admin, json=edited))
        # The owner was invited by e-mail: they choose their password from the invitation's link.
        accept_invitation(api, LOCKED_EMAIL, LOCKED_PASSWORD)
        signed = {"email": LOCKED_EMAIL, "password": LOCKED_PASSWORD, "domain_url": "localhost"}
        owner = {"Authorization": f"Bearer {ok(api.post('/api/auth/auth', json=signed))['token']}"}
        for _ in range(5):  # the runner may finish a batch before the cancel: then send another
            shown = ok(
                api.post(
                    "/api/batches/uploads",
                    headers={**owner, "Content-Type": "application/octet-stream"},
                    params={"layoutId": layout_id, "fileName": LOCKED_FILE},
                    content=locked_csv(20_000),
                )
            )
            made = ok(api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"]}))
            if api.post(f"/api/batches/{made['id']}/cancel", headers=admin).status_code == 200:
                return LOCKED_EMAIL
    pytest.fail("no batch could be canceled before it finished")


@pytest.mark.parametrize("sized_page", VIEWS, ids=[f"{w}-{lang}" for w, lang in VIEWS], indirect=True)
def test_a_canceled_batch_says_why_in_the_language_and_offers_only_what_is_allowed(
    sized_page: tuple[Page, int, str], server_url: str, locked_owner: str
) -> None:
    page, width, language = sized_page
    english = language == "en-US"
    sign_in(page, server_url, locked_owner, LOCKED_PASSWORD, lands_on=None)
    expect(page).not_to_have_url(re.compile(r"/login$"))  # signed in before going on
    page.goto(f"{server_url}/batch-query")
    canceled = page.get_by_test_id("batch-row").filter(has_text=re.compile("Canceled|Cancelado"))
    expect(canceled.first).to_be_visible()
    expect(canceled.first.get_by_test_id("batch-status")).to_have_text("Canceled" if english else "Cancelado")
    # Named: the super-admin who canceled it ("Administrador", the deployment's first).
    expect(canceled.first.get_by_test_id("batch-message")).to_have_text(
        "Canceled by Administrador" if english else "Cancelado por Administrador"
    )
    # The group does not allow its users to cancel or delete: no button the server would refuse.
    rows = page.get_by_test_id("batch-row")
    expect(rows.get_by_test_id("batch-cancel")).to_have_count(0)
    expect(rows.get_by_test_id("batch-delete")).to_have_count(0)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"/batch-query scrolls sideways by {overflow}px at {width}px"
    screenshot(page, f"batches-canceled-{language}-{width}")

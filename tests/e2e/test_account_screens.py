"""End to end: create an account, recover a password through a real SMTP server, first access,
and the super-admin's mail outbox, in headless Chromium against the real server."""

from __future__ import annotations

import re

import httpx
from e2e_support import screenshot, sign_in
from playwright.sync_api import Page, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD, SmtpSink

NEW_PASSWORD = "N0va!senha"


def test_create_account_then_land_on_the_dashboard(page: Page, mail_server_url: str, smtp: SmtpSink) -> None:
    page.goto(f"{mail_server_url}/login")
    page.get_by_test_id("login-create-account").click()
    expect(page).to_have_url(re.compile(r"/create-account$"))
    # No Google button without a configured client id.
    expect(page.get_by_test_id("google-signin")).to_have_count(0)
    page.get_by_test_id("signup-submit").click()
    expect(page.get_by_text("Campo obrigatório").first).to_be_visible()

    page.get_by_test_id("signup-name").fill("Carla")
    page.get_by_test_id("signup-lastName").fill("Mendes")
    page.get_by_test_id("signup-email").fill("carla@docesmendes.com.br")
    page.get_by_test_id("signup-companyName").fill("Doces Mendes Ltda")
    page.get_by_test_id("signup-phone").fill("1234")
    page.get_by_test_id("signup-password").fill("fraca")
    page.get_by_test_id("signup-confirmation").fill("outra")
    page.get_by_test_id("signup-submit").click()
    expect(page.get_by_text("Telefone inválido")).to_be_visible()
    expect(page.get_by_text("Sua senha é fraca")).to_be_visible()
    expect(page.get_by_text("As senhas não coincidem")).to_be_visible()
    expect(page.get_by_text("É preciso aceitar os termos de uso")).to_be_visible()
    expect(page.get_by_role("link", name="termos de uso")).to_have_attribute("href", "/terms-of-use")
    screenshot(page, "accounts-create-account-errors")

    page.get_by_test_id("signup-phone").fill("(11) 98765-4321")
    page.get_by_test_id("signup-password").fill("D0ces!Mendes")
    page.get_by_test_id("signup-confirmation").fill("D0ces!Mendes")
    page.get_by_test_id("signup-terms").check()
    page.get_by_test_id("signup-submit").click()
    expect(page).to_have_url(re.compile(r"/dashboard$"))
    screenshot(page, "accounts-created-dashboard")
    assert "Carla" in smtp.wait_for_text("carla@docesmendes.com.br")

    # The same e-mail again is refused with the specification's duplicate message.
    page.evaluate("localStorage.clear()")
    page.goto(f"{mail_server_url}/create-account")
    for field, value in {
        "name": "Outra",
        "lastName": "Pessoa",
        "email": "carla@docesmendes.com.br",
        "companyName": "Outra Empresa",
        "phone": "(11) 98765-0000",
        "password": "D0ces!Mendes",
        "confirmation": "D0ces!Mendes",
    }.items():
        page.get_by_test_id(f"signup-{field}").fill(value)
    page.get_by_test_id("signup-terms").check()
    page.get_by_test_id("signup-submit").click()
    expect(page.get_by_test_id("signup-error")).to_have_text("E-mail já cadastrado")


def test_password_recovery_through_the_smtp_server(page: Page, mail_server_url: str, smtp: SmtpSink) -> None:
    created = httpx.post(
        f"{mail_server_url}/api/auth/create-account",
        json={
            "name": "Bruno",
            "lastName": "Alves",
            "email": "bruno@alvesfretes.com.br",
            "companyName": "Alves Fretes",
            "phone": "(21) 99876-5432",
            "password": "Antig4!senha",
            "confirmation": "Antig4!senha",
            "acceptTerms": True,
        },
    )
    assert created.status_code == 200, created.text

    page.goto(f"{mail_server_url}/login")
    page.get_by_test_id("login-forgot").click()
    expect(page).to_have_url(re.compile(r"/forgot-password$"))
    page.get_by_test_id("recovery-email").fill("bruno@alvesfretes.com.br")
    page.get_by_test_id("recovery-send").click()
    expect(page.get_by_test_id("recovery-check-email")).to_contain_text("bruno@alvesfretes.com.br")
    screenshot(page, "accounts-recovery-check-email")

    text = smtp.wait_for_text("bruno@alvesfretes.com.br", count=2)  # after the welcome mail
    match = re.search(r"https?://[^/\s]+(/verify-code/(\d{6})/\w+/[\w-]+)", text)
    assert match, text
    # A wrong code first, typed on the code step.
    page.get_by_test_id("recovery-have-code").click()
    page.get_by_test_id("recovery-code").fill("000000" if match.group(2) != "000000" else "111111")
    page.get_by_test_id("recovery-verify").click()
    expect(page.get_by_test_id("recovery-error")).to_have_text("Código inválido")

    # The mail's link: prefilled and verified at once.
    page.goto(f"{mail_server_url}{match.group(1)}")
    expect(page).to_have_url(re.compile(r"/redefine-new-password$"))
    expect(page.get_by_test_id("recovery-code-active")).to_have_text("Código ativo")
    page.get_by_test_id("recovery-password").fill("fraca")
    page.get_by_test_id("recovery-confirmation").fill("fraca")
    page.get_by_test_id("recovery-save").click()
    expect(page.get_by_text("Sua senha é fraca")).to_be_visible()
    page.get_by_test_id("recovery-password").fill(NEW_PASSWORD)
    page.get_by_test_id("recovery-confirmation").fill(NEW_PASSWORD)
    screenshot(page, "accounts-recovery-redefine")
    page.get_by_test_id("recovery-save").click()
    expect(page).to_have_url(re.compile(r"/login$"))

    sign_in(page, mail_server_url, "bruno@alvesfretes.com.br", NEW_PASSWORD)


def test_first_access_chooses_a_password_before_anything_else(page: Page, mail_server_url: str) -> None:
    token = httpx.post(
        f"{mail_server_url}/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}
    ).json()["token"]
    # A user an admin added signs in first with the password the admin was shown (a registered customer's owner
    # has none: they choose theirs from the invitation's link).
    added = httpx.post(
        f"{mail_server_url}/api/users",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "name": "Diana Rocha",
            "email": "diana@visaoclara.com.br",
            "cpf": "529.982.247-25",
            "functions": "Analista",
            "role": "user",
        },
    )
    assert added.status_code == 200, added.text
    generated = added.json()["data"]["generatedPassword"]

    sign_in(page, mail_server_url, "diana@visaoclara.com.br", generated, lands_on="/first-access")
    # Any signed-in screen sends them back here.
    page.goto(f"{mail_server_url}/dashboard")
    expect(page).to_have_url(re.compile(r"/first-access$"))
    page.get_by_test_id("first-access-password").fill(NEW_PASSWORD)
    page.get_by_test_id("first-access-confirmation").fill(NEW_PASSWORD + "x")
    page.get_by_test_id("first-access-submit").click()
    expect(page.get_by_text("As senhas não coincidem")).to_be_visible()
    page.get_by_test_id("first-access-confirmation").fill(NEW_PASSWORD)
    screenshot(page, "accounts-first-access")
    page.get_by_test_id("first-access-submit").click()
    expect(page).to_have_url(re.compile(r"/dashboard$"))


def test_super_admin_reads_the_outbox(page: Page, mail_server_url: str) -> None:
    sign_in(page, mail_server_url, ADMIN_EMAIL, ADMIN_PASSWORD)
    page.goto(f"{mail_server_url}/mail-outbox")
    rows = page.get_by_test_id("outbox-row")
    expect(rows.first).to_be_visible()
    welcome = rows.filter(has_text="carla@docesmendes.com.br")
    expect(welcome).to_contain_text("Enviada")
    welcome.get_by_test_id("outbox-open").click()
    expect(page.get_by_test_id("outbox-message")).to_contain_text("Doces Mendes Ltda")
    screenshot(page, "accounts-mail-outbox")


def test_too_many_wrong_passwords_answer_in_minutes(page: Page, mail_server_url: str) -> None:
    for _ in range(5):
        sign_in(page, mail_server_url, "bruno@alvesfretes.com.br", "Errada!123", lands_on=None)
        expect(page.get_by_test_id("login-error")).to_have_text("E-mail ou senha inválidos")
    sign_in(page, mail_server_url, "bruno@alvesfretes.com.br", NEW_PASSWORD, lands_on=None)
    expect(page.get_by_test_id("login-error")).to_have_text("Muitas tentativas, tente novamente em 15 minutos")
    screenshot(page, "accounts-too-many-attempts")

"""End to end: a company's owner switches two-step verification on in my-account, signs in again, lands on
verify-code, types the code the real (loopback) SMTP server received and is signed in. The verify-code screen
is pictured at 375 and 1440 px in both languages (``test-results/two-factor-verify-code-<language>-<width>.png``).
"""

from __future__ import annotations

import re
import time

import httpx
from e2e_support import screenshot, settle, sign_in
from playwright.sync_api import Page, expect
from support import SmtpSink

OWNER_EMAIL = "dora@doralimpeza.com.br"
OWNER_PASSWORD = "D0ra!Limpa"
SUBJECTS = {"pt-BR": "Seu código de acesso", "en-US": "Your sign-in code"}


def mailed_code(smtp: SmtpSink, count: int, subject: str) -> str:
    """The ``count``-th sign-in code mailed to the owner, once the SMTP server has it."""
    deadline = time.monotonic() + 60  # a bound on a wait for an event, generous for a busy machine
    while True:
        bodies = [
            m.get_body(("plain",)).get_content()
            for m in smtp.messages
            if m["To"] == OWNER_EMAIL and m["Subject"] in SUBJECTS.values()
        ]
        if len(bodies) >= count:
            assert [m["Subject"] for m in smtp.messages if m["To"] == OWNER_EMAIL][-1] == subject
            found = re.search(r"^(\d{6})\r?$", bodies[count - 1], re.MULTILINE)
            assert found, bodies[count - 1]
            return found.group(1)
        assert time.monotonic() < deadline, "no sign-in code was mailed"
        time.sleep(0.1)


def test_switch_two_step_verification_on_and_sign_in_with_the_mailed_code(
    page: Page, mail_server_url: str, smtp: SmtpSink
) -> None:
    created = httpx.post(
        f"{mail_server_url}/api/auth/create-account",
        json={
            "name": "Dora",
            "lastName": "Lima",
            "email": OWNER_EMAIL,
            "companyName": "Dora Limpeza",
            "phone": "(31) 99876-1234",
            "password": OWNER_PASSWORD,
            "confirmation": OWNER_PASSWORD,
            "acceptTerms": True,
        },
    )
    assert created.status_code == 200, created.text

    # The owner switches it on for the company, on my-account's security section.
    sign_in(page, mail_server_url, OWNER_EMAIL, OWNER_PASSWORD)
    page.goto(f"{mail_server_url}/my-account")
    switch = page.get_by_test_id("two-factor-switch")
    expect(switch).to_be_enabled()
    expect(switch).not_to_be_checked()
    switch.check()
    expect(page.get_by_text("Verificação em duas etapas ativada")).to_be_visible()
    expect(switch).to_be_checked()

    # Signed out, the password alone no longer signs in: the login goes on to verify-code.
    page.get_by_test_id("logout").click()
    expect(page).to_have_url(re.compile(r"/login$"))
    sign_in(page, mail_server_url, OWNER_EMAIL, OWNER_PASSWORD, lands_on=None)
    expect(page).to_have_url(re.compile(r"/verify-code\?challenge=[0-9a-f-]{36}"))
    expect(page.get_by_role("heading", name="Verificação em duas etapas")).to_be_visible()
    expect(page.get_by_test_id("two-factor-resend")).to_be_disabled()
    code = mailed_code(smtp, 1, SUBJECTS["pt-BR"])

    # The screen at both widths in both languages (the challenge stays in the address across a reload).
    for language in ("pt-BR", "en-US"):
        page.evaluate(f"localStorage.setItem('locale', '{language}')")
        page.reload()
        title = "Verificação em duas etapas" if language == "pt-BR" else "Two-step verification"
        expect(page.get_by_role("heading", name=title)).to_be_visible()
        for width in (375, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            settle(page)
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, (language, width, overflow)
            screenshot(page, f"two-factor-verify-code-{language}-{width}")
    page.evaluate("localStorage.setItem('locale', 'pt-BR')")
    page.reload()

    # A wrong code is said; the mailed one signs in.
    page.get_by_test_id("two-factor-code").fill(f"{(int(code) + 1) % 1_000_000:06d}")
    page.get_by_test_id("two-factor-submit").click()
    expect(page.get_by_test_id("two-factor-error")).to_have_text("Código de verificação inválido")
    page.get_by_test_id("two-factor-code").fill(f"{code[:3]} {code[3:]}")
    expect(page.get_by_test_id("two-factor-code")).to_have_value(code)
    page.get_by_test_id("two-factor-submit").click()
    expect(page).to_have_url(re.compile(r"/dashboard$"))
    expect(page.get_by_test_id("user-first-name")).to_contain_text("Dora")

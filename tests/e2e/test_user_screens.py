"""End to end: an admin adds a user, sees the generated password, edits and inactivates them;
the user (active again) chooses a password and edits their profile with a photo."""

from __future__ import annotations

import io
import re
from pathlib import Path

from e2e_support import Sessions, screenshot, sign_in
from PIL import Image, ImageDraw
from playwright.sync_api import Page, expect
from support import ADMIN_EMAIL

USER_EMAIL = "beatriz.lima@bemtevi.com.br"
NEW_PASSWORD = "Bem-te-v1!"


def portrait(path: Path) -> Path:
    image = Image.new("RGB", (600, 400), (43, 179, 42))
    draw = ImageDraw.Draw(image)
    draw.ellipse((200, 60, 400, 260), fill=(255, 220, 180))
    draw.rectangle((150, 280, 450, 400), fill=(3, 69, 7))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=90)
    path.write_bytes(out.getvalue())
    return path


def test_admin_adds_edits_inactivates_and_the_user_edits_their_profile(
    page: Page, server_url: str, sessions: Sessions, tmp_path: Path
) -> None:
    sessions.resume(page)
    page.goto(f"{server_url}/users")
    page.get_by_test_id("user-add").click()
    form = page.get_by_test_id("user-form")
    page.get_by_test_id("user-cpf").fill("111.111.111-11")
    page.get_by_test_id("user-submit").click()
    # The form's own rules first: required fields and the CPF's check digits.
    expect(form.get_by_text("Campo obrigatório").first).to_be_visible()
    expect(form.get_by_text("O documento informado é inválido")).to_be_visible()

    page.get_by_test_id("user-email").fill(USER_EMAIL)
    page.get_by_test_id("user-name").fill("Beatriz Lima")
    page.get_by_test_id("user-cpf").fill("529.982.247-25")
    page.get_by_test_id("user-functions").fill("Analista de crédito")
    page.get_by_test_id("user-phone").fill("(11) 98765-4321")
    screenshot(page, "users-form")
    page.get_by_test_id("user-submit").click()
    expect(page.get_by_test_id("user-added")).to_contain_text(USER_EMAIL)
    password_box = page.get_by_test_id("user-password")
    expect(password_box).to_have_text(re.compile(r"^.{12}$"))
    generated = password_box.inner_text()
    screenshot(page, "users-generated-password")
    page.get_by_test_id("user-added-done").click()
    expect(page.get_by_test_id("user-password")).to_have_count(0)  # shown once

    row = page.get_by_test_id("user-row").filter(has_text=USER_EMAIL)
    expect(row.get_by_test_id("user-status")).to_have_text("Primeiro acesso")

    # Edit: name and role; the e-mail stays.
    row.get_by_test_id("user-edit").click()
    expect(page.get_by_test_id("user-name")).to_have_value("Beatriz Lima")
    expect(page.get_by_test_id("user-email")).to_be_disabled()
    page.get_by_test_id("user-name").fill("Beatriz Lima Souza")
    page.get_by_test_id("user-role").select_option("admin")
    page.get_by_test_id("user-submit").click()
    row = page.get_by_test_id("user-row").filter(has_text=USER_EMAIL)
    expect(row).to_contain_text("Beatriz Lima Souza")
    expect(row).to_contain_text("Administrador")

    # Inactivate, confirmed in the dialog; then search finds the row with its new chip.
    row.get_by_test_id("user-toggle").click()
    expect(page.get_by_test_id("confirm-dialog")).to_contain_text("Inativar o usuário Beatriz Lima Souza?")
    page.get_by_test_id("confirm-yes").click()
    page.get_by_test_id("user-search").fill("beatriz")
    expect(page.get_by_test_id("user-row")).to_have_count(1)
    expect(row.get_by_test_id("user-status")).to_have_text("Inativo")
    screenshot(page, "users-list-inactive")

    # The admin cannot change their own status: no such button on their own row.
    page.get_by_test_id("user-search").fill(ADMIN_EMAIL)
    expect(page.get_by_test_id("user-row")).to_have_count(1)
    expect(page.get_by_test_id("user-toggle")).to_have_count(0)

    # An inactive user cannot sign in; activated again, they are back at first access.
    page.get_by_test_id("user-search").fill("beatriz")
    row.get_by_test_id("user-toggle").click()
    page.get_by_test_id("confirm-yes").click()
    expect(row.get_by_test_id("user-status")).to_have_text("Primeiro acesso")

    # The admin opens the user's personal information from the list and fills in the user name.
    row.get_by_test_id("user-profile").click()
    expect(page).to_have_url(re.compile(r"/personal-information/users/[0-9a-f]+/[0-9a-f-]+$"))
    expect(page.get_by_test_id("user-name")).to_have_value("Beatriz Lima Souza")
    page.get_by_test_id("user-username").fill("beatriz")
    page.get_by_test_id("profile-submit").click()
    expect(page).to_have_url(re.compile(r"/users$"))

    page.context.clear_cookies()
    page.evaluate("localStorage.clear()")
    sign_in(page, server_url, USER_EMAIL, generated, lands_on="/first-access")
    page.get_by_test_id("first-access-password").fill(NEW_PASSWORD)
    page.get_by_test_id("first-access-confirmation").fill(NEW_PASSWORD)
    page.get_by_test_id("first-access-submit").click()
    expect(page).to_have_url(re.compile(r"/dashboard$"))

    # My account, then the profile with a photo.
    page.goto(f"{server_url}/my-account")
    expect(page.get_by_role("heading", name="Cadastro", exact=True)).to_be_visible()
    for section in ("personal", "security", "payments", "marketing", "notifications", "privacy"):
        expect(page.get_by_test_id(f"account-{section}")).to_be_visible()
    page.get_by_test_id("account-edit-profile").click()
    expect(page).to_have_url(re.compile(r"/edit-my-profile/my-account$"))
    expect(page.get_by_test_id("user-name")).to_have_value("Beatriz Lima Souza")
    # Not an image: refused on the spot.
    fake = tmp_path / "notes.txt"
    fake.write_text("not a photo")
    page.get_by_test_id("profile-photo-input").set_input_files(str(fake))
    expect(page.get_by_test_id("profile-photo-error")).to_have_text("Envie uma imagem PNG, JPEG ou WebP")
    page.get_by_test_id("profile-photo-input").set_input_files(str(portrait(tmp_path / "me.jpg")))
    expect(page.get_by_test_id("profile-photo-error")).to_have_count(0)
    expect(page.get_by_test_id("profile-photo")).to_be_visible()  # the preview
    expect(page.get_by_test_id("user-username")).to_have_value("beatriz")
    page.get_by_test_id("user-username").fill("bia.lima")
    page.get_by_test_id("user-biography").fill("Cuido da análise de crédito da equipe.")
    screenshot(page, "profile-with-photo")
    page.get_by_test_id("profile-submit").click()
    expect(page).to_have_url(re.compile(r"/my-account$"))
    # The stored photo comes back from the server (a resized copy) on my account.
    photo = page.get_by_test_id("account-photo")
    expect(photo).to_be_visible()
    expect(photo).to_have_js_property("naturalWidth", 256)
    screenshot(page, "my-account")

    # Change password: a wrong current password is refused by the server.
    page.get_by_test_id("password-current").fill("Errada!123")
    page.get_by_test_id("password-new").fill("Outr@Senha9")
    page.get_by_test_id("password-confirmation").fill("Outr@Senha9")
    page.get_by_test_id("password-submit").click()
    expect(page.get_by_test_id("password-error")).to_have_text("A senha atual está incorreta")
    page.get_by_test_id("password-current").fill(NEW_PASSWORD)
    page.get_by_test_id("password-submit").click()
    expect(page.get_by_test_id("password-error")).to_have_count(0)
    expect(page.get_by_test_id("password-current")).to_have_value("")

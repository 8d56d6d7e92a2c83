"""End to end: a role changed by an admin while its user is signed in applies on the user's very
next in-app navigation (roles are refreshed before the route is decided, not after it is drawn)."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest
from e2e_support import follow_menu, screenshot, sign_in
from playwright.sync_api import Page, Request, expect
from support import ADMIN_EMAIL, ADMIN_PASSWORD

from bemtevi.domain.documents import cpf_check_digits, format_cpf

pytestmark = pytest.mark.e2e

USER_EMAIL = "helena.prado@bemtevi.com.br"
USER_PASSWORD = "Hel3na!Prado"
CPF = format_cpf("390533447" + cpf_check_digits("390533447"))
DETAILS = {"name": "Helena Prado", "cpf": CPF, "functions": "Supervisora de cadastro"}

# Counts every customer-list screen React puts in the page, even one removed a moment later,
# and marks the document so a reload (which would lose the mark) is noticed.
WATCH_CUSTOMER_LIST = """() => {
  window.__sameDocument = true
  window.__customerListDrawn = 0
  new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) {
      if (node.nodeType !== 1) continue
      const selector = '[data-testid="customer-add"]'
      if (node.matches(selector) || node.querySelector(selector)) window.__customerListDrawn += 1
    }
  }).observe(document.body, { childList: true, subtree: true })
}"""


def sign_in_api(url: str, email: str, password: str) -> dict[str, Any]:
    answer = httpx.post(f"{url}/api/auth/auth", json={"email": email, "password": password}, timeout=30)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def menu_routes(url: str, session: dict[str, Any]) -> set[str]:
    user = session["data"]
    answer = httpx.post(
        f"{url}/api/user-roles/get-user-roles-by-id",
        headers=bearer(session["token"]),
        json={"user_id": user["id"], "user_unique_key": user["uniqueKey"], "group_id": user["groupId"]},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text

    def walk(entries: list[dict[str, Any]]) -> set[str]:
        found: set[str] = set()
        for entry in entries:
            found |= set(entry.get("active_routes") or []) | walk(entry.get("children") or [])
        return found

    return walk(answer.json()["data"]["roles"])


def test_a_screen_removed_from_the_role_is_refused_on_the_next_navigation_without_a_reload(
    page: Page, server_url: str
) -> None:
    # The super-admin adds an admin to its own company; the admin chooses a password.
    admin = bearer(sign_in_api(server_url, ADMIN_EMAIL, ADMIN_PASSWORD)["token"])
    added = httpx.post(
        f"{server_url}/api/users", headers=admin, json={**DETAILS, "email": USER_EMAIL, "role": "admin"}, timeout=30
    )
    assert added.status_code == 200, added.text
    user_id = added.json()["data"]["id"]
    first = sign_in_api(server_url, USER_EMAIL, added.json()["data"]["generatedPassword"])
    chosen = httpx.post(
        f"{server_url}/api/auth/first-access",
        headers=bearer(first["token"]),
        json={"password": USER_PASSWORD, "confirmation": USER_PASSWORD},
        timeout=30,
    )
    assert chosen.status_code == 200, chosen.text

    # The admin signs in and opens the customer list from the menu.
    sign_in(page, server_url, USER_EMAIL, USER_PASSWORD)
    follow_menu(page, "register", "customers")
    expect(page).to_have_url(f"{server_url}/customer-list")
    expect(page.get_by_test_id("customer-add")).to_be_visible()
    page.get_by_test_id("nav-dashboard").click()
    expect(page.get_by_test_id("dashboard-total")).to_be_visible()

    page.evaluate(WATCH_CUSTOMER_LIST)
    customer_calls: list[str] = []

    def record(request: Request) -> None:
        if re.search(r"/api/customers(\?|$)", request.url):
            customer_calls.append(request.url)

    page.on("request", record)

    # While they look at the dashboard, the super-admin makes them a plain user: no Register menu.
    session = sign_in_api(server_url, USER_EMAIL, USER_PASSWORD)
    assert "customer-list" in menu_routes(server_url, session)
    changed = httpx.put(
        f"{server_url}/api/users/{user_id}", headers=admin, json={**DETAILS, "role": "user"}, timeout=30
    )
    assert changed.status_code == 200, changed.text
    deadline = time.monotonic() + 60  # a bound on a wait for an event, generous for a busy machine
    while "customer-list" in menu_routes(server_url, session):
        assert time.monotonic() < deadline, "the role change never reached the menu"
        time.sleep(0.1)

    # The menu on screen is the one read before: its link still leads to customers.
    follow_menu(page, "register", "customers")
    expect(page).to_have_url(f"{server_url}/error-forbidden")
    expect(page.get_by_test_id("forbidden")).to_contain_text("Acesso não permitido")
    # Decided with the fresh roles: the screen was never drawn and asked nothing of the server.
    assert page.evaluate("window.__customerListDrawn") == 0
    assert customer_calls == []
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    # The menu on screen is the new one.
    expect(page.get_by_test_id("nav-register")).to_have_count(0)
    expect(page.get_by_test_id("nav-dashboard")).to_be_visible()
    screenshot(page, "role-change-forbidden")

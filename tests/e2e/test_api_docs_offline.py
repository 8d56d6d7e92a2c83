"""End to end: the API's interactive documentation works on a machine without internet."""

from __future__ import annotations

from urllib.parse import urlsplit

from e2e_support import screenshot
from playwright.sync_api import Page, Route, expect

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def test_api_docs_list_the_operations_with_every_outside_request_blocked(page: Page, server_url: str) -> None:
    blocked: list[str] = []

    def only_loopback(route: Route) -> None:
        url = route.request.url
        if urlsplit(url).scheme in {"data", "blob"} or urlsplit(url).hostname in LOOPBACK:
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    page.context.route("**/*", only_loopback)
    page.goto(f"{server_url}/api/docs")

    expect(page.locator(".swagger-ui .title").first).to_contain_text("Consultation API")
    lookup = page.locator(".opblock-post").filter(has_text="/api/consultations").first
    expect(lookup).to_be_visible()
    expect(page.locator(".opblock-get").filter(has_text="/api/health").first).to_be_visible()
    screenshot(page, "api-docs-offline")
    assert blocked == [], f"the docs page asked for outside addresses: {blocked}"

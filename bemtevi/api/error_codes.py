"""Every ``code`` an error answer of the API may carry. Apart from `errors` (which answers them) so that the
schemas can publish them as the ``ErrorCode`` enum without importing the handlers that use the schemas."""

from __future__ import annotations

from bemtevi.domain.errors import catalogue

# What the framework refuses before a route runs: a body it cannot read, no such route, a method the
# route does not take. Any other status it might raise answers ``http_error``.
FRAMEWORK_ERROR_CODES: dict[int, str] = {400: "http_400", 404: "http_404", 405: "http_405"}
OTHER_HTTP_ERROR = "http_error"


def http_error_code(status: int) -> str:
    return FRAMEWORK_ERROR_CODES.get(status, OTHER_HTTP_ERROR)


def api_error_codes() -> list[str]:
    """Every ``code`` an error answer of the API may carry, sorted: the error catalogue's and the
    framework's. The OpenAPI schema publishes them (``ErrorCode``); the web app translates each."""
    return sorted({cls.code for cls in catalogue()} | set(FRAMEWORK_ERROR_CODES.values()) | {OTHER_HTTP_ERROR})

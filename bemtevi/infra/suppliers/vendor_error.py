"""A vendor that could not answer: what every supplier adapter raises, and the vendor JSON's mapping too."""

from __future__ import annotations


class VendorError(Exception):
    """A vendor could not answer: ``reason`` is timeout, server_error, client_error, unreachable,
    circuit_open, bad_answer, too_large (a body past the supplier's cap) or redirect (never followed)."""

    def __init__(self, vendor: str, reason: str, detail: str = "") -> None:
        super().__init__(f"supplier {vendor}: {reason}{': ' + detail if detail else ''}")
        self.vendor = vendor
        self.reason = reason

"""What the commands need of a data supplier; adapters live in ``infra.suppliers``."""

from __future__ import annotations

from typing import Any, Literal, Protocol


class Supplier(Protocol):
    name: str
    # True for a supplier that answers at once and costs nothing to ask (the local dataset): a lookup asks
    # it first and the ledger then charges and records it in one decision. False (a vendor over the
    # network, slow or paid): the lookup's credit is reserved before the supplier is asked.
    answers_at_once: bool

    def lookup(self, kind: Literal["cpf", "cnpj"], number: str) -> dict[str, Any] | None:
        """The unified result record for a document, or None when nothing is known of it."""
        ...

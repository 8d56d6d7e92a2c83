"""What the commands need of a data supplier; adapters live in ``infra.suppliers``."""

from __future__ import annotations

from typing import Any, Literal, Protocol


class Supplier(Protocol):
    name: str

    def lookup(self, kind: Literal["cpf", "cnpj"], number: str) -> dict[str, Any] | None:
        """The unified result record for a document, or None when nothing is known of it."""
        ...

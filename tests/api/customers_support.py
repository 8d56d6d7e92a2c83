"""Helpers for the customer, brand and audit API tests."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from support import accept_invitation, sign_in

from bemtevi.domain.documents import cnpj_check_digits, format_cnpj

NEW_PASSWORD = "N0va!Senha"


def cnpj(n: int) -> str:
    base = f"{n:08d}0001"
    return format_cnpj(base + cnpj_check_digits(base))


def customer(n: int, kind: str = "company", **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": kind,
        "cnpj": cnpj(n),
        "companyName": f"Empresa Número {n} Ltda",
        "tradeName": f"Fantasia {n}",
        "personInCharge": f"Responsável {n}",
        "phone": f"(11) 9{n:04d}-{n:04d}",
        "email": f"dono{n}@empresa{n}.com.br",
        "seller": "Vendedor Sul",
        "defaultQuery": True,
        "consultProtest": False,
        "quantities": {"unit": 0, "batch": 0, "advanced": 0, "api": 0},
        "enabledQueryTypes": ["cpf-complete", "cnpj-complete"],
        "panelAccess": True,
        "apiAccess": False,
    }
    body.update(changes)
    return body


def edit_body(registered: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The edit form: the registration form without quantities (credits move by grants)."""
    body = {k: v for k, v in registered.items() if k != "quantities"}
    body.update(changes)
    return body


def register(api: TestClient, headers: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    response = api.post("/api/customers", headers=headers, json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def owner_headers(
    api: TestClient, email: str, password: str | None = None, *, first_access: bool = True
) -> dict[str, str]:
    """Signs a user in. An invited owner (no ``password``: a registered customer's has none) follows the
    invitation's link first, choosing NEW_PASSWORD; an added user signs in with its generated ``password`` and,
    at first access, chooses NEW_PASSWORD and signs in again."""
    if password is None:
        accept_invitation(api, email, NEW_PASSWORD)
        return sign_in(api, email, NEW_PASSWORD)
    headers = sign_in(api, email, password)
    if not first_access:
        return headers
    chosen = api.post(
        "/api/auth/first-access", headers=headers, json={"password": NEW_PASSWORD, "confirmation": NEW_PASSWORD}
    )
    assert chosen.status_code == 200, chosen.text
    return sign_in(api, email, NEW_PASSWORD)

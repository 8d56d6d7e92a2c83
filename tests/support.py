"""Constants and helpers shared by the test modules."""

from __future__ import annotations

from fastapi.testclient import TestClient

ADMIN_EMAIL = "admin@bemtevi.local"
ADMIN_PASSWORD = "Adm1n!secret"

# Known valid documents the generator puts in the dataset.
KNOWN_CPF = "52998224725"
KNOWN_CNPJ = "11222333000181"


def sign_in(client: TestClient, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> dict[str, str]:
    response = client.post("/api/auth/auth", json={"email": email, "password": password, "domain_url": "localhost"})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}

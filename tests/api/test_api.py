"""The HTTP API as a client meets it: the four documented calls, lookups, dashboard, errors, isolation."""

from __future__ import annotations

from fastapi.testclient import TestClient
from support import ADMIN_EMAIL, ADMIN_PASSWORD, KNOWN_CPF, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.brand import Brand
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role

PASSWORD = "Strong!pass1"


def make_tenant(platform: Platform, name: str, domain: str, limit: int | None = 10, role: Role = Role.OWNER) -> str:
    """Register a company and its user; returns the user's e-mail once the read side has both."""
    group_id, _ = platform.identity.register_group(
        SYSTEM,
        name=name,
        group_type=GroupType.COMPANY,
        parent_id=ROOT_GROUP_ID,
        domain_url=domain,
        brand=Brand(appTitle=f"portal {name.lower()}", primaryColor="#FFD700"),
        unit_credit_limit=limit,
    )
    email = f"dona@{name.lower()}.com.br"
    _, position = platform.identity.register_user(
        SYSTEM, group_id=group_id, name=f"Dona {name}", email=email, password=PASSWORD, role=role
    )
    # The projector may gather saves for a moment; reads are eventually consistent without a position.
    assert platform.projector.wait_for(position, timeout=5)
    return email


def test_login_answers_user_and_token(client: TestClient) -> None:
    response = client.post(
        "/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "domain_url": "localhost:8000"}
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body["data"]) >= {"id", "uniqueKey", "groupId", "groupUniqueKey"}
    assert body["data"]["groupId"] == str(ROOT_GROUP_ID)
    assert body["token"].count(".") == 2


def test_login_errors_follow_the_specification(client: TestClient) -> None:
    wrong = client.post("/api/auth/auth", json={"email": ADMIN_EMAIL, "password": "nope", "domain_url": "localhost"})
    assert wrong.status_code == 401
    assert wrong.json()["message"] == "Invalid email or password"
    missing = client.post("/api/auth/auth", json={"password": "x"})
    assert missing.status_code == 400
    assert missing.json()["errors"][0] == {"property": "email", "isNotEmpty": "email should not be empty"}


def test_logout_revokes_the_token(client: TestClient) -> None:
    headers = sign_in(client)
    token = headers["Authorization"].split()[1]
    assert client.get("/api/dashboard", headers=headers).status_code == 200
    assert client.post("/api/auth/auth/logout", headers=headers, json={"token": token}).status_code == 200
    after = client.get("/api/dashboard", headers=headers)
    assert after.status_code == 401 and after.json()["message"] == "Unauthorized"


def test_calls_without_a_token_get_401(client: TestClient) -> None:
    for response in (
        client.get("/api/dashboard"),
        client.post("/api/consultations", json={"document": KNOWN_CPF}),
        client.post(
            "/api/user-roles/get-user-roles-by-id", json={"user_id": "a", "user_unique_key": "b", "group_id": "c"}
        ),
    ):
        assert response.status_code == 401
        assert response.json()["message"] == "Unauthorized"


def test_roles_answer_the_menu_tree(client: TestClient) -> None:
    login = client.post("/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}).json()
    user = login["data"]
    response = client.post(
        "/api/user-roles/get-user-roles-by-id",
        headers={"Authorization": f"Bearer {login['token']}"},
        json={"user_id": user["id"], "user_unique_key": user["uniqueKey"], "group_id": user["groupId"]},
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["group"]["id"] == str(ROOT_GROUP_ID)
    names = {entry["name"] for entry in data["roles"]}
    assert {"dashboard", "queries", "register"} <= names
    queries = next(e for e in data["roles"] if e["name"] == "queries")
    assert any("normal-query" in child["active_routes"] for child in queries["children"])


def test_public_data_by_domain_with_fallbacks(client: TestClient, sqlite_platform: Platform) -> None:
    make_tenant(sqlite_platform, "Acme", "acme.example")
    sqlite_platform.projector.wait_for(sqlite_platform.app.max_position(), 5)
    acme = client.post("/api/group/groups-get-public-data", json={"domain_url": "acme.example"}).json()["data"]
    assert acme["appTitle"] == "portal acme" and acme["primaryColor"] == "#FFD700"
    assert acme["secondaryColor"] == "#2BB32A"  # not set by Acme: the parent's (default) value
    assert acme["isMainDomain"] is False
    unknown = client.post("/api/group/groups-get-public-data", json={"domain_url": "nobody.example"}).json()["data"]
    assert unknown["primaryColor"] == "#034507" and unknown["lighterColor"] == "#D5EFD4"
    by_host = client.post("/api/group/groups-get-public-data", json={}, headers={"host": "acme.example"})
    assert by_host.json()["data"]["name"] == "Acme"


def test_lookup_then_dashboard_counts_it(client: TestClient, sqlite_platform: Platform) -> None:
    email = make_tenant(sqlite_platform, "Delta", "delta.example", limit=2)
    headers = sign_in(client, email, PASSWORD)
    before = client.get("/api/dashboard", headers=headers).json()["data"]
    assert before["consultationsTotal"] == 0 and before["credits"]["unit"]["limit"] == 2
    lookup = client.post("/api/consultations", headers=headers, json={"document": "529.982.247-25"})
    assert lookup.status_code == 200
    body = lookup.json()
    assert body["data"]["result"]["kind"] == "person" and body["data"]["documentType"] == "cpf"
    after = client.get(f"/api/dashboard?position={body['position']}", headers=headers).json()["data"]
    assert after["upToDate"] and after["consultationsTotal"] == 1 and after["consultationsToday"] == 1
    assert after["credits"]["unit"] == {"used": 1, "limit": 2}
    assert after["recent"][0]["document"] == KNOWN_CPF


def test_no_credit_is_402_with_the_specification_message(client: TestClient, sqlite_platform: Platform) -> None:
    headers = sign_in(client, make_tenant(sqlite_platform, "Zero", "zero.example", limit=0), PASSWORD)
    response = client.post("/api/consultations", headers=headers, json={"document": KNOWN_CPF})
    assert response.status_code == 402
    assert response.json()["message"] == "Not enough manual query credits"
    assert response.json()["code"] == "not_enough_credits"


def test_document_errors(client: TestClient) -> None:
    headers = sign_in(client)
    wrong_type = client.post("/api/consultations", headers=headers, json={"document": "123.456"})
    assert wrong_type.status_code == 422 and wrong_type.json()["message"] == "Invalid document type"
    invalid = client.post("/api/consultations", headers=headers, json={"document": "111.111.111-11"})
    assert invalid.status_code == 422 and invalid.json()["message"] == "The informed document is invalid"


def test_tenants_never_see_each_other(client: TestClient, sqlite_platform: Platform) -> None:
    alpha = sign_in(client, make_tenant(sqlite_platform, "Alfa", "alfa.example"), PASSWORD)
    beta_email = make_tenant(sqlite_platform, "Beta", "beta.example")
    beta_login = client.post("/api/auth/auth", json={"email": beta_email, "password": PASSWORD}).json()
    beta = {"Authorization": f"Bearer {beta_login['token']}"}
    position = client.post("/api/consultations", headers=alpha, json={"document": KNOWN_CPF}).json()["position"]
    beta_dashboard = client.get(f"/api/dashboard?position={position}", headers=beta).json()["data"]
    assert beta_dashboard["consultationsTotal"] == 0 and beta_dashboard["recent"] == []
    # Alfa cannot read Beta's menu nor Beta's brand by id.
    user = beta_login["data"]
    roles = client.post(
        "/api/user-roles/get-user-roles-by-id",
        headers=alpha,
        json={"user_id": user["id"], "user_unique_key": user["uniqueKey"], "group_id": user["groupId"]},
    )
    assert roles.status_code == 403
    brand = client.post(
        "/api/group/groups-get-public-data",
        headers=alpha,
        json={"group_id": user["groupId"], "group_unique_key": user["groupUniqueKey"]},
    )
    assert brand.status_code == 403
    own = client.post(
        "/api/group/groups-get-public-data",
        headers=beta,
        json={"group_id": user["groupId"], "group_unique_key": user["groupUniqueKey"]},
    )
    assert own.status_code == 200 and own.json()["data"]["name"] == "Beta"
    wrong_key = client.post(
        "/api/group/groups-get-public-data", headers=beta, json={"group_id": user["groupId"], "group_unique_key": "x"}
    )
    assert wrong_key.status_code == 404


def test_unknown_api_path_is_json_404_and_other_paths_serve_the_web_app(client: TestClient) -> None:
    response = client.get("/api/does-not-exist")
    assert response.status_code == 404 and response.json()["code"] == "http_404"
    page = client.get("/dashboard/deep/link")
    assert page.status_code in (200, 503)
    assert "text/html" in page.headers["content-type"]

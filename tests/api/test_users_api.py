"""Users of a group and my account through the HTTP API, with tenant isolation."""

from __future__ import annotations

import io
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient
from PIL import Image
from support import sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.documents import cpf_check_digits
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role, User, UserStatus

PASSWORD = "S3nha!forte"


def cpf(n: int) -> str:
    base = f"{n:09d}"
    return base + cpf_check_digits(base)


def form(n: int, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": f"Pessoa Número {n}",
        "email": f"pessoa{n}@empresa.com.br",
        "cpf": cpf(100 + n),
        "phone": "(11) 98765-4321",
        "functions": "Analista",
        "role": "user",
    }
    body.update(changes)
    return body


def group(platform: Platform, name: str, parent: UUID = ROOT_GROUP_ID, kind: GroupType = GroupType.COMPANY) -> UUID:
    group_id, _ = platform.identity.register_group(SYSTEM, name=name, group_type=kind, parent_id=parent)
    return group_id


def member(platform: Platform, group_id: UUID, email: str, role: Role = Role.OWNER) -> UUID:
    user_id, _ = platform.identity.register_user(
        SYSTEM, group_id=group_id, name=email.split("@")[0], email=email, password=PASSWORD, role=role
    )
    return user_id


def add(client: TestClient, headers: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/users", headers=headers, json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def listed(client: TestClient, headers: dict[str, str], position: int, **params: Any) -> dict[str, Any]:
    response = client.get("/api/users", headers=headers, params={"position": position, **params})
    assert response.status_code == 200, response.text
    return dict(response.json())


def png(size: tuple[int, int] = (640, 480)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def test_an_admin_adds_edits_inactivates_and_archives_a_user(client: TestClient) -> None:
    platform: Platform = client.app.state.platform  # type: ignore[attr-defined]
    admin = sign_in(client)
    added = add(client, admin, form(1))
    password = added["data"]["generatedPassword"]
    assert len(password) == 12
    user_id = added["data"]["id"]
    assert platform.app.get(UUID(user_id), User).status == UserStatus.FIRST_ACCESS

    page = listed(client, admin, added["position"], search="PESSOA NÚMERO 1")
    assert [(u["name"], u["email"], u["role"], u["status"]) for u in page["data"]] == [
        ("Pessoa Número 1", "pessoa1@empresa.com.br", "user", "first-access")
    ]
    assert page["upToDate"] is True

    duplicate = client.post("/api/users", headers=admin, json=form(2, email="Pessoa1@Empresa.com.br"))
    assert (duplicate.status_code, duplicate.json()["message"]) == (409, "Email already registered")
    bad_cpf = client.post("/api/users", headers=admin, json=form(3, cpf="111.111.111-11"))
    assert (bad_cpf.status_code, bad_cpf.json()["code"]) == (422, "invalid_document")
    no_functions = client.post("/api/users", headers=admin, json=form(3, functions="   "))
    assert no_functions.status_code == 422

    # The new user signs in with the generated password; the admin then changes name and role.
    user = sign_in(client, "pessoa1@empresa.com.br", password)
    edit = client.put(
        f"/api/users/{user_id}", headers=admin, json={**form(1, name="Pessoa Renomeada", role="admin"), "email": None}
    )
    assert edit.status_code == 400  # the e-mail is not part of the edit form
    edit = client.put(
        f"/api/users/{user_id}",
        headers=admin,
        json={k: v for k, v in form(1, name="Pessoa Renomeada", role="admin").items() if k != "email"},
    )
    assert edit.status_code == 200, edit.text
    detail = client.get(f"/api/users/{user_id}", headers=admin, params={"position": edit.json()["position"]})
    assert (detail.json()["data"]["name"], detail.json()["data"]["role"]) == ("Pessoa Renomeada", "admin")

    # Inactivating stops the user's open session at once; activating gives back first access.
    off = client.post(f"/api/users/{user_id}/status", headers=admin, json={"active": False})
    assert off.status_code == 200, off.text
    assert client.get("/api/me", headers=user).status_code == 401
    assert listed(client, admin, off.json()["position"])["data"][0]["status"] == "inactive"
    on = client.post(f"/api/users/{user_id}/status", headers=admin, json={"active": True})
    assert listed(client, admin, on.json()["position"])["data"][0]["status"] == "first-access"

    # Archiving hides the user and refuses their sign-in; the events stay.
    user = sign_in(client, "pessoa1@empresa.com.br", password)
    gone = client.delete(f"/api/users/{user_id}", headers=admin)
    assert gone.status_code == 200
    assert client.get("/api/me", headers=user).status_code == 401
    assert listed(client, admin, gone.json()["position"], search="pessoa")["total"] == 0
    assert client.get(f"/api/users/{user_id}", headers=admin).status_code == 404
    refused = client.post(
        "/api/auth/auth", json={"email": "pessoa1@empresa.com.br", "password": password, "domain_url": "localhost"}
    )
    assert refused.status_code in (401, 403)
    assert platform.app.get(UUID(user_id), User).version > 3


def test_nobody_changes_their_own_status_or_role_nor_deletes_themselves(client: TestClient) -> None:
    platform: Platform = client.app.state.platform  # type: ignore[attr-defined]
    company = group(platform, "Empresa Própria")
    owner_id = member(platform, company, "dona@propria.com.br")
    owner = sign_in(client, "dona@propria.com.br", PASSWORD)
    status = client.post(f"/api/users/{owner_id}/status", headers=owner, json={"active": False})
    assert (status.status_code, status.json()["message"]) == (403, "You cannot change your status")
    delete = client.delete(f"/api/users/{owner_id}", headers=owner)
    assert (delete.status_code, delete.json()["message"]) == (403, "You cannot delete yourself")
    # An owner gives user, admin or owner, never super-admin.
    refused = client.post("/api/users", headers=owner, json=form(5, role="super-admin"))
    assert refused.status_code == 403
    added = add(client, owner, form(6, role="owner"))
    assert platform.app.get(UUID(added["data"]["id"]), User).group_id == company


def test_tenant_isolation_and_a_reseller_manages_its_subtree(client: TestClient) -> None:
    platform: Platform = client.app.state.platform  # type: ignore[attr-defined]
    reseller = group(platform, "Revenda", kind=GroupType.RESELLER)
    customer = group(platform, "Cliente da Revenda", parent=reseller)
    other = group(platform, "Outra Empresa")
    member(platform, reseller, "dono@revenda.com.br")
    member(platform, customer, "dono@cliente.com.br")
    outsider_id = member(platform, other, "dono@outra.com.br")
    reseller_owner = sign_in(client, "dono@revenda.com.br", PASSWORD)
    customer_owner = sign_in(client, "dono@cliente.com.br", PASSWORD)
    outsider = sign_in(client, "dono@outra.com.br", PASSWORD)

    # The reseller lists and adds users of its customer.
    added = add(client, reseller_owner, form(7, groupId=str(customer)))
    page = listed(client, reseller_owner, added["position"], group_id=str(customer))
    assert {u["email"] for u in page["data"]} == {"dono@cliente.com.br", "pessoa7@empresa.com.br"}

    # ... and sets that user's photo, which the outsider can neither set nor read.
    target = added["data"]["id"]
    photo = client.put(
        f"/api/users/{target}/photo", headers={**reseller_owner, "Content-Type": "image/png"}, content=png()
    )
    assert photo.status_code == 200, photo.text
    assert client.put(f"/api/users/{target}/photo", headers=outsider, content=png()).status_code == 404
    served = client.get(
        f"/api/users/{target}/photo", headers=reseller_owner, params={"position": photo.json()["position"]}
    )
    assert served.status_code == 200 and served.headers["content-type"] == "image/webp"

    # The customer never sees the reseller's users, and another company sees neither.
    position = added["position"]
    assert client.get("/api/users", headers=customer_owner, params={"group_id": str(reseller)}).status_code == 404
    for headers in (outsider,):
        assert client.get("/api/users", headers=headers, params={"group_id": str(customer)}).status_code == 404
        target = added["data"]["id"]
        assert client.get(f"/api/users/{target}", headers=headers, params={"position": position}).status_code == 404
        assert client.get(f"/api/users/{target}/photo", headers=headers).status_code == 404
        body = {k: v for k, v in form(7).items() if k != "email"}
        assert client.put(f"/api/users/{target}", headers=headers, json=body).status_code == 404
        assert client.post(f"/api/users/{target}/status", headers=headers, json={"active": False}).status_code == 404
        assert client.delete(f"/api/users/{target}", headers=headers).status_code == 404
        assert client.post("/api/users", headers=headers, json=form(8, groupId=str(customer))).status_code == 404
    # ... and the reseller cannot reach beside itself either.
    assert client.delete(f"/api/users/{outsider_id}", headers=reseller_owner).status_code == 404
    assert platform.app.get(outsider_id, User).status == UserStatus.ACTIVE
    assert client.get("/api/users", headers=outsider).json()["total"] == 1


def test_a_role_without_the_users_screen_gets_403(client: TestClient) -> None:
    platform: Platform = client.app.state.platform  # type: ignore[attr-defined]
    company = group(platform, "Empresa Comum")
    member(platform, company, "comum@empresa.com.br", Role.USER)
    plain = sign_in(client, "comum@empresa.com.br", PASSWORD)
    assert client.get("/api/users", headers=plain).status_code == 403
    assert client.post("/api/users", headers=plain, json=form(9)).status_code == 403
    assert client.get("/api/customers", headers=plain).status_code == 403
    # Their own account is always theirs.
    assert client.get("/api/me", headers=plain).status_code == 200


def test_my_profile_photo_password_preferences_and_sessions(client: TestClient) -> None:
    platform: Platform = client.app.state.platform  # type: ignore[attr-defined]
    company = group(platform, "Empresa Perfil")
    me_id = member(platform, company, "eu@perfil.com.br", Role.USER)
    me = sign_in(client, "eu@perfil.com.br", PASSWORD)
    elsewhere = sign_in(client, "eu@perfil.com.br", PASSWORD)

    profile = {
        "name": "Eu Mesmo",
        "cpf": cpf(4242),
        "functions": "Gerente",
        "socialProfile": "https://social.example/eu",
        "biography": "Trabalho com dados.",
        "userName": "eumesmo",
        "phone": "",
    }
    assert client.put("/api/me/profile", headers=me, json={**profile, "cpf": "123"}).status_code == 422
    saved = client.put("/api/me/profile", headers=me, json=profile)
    assert saved.status_code == 200, saved.text
    mine = client.get("/api/me", headers=me, params={"position": saved.json()["position"]}).json()["data"]
    assert (mine["name"], mine["cpf"], mine["userName"], mine["phone"]) == ("Eu Mesmo", cpf(4242), "eumesmo", None)

    # Photo: a real image is stored as a 256x256 WebP; other bytes and big files are refused.
    photo = client.put("/api/me/photo", headers={**me, "Content-Type": "image/png"}, content=png())
    assert photo.status_code == 200, photo.text
    served = client.get(f"/api/users/{me_id}/photo", headers=me, params={"position": photo.json()["position"]})
    assert served.headers["content-type"] == "image/webp"
    with Image.open(io.BytesIO(served.content)) as image:
        assert (image.format, image.size) == ("WEBP", (256, 256))
    fake = client.put("/api/me/photo", headers={**me, "Content-Type": "image/png"}, content=b"\x89PNG not really")
    assert (fake.status_code, fake.json()["code"]) == (422, "invalid_image")
    text = client.put("/api/me/photo", headers=me, content=b"<svg xmlns='http://www.w3.org/2000/svg'/>")
    assert text.status_code == 422
    big = client.put("/api/me/photo", headers=me, content=b"\0" * (1024 * 1024))
    assert (big.status_code, big.json()["message"]) == (413, "File size exceeds 1MB limit")

    # Password: current must be right, the new one strong and confirmed.
    def change(current: str, new: str, confirmation: str) -> Any:
        body = {"currentPassword": current, "newPassword": new, "confirmation": confirmation}
        return client.post("/api/me/password", headers=me, json=body)

    assert change("wrong", "Nov@Senha1", "Nov@Senha1").json()["code"] == "wrong_current_password"
    assert change(PASSWORD, "fraca", "fraca").json()["message"] == "Your password is weak"
    assert change(PASSWORD, "Nov@Senha1", "Nov@Senha2").json()["message"] == "Passwords do not match"
    assert change(PASSWORD, "Nov@Senha1", "Nov@Senha1").status_code == 200
    sign_in(client, "eu@perfil.com.br", "Nov@Senha1")

    # Preferences are stored as events and read back over the defaults.
    pref = client.put("/api/me/preferences", headers=me, json={"preferences": {"marketingEmails": True, "x": True}})
    assert pref.status_code == 200
    prefs = client.get("/api/me", headers=me, params={"position": pref.json()["position"]}).json()["data"][
        "preferences"
    ]
    assert prefs["marketingEmails"] is True and "x" not in prefs and prefs["notifySecurity"] is True

    # Sessions: three open (two sign-ins above and one after the password change); sign out the others.
    sessions = client.get("/api/me/sessions", headers=me, params={"position": pref.json()["position"]}).json()["data"]
    assert len(sessions) == 3 and sum(s["current"] for s in sessions) == 1
    out = client.post("/api/me/sessions/sign-out-others", headers=me)
    assert out.status_code == 200
    assert client.get("/api/me", headers=elsewhere).status_code == 401
    assert client.get("/api/me", headers=me).status_code == 200
    left = client.get("/api/me/sessions", headers=me, params={"position": out.json()["position"]}).json()["data"]
    assert [s["current"] for s in left] == [True]


@pytest.mark.parametrize("path", ["/api/me", "/api/users", "/api/me/sessions"])
def test_signed_out_calls_are_refused(refusing_client: tuple[TestClient, Platform], path: str) -> None:
    client, _ = refusing_client
    assert client.get(path).status_code == 401

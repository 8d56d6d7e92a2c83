"""User management and one's own account as commands, on SQLite and PostgreSQL."""

from __future__ import annotations

import io
import threading
from uuid import UUID

import pytest
from PIL import Image

from bemtevi.bootstrap import Platform
from bemtevi.domain.documents import cpf_check_digits
from bemtevi.domain.errors import (
    AccessDenied,
    CannotChangeYourRole,
    CannotChangeYourStatus,
    CannotDeleteYourself,
    DuplicateValue,
    GroupNotFound,
    ImageTooLarge,
    InvalidDocument,
    InvalidImage,
    PasswordsDoNotMatch,
    RequiredField,
    Unauthorized,
    UserNotFound,
    WeakPassword,
    WrongCurrentPassword,
)
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.profiles import UserDetails
from bemtevi.domain.users import Role, User, UserStatus
from bemtevi.projections.users import user_detail, users_of_group

PASSWORD = "S3nha!forte"


def cpf(n: int) -> str:
    base = f"{n:09d}"
    return base + cpf_check_digits(base)


def details(n: int, **changes: str) -> UserDetails:
    values = {"name": f"Pessoa {n}", "cpf": cpf(n), "functions": "Analista", "phone": "11 98765-4321"}
    values.update(changes)
    return UserDetails(**values)  # type: ignore[arg-type]


def principal_of(platform: Platform, email: str, password: str = PASSWORD) -> Principal:
    signed = platform.identity.sign_in(email, password, None)
    return platform.identity.authenticate(signed.token)


def owner_of(
    platform: Platform, name: str, parent: UUID = ROOT_GROUP_ID, kind: GroupType = GroupType.COMPANY
) -> tuple[UUID, Principal]:
    group_id, _ = platform.identity.register_group(SYSTEM, name=name, group_type=kind, parent_id=parent)
    email = f"dono@{name.lower().replace(' ', '')}.com.br"
    platform.identity.register_user(
        SYSTEM, group_id=group_id, name="Dono", email=email, password=PASSWORD, role=Role.OWNER
    )
    return group_id, principal_of(platform, email)


def test_add_edit_status_and_archive(platform: Platform) -> None:
    group_id, owner = owner_of(platform, "Empresa Um")
    added = platform.users.add(owner, group_id, "Nova@Empresa.com.br", Role.USER, details(1))
    user = platform.app.get(added.user_id, User)
    assert (user.email, user.status, user.cpf, user.phone) == (
        "nova@empresa.com.br",
        UserStatus.FIRST_ACCESS,
        cpf(1),
        "11987654321",
    )
    with pytest.raises(DuplicateValue, match="Email already registered"):
        platform.users.add(owner, group_id, "nova@empresa.com.br", Role.USER, details(2))
    with pytest.raises(InvalidDocument):
        platform.users.add(owner, group_id, "x@empresa.com.br", Role.USER, details(3, cpf="123.456.789-00"))
    with pytest.raises(RequiredField):
        platform.users.add(owner, group_id, "x@empresa.com.br", Role.USER, details(3, functions=" "))
    with pytest.raises(AccessDenied):
        platform.users.add(owner, group_id, "x@empresa.com.br", Role.SUPER_ADMIN, details(3))

    platform.users.edit(owner, added.user_id, Role.ADMIN, details(1, name="  Pessoa   Renomeada "))
    user = platform.app.get(added.user_id, User)
    assert (user.name, user.role) == ("Pessoa Renomeada", Role.ADMIN)

    # Inactive, then active again: back to first access, since no password was chosen yet.
    platform.users.set_active(owner, added.user_id, False)
    assert platform.app.get(added.user_id, User).status == UserStatus.INACTIVE
    position = platform.users.set_active(owner, added.user_id, True)
    assert platform.app.get(added.user_id, User).status == UserStatus.FIRST_ACCESS

    platform.projector.wait_for(position, 5)
    rows, total = users_of_group(platform.store.cursor(), str(group_id))
    assert total == 2 and {r["status"] for r in rows} == {"active", "first-access"}

    position = platform.users.archive(owner, added.user_id)
    platform.projector.wait_for(position, 5)
    assert users_of_group(platform.store.cursor(), str(group_id))[1] == 1
    with pytest.raises(UserNotFound):
        platform.users.set_active(owner, added.user_id, True)


def test_self_rules(platform: Platform) -> None:
    _, owner = owner_of(platform, "Empresa Dois")
    with pytest.raises(CannotChangeYourStatus):
        platform.users.set_active(owner, owner.user_id, False)
    with pytest.raises(CannotDeleteYourself):
        platform.users.archive(owner, owner.user_id)
    with pytest.raises(CannotChangeYourRole):
        platform.users.edit(owner, owner.user_id, Role.ADMIN, details(5))
    # Editing oneself without changing the role is fine.
    platform.users.edit(owner, owner.user_id, Role.OWNER, details(5))


def test_inactivation_stops_open_sessions_at_once(platform: Platform) -> None:
    group_id, owner = owner_of(platform, "Empresa Tres")
    platform.identity.register_user(SYSTEM, group_id=group_id, name="Ana", email="ana@tres.com.br", password=PASSWORD)
    token = platform.identity.sign_in("ana@tres.com.br", PASSWORD, None).token
    ana = platform.identity.authenticate(token)
    platform.users.set_active(owner, ana.user_id, False)
    with pytest.raises(Unauthorized):
        platform.identity.authenticate(token)
    platform.users.set_active(owner, ana.user_id, True)
    assert platform.identity.authenticate(token).user_id == ana.user_id
    # A role changed by an admin applies from the next call.
    platform.users.edit(owner, ana.user_id, Role.ADMIN, details(6))
    assert platform.identity.authenticate(token).role == Role.ADMIN


def test_a_reseller_manages_its_subtree_only(platform: Platform) -> None:
    reseller_id, reseller = owner_of(platform, "Revenda", kind=GroupType.RESELLER)
    customer_id, customer = owner_of(platform, "Cliente", parent=reseller_id)
    other_id, _ = owner_of(platform, "Outra")
    added = platform.users.add(reseller, customer_id, "gente@cliente.com.br", Role.USER, details(7))
    assert platform.app.get(added.user_id, User).group_id == customer_id
    with pytest.raises(GroupNotFound):
        platform.users.add(customer, reseller_id, "x@cliente.com.br", Role.USER, details(8))
    with pytest.raises(GroupNotFound):
        platform.users.add(reseller, other_id, "x@outra.com.br", Role.USER, details(8))
    with pytest.raises(UserNotFound):
        platform.users.archive(customer, reseller.user_id)


def test_profile_photo_password_and_concurrent_adds(platform: Platform) -> None:
    group_id, owner = owner_of(platform, "Empresa Quatro")
    out = io.BytesIO()
    Image.new("RGBA", (300, 900), (0, 128, 0, 128)).save(out, format="PNG")
    position = platform.users.change_photo(owner, owner.user_id, out.getvalue())
    platform.projector.wait_for(position, 5)
    row = user_detail(platform.store.cursor(), str(owner.user_id))
    assert row is not None and row["photoDigest"] == platform.app.get(owner.user_id, User).photo_digest
    with pytest.raises(InvalidImage):
        platform.users.change_photo(owner, owner.user_id, b"GIF89a" + b"\0" * 100)
    with pytest.raises(ImageTooLarge):
        platform.users.change_photo(owner, owner.user_id, b"\0" * (1024 * 1024))

    with pytest.raises(WrongCurrentPassword):
        platform.users.change_password(owner, "errada", "Nov@Senha1", "Nov@Senha1")
    with pytest.raises(WeakPassword):
        platform.users.change_password(owner, PASSWORD, "novasenha", "novasenha")
    with pytest.raises(PasswordsDoNotMatch):
        platform.users.change_password(owner, PASSWORD, "Nov@Senha1", "Nov@Senha")
    platform.users.change_password(owner, PASSWORD, "Nov@Senha1", "Nov@Senha1")
    principal_of(platform, "dono@empresaquatro.com.br", "Nov@Senha1")

    # Two admins adding the same e-mail at once: one user, one duplicate refusal.
    results: list[object] = []

    def add() -> None:
        try:
            results.append(platform.users.add(owner, group_id, "mesmo@quatro.com.br", Role.USER, details(9)))
        except DuplicateValue as e:
            results.append(e)

    threads = [threading.Thread(target=add) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(r, DuplicateValue) for r in results) == 3


def test_repeated_changes_project_while_a_reader_holds_a_result(platform: Platform) -> None:
    """A cursor left after fetchone() keeps its DuckDB transaction open; the projector must still
    write the same user's row again and again (it used to stop on a write-write conflict)."""
    group_id, owner = owner_of(platform, "Empresa Cinco")
    added = platform.users.add(owner, group_id, "leitor@cinco.com.br", Role.USER, details(11))
    platform.projector.wait_for(added.position, 5)
    reader = platform.store.cursor()
    assert reader.execute("SELECT status FROM users WHERE user_id = ?", [str(added.user_id)]).fetchone()
    position = 0
    for n in range(4):
        position = platform.users.set_active(owner, added.user_id, n % 2 == 1)
        platform.users.edit(owner, added.user_id, Role.USER, details(11, name=f"Leitor {n}"))
        position = platform.users.change_photo(owner, owner.user_id, _png())
        # One projector round per change, each rewriting the same rows.
        assert platform.projector.wait_for(position, 10), platform.projector.error
    assert platform.projector.error is None
    row = user_detail(platform.store.cursor(), str(added.user_id))
    assert row is not None and (row["name"], row["status"]) == ("Leitor 3", "first-access")


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 64), (1, 2, 3)).save(out, format="PNG")
    return out.getvalue()

"""Identity commands on SQLite and PostgreSQL: first start, sign-in, sign-out, uniqueness, audit stamp."""

from __future__ import annotations

from uuid import UUID

import pytest
from support import ADMIN_EMAIL, ADMIN_PASSWORD

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.commands.identity import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.brand import DEFAULT_PRIMARY, DEFAULT_SECONDARY
from bemtevi.domain.errors import DuplicateValue, InvalidCredentials, Unauthorized, WeakPassword
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.users import Role, User
from bemtevi.infra.settings import Settings
from bemtevi.projections import directory


def test_first_start_creates_default_group_and_super_admin(platform: Platform) -> None:
    group = platform.app.get(ROOT_GROUP_ID, Group)
    assert group.group_type == GroupType.WHITE_LABEL
    assert group.brand_value.primaryColor == DEFAULT_PRIMARY
    assert group.brand_value.secondaryColor == DEFAULT_SECONDARY
    admin = platform.identity.find_user_by_email(ADMIN_EMAIL)
    assert admin is not None and admin.role == Role.SUPER_ADMIN and admin.group_id == ROOT_GROUP_ID


def test_second_start_changes_nothing(platform: Platform, settings: Settings) -> None:
    before = platform.app.max_position()
    result = platform.identity.bootstrap(ADMIN_EMAIL, "Another!pass1")
    assert not result.created
    assert platform.app.max_position() == before


def test_generated_admin_password_is_printed_once_and_works(settings: Settings) -> None:
    settings.admin_password = None
    platform = build_platform(settings, start_projector=False)
    try:
        result = platform.bootstrap_result
        assert result is not None and result.created and result.generated_password
        signed_in = platform.identity.sign_in(ADMIN_EMAIL, result.generated_password, "localhost")
        assert signed_in.user.role == Role.SUPER_ADMIN
    finally:
        platform.close()


def test_sign_in_refuses_wrong_password_and_unknown_email(platform: Platform) -> None:
    with pytest.raises(InvalidCredentials):
        platform.identity.sign_in(ADMIN_EMAIL, "wrong-Pass1!", None)
    with pytest.raises(InvalidCredentials):
        platform.identity.sign_in("nobody@example.com", ADMIN_PASSWORD, None)


def test_sign_in_is_case_insensitive_on_email(platform: Platform) -> None:
    signed_in = platform.identity.sign_in("  ADMIN@Bemtevi.Local ", ADMIN_PASSWORD, None)
    assert platform.identity.authenticate(signed_in.token).user_id == signed_in.user.id


def test_logout_makes_the_token_stop_working(platform: Platform) -> None:
    signed_in = platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None)
    principal = platform.identity.authenticate(signed_in.token)
    platform.identity.sign_out(principal)
    with pytest.raises(Unauthorized):
        platform.identity.authenticate(signed_in.token)
    # Another session of the same user is unaffected.
    other = platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None)
    assert platform.identity.authenticate(other.token).user_id == principal.user_id


def test_tampered_token_is_refused(platform: Platform) -> None:
    token = platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None).token
    head, payload, signature = token.split(".")
    with pytest.raises(Unauthorized):
        platform.identity.authenticate(f"{head}.{payload}.{signature[::-1]}")


def test_duplicate_email_is_refused_and_nothing_written(platform: Platform) -> None:
    platform.identity.register_user(
        SYSTEM, group_id=ROOT_GROUP_ID, name="Maria Souza", email="maria@empresa.com.br", password="Strong!pass1"
    )
    before = platform.app.max_position()
    with pytest.raises(DuplicateValue):
        platform.identity.register_user(
            SYSTEM, group_id=ROOT_GROUP_ID, name="Outra Maria", email=" MARIA@Empresa.com.br", password="Strong!pass1"
        )
    assert platform.app.max_position() == before


def test_weak_password_is_refused(platform: Platform) -> None:
    with pytest.raises(WeakPassword):
        platform.identity.register_user(
            SYSTEM, group_id=ROOT_GROUP_ID, name="Maria Souza", email="maria@empresa.com.br", password="fraca"
        )


def test_tenant_domain_only_admits_its_own_users(platform: Platform) -> None:
    acme_id, _ = platform.identity.register_group(
        SYSTEM, name="Acme", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, domain_url="acme.example"
    )
    platform.identity.register_user(
        SYSTEM, group_id=acme_id, name="Ana Lima", email="ana@acme.com", password="Strong!pass1"
    )
    assert platform.identity.sign_in("ana@acme.com", "Strong!pass1", "https://ACME.example:8443/login")
    # The product's own super-admin is not a user of Acme's site.
    with pytest.raises(InvalidCredentials):
        platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, "acme.example")
    with pytest.raises(DuplicateValue):
        platform.identity.register_group(
            SYSTEM, name="Acme 2", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, domain_url="acme.example"
        )


def test_every_event_carries_actor_tenant_and_time(platform: Platform) -> None:
    signed_in = platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None)
    platform.identity.sign_out(platform.identity.authenticate(signed_in.token))
    notifications = platform.app.recorder.select_notifications(1, 1000)
    assert len(notifications) >= 6
    for notification in notifications:
        event = platform.app.mapper.to_domain_event(notification)
        assert isinstance(event.tenant_id, UUID)
        assert event.timestamp.tzinfo is not None
    logout = platform.app.mapper.to_domain_event(notifications[-1])
    assert logout.actor_id == signed_in.user.id


def test_read_models_follow_the_directory(platform: Platform) -> None:
    group_id, position = platform.identity.register_group(
        SYSTEM, name="Beta", group_type=GroupType.RESELLER, parent_id=ROOT_GROUP_ID, domain_url="beta.example"
    )
    assert platform.projector.wait_for(position, timeout=5)
    cur = platform.store.cursor()
    data = directory.group_by_domain(cur, ["beta.example"])
    assert data is not None and data["id"] == str(group_id)
    # No brand of its own: the parent's (the defaults) apply.
    assert data["primaryColor"] == DEFAULT_PRIMARY
    user = platform.app.get(platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None).user.id, User)
    assert directory.user_by_id(cur, str(user.id)) is not None

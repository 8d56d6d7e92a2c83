"""Identity commands on SQLite and PostgreSQL: first start, sign-in, sign-out, uniqueness, audit stamp."""

from __future__ import annotations

import time
from datetime import timedelta
from uuid import UUID

import jwt
import pytest
from support import ADMIN_EMAIL, ADMIN_PASSWORD

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.domain.audit import acting_as
from bemtevi.domain.brand import DEFAULT_PRIMARY, DEFAULT_SECONDARY
from bemtevi.domain.errors import (
    DuplicateValue,
    ExpiredToken,
    FirstAccessRequired,
    GroupInactive,
    InvalidCredentials,
    Unauthorized,
    UserInactive,
    WeakPassword,
)
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role, User, UserStatus
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


# --- remembered principals ----------------------------------------------------------------------
# ``authenticate`` remembers the principal of a token that passed every check, until a save of
# its session, its user or a group of its chain, or its expiry. Each change below must apply on
# the very next call, as when every call loaded everything.


def _company_user(platform: Platform, parent_id: UUID = ROOT_GROUP_ID) -> tuple[UUID, UUID, str]:
    """A company under ``parent_id``, a user of it, and the user's signed-in token."""
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa Lembrada", group_type=GroupType.COMPANY, parent_id=parent_id
    )
    email = f"ana.{group_id.hex[:8]}@empresa.com.br"
    user_id, _ = platform.identity.register_user(
        SYSTEM, group_id=group_id, name="Ana Souza", email=email, password="Strong!pass1"
    )
    return group_id, user_id, platform.identity.sign_in(email, "Strong!pass1", None).token


def _save(platform: Platform, aggregate: Group | User) -> None:
    with acting_as(SYSTEM):
        platform.app.save_all(aggregate)


def _evictions_caught_up(platform: Platform) -> None:
    """Wait until the log follower that evicts caches has read every save so far. A save it reads later (this
    process's own, seen again in the log as any other process's would be) rightly forgets what rests on it, or
    keeps a principal checked meanwhile from being remembered; on a loaded machine it reads seconds late."""
    target = platform.app.max_position()
    deadline = time.monotonic() + 30
    while platform.invalidator.position < target:
        assert time.monotonic() < deadline, "the cache invalidator did not reach the log's end"
        time.sleep(0.01)


def test_a_remembered_principal_is_the_same_until_something_it_rests_on_is_saved(platform: Platform) -> None:
    _, user_id, token = _company_user(platform)
    _evictions_caught_up(platform)
    first = platform.identity.authenticate(token)
    assert platform.identity.authenticate(token) is first
    user = platform.app.get(user_id, User)
    with acting_as(SYSTEM):
        user.change_role(Role.ADMIN.value)
    _save(platform, user)
    changed = platform.identity.authenticate(token)
    assert changed is not first and changed.role == Role.ADMIN
    _evictions_caught_up(platform)
    changed = platform.identity.authenticate(token)
    assert changed.role == Role.ADMIN
    assert platform.identity.authenticate(token) is changed


def test_inactivating_the_user_stops_a_remembered_token_at_once(platform: Platform) -> None:
    _, user_id, token = _company_user(platform)
    platform.identity.authenticate(token)
    user = platform.app.get(user_id, User)
    with acting_as(SYSTEM):
        user.change_status(UserStatus.INACTIVE.value)
    _save(platform, user)
    with pytest.raises(Unauthorized) as refused:
        platform.identity.authenticate(token)
    assert refused.value.message == UserInactive.message
    # Its own code, so the web app says why in the reader's language; 401: sign in again.
    assert (refused.value.code, refused.value.status) == (UserInactive.code, 401)


@pytest.mark.parametrize("which", ["group", "parent"])
def test_inactivating_the_group_or_an_ancestor_stops_a_remembered_token_at_once(platform: Platform, which: str) -> None:
    parent_id, _ = platform.identity.register_group(
        SYSTEM, name="Revenda", group_type=GroupType.RESELLER, parent_id=ROOT_GROUP_ID
    )
    group_id, _, token = _company_user(platform, parent_id)
    platform.identity.authenticate(token)
    group = platform.app.get(group_id if which == "group" else parent_id, Group)
    with acting_as(SYSTEM):
        group.inactivate()
    _save(platform, group)
    with pytest.raises(Unauthorized) as refused:
        platform.identity.authenticate(token)
    assert refused.value.message == GroupInactive.message
    assert (refused.value.code, refused.value.status) == (GroupInactive.code, 401)


def test_a_save_of_another_process_forgets_a_remembered_principal(platform: Platform) -> None:
    _, _, token = _company_user(platform)
    first = platform.identity.authenticate(token)
    platform.app.evict_stale([first.session_id])  # as the invalidator does for a save read from the log
    assert platform.identity.authenticate(token) is not first


def test_first_access_is_refused_on_every_call_unless_allowed(platform: Platform) -> None:
    _, user_id, token = _company_user(platform)
    user = platform.app.get(user_id, User)
    with acting_as(SYSTEM):
        user.change_status(UserStatus.FIRST_ACCESS.value)
    _save(platform, user)
    for _ in range(2):
        assert platform.identity.authenticate(token, allow_first_access=True).first_access
        with pytest.raises(FirstAccessRequired):
            platform.identity.authenticate(token)


def test_a_remembered_token_expires_on_time(platform: Platform) -> None:
    platform.identity._token_ttl = timedelta(seconds=2)
    token = platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None).token
    expires = jwt.decode(token, options={"verify_signature": False})["exp"]
    platform.identity.authenticate(token)
    time.sleep(max(0.0, expires - time.time()) + 0.01)
    with pytest.raises(ExpiredToken):
        platform.identity.authenticate(token)


def test_a_principal_decided_while_a_save_happened_is_not_remembered(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save landing between loading the user and remembering the principal (another thread's)
    must not leave the principal decided on the copy it made stale."""
    _, user_id, token = _company_user(platform)
    platform.identity.authenticate(token)
    platform.app.evict_stale([user_id])  # forgotten: checked again
    find_readonly = platform.app.find_readonly

    def loaded_then_changed(aggregate_id: UUID, kind: type) -> object:
        found = find_readonly(aggregate_id, kind)
        if aggregate_id == user_id:
            monkeypatch.undo()
            user = platform.app.get(user_id, User)
            with acting_as(SYSTEM):
                user.change_role(Role.ADMIN.value)
            _save(platform, user)
        return found

    monkeypatch.setattr(platform.app, "find_readonly", loaded_then_changed)
    assert platform.identity.authenticate(token).role == Role.USER  # decided on the copy loaded first
    assert platform.identity.authenticate(token).role == Role.ADMIN

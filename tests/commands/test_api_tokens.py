"""API tokens' lifecycle on the write side: generate, check, regenerate, edit, inactivate, activate; the
secret kept only as a keyed hash; every change an audited event; the cache of checked tokens forgotten at
every save of what it rests on (this process's, or another's read from the log)."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples, wait_until

from bemtevi.bootstrap import Platform
from bemtevi.domain.api_client_errors import ApiAccessDisabled, ApiTokenInactive, ApiTokenInvalid, ApiTokenNotFound
from bemtevi.domain.api_tokens import ApiToken, TokenForm, TokenLimits, api_token_id, split_access_token
from bemtevi.domain.audit import acting_as
from bemtevi.domain.errors import AccessDenied, GroupInactive, InvalidData
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.users import Role
from bemtevi.infra.api_secrets import ApiSecrets

FORM = TokenForm("Integração ERP", ("cpf-complete",), TokenLimits(5, 1000))


def _manager(platform: Platform, role: Role = Role.OWNER, *, profile: dict[str, bool] | None = None) -> Principal:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Cliente API", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID
    )
    if profile is not None:
        group = platform.app.get(group_id, Group)
        with acting_as(SYSTEM):
            group.edit(group.name, group.group_type.value, None, None, profile)
        platform.app.save_all(group)
    return Principal(user_id=uuid4(), group_id=group_id, role=role, session_id=uuid4())


def test_a_generated_token_is_checked_by_its_text_and_its_secret_is_not_stored(platform: Platform) -> None:
    owner = _manager(platform)
    issued = platform.api_tokens.generate(owner, FORM)
    caller = platform.api_tokens.authenticate(issued.access_token)
    assert caller.principal.group_id == owner.group_id
    assert caller.principal.user_id == issued.token_id  # the token is who consults (the LGPD record)
    assert caller.query_types == {"cpf-complete"} and caller.limits == TokenLimits(5, 1000)
    _, secret = split_access_token(issued.access_token) or ("", "")
    stored = b"".join(n.state for n in platform.app.recorder.select_notifications(0, 10_000))
    assert secret.encode() not in stored
    token = platform.app.get(issued.token_id, ApiToken)
    assert token.secret_hash != secret and token.created_by == owner.user_id


@pytest.mark.parametrize(
    "text", ["", "nonsense", "bk_abc", "bk_abc.", ".secret", "xx_abc.secret", "bk_" + "0" * 24 + ".wrong"]
)
def test_a_malformed_or_unknown_token_is_refused_as_invalid(platform: Platform, text: str) -> None:
    with pytest.raises(ApiTokenInvalid):
        platform.api_tokens.authenticate(text)


def test_a_wrong_secret_for_a_real_access_key_is_refused(platform: Platform) -> None:
    issued = platform.api_tokens.generate(_manager(platform), FORM)
    platform.api_tokens.authenticate(issued.access_token)  # remembered: the wrong one must not ride on it
    with pytest.raises(ApiTokenInvalid):
        platform.api_tokens.authenticate(issued.access_key + ".not-the-secret")


def test_regenerating_stops_the_old_secret_at_once_and_keeps_the_access_key(platform: Platform) -> None:
    owner = _manager(platform)
    issued = platform.api_tokens.generate(owner, FORM)
    platform.api_tokens.authenticate(issued.access_token)
    again = platform.api_tokens.regenerate(owner, issued.token_id)
    assert again.access_key == issued.access_key and again.access_token != issued.access_token
    with pytest.raises(ApiTokenInvalid):
        platform.api_tokens.authenticate(issued.access_token)
    assert platform.api_tokens.authenticate(again.access_token).token_id == issued.token_id


def test_inactivating_stops_a_remembered_token_at_once_and_activating_brings_it_back(platform: Platform) -> None:
    owner = _manager(platform)
    issued = platform.api_tokens.generate(owner, FORM)
    platform.api_tokens.authenticate(issued.access_token)
    platform.api_tokens.set_active(owner, issued.token_id, False)
    with pytest.raises(ApiTokenInactive):
        platform.api_tokens.authenticate(issued.access_token)
    platform.api_tokens.set_active(owner, issued.token_id, True)
    assert platform.api_tokens.authenticate(issued.access_token).token_id == issued.token_id


def test_a_save_read_from_the_log_forgets_a_remembered_token(platform: Platform) -> None:
    issued = platform.api_tokens.generate(_manager(platform), FORM)
    # The invalidator reads every process's saves, this one's too: once it is past the token's, it is remembered.
    wait_until(lambda: platform.invalidator.position >= issued.position)
    first = platform.api_tokens.authenticate(issued.access_token)
    assert platform.api_tokens.authenticate(issued.access_token) is first
    platform.app.evict_stale([issued.token_id])  # what the invalidator does for another process's save
    assert platform.api_tokens.authenticate(issued.access_token) is not first


def test_an_edit_changes_what_the_token_may_run_from_the_next_call(platform: Platform) -> None:
    owner = _manager(platform)
    issued = platform.api_tokens.generate(owner, FORM)
    platform.api_tokens.authenticate(issued.access_token)
    platform.api_tokens.edit(owner, issued.token_id, TokenForm("Novo nome", ("cnpj-complete",), TokenLimits(2, 10)))
    caller = platform.api_tokens.authenticate(issued.access_token)
    assert caller.query_types == {"cnpj-complete"} and caller.limits == TokenLimits(2, 10)


def test_an_inactive_group_or_api_access_off_refuses_its_tokens(platform: Platform) -> None:
    owner = _manager(platform)
    issued = platform.api_tokens.generate(owner, FORM)
    platform.api_tokens.authenticate(issued.access_token)
    group = platform.app.get(owner.group_id, Group)
    with acting_as(SYSTEM):
        group.edit(group.name, group.group_type.value, None, None, {"apiAccess": False, "panelAccess": True})
    platform.app.save_all(group)
    with pytest.raises(ApiAccessDisabled):
        platform.api_tokens.authenticate(issued.access_token)
    group = platform.app.get(owner.group_id, Group)
    with acting_as(SYSTEM):
        group.edit(group.name, group.group_type.value, None, None, {"apiAccess": True, "panelAccess": False})
        group.inactivate()
    platform.app.save_all(group)
    with pytest.raises(GroupInactive):
        platform.api_tokens.authenticate(issued.access_token)


def test_only_owners_and_admins_of_the_group_manage_its_tokens(platform: Platform) -> None:
    owner = _manager(platform)
    issued = platform.api_tokens.generate(owner, FORM)
    user = Principal(user_id=uuid4(), group_id=owner.group_id, role=Role.USER, session_id=uuid4())
    with pytest.raises(AccessDenied):
        platform.api_tokens.generate(user, FORM)
    with pytest.raises(AccessDenied):
        platform.api_tokens.set_active(user, issued.token_id, False)
    stranger = _manager(platform, Role.ADMIN)
    with pytest.raises(ApiTokenNotFound):  # another group's token is not even said to exist
        platform.api_tokens.set_active(stranger, issued.token_id, False)
    with pytest.raises(ApiTokenNotFound):
        platform.api_tokens.regenerate(stranger, issued.token_id)
    assert platform.app.get(issued.token_id, ApiToken).active


def test_a_token_may_run_only_the_groups_query_types_within_the_ceiling(platform: Platform) -> None:
    owner = _manager(platform)
    with pytest.raises(InvalidData) as refused:
        platform.api_tokens.generate(owner, TokenForm("x", ("not-a-type",)))
    assert refused.value.field == "queryTypes"
    with pytest.raises(InvalidData) as refused:
        platform.api_tokens.generate(owner, TokenForm("x", ("cpf-complete",), TokenLimits(per_second=10**6)))
    assert refused.value.field == "limits.perSecond"
    with pytest.raises(InvalidData):
        platform.api_tokens.generate(owner, TokenForm("   ", ("cpf-complete",)))
    unset = platform.api_tokens.generate(owner, TokenForm("x", ("cpf-complete",)))
    assert platform.app.get(unset.token_id, ApiToken).limits == platform.api_tokens.ceiling


def test_every_change_is_an_event_with_its_actor(platform: Platform) -> None:
    owner = _manager(platform)
    issued = platform.api_tokens.generate(owner, FORM)
    platform.api_tokens.regenerate(owner, issued.token_id)
    platform.api_tokens.set_active(owner, issued.token_id, False)
    platform.api_tokens.set_active(owner, issued.token_id, True)
    events = list(platform.app.events.get(issued.token_id))
    assert [type(e).__name__ for e in events] == ["Generated", "Regenerated", "Inactivated", "Activated"]
    assert {e.actor_id for e in events} == {owner.user_id}  # type: ignore[attr-defined]
    assert {e.tenant_id for e in events} == {owner.group_id}  # type: ignore[attr-defined]


@settings(max_examples=examples(200), deadline=None)
@given(secret=st.text(max_size=60), key=st.text(min_size=1, max_size=40))
def test_only_the_exact_secret_matches_its_keyed_hash(secret: str, key: str) -> None:
    hashes = ApiSecrets(key)
    digest = hashes.digest(secret)
    assert hashes.matches(secret, digest)
    assert not hashes.matches(secret + "x", digest)
    assert not ApiSecrets(key + "x").matches(secret, digest)  # another server's key: no match


def test_the_token_id_is_found_from_the_access_key(platform: Platform) -> None:
    issued = platform.api_tokens.generate(_manager(platform), FORM)
    assert api_token_id(issued.access_key) == issued.token_id
    assert isinstance(issued.token_id, UUID)

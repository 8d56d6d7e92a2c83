"""The catalogue of query types: seeded at bootstrap, managed by a super-admin, read by the ledger."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support import ADMIN_EMAIL, ADMIN_PASSWORD, KNOWN_CNPJ, KNOWN_CPF, new_tenant

from bemtevi.bootstrap import Platform
from bemtevi.domain.errors import (
    AccessDenied,
    DefaultQueryRequired,
    DuplicateValue,
    QueryNotAllowed,
    QueryTypeInactive,
)
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.layouts import LayoutRow, LayoutSpec
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.query_types import QueryTypeForm, form_of


def admin(platform: Platform) -> Principal:
    return platform.identity.authenticate(platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None).token)


def person_form(**changes: object) -> QueryTypeForm:
    form = QueryTypeForm(
        name="Pessoa física básica",
        description="Cadastro e telefones",
        icon="person",
        badge="PF",
        toggles={"phone": True, "cpf": True, "cnpj": False, "benefit": False, "status": True},
        default=False,
        component="person",
        cache_days=7,
        validity_days=30,
    )
    return replace(form, **changes)  # type: ignore[arg-type]


def test_the_seeded_catalogue_keeps_the_first_cuts_keys_and_defaults(platform: Platform) -> None:
    assert platform.query_types.default_for("cpf").key == "cpf-complete"
    assert platform.query_types.default_for("cnpj").key == "cnpj-complete"
    assert platform.query_types.get("cnpj-complete").validity_days == 90
    # A second start seeds nothing again.
    before = platform.app.max_position()
    platform.catalogue.seed()
    assert platform.app.max_position() == before


def test_a_new_default_runs_the_lookups_that_name_no_type(platform: Platform) -> None:
    saved = platform.catalogue.add_query_type(admin(platform), person_form(default=True))
    assert saved.id == "pessoa-fisica-basica"
    # The root has it at once; a tenant registered after gets it from the root.
    principal = new_tenant(platform, "Empresa Nova", limit=5)
    outcome = platform.consultations.run_unit_query(principal, KNOWN_CPF)
    assert outcome.query_type.key == "pessoa-fisica-basica"
    assert outcome.query_type.cache_days == 7
    # The old default lost its flag; the CNPJ default is untouched.
    assert not platform.query_types.get("cpf-complete").default
    assert platform.consultations.run_unit_query(principal, KNOWN_CNPJ).query_type.key == "cnpj-complete"


def test_inactivating_a_type_stops_its_new_lookups_with_a_clear_message(platform: Platform) -> None:
    root = admin(platform)
    platform.catalogue.add_query_type(root, person_form())
    principal = new_tenant(platform, "Empresa Nova", limit=5)
    assert platform.consultations.run_unit_query(principal, KNOWN_CPF, "pessoa-fisica-basica").status
    platform.catalogue.set_query_type_active(root, "pessoa-fisica-basica", False)
    with pytest.raises(QueryTypeInactive):
        platform.consultations.run_unit_query(principal, KNOWN_CPF, "pessoa-fisica-basica")
    platform.catalogue.set_query_type_active(root, "pessoa-fisica-basica", True)
    assert platform.consultations.run_unit_query(principal, KNOWN_CPF, "pessoa-fisica-basica").status


def test_at_least_one_default_must_always_exist(platform: Platform) -> None:
    root = admin(platform)
    seeded = platform.query_types.get("cpf-complete")
    with pytest.raises(DefaultQueryRequired):
        platform.catalogue.edit_query_type(root, "cpf-complete", replace(form_of(seeded), default=False))
    with pytest.raises(DefaultQueryRequired):
        platform.catalogue.set_query_type_active(root, "cpf-complete", False)
    # Taking only CNPJs would leave CPFs without their default.
    cnpj_only = {"phone": True, "cpf": False, "cnpj": True, "benefit": False, "status": True}
    with pytest.raises(DefaultQueryRequired):
        platform.catalogue.edit_query_type(root, "cpf-complete", replace(form_of(seeded), toggles=cnpj_only))
    # Made the default elsewhere, the old one can go.
    platform.catalogue.add_query_type(root, person_form(default=True))
    platform.catalogue.set_query_type_active(root, "cpf-complete", False)
    assert not platform.query_types.get("cpf-complete").active


def test_only_a_super_admin_manages_the_catalogue_and_names_stay_unique(platform: Platform) -> None:
    principal = new_tenant(platform, "Empresa Nova", limit=5)
    with pytest.raises(AccessDenied):
        platform.catalogue.add_query_type(principal, person_form())
    platform.catalogue.add_query_type(admin(platform), person_form())
    with pytest.raises(DuplicateValue):
        platform.catalogue.add_query_type(admin(platform), person_form(name="Pessoa Física Básica!"))
    # A type the tenant's group never got is refused as before.
    other = new_tenant(platform, "Empresa Velha", limit=5)
    group = platform.app.get(other.group_id, Group)
    assert "pessoa-fisica-basica" in group.enabled_query_types  # registered after: the root's types
    with pytest.raises(QueryNotAllowed):
        limited = new_tenant_with(platform, ["cpf-complete"])
        platform.consultations.run_unit_query(limited, KNOWN_CPF, "pessoa-fisica-basica")


def new_tenant_with(platform: Platform, types: list[str]) -> Principal:
    group_id, _ = platform.identity.register_group(
        SYSTEM,
        name="Limitada",
        group_type=GroupType.COMPANY,
        parent_id=ROOT_GROUP_ID,
        unit_credit_limit=5,
        enabled_query_types=types,
    )
    email = f"{group_id.hex[:10]}@limitada.com"
    platform.identity.register_user(SYSTEM, group_id=group_id, name="Teste", email=email, password="Strong!pass1")
    return platform.identity.authenticate(platform.identity.sign_in(email, "Strong!pass1", None).token)


def test_a_layout_is_the_roots_once_added_and_can_be_edited_and_inactivated(sqlite_platform: Platform) -> None:
    platform = sqlite_platform
    root = admin(platform)
    spec = LayoutSpec(
        file_name="clientes",
        final_file_name="retorno",
        return_extension="csv",
        accepted_extension="txt",
        kind="fixed",
        delimiter="",
        first_line=False,
        table="pessoas",
        rows=(LayoutRow("cpf", "document", 1, "", 11, "entry"),),
    )
    saved = platform.catalogue.add_layout(root, spec)
    assert saved.id in platform.app.get(ROOT_GROUP_ID, Group).current_layouts()
    platform.catalogue.edit_layout(root, saved.id, replace(spec, table="empresas"))
    platform.catalogue.set_layout_active(root, saved.id, False)

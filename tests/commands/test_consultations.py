"""Unit lookups on SQLite and PostgreSQL: charging, refusals, failures and concurrency."""

from __future__ import annotations

import threading
from datetime import UTC
from typing import Any, Literal
from uuid import UUID

import pytest
from support import KNOWN_CNPJ, KNOWN_CPF, super_admin

from bemtevi.bootstrap import Platform
from bemtevi.commands.consultations import ConsultationCommands
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import (
    InvalidDocument,
    InvalidDocumentType,
    NotEnoughCredits,
    QueryNotAllowed,
    SearchFailed,
)
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.query_types import Category
from bemtevi.projections.consultations import usage_summary
from bemtevi.projections.credit_queries import balances_of

PASSWORD = "Strong!pass1"


def tenant(platform: Platform, limit: int | None, query_types: list[str] | None = None) -> Principal:
    """A company with a unit-credit limit and one signed-in user."""
    group_id, _ = platform.identity.register_group(
        SYSTEM,
        name="Empresa Teste",
        group_type=GroupType.COMPANY,
        parent_id=ROOT_GROUP_ID,
        unit_credit_limit=limit,
        enabled_query_types=query_types,
    )
    email = f"user-{group_id.hex[:8]}@empresa.com"
    platform.identity.register_user(SYSTEM, group_id=group_id, name="Joana Dias", email=email, password=PASSWORD)
    return platform.identity.authenticate(platform.identity.sign_in(email, PASSWORD, None).token)


def account(platform: Platform, group_id: UUID, category: Category = Category.UNIT) -> CreditAccount:
    return platform.app.get(credit_account_id(group_id, category), CreditAccount)


def test_found_person_is_charged_and_recorded(platform: Platform) -> None:
    principal = tenant(platform, limit=5)
    outcome = platform.consultations.run_unit_query(principal, "529.982.247-25")
    assert outcome.status == ConsultationStatus.DONE
    assert outcome.result is not None and outcome.result["cpf"] == KNOWN_CPF and outcome.result["name"]
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.reserved, balance.available) == (1, 0, 4)
    assert platform.projector.wait_for(outcome.position, timeout=5)
    cur = platform.store.cursor()
    assert usage_summary(cur, str(principal.group_id), outcome.created_at.date())["consultationsTotal"] == 1
    assert balances_of(cur, str(principal.group_id))["unit"] == {"used": 1, "limit": 5, "reserved": 0, "granted": 0}


def test_company_lookup_by_cnpj(platform: Platform) -> None:
    principal = tenant(platform, limit=None)
    outcome = platform.consultations.run_unit_query(principal, "11.222.333/0001-81")
    assert outcome.result is not None and outcome.result["kind"] == "company"
    assert outcome.result["cnpj"] == KNOWN_CNPJ and outcome.query_type.key == "cnpj-complete"


def test_unknown_document_is_not_charged(platform: Platform) -> None:
    principal = tenant(platform, limit=1)
    outcome = platform.consultations.run_unit_query(principal, "000.000.001-91")
    assert outcome.status == ConsultationStatus.NOT_FOUND and outcome.result is None
    assert account(platform, principal.group_id).available == 1


def test_consultation_ids_follow_the_order_the_lookups_were_made_in(platform: Platform) -> None:
    # Time-ordered ids keep the stores' indexes on them growing at their end (one page per batch of lookups).
    principal = tenant(platform, limit=None)
    documents = ["529.982.247-25", "000.000.001-91", "11.222.333/0001-81"] * 4
    ids = [platform.consultations.run_unit_query(principal, document).consultation_id for document in documents]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert {consultation_id.version for consultation_id in ids} == {7}


def test_invalid_documents_are_refused_before_anything_is_written(platform: Platform) -> None:
    principal = tenant(platform, limit=1)
    before = platform.app.max_position()
    with pytest.raises(InvalidDocumentType):
        platform.consultations.run_unit_query(principal, "1234")
    with pytest.raises(InvalidDocument):
        platform.consultations.run_unit_query(principal, "529.982.247-24")
    assert platform.app.max_position() == before


def test_no_credit_left_refuses_and_charges_nothing(platform: Platform) -> None:
    principal = tenant(platform, limit=1)
    platform.consultations.run_unit_query(principal, KNOWN_CPF)
    before = platform.app.max_position()
    with pytest.raises(NotEnoughCredits) as refusal:
        platform.consultations.run_unit_query(principal, KNOWN_CPF)
    assert refusal.value.status == 402 and "Not enough manual query credits" in refusal.value.message
    assert platform.app.max_position() == before
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.reserved, balance.available) == (1, 0, 0)


def test_query_type_the_tenant_may_not_run_is_refused(platform: Platform) -> None:
    principal = tenant(platform, limit=10, query_types=["cpf-complete"])
    with pytest.raises(QueryNotAllowed):
        platform.consultations.run_unit_query(principal, KNOWN_CNPJ)
    assert account(platform, principal.group_id).available == 10


class BrokenSupplier:
    """A supplier whose backend is down: the real failure path, not a stand-in for the real lookup."""

    name = "broken"
    answers_at_once = False  # a vendor over the network: its credit is held while it is asked

    def lookup(self, kind: Literal["cpf", "cnpj"], number: str) -> dict[str, Any] | None:
        raise ConnectionError("supplier unreachable")


def test_supplier_failure_releases_the_credit_and_records_the_attempt(platform: Platform) -> None:
    principal = tenant(platform, limit=1)
    commands = ConsultationCommands(platform.app, BrokenSupplier(), platform.consultations.ledger, platform.query_types)
    with pytest.raises(SearchFailed):
        commands.run_unit_query(principal, KNOWN_CPF)
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.reserved, balance.available) == (0, 0, 1)
    last = platform.app.mapper.to_domain_event(
        platform.app.recorder.select_notifications(platform.app.max_position(), 1)[0]
    )
    assert last.status == ConsultationStatus.FAILED.value and last.credits == 0


def test_concurrent_lookups_never_exceed_the_limit(platform: Platform) -> None:
    principal = tenant(platform, limit=10)
    outcomes: list[str] = []
    lock = threading.Lock()

    def lookup() -> None:
        try:
            platform.consultations.run_unit_query(principal, KNOWN_CPF)
            result = "ok"
        except NotEnoughCredits:
            result = "refused"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=lookup) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("ok") == 10 and outcomes.count("refused") == 6
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.reserved, balance.available) == (10, 0, 0)


def test_the_consultation_row_carries_who_what_and_when(platform: Platform) -> None:
    principal = tenant(platform, limit=0)
    # A lookup on the API's channel is charged to the group's API credits (issue 34).
    platform.credits.set_limit(super_admin(platform), principal.group_id, Category.API, 3)
    outcome = platform.consultations.run_unit_query(principal, KNOWN_CNPJ, channel="api")
    assert platform.projector.wait_for(outcome.position, timeout=5)
    row = (
        platform.store.cursor()
        .execute(
            "SELECT consultation_id, group_id, user_id, document, document_type, query_type, category, supplier, "
            "status, credits, channel, created_at FROM consultations WHERE consultation_id = ?",
            [str(outcome.consultation_id)],
        )
        .fetchone()
    )
    assert row == (
        str(outcome.consultation_id),
        str(principal.group_id),
        str(principal.user_id),
        KNOWN_CNPJ,
        "cnpj",
        "cnpj-complete",
        "api",
        "local",
        "done",
        1,
        "api",
        outcome.created_at.astimezone(UTC).replace(tzinfo=None),
    )

"""Take-backs and lookups decided by two writers at once, on SQLite and PostgreSQL.

As the server runs them: the server's writer takes credits back (negative grants) while the
lookups' ledger (its own writer, here the platform's) reserves and settles; neither has seen the
other's last append. The rule: a lookup is either refused before asking the supplier, or holds
its credit and is answered, charged exactly once; a take-back only ever takes what is available.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from uuid import UUID, uuid4

import pytest
from support import KNOWN_CPF, InFlight

from bemtevi.bootstrap import Platform
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.credits import CreditCommands
from bemtevi.commands.group_commit import GroupCommit
from bemtevi.commands.ledger import EmbeddedLedger
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import NotEnoughCredits
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role
from bemtevi.infra.settings import Settings


def acting(group_id: UUID, role: Role = Role.OWNER) -> Principal:
    return Principal(user_id=uuid4(), group_id=group_id, role=role, session_id=uuid4())


@pytest.fixture
def server_credits(settings: Settings) -> Iterator[CreditCommands]:
    """Grants decided on a writer of another application on the same store (another ledger, as the
    parent's ledger worker deciding a grant into the child's account): the platform's writer is not
    told of its appends."""
    app = BemteviApplication(env=settings.event_store_env())
    writer = GroupCommit(app)
    yield CreditCommands(EmbeddedLedger(app, writer))
    writer.stop()
    app.close()


def company_with(platform: Platform, credits: int) -> tuple[UUID, UUID]:
    """A reseller (1,000 unit credits) and its company, given ``credits`` of them through the
    platform's writer (which then holds the company's account in memory)."""
    reseller, _ = platform.identity.register_group(
        SYSTEM, name="Revenda", group_type=GroupType.RESELLER, parent_id=ROOT_GROUP_ID, unit_credit_limit=0
    )
    company, _ = platform.identity.register_group(
        SYSTEM, name="Empresa", group_type=GroupType.COMPANY, parent_id=reseller, unit_credit_limit=0
    )
    platform.credits.set_limit(acting(ROOT_GROUP_ID, Role.SUPER_ADMIN), reseller, Category.UNIT, 1000)
    platform.credits.grant(acting(reseller), company, Category.UNIT, credits)
    return reseller, company


def account(platform: Platform, group_id: UUID) -> CreditAccount:
    return platform.app.get(credit_account_id(group_id, Category.UNIT), CreditAccount)


def settlements(platform: Platform, group_id: UUID) -> Counter[str]:
    events = platform.app.repository.event_store.get(credit_account_id(group_id, Category.UNIT))
    return Counter(
        e.reservation_id
        for e in events
        if isinstance(e, CreditAccount.Settled | CreditAccount.SettledFromBlock | CreditAccount.Charged)
    )


def found(ledger: EmbeddedLedger, lookup: InFlight) -> None:
    lookup.finish(ledger, ConsultationStatus.DONE)


def test_a_lookup_after_a_take_back_the_ledger_has_not_seen_is_charged_once(
    platform: Platform, server_credits: CreditCommands
) -> None:
    reseller, company = company_with(platform, 5)
    server_credits.grant(acting(reseller), company, Category.UNIT, -3)

    outcome = platform.consultations.run_unit_query(acting(company, Role.USER), KNOWN_CPF)
    assert outcome.status == ConsultationStatus.DONE
    ledger = account(platform, company)
    assert (ledger.limit, ledger.used, ledger.reserved, ledger.available) == (2, 1, 0, 1)
    assert settlements(platform, company) == {str(outcome.consultation_id): 1}


def test_a_take_back_of_everything_refuses_the_next_lookup_before_the_supplier(
    platform: Platform, server_credits: CreditCommands
) -> None:
    reseller, company = company_with(platform, 5)
    server_credits.grant(acting(reseller), company, Category.UNIT, -5)

    with pytest.raises(NotEnoughCredits):
        platform.consultations.run_unit_query(acting(company, Role.USER), KNOWN_CPF)
    ledger = account(platform, company)
    assert (ledger.limit, ledger.used, ledger.reserved) == (0, 0, 0)

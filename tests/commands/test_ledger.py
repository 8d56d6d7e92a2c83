"""The ledger module (bemtevi.commands.ledger): the only code that moves credits, and idempotent requests.

Kafka delivers at least once, so each request the ledger decides may arrive twice; here the same
request is decided twice through the embedded ledger (the decisions are the Kafka worker's too) and
has one effect. The requests survive their JSON encoding as they are.
"""

from __future__ import annotations

import ast
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from support import KNOWN_CPF, charged_in_store, lookup_record, new_tenant, settlements_by_consultation

import bemtevi
from bemtevi.bootstrap import Platform
from bemtevi.commands.identity import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.commands.ledger import (
    REQUEST_TYPES,
    EmbeddedLedger,
    FinishLookup,
    Grant,
    ReleaseAbandoned,
    ReleaseWork,
    ReserveWork,
    SetLimit,
    SettleWork,
    decode_request,
    encode_request,
    error_from_json,
    error_to_json,
)
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import NotEnoughCredits, NotEnoughToProvide
from bemtevi.domain.groups import GroupType
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role

PACKAGE = Path(bemtevi.__file__).parent
# CreditAccount's methods that append a movement (``open`` counts when called on the class).
MUTATORS = {"reserve", "settle", "settle_from_block", "release", "change_limit", "grant_to", "open"}


def credit_mutations(tree: ast.AST) -> list[str]:
    """Calls of a CreditAccount mutator: ``CreditAccount.open(...)``, and any ``x.<mutator>(...)`` in a
    module that loads accounts (passes the class to a call: ``find(id, CreditAccount)``, ``isinstance``)."""
    loads_accounts = any(
        isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == "CreditAccount" for a in node.args)
        for node in ast.walk(tree)
    )
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method, receiver = node.func.attr, node.func.value
        if method == "open":
            if isinstance(receiver, ast.Name) and receiver.id == "CreditAccount":
                found.append(f"line {node.lineno}: CreditAccount.open")
        elif method in MUTATORS and loads_accounts:
            found.append(f"line {node.lineno}: .{method}(...)")
    return found


def test_only_the_ledger_moves_credits() -> None:
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("domain/") or relative == "commands/ledger.py":
            continue
        found = credit_mutations(ast.parse(path.read_text(), filename=str(path)))
        if found:
            offenders[relative] = found
    assert offenders == {}, "credit accounts are moved only by bemtevi/commands/ledger.py"


def test_the_walk_finds_a_mutation_outside_the_ledger() -> None:
    source = "account = CreditAccount.open(g, c, 0)\nother = app.get(i, CreditAccount)\nother.reserve(r, 1)\n"
    assert credit_mutations(ast.parse(source)) == ["line 1: CreditAccount.open", "line 3: .reserve(...)"]


def acting(group_id: UUID, role: Role = Role.OWNER) -> Principal:
    return Principal(user_id=uuid4(), group_id=group_id, role=role, session_id=uuid4())


def ledger_of(platform: Platform) -> EmbeddedLedger:
    assert isinstance(platform.consultations.ledger, EmbeddedLedger)
    return platform.consultations.ledger


def account(platform: Platform, group_id: UUID, category: Category = Category.UNIT) -> CreditAccount:
    return platform.app.get(credit_account_id(group_id, category), CreditAccount)


def test_every_request_survives_its_encoding() -> None:
    group, child = uuid4(), uuid4()
    requests = [
        lookup_record(group).request,
        lookup_record(group).request.finished("cpf-simples", None, ConsultationStatus.DONE),
        FinishLookup(uuid4(), group, uuid4(), KNOWN_CPF, "cpf", "cpf-simples", str(uuid4()), "api", "local", "done"),
        Grant(uuid4(), uuid4(), group, child, "unit", -3),
        SetLimit(uuid4(), uuid4(), group, child, "batch", None),
        ReserveWork(uuid4(), None, ROOT_GROUP_ID, group, "batch", uuid4(), 7),
        SettleWork(uuid4(), uuid4(), group, group, "batch", uuid4(), 2),
        ReleaseWork(uuid4(), None, ROOT_GROUP_ID, group, "batch", uuid4()),
        ReleaseAbandoned(group),
    ]
    assert {type(r).__name__ for r in requests} == set(REQUEST_TYPES)
    for request in requests:
        assert decode_request(encode_request(request)) == request
        assert request.partition_key == group


def test_a_refusal_survives_its_encoding() -> None:
    error = error_from_json(error_to_json(NotEnoughToProvide("Not enough enrichment query to provide to this group")))
    assert isinstance(error, NotEnoughToProvide)
    assert (error.code, error.status, error.message) == (
        "not_enough_to_provide",
        409,
        "Not enough enrichment query to provide to this group",
    )


def test_a_lookup_delivered_twice_is_charged_once(platform: Platform) -> None:
    ledger = ledger_of(platform)
    ledger.blocks.HOT_RATE = 10**9  # its own reservation, as a Kafka worker's lookups always are
    principal = new_tenant(platform, "Empresa", 10)
    lookup = lookup_record(principal.group_id)
    lookup.reserve(ledger)
    again = ledger.submit(lookup.request)  # the reservation delivered again: the same answer, nothing more
    assert again.value == (lookup.query_type, None)
    assert account(platform, principal.group_id).reserved == 1
    first = lookup.finish(ledger, ConsultationStatus.DONE)
    finished = lookup.request.finished(lookup.query_type or "", None, ConsultationStatus.DONE)
    second = ledger.submit(finished)  # the finish delivered again: the recorded answer
    assert second.position >= first
    # And the reservation delivered once more after its finish (a worker replaying requests whose
    # offsets it had not committed finds the consultation recorded): nothing is reserved again.
    replayed = platform.writer.submit(ledger.ledger.decide(lookup.request, recorded=True))
    assert replayed.value == (lookup.query_type, None)
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.reserved, balance.limit) == (1, 0, 10)
    charged = charged_in_store(platform.app, principal.group_id)
    assert settlements_by_consultation(platform.app, principal.group_id) == charged == {str(lookup.consultation_id): 1}


def test_grants_limits_and_batch_movements_delivered_twice_move_credits_once(platform: Platform) -> None:
    ledger = ledger_of(platform)
    reseller, _ = platform.identity.register_group(
        SYSTEM, name="Revenda", group_type=GroupType.RESELLER, parent_id=ROOT_GROUP_ID, unit_credit_limit=0
    )
    company, _ = platform.identity.register_group(
        SYSTEM, name="Empresa", group_type=GroupType.COMPANY, parent_id=reseller, unit_credit_limit=0
    )
    root = acting(ROOT_GROUP_ID, Role.SUPER_ADMIN)
    owner = acting(reseller)
    reservation = uuid4()
    twice = [
        SetLimit(uuid4(), root.user_id, ROOT_GROUP_ID, reseller, "batch", 100),
        Grant(uuid4(), owner.user_id, reseller, company, "batch", 30),
        ReserveWork(uuid4(), None, ROOT_GROUP_ID, company, "batch", reservation, 10),
        SettleWork(uuid4(), None, ROOT_GROUP_ID, company, "batch", reservation, 4),
    ]
    for request in twice:
        ledger.submit(request)
        ledger.ledger.forget()  # a rebalance between the deliveries: the claim in the store decides
        ledger.submit(request)
    parent, child = account(platform, reseller, Category.BATCH), account(platform, company, Category.BATCH)
    assert (parent.limit, parent.granted) == (100, 30)
    assert (child.limit, child.used, child.reserved) == (30, 4, 0)
    released = uuid4()
    ledger.submit(ReserveWork(uuid4(), None, ROOT_GROUP_ID, company, "batch", released, 5))
    release = ReleaseWork(uuid4(), None, ROOT_GROUP_ID, company, "batch", released)
    ledger.submit(release)
    ledger.submit(release)
    assert account(platform, company, Category.BATCH).reserved == 0
    with pytest.raises(NotEnoughCredits):
        ledger.submit(ReserveWork(uuid4(), None, ROOT_GROUP_ID, company, "batch", uuid4(), 27))

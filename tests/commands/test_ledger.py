"""The ledger package (bemtevi.commands.ledger): the only code that moves credits, and idempotent requests.

Kafka delivers at least once, so each request the ledger decides may arrive twice; here the same
request is decided twice through the embedded ledger (the decisions are the Kafka worker's too) and
has one effect. The requests survive their JSON encoding as they are.
"""

from __future__ import annotations

import ast
import threading
from functools import cache, partial
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import orjson
import pytest
from support import (
    KNOWN_CPF,
    appended_after,
    charged_in_store,
    customer_form,
    embedded_ledger,
    lookup_record,
    new_tenant,
    registered_in_one_append,
    settlements_by_consultation,
)

import bemtevi
from bemtevi.bootstrap import Platform
from bemtevi.commands.ledger import (
    REQUEST_TYPES,
    FinishLookup,
    Grant,
    LeaseUnits,
    OpenAccounts,
    ReleaseAbandoned,
    ReleaseWork,
    ReserveWork,
    ReturnLease,
    SetLimit,
    SettleWork,
    decode_request,
    encode_request,
    error_from_json,
    error_to_json,
    open_accounts,
)
from bemtevi.domain.audit import acting_as
from bemtevi.domain.brand import Brand
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import DuplicateValue, NotEnoughCredits, NotEnoughToProvide
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.indexes import GROUP_NAME, UniqueIndex
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role

PACKAGE = Path(bemtevi.__file__).parent
# CreditAccount's methods that append a movement (``open`` counts when called on the class).
MUTATORS = {"reserve", "settle", "settle_from_block", "release", "change_limit", "grant_to", "open"}
# The ledger's functions that answer accounts with new events (to be appended by the ledger alone).
ACCOUNT_MAKERS = {"opening_accounts", "open_or_load"}
LEDGER = "commands/ledger/"
LEASE_HOLDER = {"commands/ledger/leases.py", "commands/ledger/held_leases.py"}
# The application's appends.
SAVES = {"save", "save_all"}


@cache
def _walk(node: ast.AST) -> tuple[ast.AST, ...]:
    """``ast.walk`` kept per node: the checks below walk each module and expression many times (the
    package's walk took 12 s with plain ``ast.walk``)."""
    return tuple(ast.walk(node))


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _gives_accounts(node: ast.AST, account_names: set[str], account_functions: set[str]) -> bool:
    """Whether an expression is (or holds) credit accounts: an account loaded (``find(id, CreditAccount)``),
    opened (``CreditAccount.open``), made by the ledger's makers or a function of the module answering
    accounts, or a name already known to hold accounts."""
    for sub in _walk(node):
        if isinstance(sub, ast.Name) and sub.id in account_names:
            return True
        if not isinstance(sub, ast.Call):
            continue
        name = _called(sub)
        if name in ACCOUNT_MAKERS or name in account_functions:
            return True
        if name == "open" and isinstance(sub.func, ast.Attribute) and ast.unparse(sub.func.value) == "CreditAccount":
            return True
        if any(isinstance(a, ast.Name) and a.id == "CreditAccount" for a in sub.args):
            return True
    return False


def _targets(target: ast.AST) -> list[str]:
    return [n.id for n in _walk(target) if isinstance(n, ast.Name)]


def _assignment(node: ast.AST) -> tuple[list[ast.expr], ast.expr] | None:
    """An assignment's targets and value (a ``for`` loop's: its target and what it iterates)."""
    if isinstance(node, ast.Assign):
        return node.targets, node.value
    if isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
        return [node.target], node.value
    if isinstance(node, ast.For):
        return [node.target], node.iter
    return None


def functions_answering_accounts(tree: ast.AST) -> set[str]:
    """Functions and methods whose return annotation names CreditAccount."""
    return {
        node.name
        for node in _walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.returns is not None
        and "CreditAccount" in ast.unparse(node.returns)
    }


def credit_appends(tree: ast.AST, elsewhere: frozenset[str] = frozenset()) -> list[str]:
    """Appends of credit accounts: the ledger's account makers called, and ``save``/``save_all`` of anything
    that holds accounts (followed through assignments: ``to_save = [group, *accounts]``); ``elsewhere``:
    names of other modules' functions that answer accounts."""
    account_functions = functions_answering_accounts(tree) | elsewhere
    account_names: set[str] = set()
    for node in _walk(tree):  # arguments and variables annotated as accounts
        if isinstance(node, ast.arg) and node.annotation is not None:
            if "CreditAccount" in ast.unparse(node.annotation):
                account_names.add(node.arg)
        elif isinstance(node, ast.AnnAssign) and "CreditAccount" in ast.unparse(node.annotation):
            account_names.update(_targets(node.target))
    assignments = [pair for node in _walk(tree) if (pair := _assignment(node)) is not None]
    grown = True
    while grown:  # until no assignment adds a name holding accounts
        before = len(account_names)
        for targets, value in assignments:
            if _gives_accounts(value, account_names, account_functions):
                account_names.update(n for t in targets for n in _targets(t))
        grown = len(account_names) > before
    found = []
    for node in _walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called(node)
        if name in ACCOUNT_MAKERS:
            found.append(f"line {node.lineno}: {name}(...)")
        elif (
            name in SAVES
            and isinstance(node.func, ast.Attribute)
            and any(_gives_accounts(a, account_names, account_functions) for a in node.args)
        ):
            found.append(f"line {node.lineno}: {name} of credit accounts")
    return found


def credit_mutations(tree: ast.AST, elsewhere: frozenset[str] = frozenset()) -> list[str]:
    """Calls of a CreditAccount mutator: ``CreditAccount.open(...)``, and any ``x.<mutator>(...)`` in a
    module that loads accounts (passes the class to a call: ``find(id, CreditAccount)``, ``isinstance``);
    and appends of credit accounts (``credit_appends``)."""
    loads_accounts = any(
        isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == "CreditAccount" for a in node.args)
        for node in _walk(tree)
    )
    found = []
    for node in _walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method, receiver = node.func.attr, node.func.value
        if method == "open":
            if isinstance(receiver, ast.Name) and receiver.id == "CreditAccount":
                found.append(f"line {node.lineno}: CreditAccount.open")
        elif method in MUTATORS and loads_accounts:
            found.append(f"line {node.lineno}: .{method}(...)")
    return found + credit_appends(tree, elsewhere)


def test_only_the_ledger_moves_credits() -> None:
    modules = {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(), filename=str(path))
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.relative_to(PACKAGE).as_posix().startswith("domain/")
    }
    # A helper of one module answering accounts that another appends (``customers._granted_accounts``).
    elsewhere = frozenset(name for tree in modules.values() for name in functions_answering_accounts(tree))
    offenders = {}
    for relative, tree in modules.items():
        # The ledger's own files decide; the API process's side of leases in it records consultations only.
        if relative.startswith(LEDGER) and relative not in LEASE_HOLDER:
            continue
        found = credit_mutations(tree, elsewhere - ACCOUNT_MAKERS)
        if found:
            offenders[relative] = found
    assert offenders == {}, "credit accounts are moved only by the ledger (bemtevi/commands/ledger/)"


def test_the_walk_finds_a_mutation_outside_the_ledger() -> None:
    source = "account = CreditAccount.open(g, c, 0)\nother = app.get(i, CreditAccount)\nother.reserve(r, 1)\n"
    assert credit_mutations(ast.parse(source)) == ["line 1: CreditAccount.open", "line 3: .reserve(...)"]


@pytest.mark.parametrize(
    ("source", "found"),
    [
        # A registration appending the accounts the ledger decided (as registrations did before OpenAccounts).
        (
            "accounts = opening_accounts(find, g, p, q)\nto_save = [group, *accounts]\napp.save_all(*to_save)\n",
            ["line 1: opening_accounts(...)", "line 3: save_all of credit accounts"],
        ),
        # An account loaded and appended, unchanged or not.
        (
            "account = app.find(i, CreditAccount)\nself._app.save_all(group, account)\n",
            ["line 2: save_all of credit accounts"],
        ),
        ("app.save(CreditAccount.open(g, c, 0))\n", ["line 1: CreditAccount.open", "line 1: save of credit accounts"]),
        # Through a helper of the module that answers accounts.
        (
            "def opened(g) -> list[CreditAccount]:\n    return []\n\napp.save_all(user, *opened(g))\n",
            ["line 4: save_all of credit accounts"],
        ),
        # A registration through the ledger appends nothing itself.
        ("request = open_accounts(app, actor, group, q, [user], {})\nledger.submit(request)\napp.save_all(user)\n", []),
    ],
)
def test_the_walk_finds_accounts_appended_outside_the_ledger(source: str, found: list[str]) -> None:
    assert credit_mutations(ast.parse(source)) == found


def acting(group_id: UUID, role: Role = Role.OWNER) -> Principal:
    return Principal(user_id=uuid4(), group_id=group_id, role=role, session_id=uuid4())


def account(platform: Platform, group_id: UUID, category: Category = Category.UNIT) -> CreditAccount:
    return platform.app.get(credit_account_id(group_id, category), CreditAccount)


def test_every_request_survives_its_encoding() -> None:
    group, child = uuid4(), uuid4()
    requests = [
        lookup_record(group).request,
        lookup_record(group).request.finished("cpf-simples", None, ConsultationStatus.DONE),
        lookup_record(group).request.answered(ConsultationStatus.NOT_FOUND),
        FinishLookup(uuid4(), group, uuid4(), KNOWN_CPF, "cpf", "cpf-simples", str(uuid4()), "api", "local", "done"),
        Grant(uuid4(), uuid4(), group, child, "unit", -3),
        SetLimit(uuid4(), uuid4(), group, child, "batch", None),
        ReserveWork(uuid4(), None, ROOT_GROUP_ID, group, "batch", uuid4(), 7),
        SettleWork(uuid4(), uuid4(), group, group, "batch", uuid4(), 2),
        ReleaseWork(uuid4(), None, ROOT_GROUP_ID, group, "batch", uuid4()),
        ReleaseAbandoned(group),
        LeaseUnits(uuid4(), group, uuid4(), 64, "api-1"),
        LeaseUnits(uuid4(), group, uuid4(), 64, "api-1", "api"),
        ReturnLease(uuid4(), group, [str(uuid4()), str(uuid4())]),
        ReturnLease(uuid4(), group, [str(uuid4())], "api"),
        OpenAccounts(
            child,
            group,
            None,
            child,
            {"unit": 3, "batch": None},
            [
                {
                    "topic": "bemtevi.domain.groups:Group.Registered",
                    "originator_id": str(child),
                    "originator_version": 1,
                    "state": "e30=",
                }
            ],
            [[GROUP_NAME, "empresa", "Company name already registered", "companyName"]],
        ),
    ]
    assert {type(r).__name__ for r in requests} == set(REQUEST_TYPES)
    for request in requests:
        assert decode_request(encode_request(request)) == request
        assert request.partition_key == group


def test_lease_requests_encoded_before_api_leases_read_as_the_unit_accounts() -> None:
    group, lease_id = uuid4(), uuid4()
    for request in (LeaseUnits(lease_id, group, uuid4(), 64, "api-1"), ReturnLease(lease_id, group, [])):
        older = orjson.loads(encode_request(request))
        del older["category"]
        assert decode_request(orjson.dumps(older)) == request
    assert LeaseUnits(lease_id, group, uuid4(), 64, "api-1").account_id == credit_account_id(group, Category.UNIT)
    assert LeaseUnits(lease_id, group, uuid4(), 64, "h", "api").account_id == credit_account_id(group, Category.API)


def test_every_request_the_codec_knows_has_its_decision(platform: Platform) -> None:
    """A request type added without its handler would be refused ("not a ledger request") only once sent."""
    ledger = embedded_ledger(platform).ledger
    assert set(ledger.handlers) == set(REQUEST_TYPES.values())
    with pytest.raises(TypeError, match="not a ledger request"):
        ledger.decide(object())  # type: ignore[arg-type]


def test_a_refusal_survives_its_encoding() -> None:
    error = error_from_json(error_to_json(NotEnoughToProvide("Not enough enrichment query to provide to this group")))
    assert isinstance(error, NotEnoughToProvide)
    assert (error.code, error.status, error.message) == (
        "not_enough_to_provide",
        409,
        "Not enough enrichment query to provide to this group",
    )


def test_a_lookup_delivered_twice_is_charged_once(platform: Platform) -> None:
    ledger = embedded_ledger(platform)
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


def test_an_answered_lookup_is_charged_and_recorded_in_one_decision_and_once_if_delivered_again(
    platform: Platform,
) -> None:
    ledger = embedded_ledger(platform)
    principal = new_tenant(platform, "Empresa", 2)
    found = lookup_record(principal.group_id).request.answered(ConsultationStatus.DONE)
    before = platform.app.max_position()
    first = ledger.submit(found)
    # One append: the credit charged and the consultation recorded, nothing reserved in between.
    topics = [n.topic.rsplit(".", 1)[-1] for n in platform.app.recorder.select_notifications(before + 1, 10)]
    assert topics == ["Charged", "Recorded"]
    # Delivered again after its decision (a worker replaying what it had not committed): the recorded answer.
    replayed = platform.writer.submit(ledger.ledger.decide(found, recorded=True))
    assert replayed.value == first.value and platform.app.max_position() == first.position
    # Nothing found: recorded, not charged; and with no credit left a lookup is refused whatever it found.
    ledger.submit(lookup_record(principal.group_id).request.answered(ConsultationStatus.NOT_FOUND))
    ledger.submit(lookup_record(principal.group_id).request.answered(ConsultationStatus.DONE))
    with pytest.raises(NotEnoughCredits):
        ledger.submit(lookup_record(principal.group_id).request.answered(ConsultationStatus.NOT_FOUND))
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.reserved, balance.available) == (2, 0, 0)
    assert settlements_by_consultation(platform.app, principal.group_id) == charged_in_store(
        platform.app, principal.group_id
    )


def test_grants_limits_and_batch_movements_delivered_twice_move_credits_once(platform: Platform) -> None:
    ledger = embedded_ledger(platform)
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


# -- registrations: the new group's accounts opened by the ledger, in the append of the group ------------


def new_company(name: str, parent_id: UUID = ROOT_GROUP_ID) -> tuple[Group, UniqueIndex]:
    with acting_as(SYSTEM):
        group = Group.register(
            name=name,
            group_type=GroupType.COMPANY,
            parent_id=parent_id,
            domain_url=None,
            brand=Brand(),
            enabled_query_types=["cpf-complete"],
        )
        return group, UniqueIndex(kind=GROUP_NAME, value=name.lower(), ref=group.id)


def test_a_customer_gets_its_accounts_and_the_parents_grant_in_one_append(platform: Platform) -> None:
    root = acting(ROOT_GROUP_ID, Role.SUPER_ADMIN)
    reseller = platform.customers.register(
        root, customer_form("Revenda Norte", "11.222.333/0001-81", "dono@revenda.com.br", 10, GroupType.RESELLER)
    )
    before = platform.app.max_position()
    company = platform.customers.register(
        acting(reseller.group_id), customer_form("Empresa Sul", "11.444.777/0001-61", "dono@sul.com.br", unit=4)
    )
    assert company.position == platform.app.max_position() > before
    registered_in_one_append(platform.app, before, company.group_id, reseller.group_id)
    parent, child = account(platform, reseller.group_id), account(platform, company.group_id)
    assert (parent.limit, parent.granted, child.limit) == (10, 4, 4)
    # More than the parent has left is refused, and nothing is appended.
    refused = platform.app.max_position()
    with pytest.raises(NotEnoughToProvide):
        platform.customers.register(
            acting(reseller.group_id), customer_form("Empresa Leste", "11.222.333/0002-62", "d@leste.com.br", unit=7)
        )
    assert platform.app.max_position() == refused


def test_a_registration_delivered_twice_appends_once(platform: Platform) -> None:
    ledger = embedded_ledger(platform)
    group, claim = new_company("Empresa Repetida")
    request = open_accounts(platform.app, SYSTEM, group, {Category.UNIT: 5}, [claim], {})
    first = ledger.submit(request)
    assert first.value is True
    again = ledger.submit(request)  # Kafka delivered it again: the group exists, nothing is appended
    assert again.value is False
    assert appended_after(platform.app, first.position) == []
    assert account(platform, group.id).limit == 5


def test_two_registrations_of_one_name_in_one_batch_refuse_the_second_only(platform: Platform) -> None:
    """The claims are checked before the append: the batch's append does not collide, so the first
    registration (and anything else in its batch) stands and the second gets the usual refusal."""
    ledger = embedded_ledger(platform)
    refusal = {(GROUP_NAME, "empresa gêmea"): ("Company name already registered", "companyName")}
    requests = []
    for _ in range(2):
        group, claim = new_company("Empresa Gêmea")
        requests.append(open_accounts(platform.app, SYSTEM, group, {Category.UNIT: 1}, [claim], refusal))
    answered: dict[int, tuple[object, BaseException | None]] = {}
    done = threading.Event()

    def answer(n: int, request: Any) -> None:  # a refusal is answered at once, the rest after the append
        answered[n] = (request.result, request.error)
        if len(answered) == 2:
            done.set()

    platform.writer.enqueue_batch([(ledger.ledger.decide(r), partial(answer, n)) for n, r in enumerate(requests)])
    assert done.wait(10)
    (first, no_error), (_, error) = answered[0], answered[1]
    assert first is True and no_error is None
    assert isinstance(error, DuplicateValue)
    assert (error.message, error.field) == ("Company name already registered", "companyName")
    assert platform.app.find(requests[0].group_id, Group) is not None
    assert platform.app.find(requests[1].group_id, Group) is None
    # The name is taken in the store now: a later registration is refused the same way.
    group, claim = new_company("Empresa Gêmea")
    with pytest.raises(DuplicateValue, match="Company name already registered"):
        ledger.submit(open_accounts(platform.app, SYSTEM, group, {Category.UNIT: 1}, [claim], refusal))

"""Accounts opened, granted and reserved: registrations, grants, limits and work (batch) movements.

``open_accounts`` builds a registration's request on the caller's side; the rest are decisions ``decider.Ledger``
takes on its workspace (grants, limits and work movements once per request id, claimed there).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from bemtevi.commands.ledger.requests import (
    Grant,
    OpenAccounts,
    ReleaseWork,
    ReserveWork,
    SetLimit,
    SettleWork,
)
from bemtevi.commands.workspace import Workspace
from bemtevi.domain.audit import Actor, AuditedAggregate, acting_as
from bemtevi.domain.credit_figures import NOT_ENOUGH_MESSAGES, NOT_ENOUGH_TO_PROVIDE_MESSAGES
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import (
    AccessDenied,
    DuplicateValue,
    GroupNotFound,
    InvalidData,
    NotEnoughCredits,
    NotEnoughToProvide,
)
from bemtevi.domain.groups import Group
from bemtevi.domain.indexes import UniqueIndex, index_id
from bemtevi.domain.query_types import Category


def open_accounts(
    app: Any,
    actor: Actor,
    group: Group,
    quantities: Mapping[Category, int | None],
    others: list[AuditedAggregate],
    claims: Mapping[tuple[str, str], tuple[str, str | None]],
) -> OpenAccounts:
    """The request that registers ``group``: ``others`` (its owner, claims...) and the group itself go
    with it as their events (collected here: the ledger's append saves them); ``claims`` maps each
    (kind, value) to check to the refusal's (message, field). ``app``'s mapper encodes the events."""
    events = []
    for aggregate in (group, *others):
        for event in aggregate.collect_events():
            stored = app.mapper.to_stored_event(event)
            events.append(
                {
                    "topic": stored.topic,
                    "originator_id": str(stored.originator_id),
                    "originator_version": stored.originator_version,
                    "state": base64.b64encode(stored.state).decode(),
                }
            )
    return OpenAccounts(
        group_id=group.id,
        parent_id=group.parent_id,
        user_id=actor.user_id,
        tenant_id=actor.tenant_id,
        quantities={category.value: amount for category, amount in quantities.items()},
        events=events,
        claims=[[kind, value, message, field or ""] for (kind, value), (message, field) in claims.items()],
    )


def _stored(event: dict[str, Any]) -> StoredEvent:
    return StoredEvent(
        originator_id=UUID(event["originator_id"]),
        originator_version=int(event["originator_version"]),
        topic=event["topic"],
        state=base64.b64decode(event["state"]),
    )


def open_or_load(ws: Workspace, group_id: UUID, category: Category) -> CreditAccount:
    """A group's account in a category; one never opened is opened now with no credits."""
    account = ws.find(credit_account_id(group_id, category), CreditAccount)
    if account is None:
        account = CreditAccount.open(group_id, category, 0)
        ws.add(account)
    return account


def opening_accounts(
    find: Callable[[UUID], CreditAccount | None],
    group_id: UUID,
    parent_id: UUID | None,
    quantities: Mapping[Category, int | None],
) -> list[CreditAccount]:
    """A new group's credit accounts, each holding its quantity granted out of the parent's account of
    its category, and the parent accounts that gave (to save with the group in its registration's one
    append: a group never exists without its accounts). Under an unlimited parent (or with no parent:
    the root) an account is opened with the quantity as its limit (None: unlimited); under a limited
    one, None or more than the parent has available is refused. ``find`` loads an account by id.

    Decided by ``Ledger`` for an ``OpenAccounts`` request, on its workspace (``find``), and appended
    with the registration's other events in the batch's one append."""
    accounts: list[CreditAccount] = []
    for category, amount in quantities.items():
        parent = find(credit_account_id(parent_id, category)) if parent_id is not None else None
        if parent_id is None or (parent is not None and parent.unlimited):
            accounts.append(CreditAccount.open(group_id, category, amount))
            continue
        child = CreditAccount.open(group_id, category, 0)
        accounts.append(child)
        if amount == 0:
            continue
        if amount is None or parent is None:
            raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
        parent.grant_to(child, amount)
        accounts.append(parent)
    return accounts


def register(request: OpenAccounts, ws: Workspace) -> bool:
    """Check the claims, open the accounts and add the registration's events: one append."""
    if ws.adds_events_of(request.group_id) or ws.peek(request.group_id, Group) is not None:
        return False  # delivered again (or the root registered elsewhere first): appended already
    # The version each aggregate's events start at (a new claim: 1; a released one taken again: the next).
    starts: dict[UUID, int] = {}
    for event in request.events:
        starts.setdefault(UUID(event["originator_id"]), int(event["originator_version"]))
    for kind, value, message, field in request.claims:
        claim_id = index_id(kind, value)
        # Taken in the store, present where the registration claims it anew, or claimed by an earlier
        # registration of this batch: refused here, so the batch's append does not collide.
        claimed = ws.peek(claim_id, UniqueIndex)
        present = claimed is not None and (
            claimed.taken or claimed.version >= starts.get(claim_id, claimed.version + 1)
        )
        if present or ws.adds_events_of(claim_id):
            raise DuplicateValue(message, field=field or None)
    quantities = {Category(category): amount for category, amount in request.quantities.items()}
    with acting_as(request.actor):
        accounts = opening_accounts(
            lambda account_id: ws.find(account_id, CreditAccount), request.group_id, request.parent_id, quantities
        )
    # The parents' accounts were found on the workspace (saved with the batch); the new ones are added.
    ws.add(*(a for a in accounts if a.group_id == request.group_id))
    ws.add_events(*(ws.to_domain_event(_stored(event)) for event in request.events))
    return True


def child_of(ws: Workspace, actor_group_id: UUID, child_group_id: UUID) -> Group:
    child = ws.find(child_group_id, Group)
    if child is None:
        raise GroupNotFound()
    # Credits move only from a parent to its own child: conservation is between the two.
    if child.parent_id != actor_group_id:
        raise AccessDenied()
    return child


def grant(request: Grant, ws: Workspace) -> None:
    category = Category(request.category)
    child_of(ws, request.group_id, request.child_group_id)
    with acting_as(request.actor):
        parent = ws.find(credit_account_id(request.group_id, category), CreditAccount)
        if parent is None:
            if request.amount > 0:
                raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
            raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[category], field="amount")
        child = open_or_load(ws, request.child_group_id, category)
        parent.grant_to(child, request.amount)


def set_limit(request: SetLimit, ws: Workspace) -> None:
    category, limit = Category(request.category), request.limit
    if limit is not None and limit < 0:
        raise InvalidData("A credit limit cannot be negative", field="limit")
    child_of(ws, request.group_id, request.child_group_id)
    with acting_as(request.actor):
        parent = ws.find(credit_account_id(request.group_id, category), CreditAccount)
        child = open_or_load(ws, request.child_group_id, category)
        if parent is not None and parent.unlimited:
            if limit != child.limit:
                child.change_limit(limit)
            return
        if limit is None:
            raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
        difference = limit - (child.limit or 0)
        if difference == 0:
            return
        if parent is None:
            raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
        parent.grant_to(child, difference)


def _work_account(request: ReserveWork | SettleWork | ReleaseWork, ws: Workspace) -> CreditAccount:
    category = Category(request.category)
    account = ws.find(credit_account_id(request.group_id, category), CreditAccount)
    if account is None:
        raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[category])
    return account


def _held(account: CreditAccount, reservation_id: UUID) -> CreditAccount:
    if account.holds(reservation_id) is None:
        raise InvalidData("No such reservation", field="reservation_id")
    return account


def reserve_work(request: ReserveWork, ws: Workspace) -> None:
    account = _work_account(request, ws)
    with acting_as(request.actor):
        account.reserve(request.reservation_id, request.amount, request.reason)


def settle_work(request: SettleWork, ws: Workspace) -> None:
    account = _held(_work_account(request, ws), request.reservation_id)
    with acting_as(request.actor):
        account.settle(request.reservation_id, request.amount)


def release_work(request: ReleaseWork, ws: Workspace) -> None:
    account = _held(_work_account(request, ws), request.reservation_id)
    with acting_as(request.actor):
        account.release(request.reservation_id)

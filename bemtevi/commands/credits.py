"""Credit ledger commands: grants and limits between a parent and its child, reservations for work.

Every credit-account write goes through the group commit, so a hot account has one writer in
this process and concurrent commands on it never collide.
"""

from __future__ import annotations

from uuid import UUID

from bemtevi.commands.group_commit import GroupCommit, Workspace
from bemtevi.commands.identity import Principal
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.credits import (
    NOT_ENOUGH_MESSAGES,
    NOT_ENOUGH_TO_PROVIDE_MESSAGES,
    CreditAccount,
    ReasonKind,
    credit_account_id,
)
from bemtevi.domain.errors import AccessDenied, GroupNotFound, InvalidData, NotEnoughCredits, NotEnoughToProvide
from bemtevi.domain.groups import Group
from bemtevi.domain.query_types import Category


def open_or_load(ws: Workspace, group_id: UUID, category: Category) -> CreditAccount:
    """A group's account in a category; one never opened is opened now with no credits."""
    account = ws.find(credit_account_id(group_id, category), CreditAccount)
    if account is None:
        account = CreditAccount.open(group_id, category, 0)
        ws.add(account)
    return account


class CreditCommands:
    def __init__(self, writer: GroupCommit) -> None:
        self._writer = writer

    def _child_of(self, ws: Workspace, actor_group_id: UUID, child_group_id: UUID) -> Group:
        child = ws.find(child_group_id, Group)
        if child is None:
            raise GroupNotFound()
        # Credits move only from a parent to its own child: conservation is between the two.
        if child.parent_id != actor_group_id:
            raise AccessDenied()
        return child

    def grant(self, principal: Principal, child_group_id: UUID, category: Category, amount: int) -> int:
        """Move credits from the signed-in user's group to its child (negative: take unused back)."""

        def decide(ws: Workspace) -> None:
            self._child_of(ws, principal.group_id, child_group_id)
            with acting_as(principal.actor):
                parent = ws.find(credit_account_id(principal.group_id, category), CreditAccount)
                if parent is None:
                    if amount > 0:
                        raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
                    raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[category], field="amount")
                child = open_or_load(ws, child_group_id, category)
                parent.grant_to(child, amount)

        return self._writer.submit(decide).position

    def set_limit(self, principal: Principal, child_group_id: UUID, category: Category, limit: int | None) -> int:
        """Give a child a limit (None: unlimited). Under a limited parent this is a grant of the difference."""
        if limit is not None and limit < 0:
            raise InvalidData("A credit limit cannot be negative", field="limit")

        def decide(ws: Workspace) -> None:
            self._child_of(ws, principal.group_id, child_group_id)
            with acting_as(principal.actor):
                parent = ws.find(credit_account_id(principal.group_id, category), CreditAccount)
                child = open_or_load(ws, child_group_id, category)
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

        return self._writer.submit(decide).position

    # -- reservations for work (consultations reserve in ConsultationCommands; batches here) ------

    def reserve(
        self,
        actor: Actor,
        group_id: UUID,
        category: Category,
        reservation_id: UUID,
        amount: int,
        reason: str = ReasonKind.BATCH,
    ) -> int:
        def decide(ws: Workspace) -> None:
            account = ws.find(credit_account_id(group_id, category), CreditAccount)
            if account is None:
                raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[category])
            with acting_as(actor):
                account.reserve(reservation_id, amount, reason)

        return self._writer.submit(decide).position

    def settle(self, actor: Actor, group_id: UUID, category: Category, reservation_id: UUID, amount: int) -> int:
        """Charge what the work used; the rest of the reservation is released."""

        def decide(ws: Workspace) -> None:
            account = ws.get(credit_account_id(group_id, category), CreditAccount)
            with acting_as(actor):
                account.settle(reservation_id, amount)

        return self._writer.submit(decide).position

    def release(self, actor: Actor, group_id: UUID, category: Category, reservation_id: UUID) -> int:
        def decide(ws: Workspace) -> None:
            account = ws.get(credit_account_id(group_id, category), CreditAccount)
            with acting_as(actor):
                account.release(reservation_id)

        return self._writer.submit(decide).position

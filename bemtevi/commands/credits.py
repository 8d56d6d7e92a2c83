"""Credit commands: grants and limits between a parent and its child, reservations for work.

They only build requests for the ledger (``bemtevi.commands.ledger``), the one module that decides
and appends credit movements, and answer the position of its append. Each request carries a fresh
request id: the ledger claims it in the same append, so a request the transport delivers twice
moves credits once.
"""

from __future__ import annotations

from uuid import UUID, uuid4

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.ledger import Grant, LedgerClient, ReleaseWork, ReserveWork, SetLimit, SettleWork
from bemtevi.domain.audit import Actor
from bemtevi.domain.credits import CreditAccount, ReasonKind, credit_account_id
from bemtevi.domain.errors import InvalidData
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import Category


def available_credits(app: BemteviApplication, group_id: UUID, category: Category) -> int | None:
    """What a group's account of ``category`` has available now (None: unlimited; 0 without an account).
    A read only: nothing here moves credits."""
    account = app.find(credit_account_id(group_id, category), CreditAccount)
    return 0 if account is None else account.available


class CreditCommands:
    def __init__(self, ledger: LedgerClient) -> None:
        self._ledger = ledger

    def grant(self, principal: Principal, child_group_id: UUID, category: Category, amount: int) -> int:
        """Move credits from the signed-in user's group to its child (negative: take unused back)."""
        request = Grant(uuid4(), principal.user_id, principal.group_id, child_group_id, category.value, amount)
        return self._ledger.submit(request).position

    def set_limit(self, principal: Principal, child_group_id: UUID, category: Category, limit: int | None) -> int:
        """Give a child a limit (None: unlimited). Under a limited parent this is a grant of the difference."""
        if limit is not None and limit < 0:
            raise InvalidData("A credit limit cannot be negative", field="limit")
        request = SetLimit(uuid4(), principal.user_id, principal.group_id, child_group_id, category.value, limit)
        return self._ledger.submit(request).position

    # -- reservations for work (lookups reserve through ConsultationCommands; batches here) --------

    def reserve(
        self,
        actor: Actor,
        group_id: UUID,
        category: Category,
        reservation_id: UUID,
        amount: int,
        reason: str = ReasonKind.BATCH,
        *,
        request_id: UUID | None = None,
    ) -> int:
        """Hold ``amount`` for work; ``request_id`` (fresh if None) is claimed once by the ledger, so a
        batch that names its own (derived from its id) reserves once however often it asks."""
        request = ReserveWork(
            request_id or uuid4(),
            actor.user_id,
            actor.tenant_id,
            group_id,
            category.value,
            reservation_id,
            amount,
            reason,
        )
        return self._ledger.submit(request).position

    def settle(
        self,
        actor: Actor,
        group_id: UUID,
        category: Category,
        reservation_id: UUID,
        amount: int,
        *,
        request_id: UUID | None = None,
    ) -> int:
        """Charge what the work used; the rest of the reservation is released."""
        request = SettleWork(
            request_id or uuid4(), actor.user_id, actor.tenant_id, group_id, category.value, reservation_id, amount
        )
        return self._ledger.submit(request).position

    def release(
        self, actor: Actor, group_id: UUID, category: Category, reservation_id: UUID, *, request_id: UUID | None = None
    ) -> int:
        request = ReleaseWork(
            request_id or uuid4(), actor.user_id, actor.tenant_id, group_id, category.value, reservation_id
        )
        return self._ledger.submit(request).position

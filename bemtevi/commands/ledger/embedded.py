"""The ledger on this process's own group commit: the embedded deployment."""

from __future__ import annotations

from typing import Any, ClassVar

from bemtevi.commands.group_commit import GroupCommit, Outcome
from bemtevi.commands.ledger.client import LedgerClient
from bemtevi.commands.ledger.decider import Ledger
from bemtevi.commands.ledger.lease_log import StoredLeaseLog
from bemtevi.commands.ledger.requests import Request, ReserveLookup
from bemtevi.commands.query_types import StoredQueryTypes


class EmbeddedLedger(LedgerClient):
    """The ledger on this process's group commit (the embedded deployment): one writer per store. It grants
    leases (read from this store's log if their holder dies); ``leases.LeasingLedger`` in front of
    it draws busy accounts' lookups from them, as in cluster mode."""

    transport: ClassVar[str] = "embedded"

    def __init__(self, app: Any, writer: GroupCommit, ledger: Ledger | None = None) -> None:
        self._app = app
        self._writer = writer
        self.ledger = ledger or Ledger(catalogue=StoredQueryTypes(app), lease_log=StoredLeaseLog(app))
        writer.add_chore(self.ledger.chore)

    @property
    def owner(self) -> str:
        return self.ledger.owner

    async def submit_async(self, request: Request, *, timeout: float = 30) -> Outcome[Any]:
        return await self._writer.submit_async(self.ledger.decide(request), timeout=timeout)

    def try_draw(self, request: ReserveLookup) -> tuple[str, str | None] | None:
        return None  # every request is decided on the writer (leases are drawn from in front of it)

    def close(self) -> None:
        pass  # the writer's own stop releases what lookups in flight hold

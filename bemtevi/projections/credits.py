"""Credit balances read model: used and limit per group and category (the balances view).

Reservations in flight live on the write side (the account aggregate decides with them);
this read model takes only what changes the balance a person reads, so the projector skips
the reservation and release events without decoding them.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import duckdb
import pyarrow as pa

from bemtevi.domain.credits import CreditAccount
from bemtevi.projections.base import PageFold, ReadModel

BALANCES_DDL = """
CREATE TABLE IF NOT EXISTS credit_balances (
    account_id VARCHAR PRIMARY KEY,
    group_id VARCHAR NOT NULL,
    category VARCHAR NOT NULL,
    credit_limit BIGINT,
    used BIGINT NOT NULL
)
"""

_EVENTS = (CreditAccount.Opened, CreditAccount.LimitChanged, CreditAccount.Settled)


class _BalancesFold(PageFold):
    """Per account: either a full row (opened in this page) or deltas to add to the stored row."""

    def __init__(self) -> None:
        self.opened: dict[UUID, dict[str, Any]] = {}
        self.deltas: dict[UUID, dict[str, Any]] = {}

    def apply(self, event: Any, position: int) -> None:
        account_id = event.originator_id
        kind = type(event)
        if kind is CreditAccount.Opened:
            self.opened[account_id] = {
                "group_id": str(event.group_id),
                "category": event.category,
                "credit_limit": event.limit,
                "used": 0,
            }
            return
        row = self.opened.get(account_id) or self.deltas.get(account_id)
        if row is None:
            row = self.deltas[account_id] = {"used": 0, "limit_changed": False, "credit_limit": None}
        if kind is CreditAccount.Settled:
            row["used"] += event.amount
        elif kind is CreditAccount.LimitChanged:
            row["credit_limit"] = event.limit
            row["limit_changed"] = True

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if self.opened:
            ids = list(self.opened)
            rows = [self.opened[i] for i in ids]
            page = pa.table(
                {
                    "account_id": [str(i) for i in ids],
                    "group_id": [r["group_id"] for r in rows],
                    "category": [r["category"] for r in rows],
                    "credit_limit": pa.array([r["credit_limit"] for r in rows], type=pa.int64()),
                    "used": [r["used"] for r in rows],
                }
            )
            cur.register("page_opened", page)
            try:
                cur.execute("INSERT INTO credit_balances SELECT * FROM page_opened")
            finally:
                cur.unregister("page_opened")
        if self.deltas:
            ids = list(self.deltas)
            rows = [self.deltas[i] for i in ids]
            page = pa.table(
                {
                    "account_id": [str(i) for i in ids],
                    "used": [r["used"] for r in rows],
                    "limit_changed": [r["limit_changed"] for r in rows],
                    "credit_limit": pa.array([r["credit_limit"] for r in rows], type=pa.int64()),
                }
            )
            cur.register("page_deltas", page)
            try:
                cur.execute(
                    """
                    UPDATE credit_balances SET
                        used = credit_balances.used + d.used,
                        credit_limit = CASE WHEN d.limit_changed THEN d.credit_limit
                                            ELSE credit_balances.credit_limit END
                    FROM page_deltas d WHERE credit_balances.account_id = d.account_id
                    """
                )
            finally:
                cur.unregister("page_deltas")


class CreditBalancesReadModel(ReadModel):
    name = "credit_balances"
    tables = ("credit_balances",)
    event_types = _EVENTS

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(BALANCES_DDL)

    def fold(self) -> PageFold:
        return _BalancesFold()


def balances_of(cur: duckdb.DuckDBPyConnection, group_id: str) -> dict[str, dict[str, int | None]]:
    rows = cur.execute(
        "SELECT category, used, credit_limit FROM credit_balances WHERE group_id = ?", [group_id]
    ).fetchall()
    return {
        category: {"used": int(used), "limit": None if limit is None else int(limit)} for category, used, limit in rows
    }

"""Credit read models: balances (the balances view) and movements (the balance history).

Every movement event carries the account's figures after it, so a page folds into the last
figures per account (balances, upserted) and one row per movement (history, appended): two
statements per page whatever its size.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import duckdb
import pyarrow as pa

from bemtevi.domain.credits import MOVEMENT_EVENTS, CreditAccount
from bemtevi.projections.base import PageFold, ReadModel, naive_utc

BALANCES_DDL = """
CREATE TABLE IF NOT EXISTS credit_balances (
    account_id VARCHAR PRIMARY KEY,
    group_id VARCHAR NOT NULL,
    category VARCHAR NOT NULL,
    credit_limit BIGINT,
    used BIGINT NOT NULL,
    reserved BIGINT NOT NULL,
    granted BIGINT NOT NULL,
    updated_at TIMESTAMP NOT NULL
)
"""

MOVEMENTS_DDL = """
CREATE TABLE IF NOT EXISTS credit_movements (
    position BIGINT PRIMARY KEY,
    account_id VARCHAR NOT NULL,
    group_id VARCHAR NOT NULL,
    category VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    amount BIGINT NOT NULL,
    reason_id VARCHAR,
    reason VARCHAR,
    counterparty_group_id VARCHAR,
    actor_id VARCHAR,
    created_at TIMESTAMP NOT NULL,
    credit_limit BIGINT,
    used BIGINT NOT NULL,
    reserved BIGINT NOT NULL,
    granted BIGINT NOT NULL,
    -- What may still be spent after the movement; NULL when the account is unlimited.
    balance BIGINT
)
"""

# Event class -> the movement kind finance reads.
MOVEMENT_KINDS: dict[type[Any], str] = {
    CreditAccount.Reserved: "reservation",
    CreditAccount.Settled: "settlement",
    CreditAccount.Released: "release",
    CreditAccount.LimitChanged: "limit_change",
    CreditAccount.Granted: "grant",
    CreditAccount.GrantReceived: "grant_received",
}


def _account_key(account_id: UUID) -> str:
    return str(account_id)


class _CreditsFold(PageFold):
    def __init__(self) -> None:
        # account_id -> (group_id, category) for accounts opened in this page.
        self.opened: dict[UUID, tuple[str, str, int | None, datetime]] = {}
        self.last: dict[UUID, Any] = {}
        self.movements: list[tuple[int, Any]] = []

    def apply(self, event: Any, position: int) -> None:
        if type(event) is CreditAccount.Opened:
            self.opened[event.originator_id] = (
                str(event.group_id),
                event.category,
                event.limit,
                naive_utc(event.timestamp),
            )
            return
        self.last[event.originator_id] = event
        self.movements.append((position, event))

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if self.opened:
            ids = list(self.opened)
            rows = [self.opened[i] for i in ids]
            page = pa.table(
                {
                    "account_id": [_account_key(i) for i in ids],
                    "group_id": [r[0] for r in rows],
                    "category": [r[1] for r in rows],
                    "credit_limit": pa.array([r[2] for r in rows], type=pa.int64()),
                    "updated_at": pa.array([r[3] for r in rows], type=pa.timestamp("us")),
                }
            )
            cur.register("page_opened", page)
            try:
                cur.execute(
                    "INSERT INTO credit_balances SELECT account_id, group_id, category, credit_limit, 0, 0, 0, "
                    "updated_at FROM page_opened"
                )
            finally:
                cur.unregister("page_opened")
        if not self.movements:
            return
        events = [e for _, e in self.movements]
        accounts = [_account_key(e.originator_id) for e in events]
        movements = pa.table(
            {
                "position": pa.array([p for p, _ in self.movements], type=pa.int64()),
                "account_id": accounts,
                "kind": [MOVEMENT_KINDS[type(e)] for e in events],
                "amount": pa.array([getattr(e, "amount", 0) for e in events], type=pa.int64()),
                "reason_id": [getattr(e, "reservation_id", None) for e in events],
                "reason": [getattr(e, "reason", None) for e in events],
                "counterparty_group_id": [
                    str(g) if (g := getattr(e, "counterparty_group_id", None)) is not None else None for e in events
                ],
                "actor_id": [None if e.actor_id is None else str(e.actor_id) for e in events],
                "created_at": pa.array([naive_utc(e.timestamp) for e in events], type=pa.timestamp("us")),
                "credit_limit": pa.array([e.limit_after for e in events], type=pa.int64()),
                "used": pa.array([e.used_after for e in events], type=pa.int64()),
                "reserved": pa.array([e.reserved_after for e in events], type=pa.int64()),
                "granted": pa.array([e.granted_after for e in events], type=pa.int64()),
            }
        )
        last_ids = list(self.last)
        last = [self.last[i] for i in last_ids]
        latest = pa.table(
            {
                "account_id": [_account_key(i) for i in last_ids],
                "credit_limit": pa.array([e.limit_after for e in last], type=pa.int64()),
                "used": pa.array([e.used_after for e in last], type=pa.int64()),
                "reserved": pa.array([e.reserved_after for e in last], type=pa.int64()),
                "granted": pa.array([e.granted_after for e in last], type=pa.int64()),
                "updated_at": pa.array([naive_utc(e.timestamp) for e in last], type=pa.timestamp("us")),
            }
        )
        cur.register("page_movements", movements)
        cur.register("page_latest", latest)
        try:
            # Group and category come from the balances row, opened in an earlier page or above.
            cur.execute(
                """
                INSERT INTO credit_movements
                SELECT m.position, m.account_id, b.group_id, b.category, m.kind, m.amount, m.reason_id, m.reason,
                       m.counterparty_group_id, m.actor_id, m.created_at, m.credit_limit, m.used, m.reserved,
                       m.granted,
                       CASE WHEN m.credit_limit IS NULL THEN NULL
                            ELSE m.credit_limit - m.used - m.reserved - m.granted END
                FROM page_movements m JOIN credit_balances b ON b.account_id = m.account_id
                """
            )
            cur.execute(
                """
                UPDATE credit_balances SET credit_limit = l.credit_limit, used = l.used, reserved = l.reserved,
                    granted = l.granted, updated_at = l.updated_at
                FROM page_latest l WHERE credit_balances.account_id = l.account_id
                """
            )
        finally:
            cur.unregister("page_movements")
            cur.unregister("page_latest")


class CreditsReadModel(ReadModel):
    name = "credits"
    tables = ("credit_balances", "credit_movements")
    event_types = (CreditAccount.Opened, *MOVEMENT_EVENTS)

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(BALANCES_DDL)
        cur.execute(MOVEMENTS_DDL)

    def fold(self) -> PageFold:
        return _CreditsFold()


def balances_of(cur: duckdb.DuckDBPyConnection, group_id: str) -> dict[str, dict[str, int | None]]:
    """Used and limit per category of one group (the dashboard's figures)."""
    rows = cur.execute(
        "SELECT category, used, credit_limit, reserved, granted FROM credit_balances WHERE group_id = ?", [group_id]
    ).fetchall()
    return {
        category: {
            "used": int(used),
            "limit": None if limit is None else int(limit),
            "reserved": int(reserved),
            "granted": int(granted),
        }
        for category, used, limit, reserved, granted in rows
    }

"""Credit read models: balances (the balances view) and movements (the balance history).

Every movement event carries the account's figures after it, so a page folds into the last
figures per account (balances, upserted) and one row per movement (history, appended): two
statements per page whatever its size.

Each history line also says what it did to the available balance (``change``), so that a limited
account's balances are the running sum of its lines: an account opened with credits (a registration's
quantities) has an ``opening`` line, and a settlement says what of its reservation came back
(``released``): the reservation is the charge, its settlement gives back the rest.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import duckdb
import pyarrow as pa
from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from bemtevi.domain.credits import CreditAccount
from bemtevi.projections.base import PageFold, ReadModel, stored_json, utc_wall_times
from bemtevi.projections.statements import ADD_LINES_TO_DAYS, DAYS_DDL

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
    -- Unique by construction (the log's position); no key: an index costs every append.
    position BIGINT NOT NULL,
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
    balance BIGINT,
    -- What of a reservation its settlement gave back (0 for other movements).
    released BIGINT NOT NULL,
    -- The movement's effect on ``balance`` (the running sum; an unlimited account's flow); NULL for a limit
    -- change to or from unlimited.
    change BIGINT
)
"""

# Event class -> the movement kind finance reads.
MOVEMENT_KINDS: dict[type[Any], str] = {
    CreditAccount.Reserved: "reservation",
    CreditAccount.Settled: "settlement",
    CreditAccount.SettledFromBlock: "settlement",
    CreditAccount.LeaseSettled: "settlement",
    CreditAccount.Charged: "settlement",
    CreditAccount.Released: "release",
    CreditAccount.LimitChanged: "limit_change",
    CreditAccount.Granted: "grant",
    CreditAccount.GrantReceived: "grant_received",
}


_KIND_BY_TOPIC = {get_topic(event_type): kind for event_type, kind in MOVEMENT_KINDS.items()}

# Event class -> its effect on the available balance, as SQL over the event's JSON ``s``: a reservation
# or a charge without one takes its amount, a settlement gives back what it did not charge (a block's
# settlement moves reserved credits to used: no change), a grant takes what it gives (an unlimited
# giver's balance bounds nothing), a limit change moves the balance by the change.
_CHANGE_BY_TOPIC = {
    get_topic(event_type): sql
    for event_type, sql in {
        CreditAccount.Reserved: "-s.amount::BIGINT",
        CreditAccount.Settled: "s.released::BIGINT",
        CreditAccount.SettledFromBlock: "0",
        CreditAccount.LeaseSettled: "s.released::BIGINT",
        CreditAccount.Charged: "-s.amount::BIGINT",
        CreditAccount.Released: "s.amount::BIGINT",
        CreditAccount.LimitChanged: "s.limit_after::BIGINT - s.previous_limit::BIGINT",
        CreditAccount.Granted: "-s.amount::BIGINT",
        CreditAccount.GrantReceived: "s.amount::BIGINT",
    }.items()
}
_MOVEMENT_JSON = stored_json(
    "amount previous_limit limit_after used_after reserved_after granted_after released reservation_id reason "
    "counterparty_group_id._data_ actor_id._data_ timestamp._data_"
)
_CHANGE_SQL = "CASE m.topic " + " ".join(f"WHEN '{t}' THEN {sql}" for t, sql in _CHANGE_BY_TOPIC.items()) + " END"

# The stored JSON of a movement event (the library's transcoder: UUIDs as {"_type_": "uuid_hex",
# "_data_": hex}, times as {"_type_": "datetime_iso", "_data_": ISO with offset}), read by DuckDB.
# Times land as UTC wall time: the store's sessions run with TimeZone = 'UTC'.
_MOVEMENT_COLUMNS = (
    """
    m.position, m.account_id, b.group_id, b.category, m.kind,
    -- A limit change's amount is the change (none when it goes to or from unlimited).
    coalesce(s.amount::BIGINT, s.limit_after::BIGINT - s.previous_limit::BIGINT, 0) AS amount,
    s.reservation_id AS reason_id,
    s.reason AS reason,
    s.counterparty_group_id._data_::UUID::VARCHAR AS counterparty_group_id,
    s.actor_id._data_::UUID::VARCHAR AS actor_id,
    s."timestamp"._data_::TIMESTAMPTZ::TIMESTAMP AS created_at,
    s.limit_after::BIGINT AS credit_limit,
    s.used_after::BIGINT AS used,
    s.reserved_after::BIGINT AS reserved,
    s.granted_after::BIGINT AS granted,
    CASE WHEN s.limit_after IS NULL THEN NULL
         ELSE s.limit_after::BIGINT - s.used_after::BIGINT - s.reserved_after::BIGINT
              - s.granted_after::BIGINT END AS balance,
    coalesce(s.released::BIGINT, 0) AS released,
    """
    + _CHANGE_SQL
    + """ AS change
"""
)


class _CreditsFold(PageFold):
    def __init__(self) -> None:
        # account_id -> (group_id, category, limit, time, position, actor) for accounts opened in this page.
        self.opened: dict[UUID, tuple[str, str, int | None, datetime, int, str | None]] = {}
        self.positions: list[int] = []
        self.accounts: list[str] = []
        self.kinds: list[str] = []
        self.topics: list[str] = []
        self.states: list[bytes] = []
        # A page touches few accounts many times: format each id once (keyed as the notification gives it).
        self._ids: dict[UUID | str, str] = {}

    def apply(self, event: Any, position: int) -> None:
        # Decoded: only Opened (rare); movements come raw.
        actor = getattr(event, "actor_id", None)
        self.opened[event.originator_id] = (
            str(event.group_id),
            event.category,
            event.limit,
            event.timestamp,
            position,
            None if actor is None else str(actor),
        )

    def apply_raw(self, notification: Notification) -> None:
        account = self._ids.get(notification.originator_id)
        if account is None:
            account = self._ids[notification.originator_id] = str(notification.originator_id)
        self.positions.append(notification.id)
        self.accounts.append(account)
        self.kinds.append(_KIND_BY_TOPIC[notification.topic])
        self.topics.append(notification.topic)
        self.states.append(notification.state)

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        self._write_lines(cur)
        # The page's lines (openings and movements) added to the statement's days.
        positions = [opened[4] for opened in self.opened.values()]
        if self.positions:
            positions += (self.positions[0], self.positions[-1])
        if positions:
            cur.execute(ADD_LINES_TO_DAYS, [min(positions), max(positions)])

    def _write_lines(self, cur: duckdb.DuckDBPyConnection) -> None:
        if self.opened:
            ids = list(self.opened)
            rows = [self.opened[i] for i in ids]
            page = pa.table(
                {
                    "account_id": [str(i) for i in ids],
                    "group_id": [r[0] for r in rows],
                    "category": [r[1] for r in rows],
                    "credit_limit": pa.array([r[2] for r in rows], type=pa.int64()),
                    "updated_at": utc_wall_times([r[3] for r in rows]),
                    "position": pa.array([r[4] for r in rows], type=pa.int64()),
                    "actor_id": pa.array([r[5] for r in rows], type=pa.string()),
                }
            )
            cur.register("page_opened", page)
            try:
                cur.execute(
                    "INSERT INTO credit_balances SELECT account_id, group_id, category, credit_limit, 0, 0, 0, "
                    "updated_at FROM page_opened"
                )
                # Credits an account is opened with (a registration's quantities) are its first movement.
                cur.execute(
                    """
                    INSERT INTO credit_movements
                    SELECT position, account_id, group_id, category, 'opening', credit_limit, NULL, NULL, NULL,
                           actor_id, updated_at, credit_limit, 0, 0, 0, credit_limit, 0, credit_limit
                    FROM page_opened WHERE credit_limit > 0
                    """
                )
            finally:
                cur.unregister("page_opened")
        if not self.positions:
            return
        movements = pa.table(
            {
                "position": pa.array(self.positions, type=pa.int64()),
                "account_id": self.accounts,
                "kind": self.kinds,
                "topic": self.topics,
                "state": pa.array(self.states, type=pa.binary()),
            }
        )
        cur.register("page_movements", movements)
        try:
            # Group and category come from the balances row, opened in an earlier page or above.
            cur.execute(
                f"""
                INSERT INTO credit_movements
                SELECT {_MOVEMENT_COLUMNS}
                FROM (SELECT position, account_id, kind, topic, {_MOVEMENT_JSON} AS s FROM page_movements) m
                JOIN credit_balances b ON b.account_id = m.account_id
                """
            )
            # Each account's figures after its last movement of the page.
            cur.execute(
                """
                UPDATE credit_balances SET credit_limit = l.credit_limit, used = l.used, reserved = l.reserved,
                    granted = l.granted, updated_at = l.created_at
                FROM (
                    SELECT account_id, credit_limit, used, reserved, granted, created_at FROM credit_movements
                    WHERE position BETWEEN ? AND ?
                    QUALIFY row_number() OVER (PARTITION BY account_id ORDER BY position DESC) = 1
                ) l
                WHERE credit_balances.account_id = l.account_id
                """,
                [self.positions[0], self.positions[-1]],
            )
        finally:
            cur.unregister("page_movements")


class CreditsReadModel(ReadModel):
    name = "credits"
    # 2: figures after each movement, grants, and the movement history; 3: openings, change, released;
    # 4: the statement's days
    version = 4
    tables = ("credit_balances", "credit_movements", "statement_days")
    event_types = (CreditAccount.Opened,)
    # The movements: each carries the account's figures after it (a line of the balance history).
    raw_event_types = (
        CreditAccount.Reserved,
        CreditAccount.Settled,
        CreditAccount.SettledFromBlock,
        CreditAccount.LeaseSettled,
        CreditAccount.Charged,
        CreditAccount.Released,
        CreditAccount.LimitChanged,
        CreditAccount.Granted,
        CreditAccount.GrantReceived,
    )

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(BALANCES_DDL)
        cur.execute(MOVEMENTS_DDL)
        cur.execute(DAYS_DDL)

    def fold(self) -> PageFold:
        return _CreditsFold()

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

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import duckdb
import pyarrow as pa
from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from bemtevi.domain.credits import MOVEMENT_EVENTS, CreditAccount
from bemtevi.projections.base import PRODUCT_TIME_ZONE, PageFold, ReadModel, first_row, order_clause, utc_wall_times

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
# The kinds of the history, with ``opening``: the credits an account was opened with (no event of its own).
HISTORY_KINDS = ("opening", *dict.fromkeys(MOVEMENT_KINDS.values()))


_KIND_BY_TOPIC = {get_topic(event_type): kind for event_type, kind in MOVEMENT_KINDS.items()}

# Event class -> its effect on the available balance, as SQL over the event's JSON ``s``: a reservation
# or a charge without one takes its amount, a settlement gives back what it did not charge (a block's
# settlement moves reserved credits to used: no change), a grant takes what it gives (an unlimited
# giver's balance bounds nothing), a limit change moves the balance by the change.
_CHANGE_BY_TOPIC = {
    get_topic(event_type): sql
    for event_type, sql in {
        CreditAccount.Reserved: "-(s->>'amount')::BIGINT",
        CreditAccount.Settled: "(s->>'released')::BIGINT",
        CreditAccount.SettledFromBlock: "0",
        CreditAccount.LeaseSettled: "(s->>'released')::BIGINT",
        CreditAccount.Charged: "-(s->>'amount')::BIGINT",
        CreditAccount.Released: "(s->>'amount')::BIGINT",
        CreditAccount.LimitChanged: "(s->>'limit_after')::BIGINT - (s->>'previous_limit')::BIGINT",
        CreditAccount.Granted: "-(s->>'amount')::BIGINT",
        CreditAccount.GrantReceived: "(s->>'amount')::BIGINT",
    }.items()
}
_CHANGE_SQL = "CASE m.topic " + " ".join(f"WHEN '{t}' THEN {sql}" for t, sql in _CHANGE_BY_TOPIC.items()) + " END"

# The stored JSON of a movement event (the library's transcoder: UUIDs as {"_type_": "uuid_hex",
# "_data_": hex}, times as {"_type_": "datetime_iso", "_data_": ISO with offset}), read by DuckDB.
# Times land as UTC wall time: the store's sessions run with TimeZone = 'UTC'.
_MOVEMENT_COLUMNS = (
    """
    m.position, m.account_id, b.group_id, b.category, m.kind,
    -- A limit change's amount is the change (none when it goes to or from unlimited).
    coalesce((s->>'amount')::BIGINT, (s->>'limit_after')::BIGINT - (s->>'previous_limit')::BIGINT, 0) AS amount,
    s->>'reservation_id' AS reason_id,
    s->>'reason' AS reason,
    (s->'counterparty_group_id'->>'_data_')::UUID::VARCHAR AS counterparty_group_id,
    (s->'actor_id'->>'_data_')::UUID::VARCHAR AS actor_id,
    (s->'timestamp'->>'_data_')::TIMESTAMPTZ::TIMESTAMP AS created_at,
    (s->>'limit_after')::BIGINT AS credit_limit,
    (s->>'used_after')::BIGINT AS used,
    (s->>'reserved_after')::BIGINT AS reserved,
    (s->>'granted_after')::BIGINT AS granted,
    CASE WHEN (s->>'limit_after') IS NULL THEN NULL
         ELSE (s->>'limit_after')::BIGINT - (s->>'used_after')::BIGINT - (s->>'reserved_after')::BIGINT
              - (s->>'granted_after')::BIGINT END AS balance,
    coalesce((s->>'released')::BIGINT, 0) AS released,
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
        # A page touches few accounts many times: format each id once.
        self._ids: dict[UUID, str] = {}

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
                FROM (SELECT position, account_id, kind, topic, decode(state)::JSON AS s FROM page_movements) m
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
    version = 3  # 2: figures after each movement, grants, and the movement history; 3: openings, change, released
    tables = ("credit_balances", "credit_movements")
    event_types = (CreditAccount.Opened,)
    raw_event_types = MOVEMENT_EVENTS

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(BALANCES_DDL)
        cur.execute(MOVEMENTS_DDL)

    def fold(self) -> PageFold:
        return _CreditsFold()


def groups_holding_reservations(cur: duckdb.DuckDBPyConnection, category: str) -> list[UUID]:
    """The groups whose account of a category has anything reserved, as far as the read model has seen."""
    rows = cur.execute(
        "SELECT group_id FROM credit_balances WHERE category = ? AND reserved > 0", [category]
    ).fetchall()
    return [UUID(str(group_id)) for (group_id,) in rows]


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


CATEGORY_ORDER = ("unit", "advanced", "batch", "api")


def _figures(row: tuple[Any, ...] | None, category: str) -> dict[str, Any]:
    """One category's figures; a category never opened has no credits."""
    limit, used, reserved, granted = row if row is not None else (0, 0, 0, 0)
    return {
        "category": category,
        "unlimited": limit is None,
        "limit": None if limit is None else int(limit),
        "used": int(used),
        "reserved": int(reserved),
        "granted": int(granted),
        "available": None if limit is None else int(limit) - int(used) - int(reserved) - int(granted),
    }


def figures_by_group(cur: duckdb.DuckDBPyConnection, group_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    if not group_ids:
        return {}
    rows = cur.execute(
        "SELECT group_id, category, credit_limit, used, reserved, granted FROM credit_balances "
        "WHERE group_id IN (SELECT unnest(?::VARCHAR[]))",
        [group_ids],
    ).fetchall()
    found = {(g, c): (limit, used, reserved, granted) for g, c, limit, used, reserved, granted in rows}
    # An unlimited account keeps no count of what it gives (its figures bound nothing): what it granted
    # its customers is what their accounts hold from it, their limits (a limited parent's ``granted``).
    unlimited = [g for (g, _c), figures in found.items() if figures[0] is None]
    if unlimited:
        given = cur.execute(
            "SELECT g.parent_id, b.category, sum(b.credit_limit) FROM credit_balances b "
            "JOIN groups g ON g.group_id = b.group_id "
            "WHERE g.parent_id IN (SELECT unnest(?::VARCHAR[])) AND b.credit_limit IS NOT NULL GROUP BY ALL",
            [unlimited],
        ).fetchall()
        for parent, category, total in given:
            figures = found.get((parent, category))
            if figures is not None and figures[0] is None:
                found[(parent, category)] = (None, figures[1], figures[2], int(total))
    return {g: [_figures(found.get((g, c)), c) for c in CATEGORY_ORDER] for g in group_ids}


@dataclass(frozen=True)
class StoppedLeaseTimes:
    """When a unit lease still open is taken for one whose server stopped, and when its units come back.

    A running server returns a lease at most two lease times after its grant (``commands.ledger.leases``); one still
    open ``stale_after`` after its grant (two lease times plus 2 s, which the abandon time is at least) is
    held by a server that stopped, or cannot reach the ledger. The ledger settles it from the log once it has
    stayed open the abandon time from when its sweep first saw it: ``back_after`` (the abandon time plus a
    sweep) after its grant at the latest, the ledger running. Leases open longer than ``window`` are not
    looked for (the ledger is not running then: they are shown as reserved only)."""

    stale_after: float
    back_after: float
    window: float = 3600.0

    @classmethod
    def of(cls, lease_seconds: float, abandon_seconds: float, sweep_seconds: float) -> StoppedLeaseTimes | None:
        if lease_seconds <= 0:
            return None  # no leases
        return cls(stale_after=2 * lease_seconds + 2, back_after=abandon_seconds + sweep_seconds)


def held_by_stopped_servers(
    cur: duckdb.DuckDBPyConnection, group_ids: list[str], times: StoppedLeaseTimes, now: datetime
) -> dict[str, tuple[int, datetime]]:
    """Per group: the unit credits reserved by leases open past ``times.stale_after``, and by when the last of
    them is back (UTC wall time). ``now``: UTC wall time."""
    if not group_ids:
        return {}
    rows = cur.execute(
        """
        SELECT r.group_id, sum(r.amount), max(r.created_at)
        FROM credit_movements r
        WHERE r.kind = 'reservation' AND r.reason = 'lease' AND r.category = 'unit'
          AND r.group_id IN (SELECT unnest(?::VARCHAR[]))
          AND r.created_at >= ?::TIMESTAMP - to_seconds(?) AND r.created_at < ?::TIMESTAMP - to_seconds(?)
          AND NOT EXISTS (
              SELECT 1 FROM credit_movements c
              WHERE c.reason_id = r.reason_id AND c.position > r.position
                AND c.created_at >= ?::TIMESTAMP - to_seconds(?)
          )
        GROUP BY r.group_id
        """,
        [group_ids, now, times.window, now, times.stale_after, now, times.window],
    ).fetchall()
    return {g: (int(units), granted + timedelta(seconds=times.back_after)) for g, units, granted in rows}


def balances_view(
    cur: duckdb.DuckDBPyConnection,
    group_id: str,
    stopped_leases: StoppedLeaseTimes | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The balances view: the group's figures per category and, for a parent, each child's. With
    ``stopped_leases``, a unit figure tells what of its reserved credits leases of stopped servers hold
    (``heldByStoppedServer``) and by when they are back (``heldUntil``)."""
    group = first_row(cur.execute("SELECT name, group_type FROM groups WHERE group_id = ?", [group_id]))
    children = cur.execute(
        "SELECT group_id, name, group_type, active FROM groups WHERE parent_id = ? ORDER BY lower(name), group_id",
        [group_id],
    ).fetchall()
    figures = figures_by_group(cur, [group_id, *(c[0] for c in children)])
    if stopped_leases is not None:
        when = now or datetime.now(UTC).replace(tzinfo=None)
        for held_group, (units, back_by) in held_by_stopped_servers(cur, list(figures), stopped_leases, when).items():
            unit = next(f for f in figures[held_group] if f["category"] == "unit")
            unit["heldByStoppedServer"] = min(units, unit["reserved"])
            unit["heldUntil"] = back_by
    return {
        "group": {
            "id": group_id,
            "name": group[0] if group else "",
            "type": group[1] if group else "",
            "categories": figures[group_id],
        },
        "children": [
            {"id": c[0], "name": c[1], "type": c[2], "active": bool(c[3]), "categories": figures[c[0]]}
            for c in children
        ],
    }


def subtree_ids(cur: duckdb.DuckDBPyConnection, group_id: str) -> list[str]:
    """The group and every group below it."""
    rows = cur.execute(
        """
        WITH RECURSIVE tree(group_id) AS (
            SELECT ?::VARCHAR
            UNION
            SELECT g.group_id FROM groups g JOIN tree t ON g.parent_id = t.group_id
        )
        SELECT group_id FROM tree
        """,
        [group_id],
    ).fetchall()
    return [r[0] for r in rows]


# The columns the balance history may sort by (the grid's field -> SQL); anything else is refused.
HISTORY_ORDER = {
    "createdAt": "m.position",
    "groupName": "lower(g.name)",
    "category": "m.category",
    "kind": "m.kind",
    "amount": "m.amount",
    "balance": "m.balance",
    "actorName": "lower(u.name)",
    "reason": "lower(m.reason)",
}


def movement_history(
    cur: duckdb.DuckDBPyConnection,
    group_ids: list[str],
    *,
    start: datetime | None = None,
    end: datetime | None = None,
    category: str | None = None,
    order: str | None = None,
    offset: int = 0,
    limit: int | None = 50,
) -> tuple[list[dict[str, Any]], int]:
    """Movements of the given groups, newest first, with names resolved; ``start``/``end`` are UTC."""
    where = ["m.group_id IN (SELECT unnest(?::VARCHAR[]))"]
    params: list[Any] = [group_ids]
    if start is not None:
        where.append("m.created_at >= ?")
        params.append(start)
    if end is not None:
        where.append("m.created_at < ?")
        params.append(end)
    if category is not None:
        where.append("m.category = ?")
        params.append(category)
    condition = " AND ".join(where)
    total = first_row(cur.execute(f"SELECT count(*) FROM credit_movements m WHERE {condition}", params))
    page = "" if limit is None else f"LIMIT {int(limit)} OFFSET {int(offset)}"
    rows = cur.execute(
        f"""
        SELECT m.position, m.created_at, m.group_id, g.name, m.category, m.kind, m.amount, m.reason,
               m.reason_id, m.actor_id, u.name, coalesce(m.counterparty_group_id, cp.group_id), cp.name,
               m.credit_limit, m.used, m.reserved, m.granted, m.balance, m.released, m.change
        FROM credit_movements m
        LEFT JOIN groups g ON g.group_id = m.group_id
        LEFT JOIN users u ON u.user_id = m.actor_id
        -- An opening's credits came from the parent.
        LEFT JOIN groups cp ON cp.group_id = coalesce(
            m.counterparty_group_id, CASE WHEN m.kind = 'opening' THEN g.parent_id END)
        WHERE {condition}
        {order_clause(order, HISTORY_ORDER, "m.position DESC")}
        {page}
        """,
        params,
    ).fetchall()
    keys = (
        "position",
        "createdAt",
        "groupId",
        "groupName",
        "category",
        "kind",
        "amount",
        "reason",
        "reasonId",
        "actorId",
        "actorName",
        "counterpartyGroupId",
        "counterpartyName",
        "limit",
        "used",
        "reserved",
        "granted",
        "balance",
        "released",
        "change",
    )
    return [dict(zip(keys, row, strict=True)) for row in rows], int(total[0]) if total else 0


def daily_consumption(
    cur: duckdb.DuckDBPyConnection, group_ids: list[str], start: datetime, end: datetime, category: str | None = None
) -> list[dict[str, Any]]:
    """Credits settled per São Paulo day and category (the consumption chart)."""
    where = "group_id IN (SELECT unnest(?::VARCHAR[])) AND kind = 'settlement' AND created_at >= ? AND created_at < ?"
    params: list[Any] = [group_ids, start, end]
    if category is not None:
        where += " AND category = ?"
        params.append(category)
    rows = cur.execute(
        f"""
        SELECT timezone('{PRODUCT_TIME_ZONE}', timezone('UTC', created_at))::DATE AS day, category, sum(amount)
        FROM credit_movements WHERE {where} GROUP BY ALL ORDER BY day, category
        """,
        params,
    ).fetchall()
    return [{"day": day.isoformat(), "category": cat, "credits": int(total)} for day, cat, total in rows]

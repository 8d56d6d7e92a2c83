"""The credit read models' queries: balances by group and category, the balances view (with what stopped
servers still hold), the tenant subtree, the movement history and the daily consumption."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import duckdb

from bemtevi.projections.base import PRODUCT_TIME_ZONE, first_row, order_clause


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

"""The finance statement of a group for a period, per category, read off the balance history.

Opening balance, then what moved the balance in the period by kind, then the closing balance: the closing is
the opening plus the period's movements, as on a bank statement. Each figure is a sum of history lines
(``credit_movements``), so the statement reconciles with the history and, through it, with the ledger.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import duckdb

from bemtevi.projections.base import first_row
from bemtevi.projections.credit_queries import CATEGORY_ORDER

# The period's flows, each a sum over its lines; ``sign`` is its effect on the available balance.
FLOWS: tuple[tuple[str, int, str], ...] = (
    # Credits an account was opened with, or received from its parent.
    ("received", 1, "(kind = 'opening' OR (kind = 'grant_received' AND amount > 0)) THEN amount"),
    # Taken back by the parent.
    ("returned", -1, "kind = 'grant_received' AND amount < 0 THEN -amount"),
    ("granted", -1, "kind = 'grant' AND amount > 0 THEN amount"),
    # Unused credits taken back from a child.
    ("takenBack", 1, "kind = 'grant' AND amount < 0 THEN -amount"),
    # A reservation is the charge (a lookup charged without one too); its settlement gives back the rest.
    ("charged", -1, "(kind = 'reservation' OR (kind = 'settlement' AND change < 0)) THEN -change"),
    ("released", 1, "kind = 'release' THEN amount WHEN kind = 'settlement' THEN released"),
    ("limitChanges", 1, "kind = 'limit_change' THEN change"),
)


def statement(cur: duckdb.DuckDBPyConnection, group_id: str, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Per category: the balance before ``start``, the flows of [``start``, ``end``), the balance at ``end``
    (UTC wall times), what was consumed (settled) in the period, and the number of lines. A balance is None
    while the account is unlimited."""
    flows = ",\n".join(f"coalesce(sum(CASE WHEN {sql} ELSE 0 END) FILTER (in_period), 0)" for _, _, sql in FLOWS)
    rows = cur.execute(
        f"""
        SELECT category,
               -- In structs: arg_max skips a NULL argument, and an unlimited account's balance is NULL.
               (arg_max({{'balance': balance}}, position) FILTER (created_at < ?)).balance AS opening,
               count(*) FILTER (created_at < ?) AS before,
               (arg_max({{'balance': balance}}, position) FILTER (created_at < ?)).balance AS closing,
               count(*) FILTER (created_at < ?) AS until_end,
               count(*) FILTER (in_period) AS lines,
               coalesce(sum(amount) FILTER (in_period AND kind = 'settlement'), 0) AS consumed,
               -- The account's first line: whether it was unlimited before it (one pass over the group's lines).
               arg_min({{'kind': kind, 'credit_limit': credit_limit, 'change': change}}, position) AS first_line,
               {flows}
        FROM (SELECT *, created_at >= ? AND created_at < ? AS in_period FROM credit_movements WHERE group_id = ?)
        GROUP BY category
        """,
        [start, start, end, end, start, end, group_id],
    ).fetchall()
    found = {row[0]: row for row in rows}
    out = []
    for category in CATEGORY_ORDER:
        row = found.get(category)
        if row is None:  # no line at all: unlimited as the account is now
            empty = None if _unlimited_now(cur, group_id, category) else 0
            blank: dict[str, Any] = {
                "category": category,
                "openingBalance": empty,
                "closingBalance": empty,
                "consumed": 0,
                "lines": 0,
            }
            out.append(blank | {name: 0 for name, _, _ in FLOWS})
            continue
        _, opening, before, closing, until_end, lines, consumed, first_line, *sums = row
        if not before:
            opening = None if _unlimited_before(first_line) else 0
        if not until_end:
            closing = opening
        out.append(
            {
                "category": category,
                "openingBalance": opening,
                "closingBalance": closing,
                "consumed": int(consumed),
                "lines": int(lines),
                **{name: int(total) for (name, _, _), total in zip(FLOWS, sums, strict=True)},
            }
        )
    return out


def _unlimited_before(first_line: dict[str, Any]) -> bool:
    """Whether an account was unlimited before its first line (an account opened unlimited has no opening line)."""
    if first_line["kind"] == "limit_change" and first_line["change"] is None:
        return first_line["credit_limit"] is not None  # to or from unlimited: it was the other way before
    return first_line["credit_limit"] is None


def _unlimited_now(cur: duckdb.DuckDBPyConnection, group_id: str, category: str) -> bool:
    """Whether an account with no line in its history is unlimited (it has always been as it is now)."""
    query = "SELECT credit_limit FROM credit_balances WHERE group_id = ? AND category = ?"
    current = first_row(cur.execute(query, [group_id, category]))
    return current is not None and current[0] is None


def group_name(cur: duckdb.DuckDBPyConnection, group_id: str) -> str | None:
    row = first_row(cur.execute("SELECT name FROM groups WHERE group_id = ?", [group_id]))
    return None if row is None else str(row[0])


def reconciles(category: dict[str, Any]) -> bool:
    """The closing balance is the opening plus the period's flows (both limited)."""
    if category["openingBalance"] is None or category["closingBalance"] is None:
        return True
    moved = sum(sign * category[name] for name, sign, _ in FLOWS)
    return bool(category["openingBalance"] + moved == category["closingBalance"])


def monthly_close(cur: duckdb.DuckDBPyConnection, group_id: str, start: datetime, end: datetime) -> dict[str, Any]:
    """A reseller's close of [``start``, ``end``): the statement of each customer directly below ``group_id``
    (by name), and per category the totals over them. A total balance is None when any customer's is (unlimited)."""
    children = cur.execute(
        "SELECT group_id, name FROM groups WHERE parent_id = ? ORDER BY lower(name), group_id", [group_id]
    ).fetchall()
    statements = [
        {"groupId": child_id, "groupName": name, "categories": statement(cur, child_id, start, end)}
        for child_id, name in children
    ]
    totals = []
    for index, category in enumerate(CATEGORY_ORDER):
        lines = [s["categories"][index] for s in statements]
        total: dict[str, Any] = {"category": category}
        for name in ("openingBalance", "closingBalance"):
            values = [line[name] for line in lines]
            total[name] = None if any(v is None for v in values) else sum(values)
        for name in (*(flow for flow, _, _ in FLOWS), "consumed", "lines"):
            total[name] = sum(line[name] for line in lines)
        totals.append(total)
    return {"children": statements, "totals": totals}

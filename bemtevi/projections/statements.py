"""The finance statement of a group for a period, per category, read off the balance history.

Opening balance, then what moved the balance in the period by kind, then the closing balance: the closing is
the opening plus the period's movements, as on a bank statement. Each figure is a sum of history lines
(``credit_movements``), so the statement reconciles with the history and, through it, with the ledger.

Periods are São Paulo days, so a statement reads ``statement_days``: the history summed per account and day as
the credits read model appends lines (``ADD_LINES_TO_DAYS``). A statement of a year reads a few hundred rows of
the group, not its million lines among every group's.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import duckdb

from bemtevi.projections.base import PRODUCT_TIME_ZONE, first_row
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
_COLUMNS = {name: re.sub(r"([A-Z])", r"_\1", name).lower() for name, _, _ in FLOWS}  # takenBack: taken_back

DAYS_DDL = f"""
CREATE TABLE IF NOT EXISTS statement_days (
    group_id VARCHAR NOT NULL,
    category VARCHAR NOT NULL,
    day DATE NOT NULL,  -- São Paulo
    lines BIGINT NOT NULL,
    consumed BIGINT NOT NULL,  -- what settlements used
    {", ".join(f"{column} BIGINT NOT NULL" for column in _COLUMNS.values())},
    -- The day's first line: whether the account was unlimited before it (for an account's first day).
    first_position BIGINT NOT NULL,
    first_kind VARCHAR NOT NULL,
    first_credit_limit BIGINT,
    first_change BIGINT,
    -- The balance after the day's last line (NULL while unlimited).
    last_position BIGINT NOT NULL,
    last_balance BIGINT,
    PRIMARY KEY (group_id, category, day)
)
"""

# The history lines of positions [?, ?] added to their days. A page's lines are later than every line already
# summed (positions grow), so a day's last line is the page's and its first stays. The São Paulo day is worked
# out once per UTC hour, not per line (as ``usage_daily``).
ADD_LINES_TO_DAYS = f"""
INSERT INTO statement_days
WITH hourly AS (
    SELECT group_id, category, date_trunc('hour', created_at) AS hour, count(*) AS lines,
           coalesce(sum(amount) FILTER (kind = 'settlement'), 0) AS consumed,
           {", ".join(f"coalesce(sum(CASE WHEN {sql} ELSE 0 END), 0) AS {_COLUMNS[name]}" for name, _, sql in FLOWS)},
           min(position) AS first_position,
           arg_min({{'kind': kind, 'credit_limit': credit_limit, 'change': change}}, position) AS first_line,
           max(position) AS last_position,
           -- In structs: arg_max skips a NULL argument, and an unlimited account's balance is NULL.
           arg_max({{'balance': balance}}, position) AS last_line
    FROM credit_movements WHERE position BETWEEN ? AND ? GROUP BY ALL
)
SELECT group_id, category, timezone('{PRODUCT_TIME_ZONE}', timezone('UTC', hour))::DATE AS day, sum(lines),
       sum(consumed), {", ".join(f"sum({column})" for column in _COLUMNS.values())},
       min(first_position), (arg_min(first_line, first_position)).kind,
       (arg_min(first_line, first_position)).credit_limit, (arg_min(first_line, first_position)).change,
       max(last_position), (arg_max(last_line, last_position)).balance
FROM hourly GROUP BY group_id, category, day
ON CONFLICT (group_id, category, day) DO UPDATE SET
    lines = statement_days.lines + excluded.lines,
    consumed = statement_days.consumed + excluded.consumed,
    {", ".join(f"{c} = statement_days.{c} + excluded.{c}" for c in _COLUMNS.values())},
    last_position = excluded.last_position,
    last_balance = excluded.last_balance
"""


def statement(cur: duckdb.DuckDBPyConnection, group_id: str, first: date, last: date) -> list[dict[str, Any]]:
    """Per category: the balance before São Paulo day ``first``, the flows of days [``first``, ``last``], the
    balance after ``last``, what was consumed (settled) in the period, and the number of lines. A balance is None
    while the account is unlimited."""
    flows = ",\n".join(f"coalesce(sum({_COLUMNS[name]}) FILTER (in_period), 0)" for name, _, _ in FLOWS)
    rows = cur.execute(
        f"""
        SELECT category,
               (arg_max({{'balance': last_balance}}, last_position) FILTER (day < ?)).balance AS opening,
               count(*) FILTER (day < ?) AS before,
               (arg_max({{'balance': last_balance}}, last_position) FILTER (day <= ?)).balance AS closing,
               count(*) FILTER (day <= ?) AS until_end,
               coalesce(sum(lines) FILTER (in_period), 0) AS lines,
               coalesce(sum(consumed) FILTER (in_period), 0) AS consumed,
               -- The account's first line: whether it was unlimited before it.
               arg_min({{'kind': first_kind, 'credit_limit': first_credit_limit, 'change': first_change}},
                       first_position) AS first_line,
               {flows}
        FROM (SELECT *, day BETWEEN ? AND ? AS in_period FROM statement_days WHERE group_id = ?)
        GROUP BY category
        """,
        [first, first, last, last, first, last, group_id],
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
    """The closing balance is the opening plus the period's flows, for an account limited all through the period
    (a change to or from unlimited moves the balance by no number: the balance starts again after it)."""
    if category["openingBalance"] is None or category["closingBalance"] is None:
        return True
    moved = sum(sign * category[name] for name, sign, _ in FLOWS)
    return bool(category["openingBalance"] + moved == category["closingBalance"])


def monthly_close(cur: duckdb.DuckDBPyConnection, group_id: str, first: date, last: date) -> dict[str, Any]:
    """A reseller's close of São Paulo days [``first``, ``last``]: the statement of each customer directly below
    ``group_id`` (by name), and per category the totals over them. A total balance is None when any customer's is
    (unlimited)."""
    children = cur.execute(
        "SELECT group_id, name FROM groups WHERE parent_id = ? ORDER BY lower(name), group_id", [group_id]
    ).fetchall()
    statements = [
        {"groupId": child_id, "groupName": name, "categories": statement(cur, child_id, first, last)}
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

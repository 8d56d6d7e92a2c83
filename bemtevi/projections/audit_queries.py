"""The audit log's queries: a page of rows (folded events, and grants, limit changes and lookups read in place
from the credit and consultation read models), with names resolved at read time; the event types and actors
the screen's filters offer."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import duckdb

from bemtevi.domain.query_types import SEEDED
from bemtevi.projections.audit_fields import ID_LISTS
from bemtevi.projections.base import first_row, order_clause

# The audit rows, with the hot read models' rows that say who did what (read in place). A limit
# change shows the account's limit before (the previous limit change, NULL: unlimited) and after.
_ALL_EVENTS = """
    SELECT position, created_at, tenant_id, actor_id, aggregate_type, event_type, aggregate_id,
           target_type, target_id, target_label, changes, details
    FROM audit_events
    UNION ALL
    SELECT position, created_at, group_id, actor_id, 'CreditAccount',
           CASE kind WHEN 'grant' THEN 'Granted' WHEN 'grant_received' THEN 'GrantReceived' ELSE 'LimitChanged' END,
           -- A grant is about the customer that received it; what a group received, or a limit, about the group.
           account_id, 'group',
           CASE WHEN kind = 'grant' THEN coalesce(counterparty_group_id, group_id) ELSE group_id END, NULL,
           CASE WHEN kind = 'limit_change' THEN
               json_array(json_object('field', 'category', 'before', NULL, 'after', category, 'kind', 'value'),
                          json_object('field', 'creditLimit',
                                      'before', coalesce(lag(credit_limit::VARCHAR) OVER w, 'unlimited'),
                                      'after', coalesce(credit_limit::VARCHAR, 'unlimited'), 'kind', 'value'))
           ELSE
               json_array(json_object('field', 'category', 'before', NULL, 'after', category, 'kind', 'value'),
                          json_object('field', 'amount', 'before', NULL, 'after', amount::VARCHAR, 'kind', 'value'))
           END::VARCHAR,
           CASE WHEN kind = 'limit_change' THEN
               json_object('category', category, 'creditLimit', coalesce(credit_limit::VARCHAR, 'unlimited'))
           ELSE json_object('category', category, 'amount', amount::VARCHAR, 'counterparty', counterparty_group_id)
           END::VARCHAR
    FROM credit_movements WHERE kind IN ('grant', 'grant_received', 'limit_change')
    WINDOW w AS (PARTITION BY account_id, kind = 'limit_change' ORDER BY position)
    UNION ALL
    SELECT position, created_at, group_id, user_id, 'Consultation', 'Recorded', consultation_id,
           'document', document, document,
           json_array(json_object('field', 'queryType', 'before', NULL, 'after', query_type, 'kind', 'value'),
                      json_object('field', 'status', 'before', NULL, 'after', status, 'kind', 'value'),
                      json_object('field', 'credits', 'before', NULL, 'after', credits::VARCHAR, 'kind', 'value'),
                      json_object('field', 'channel', 'before', NULL, 'after', channel, 'kind', 'value'))::VARCHAR,
           json_object('queryType', query_type, 'status', status, 'credits', credits::VARCHAR,
                       'channel', channel)::VARCHAR
    FROM consultations
"""

# Names resolved when read: the actor and a user or group target by id, against the directory; a
# query type, layout or supplier by id against the catalogue and suppliers, a batch by its file, an API token
# by its name (the event's label if gone).
_NAMED = f"""
    SELECT e.*, g.name AS tenant_name, u.name AS actor_name, u.email AS actor_email,
           CASE e.target_type WHEN 'user' THEN tu.name WHEN 'group' THEN tg.name
                WHEN 'query_type' THEN coalesce(tq.name, e.target_label)
                WHEN 'layout' THEN coalesce(tl.file_name, e.target_label)
                WHEN 'supplier' THEN coalesce(ts.name, e.target_label)
                WHEN 'batch' THEN coalesce(tb.file_name, e.target_label)
                WHEN 'token' THEN coalesce(tt.name, e.target_label)
                ELSE e.target_label END
               AS target_name
    FROM ({_ALL_EVENTS}) e
    LEFT JOIN groups g ON g.group_id = e.tenant_id
    LEFT JOIN users u ON u.user_id = e.actor_id
    LEFT JOIN users tu ON e.target_type = 'user' AND tu.user_id = e.target_id
    LEFT JOIN groups tg ON e.target_type = 'group' AND tg.group_id = e.target_id
    LEFT JOIN query_type_ids tqi ON e.target_type = 'query_type' AND tqi.aggregate_id = e.target_id
    LEFT JOIN query_types tq ON tq.key = tqi.key
    LEFT JOIN layouts tl ON e.target_type = 'layout' AND tl.layout_id = e.target_id
    LEFT JOIN suppliers ts ON e.target_type = 'supplier' AND ts.supplier_id = e.target_id
    LEFT JOIN batches tb ON e.target_type = 'batch' AND tb.batch_id = e.target_id
    LEFT JOIN api_tokens tt ON e.target_type = 'token' AND tt.token_id = e.target_id
"""

AUDIT_COLUMNS = (
    "position",
    "createdAt",
    "tenantId",
    "tenantName",
    "actorId",
    "actorName",
    "actorEmail",
    "aggregateType",
    "eventType",
    "aggregateId",
    "targetType",
    "targetId",
    "targetName",
    "changes",
    "details",
)

# The columns a client may sort by (key -> SQL); anything else is refused, never written into SQL.
AUDIT_ORDER = {
    "createdAt": "position",
    "tenantName": "lower(tenant_name)",
    "actorName": "lower(coalesce(actor_name, actor_email))",
    "event": "aggregate_type || '.' || event_type",
    "targetName": "lower(target_name)",
}


def audit_page(
    cur: duckdb.DuckDBPyConnection,
    group_ids: list[str],
    *,
    user_id: str | None = None,
    event_type: str | None = None,
    target: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
    order: str | None = None,
    offset: int = 0,
    limit: int | None = 50,
) -> tuple[list[dict[str, Any]], int]:
    """Events acted for one of ``group_ids`` (or on one of them), newest first; times are UTC.

    ``target`` matches the target's id or, case-insensitively, part of its name."""
    where = ["(tenant_id IN (SELECT unnest(?::VARCHAR[])) OR aggregate_id IN (SELECT unnest(?::VARCHAR[])))"]
    params: list[Any] = [group_ids, group_ids]
    if user_id:
        where.append("actor_id = ?")
        params.append(user_id)
    if event_type:
        where.append("(aggregate_type = ? OR aggregate_type || '.' || event_type = ?)")
        params += [event_type, event_type]
    if target:
        where.append("(target_id = ? OR target_name ILIKE ? ESCAPE '\\')")
        params += [target, "%" + target.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"]
    if start is not None:
        where.append("created_at >= ?")
        params.append(start)
    if end is not None:
        where.append("created_at < ?")
        params.append(end)
    condition = " AND ".join(where)
    sort = order_clause(order, AUDIT_ORDER, "position DESC, aggregate_type")
    total = first_row(cur.execute(f"SELECT count(*) FROM ({_NAMED}) n WHERE {condition}", params))
    page = "" if limit is None else f"LIMIT {int(limit)} OFFSET {int(offset)}"
    rows = cur.execute(
        f"""
        SELECT position, created_at, tenant_id, tenant_name, actor_id, actor_name, actor_email,
               aggregate_type, event_type, aggregate_id, target_type, target_id, target_name, changes, details
        FROM ({_NAMED}) n
        WHERE {condition}
        {sort}
        {page}
        """,
        params,
    ).fetchall()
    result = []
    for r in rows:
        row = dict(zip(AUDIT_COLUMNS, r, strict=True))
        row["changes"] = json.loads(row["changes"]) if row["changes"] else []
        row["details"] = json.loads(row["details"]) if row["details"] else {}
        result.append(row)
    _name_ids(cur, result)
    return result, int(total[0]) if total else 0


# Fields holding ids (or lists of them, "a, b") and where their names are: they show by name. A query type's
# key names it too ("cpf-complete": "Pessoa física completa"), except a seeded type still under its seeded name: it
# stays a key, which the words file names in the reader's language (a name a super-admin typed shows as typed).
_ID_FIELDS = {
    **{field: "layout" for field in ID_LISTS},
    "layout_id": "layout",
    "copied_from": "layout",
    "created_by": "user",
    "counterparty": "group",
    "query_type": "query_type",
    "queryType": "query_type",
    "query_types": "query_type",
    "enabled_query_types": "query_type",
    "allowed_query_types": "query_type",
}
_NAMES_OF = {
    "layout": "SELECT layout_id, file_name FROM layouts WHERE layout_id IN (SELECT unnest(?::VARCHAR[]))",
    "user": "SELECT user_id, coalesce(name, email) FROM users WHERE user_id IN (SELECT unnest(?::VARCHAR[]))",
    "group": "SELECT group_id, name FROM groups WHERE group_id IN (SELECT unnest(?::VARCHAR[]))",
    "query_type": "SELECT key, name FROM query_types WHERE key IN (SELECT unnest(?::VARCHAR[]))",
}


def _name_ids(cur: duckdb.DuckDBPyConnection, rows: list[dict[str, Any]]) -> None:
    """Ids and lists of ids in the page's changes and details ("enabled_layouts: a, b", a batch's layout, a
    token's creator) as names, looked up once per kind for the whole page (an id with no name stays as it is)."""
    # (holder, key, kind): a change's before or after, or a detail.
    slots: list[tuple[dict[str, Any], str, str]] = []
    for row in rows:
        for change in row["changes"]:
            kind = _ID_FIELDS.get(change.get("field", ""))
            if kind:
                slots += [(change, side, kind) for side in ("before", "after") if change.get(side)]
        details = row["details"]
        slots += [(details, f, _ID_FIELDS[f]) for f in details if f in _ID_FIELDS and details[f]]
    wanted: dict[str, set[str]] = {}
    for holder, key, kind in slots:
        wanted.setdefault(kind, set()).update(i for i in str(holder[key]).split(", ") if i)
    names = {
        kind: {str(k): str(v) for k, v in cur.execute(_NAMES_OF[kind], [sorted(ids)]).fetchall() if v}
        for kind, ids in wanted.items()
    }
    if "query_type" in names:
        seeded = {q.key: q.name for q in SEEDED}
        names["query_type"] = {k: v for k, v in names["query_type"].items() if seeded.get(k) != v}
    for holder, key, kind in slots:
        holder[key] = ", ".join(names[kind].get(i, i) for i in str(holder[key]).split(", "))


def audit_types(cur: duckdb.DuckDBPyConnection) -> list[str]:
    """The aggregate types the filter offers."""
    rows = cur.execute(f"SELECT DISTINCT aggregate_type FROM ({_ALL_EVENTS}) e ORDER BY 1").fetchall()
    return [r[0] for r in rows]


def audit_actors(cur: duckdb.DuckDBPyConnection, group_ids: list[str]) -> list[dict[str, str]]:
    """Who acted in ``group_ids``' log (the 'who' filter's choices), by name."""
    rows = cur.execute(
        """
        SELECT DISTINCT e.actor_id, coalesce(u.name, u.email, e.actor_id)
        FROM (SELECT actor_id, tenant_id, aggregate_id FROM audit_events
              UNION ALL SELECT actor_id, group_id, account_id FROM credit_movements
                  WHERE kind IN ('grant', 'grant_received', 'limit_change')
              UNION ALL SELECT DISTINCT user_id, group_id, group_id FROM consultations) e
        LEFT JOIN users u ON u.user_id = e.actor_id
        WHERE e.actor_id IS NOT NULL
          AND (e.tenant_id IN (SELECT unnest(?::VARCHAR[])) OR e.aggregate_id IN (SELECT unnest(?::VARCHAR[])))
        ORDER BY 2
        """,
        [group_ids, group_ids],
    ).fetchall()
    return [{"id": r[0], "name": r[1]} for r in rows]

"""Groups and users read models: brands by domain, menus by user, the tenant tree."""

from __future__ import annotations

import json
from typing import Any

import duckdb

from bemtevi.domain.brand import Brand, label_brand
from bemtevi.domain.groups import Group, GroupType, default_toggles
from bemtevi.domain.users import User, UserStatus
from bemtevi.projections.base import PageFold, ReadModel, first_row, load_rows, naive_utc, order_clause, rewrite_rows

GROUPS_DDL = """
CREATE TABLE IF NOT EXISTS groups (
    group_id VARCHAR PRIMARY KEY,
    unique_key VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    group_type VARCHAR NOT NULL,
    parent_id VARCHAR,
    domain_url VARCHAR,
    brand VARCHAR NOT NULL,
    enabled_query_types VARCHAR[] NOT NULL,
    active BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    cnpj VARCHAR,
    -- The customer form's other fields, as JSON (trade name, person in charge, contact, access).
    profile VARCHAR NOT NULL,
    -- Per-group toggles as JSON (allowCreatedWhiteLabel, allowUploadingManualQueries, ...).
    toggles VARCHAR NOT NULL DEFAULT '{}'
)
"""

USERS_DDL = """
CREATE TABLE IF NOT EXISTS users (
    user_id VARCHAR PRIMARY KEY,
    group_id VARCHAR NOT NULL,
    unique_key VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    email VARCHAR NOT NULL,
    role VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL
)
"""

_GROUP_COLUMNS = (
    "group_id",
    "unique_key",
    "name",
    "group_type",
    "parent_id",
    "domain_url",
    "brand",
    "enabled_query_types",
    "active",
    "created_at",
    "cnpj",
    "profile",
    "toggles",
)
_USER_COLUMNS = ("user_id", "group_id", "unique_key", "name", "email", "role", "status", "created_at")

_EVENTS = (
    Group.Registered,
    Group.BrandChanged,
    Group.Activated,
    Group.Inactivated,
    Group.Edited,
    Group.PermissionsChanged,
    User.Registered,
    User.PasswordChanged,
    User.DetailsChanged,
    User.RoleChanged,
    User.StatusChanged,
)


class _DirectoryFold(PageFold):
    """Rare events: load the touched rows, apply in order, write them back whole."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def apply(self, event: Any, position: int) -> None:
        if isinstance(event, _EVENTS):
            self.events.append(event)

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if not self.events:
            return
        groups = load_rows(cur, "groups", _GROUP_COLUMNS, [e for e in self.events if isinstance(e, Group.Event)])
        users = load_rows(cur, "users", _USER_COLUMNS, [e for e in self.events if isinstance(e, User.Event)])
        for event in self.events:
            key = str(event.originator_id)
            if isinstance(event, Group.Registered):
                groups[key] = {
                    "group_id": key,
                    "unique_key": event.unique_key,
                    "name": event.name,
                    "group_type": event.group_type,
                    "parent_id": str(event.parent_id) if event.parent_id else None,
                    "domain_url": event.domain_url,
                    "brand": json.dumps(event.brand, sort_keys=True),
                    "enabled_query_types": list(event.enabled_query_types),
                    "active": True,
                    "created_at": naive_utc(event.timestamp),
                    "cnpj": getattr(event, "cnpj", None),
                    "profile": json.dumps(getattr(event, "profile", None) or {}, sort_keys=True),
                    "toggles": json.dumps(
                        {**default_toggles(event.group_type), **(getattr(event, "toggles", None) or {})},
                        sort_keys=True,
                    ),
                }
            elif isinstance(event, Group.Edited):
                groups[key].update(
                    name=event.name,
                    group_type=event.group_type,
                    cnpj=event.cnpj,
                    domain_url=event.domain_url,
                    profile=json.dumps(event.profile, sort_keys=True),
                )
            elif isinstance(event, Group.PermissionsChanged):
                groups[key].update(
                    enabled_query_types=list(event.enabled_query_types),
                    toggles=json.dumps(event.toggles, sort_keys=True),
                )
            elif isinstance(event, Group.BrandChanged):
                groups[key]["brand"] = json.dumps(event.brand, sort_keys=True)
            elif isinstance(event, Group.Activated | Group.Inactivated):
                groups[key]["active"] = isinstance(event, Group.Activated)
            elif isinstance(event, User.Registered):
                users[key] = {
                    "user_id": key,
                    "group_id": str(event.group_id),
                    "unique_key": event.unique_key,
                    "name": event.name,
                    "email": event.email,
                    "role": event.role,
                    "status": event.status,
                    "created_at": naive_utc(event.timestamp),
                }
            elif isinstance(event, User.PasswordChanged) and users[key]["status"] == UserStatus.FIRST_ACCESS:
                users[key]["status"] = UserStatus.ACTIVE.value
            elif isinstance(event, User.DetailsChanged):
                users[key]["name"] = event.name
            elif isinstance(event, User.RoleChanged):
                users[key]["role"] = event.role
            elif isinstance(event, User.StatusChanged):
                users[key]["status"] = event.status
        rewrite_rows(cur, "groups", "group_id", _GROUP_COLUMNS, groups)
        rewrite_rows(cur, "users", "user_id", _USER_COLUMNS, users)


class DirectoryReadModel(ReadModel):
    name = "directory"
    version = 3  # 2: customers' CNPJ and profile; 3: edits, toggles and permissions
    tables = ("groups", "users")
    event_types = _EVENTS

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(GROUPS_DDL)
        cur.execute(USERS_DDL)

    def fold(self) -> PageFold:
        return _DirectoryFold()


# -- queries ---------------------------------------------------------------------------------

_PUBLIC_COLUMNS = "group_id, unique_key, name, parent_id, domain_url, brand, active, group_type, profile"


def _group_row(cur: duckdb.DuckDBPyConnection, where: str, params: list[Any]) -> tuple[Any, ...] | None:
    return first_row(cur.execute(f"SELECT {_PUBLIC_COLUMNS} FROM groups WHERE {where}", params))


def group_by_domain(cur: duckdb.DuckDBPyConnection, candidates: list[str]) -> dict[str, Any] | None:
    for candidate in candidates:
        row = _group_row(cur, "domain_url = ?", [candidate])
        if row is not None:
            return public_data(cur, row)
    return None


def group_by_id(cur: duckdb.DuckDBPyConnection, group_id: str) -> dict[str, Any] | None:
    row = _group_row(cur, "group_id = ?", [group_id])
    return None if row is None else public_data(cur, row)


def ancestor_ids(cur: duckdb.DuckDBPyConnection, group_id: str) -> list[str]:
    """The group itself, then its parent, up to the root."""
    chain: list[str] = []
    current: str | None = group_id
    while current is not None and current not in chain:
        chain.append(current)
        row = first_row(cur.execute("SELECT parent_id FROM groups WHERE group_id = ?", [current]))
        current = row[0] if row else None
    return chain


def _label_name(name: str, profile_json: str | None) -> str:
    """How a white-label is called where it has no title: its trade name, else its name."""
    trade = (json.loads(profile_json or "{}") or {}).get("tradeName")
    return str(trade).strip() if trade and str(trade).strip() else name


def public_data(cur: duckdb.DuckDBPyConnection, row: tuple[Any, ...]) -> dict[str, Any]:
    """The brand as it shows for a group: its own values, then each ancestor's, then the defaults;
    under a white-label, nothing that names the platform (``domain.brand.label_brand``)."""
    group_id, unique_key, name, parent_id, domain_url, brand_json, active, group_type, profile = row
    chain = [Brand.from_dict(json.loads(brand_json))]
    label: tuple[int, str] | None = None

    def note_label(depth: int, kind: str, has_parent: bool, its_name: str, its_profile: str | None) -> None:
        nonlocal label
        # The platform is the root (no parent): a white-label below it is a customer's label.
        if label is None and has_parent and kind == GroupType.WHITE_LABEL:
            label = (depth, _label_name(its_name, its_profile))

    note_label(0, group_type, parent_id is not None, name, profile)
    domain = domain_url
    parent = parent_id
    seen = {group_id}
    while parent and parent not in seen:
        seen.add(parent)
        prow = first_row(
            cur.execute(
                "SELECT parent_id, domain_url, brand, group_type, name, profile FROM groups WHERE group_id = ?",
                [parent],
            )
        )
        if prow is None:
            break
        chain.append(Brand.from_dict(json.loads(prow[2])))
        note_label(len(chain) - 1, prow[3], prow[0] is not None, prow[4], prow[5])
        domain = domain or prow[1]
        parent = prow[0]
    brand, white_label = label_brand(chain, label[0] if label else None, label[1] if label else None)
    return {
        "id": group_id,
        "uniqueKey": unique_key,
        "name": name,
        "domainUrl": domain,
        "active": bool(active),
        "whiteLabel": white_label,
        **brand.as_dict(),
    }


def user_by_id(cur: duckdb.DuckDBPyConnection, user_id: str) -> dict[str, Any] | None:
    row = first_row(cur.execute(f"SELECT {', '.join(_USER_COLUMNS)} FROM users WHERE user_id = ?", [user_id]))
    return None if row is None else dict(zip(_USER_COLUMNS, row, strict=True))


# The columns the customers list may sort by (the grid's field -> SQL); anything else is refused.
CUSTOMERS_ORDER = {
    "name": "lower(g.name)",
    "tradeName": "lower(json_extract_string(g.profile, '$.tradeName'))",
    "cnpj": "g.cnpj",
    "type": "g.group_type",
    "parentName": "lower(p.name)",
    "active": "g.active",
    "createdAt": "g.created_at",
}


def customers_of(
    cur: duckdb.DuckDBPyConnection,
    group_id: str,
    search: str | None = None,
    offset: int = 0,
    limit: int = 20,
    order: str | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """The groups below ``group_id`` (its whole subtree), newest first; search by name, trade name or CNPJ."""
    params: list[Any] = [group_id]
    where = ""
    if search and search.strip():
        text = f"%{search.strip().lower()}%"
        digits = "".join(ch for ch in search if ch.isdigit())
        where = "AND (lower(g.name) LIKE ? OR lower(json_extract_string(g.profile, '$.tradeName')) LIKE ?"
        params += [text, text]
        if digits:
            where += " OR g.cnpj LIKE ?"
            params.append(f"%{digits}%")
        where += ")"
    subtree = """
        WITH RECURSIVE tree(group_id) AS (
            SELECT group_id FROM groups WHERE parent_id = ?
            UNION
            SELECT g.group_id FROM groups g JOIN tree t ON g.parent_id = t.group_id
        )
    """
    total = first_row(
        cur.execute(
            f"{subtree} SELECT count(*) FROM groups g WHERE g.group_id IN (SELECT group_id FROM tree) {where}", params
        )
    )
    rows = cur.execute(
        f"""
        {subtree}
        SELECT g.group_id, g.unique_key, g.name, g.group_type, g.parent_id, p.name, g.domain_url, g.cnpj,
               g.profile, g.enabled_query_types, g.active, g.created_at
        FROM groups g LEFT JOIN groups p ON p.group_id = g.parent_id
        WHERE g.group_id IN (SELECT group_id FROM tree) {where}
        {order_clause(order, CUSTOMERS_ORDER, "g.created_at DESC, g.group_id")}
        LIMIT {int(limit)} OFFSET {int(offset)}
        """,
        params,
    ).fetchall()
    customers = [
        {
            "id": r[0],
            "uniqueKey": r[1],
            "name": r[2],
            "type": r[3],
            "parentId": r[4],
            "parentName": r[5],
            "domainUrl": r[6],
            "cnpj": r[7],
            **json.loads(r[8]),
            "enabledQueryTypes": list(r[9]),
            "active": bool(r[10]),
            "createdAt": r[11],
        }
        for r in rows
    ]
    return customers, int(total[0]) if total else 0

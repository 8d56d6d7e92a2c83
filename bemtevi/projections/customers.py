"""Customer detail: one group as the customer form edits it (reads the directory's tables)."""

from __future__ import annotations

import json
from typing import Any

import duckdb

from bemtevi.domain.brand import BRAND_FIELDS, Brand
from bemtevi.projections.base import first_row
from bemtevi.projections.credit_queries import figures_by_group
from bemtevi.projections.directory import group_by_id


def customer_detail(cur: duckdb.DuckDBPyConnection, group_id: str) -> dict[str, Any] | None:
    row = first_row(
        cur.execute(
            """
        SELECT g.group_id, g.unique_key, g.name, g.group_type, g.parent_id, p.name, g.domain_url, g.cnpj,
               g.profile, g.enabled_query_types, g.active, g.created_at, g.toggles, g.brand,
               p.enabled_query_types, p.toggles
        FROM groups g LEFT JOIN groups p ON p.group_id = g.parent_id
        WHERE g.group_id = ?
        """,
            [group_id],
        )
    )
    if row is None:
        return None
    resolved = group_by_id(cur, group_id) or {}
    return {
        "id": row[0],
        "uniqueKey": row[1],
        "name": row[2],
        "companyName": row[2],
        "type": row[3],
        "parentId": row[4],
        "parentName": row[5],
        "domainUrl": row[6],
        "cnpj": row[7],
        **json.loads(row[8]),
        "enabledQueryTypes": list(row[9]),
        "active": bool(row[10]),
        "createdAt": row[11],
        "toggles": json.loads(row[12] or "{}"),
        # The group's own brand values (empty ones fall back) and the brand as it shows.
        "brand": Brand.from_dict(json.loads(row[13])).as_dict(),
        "resolvedBrand": {k: resolved.get(k) for k in BRAND_FIELDS},
        "parentEnabledQueryTypes": list(row[14] or []),
        "parentToggles": json.loads(row[15] or "{}"),
        "enabledLayouts": _layouts_of(cur, row[0]),
        "parentEnabledLayouts": _layouts_of(cur, row[4]) if row[4] else [],
        "credits": figures_by_group(cur, [row[0]]).get(row[0], []),
    }


def _layouts_of(cur: duckdb.DuckDBPyConnection, group_id: str) -> list[str]:
    """The layout ids a group may use (the catalogue read model's ``group_layouts``)."""
    rows = cur.execute("SELECT layout_id FROM group_layouts WHERE group_id = ? ORDER BY layout_id", [group_id])
    return [r[0] for r in rows.fetchall()]

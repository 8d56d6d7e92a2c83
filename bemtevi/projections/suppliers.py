"""Suppliers (HTTP vendors) for the supplier-list and add-new-supplier screens.

Secrets are never here: only whether each is set (the events carry them sealed, and this fold reads
nothing of them but their presence).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import duckdb
import orjson

from bemtevi.domain.vendors import Vendor
from bemtevi.projections.base import PageFold, ReadModel, RowFold, first_row

SUPPLIERS_DDL = """
CREATE TABLE IF NOT EXISTS suppliers (
    supplier_id VARCHAR PRIMARY KEY,
    name VARCHAR NOT NULL,
    config VARCHAR NOT NULL,
    password_set BOOLEAN NOT NULL,
    token_set BOOLEAN NOT NULL,
    active BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
)
"""
_COLUMNS = ("supplier_id", "name", "config", "password_set", "token_set", "active", "created_at", "updated_at")


class _SuppliersFold(RowFold):
    table, columns = "suppliers", _COLUMNS

    def change(self, row: dict[str, Any] | None, key: str, event: Any, at: datetime) -> dict[str, Any] | None:
        if isinstance(event, Vendor.Registered | Vendor.Edited):
            row = row or {"supplier_id": key, "active": True, "created_at": at}
            sealed = event.secrets_sealed
            row.update(
                name=event.config["name"],
                config=orjson.dumps(event.config).decode(),
                password_set=bool(sealed.get("password")),
                token_set=bool(sealed.get("token")),
                updated_at=at,
            )
        elif isinstance(event, Vendor.StatusChanged) and row is not None:
            row.update(active=event.active, updated_at=at)
        return row


class SuppliersReadModel(ReadModel):
    name = "suppliers"
    tables = ("suppliers",)
    event_types = (Vendor.Registered, Vendor.Edited, Vendor.StatusChanged)

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(SUPPLIERS_DDL)

    def fold(self) -> PageFold:
        return _SuppliersFold()


# -- queries ---------------------------------------------------------------------------------


def _row(r: tuple[Any, ...]) -> dict[str, Any]:
    row = dict(zip(_COLUMNS, r, strict=True))
    row["config"] = orjson.loads(row["config"])
    return row


def suppliers_page(
    cur: duckdb.DuckDBPyConnection, search: str = "", offset: int = 0, limit: int = 20
) -> tuple[list[dict[str, Any]], int]:
    """Suppliers by name (case-insensitive ``search`` in the name), and their count."""
    pattern = f"%{search.strip().lower()}%"
    total = first_row(cur.execute("SELECT count(*) FROM suppliers WHERE lower(name) LIKE ?", [pattern]))
    rows = cur.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM suppliers WHERE lower(name) LIKE ? "
        "ORDER BY created_at, supplier_id LIMIT ? OFFSET ?",
        [pattern, limit, offset],
    ).fetchall()
    return [_row(r) for r in rows], int(total[0] if total else 0)


def supplier_by_id(cur: duckdb.DuckDBPyConnection, supplier_id: str) -> dict[str, Any] | None:
    row = first_row(cur.execute(f"SELECT {', '.join(_COLUMNS)} FROM suppliers WHERE supplier_id = ?", [supplier_id]))
    return _row(row) if row else None

"""The enrichment catalogue's lists: query types, layouts, and the layouts each group may use.

Every query type or layout event carries what its row needs (a whole definition, or a flag), so a
page is folded by loading the rows it touches, changing them in Python and writing them back in two
statements (as the mail outbox does); a replay from the log gives the same rows as following it.
"""

from __future__ import annotations

import json
from typing import Any

import duckdb

from bemtevi.domain.groups import Group
from bemtevi.domain.layouts import Layout
from bemtevi.domain.query_types import QueryTypeDefinition
from bemtevi.projections.base import PageFold, ReadModel, first_row, naive_utc, rewrite_rows

QUERY_TYPES_DDL = """
CREATE TABLE IF NOT EXISTS query_types (
    key VARCHAR PRIMARY KEY,
    name VARCHAR NOT NULL,
    definition VARCHAR NOT NULL,
    is_default BOOLEAN NOT NULL,
    active BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
)
"""

# A query type's events name its aggregate; its row is keyed by the key its first event gave.
QUERY_TYPE_IDS_DDL = """
CREATE TABLE IF NOT EXISTS query_type_ids (aggregate_id VARCHAR PRIMARY KEY, key VARCHAR NOT NULL)
"""

LAYOUTS_DDL = """
CREATE TABLE IF NOT EXISTS layouts (
    layout_id VARCHAR PRIMARY KEY,
    file_name VARCHAR NOT NULL,
    spec VARCHAR NOT NULL,
    active BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    group_id VARCHAR,
    ready VARCHAR,
    copied_from VARCHAR
)
"""

GROUP_LAYOUTS_DDL = """
CREATE TABLE IF NOT EXISTS group_layouts (
    group_id VARCHAR NOT NULL,
    layout_id VARCHAR NOT NULL,
    PRIMARY KEY (group_id, layout_id)
)
"""

_QT_COLUMNS = ("key", "name", "definition", "is_default", "active", "created_at", "updated_at")
_LAYOUT_COLUMNS = (
    "layout_id", "file_name", "spec", "active", "created_at", "updated_at", "group_id", "ready", "copied_from"
)  # fmt: skip
_QT = QueryTypeDefinition
_EVENTS = (
    _QT.Created,
    _QT.Edited,
    _QT.DefaultChanged,
    _QT.Activated,
    _QT.Inactivated,
    Layout.Created,
    Layout.Edited,
    Layout.Activated,
    Layout.Inactivated,
    Group.Registered,
    Group.LayoutsChanged,
)


class _Fold(PageFold):
    def __init__(self) -> None:
        self.events: list[Any] = []

    def apply(self, event: Any, position: int) -> None:
        self.events.append(event)

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if not self.events:
            return
        self._query_types(cur, [e for e in self.events if isinstance(e, _QT.Event)])
        self._layouts(cur, [e for e in self.events if isinstance(e, Layout.Event)])
        self._group_layouts(cur, [e for e in self.events if isinstance(e, Group.Event)])

    @staticmethod
    def _query_types(cur: duckdb.DuckDBPyConnection, events: list[Any]) -> None:
        if not events:
            return
        keys_by_id: dict[str, str] = {}
        for event in events:
            if isinstance(event, _QT.Created):
                keys_by_id[str(event.originator_id)] = event.key
        known = {str(r[0]): r[1] for r in cur.execute("SELECT aggregate_id, key FROM query_type_ids").fetchall()}
        known.update(keys_by_id)
        wanted = sorted({known[str(e.originator_id)] for e in events if str(e.originator_id) in known})
        rows = {
            str(r[0]): dict(zip(_QT_COLUMNS, r, strict=True))
            for r in cur.execute(
                f"SELECT {', '.join(_QT_COLUMNS)} FROM query_types WHERE key IN ?", [wanted]
            ).fetchall()
        }
        for event in events:
            key = known.get(str(event.originator_id))
            if key is None:
                continue
            at = naive_utc(event.timestamp)
            if isinstance(event, _QT.Created):
                rows[key] = {
                    "key": key,
                    "name": event.definition["name"],
                    "definition": json.dumps(event.definition, sort_keys=True),
                    "is_default": False,
                    "active": True,
                    "created_at": at,
                    "updated_at": at,
                }
                continue
            row = rows.get(key)
            if row is None:
                continue
            row["updated_at"] = at
            if isinstance(event, _QT.Edited):
                row["name"] = event.definition["name"]
                row["definition"] = json.dumps(event.definition, sort_keys=True)
            elif isinstance(event, _QT.DefaultChanged):
                row["is_default"] = event.default
            else:
                row["active"] = isinstance(event, _QT.Activated)
        if keys_by_id:
            cur.executemany("INSERT INTO query_type_ids VALUES (?, ?)", list(keys_by_id.items()))
        rewrite_rows(cur, "query_types", "key", _QT_COLUMNS, rows)

    @staticmethod
    def _layouts(cur: duckdb.DuckDBPyConnection, events: list[Any]) -> None:
        if not events:
            return
        ids = sorted({str(e.originator_id) for e in events})
        rows = {
            str(r[0]): dict(zip(_LAYOUT_COLUMNS, r, strict=True))
            for r in cur.execute(
                f"SELECT {', '.join(_LAYOUT_COLUMNS)} FROM layouts WHERE layout_id IN ?", [ids]
            ).fetchall()
        }
        for event in events:
            layout_id = str(event.originator_id)
            at = naive_utc(event.timestamp)
            if isinstance(event, Layout.Created):
                rows[layout_id] = {
                    "layout_id": layout_id,
                    "file_name": event.spec["file_name"],
                    "spec": json.dumps(event.spec, sort_keys=True),
                    "active": True,
                    "created_at": at,
                    "updated_at": at,
                    "group_id": getattr(event, "group_id", None),
                    "ready": getattr(event, "ready", None),
                    "copied_from": getattr(event, "copied_from", None),
                }
                continue
            row = rows.get(layout_id)
            if row is None:
                continue
            row["updated_at"] = at
            if isinstance(event, Layout.Edited):
                row["file_name"] = event.spec["file_name"]
                row["spec"] = json.dumps(event.spec, sort_keys=True)
            else:
                row["active"] = isinstance(event, Layout.Activated)
        rewrite_rows(cur, "layouts", "layout_id", _LAYOUT_COLUMNS, rows)

    @staticmethod
    def _group_layouts(cur: duckdb.DuckDBPyConnection, events: list[Any]) -> None:
        latest: dict[str, list[str]] = {}
        for event in events:
            layouts = getattr(event, "enabled_layouts", None) or []
            if isinstance(event, Group.Registered) and not layouts:
                continue
            latest[str(event.originator_id)] = list(layouts)
        if not latest:
            return
        cur.execute("DELETE FROM group_layouts WHERE group_id IN ?", [list(latest)])
        pairs = [(g, layout_id) for g, layouts in latest.items() for layout_id in dict.fromkeys(layouts)]
        if pairs:
            cur.executemany("INSERT INTO group_layouts VALUES (?, ?)", pairs)


class EnrichmentCatalogueReadModel(ReadModel):
    name = "enrichment_catalogue"
    tables = ("query_types", "query_type_ids", "layouts", "group_layouts")
    event_types = _EVENTS
    version = 2  # 2: a layout's owner group, ready key and original

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(QUERY_TYPES_DDL)
        cur.execute(
            "CREATE TABLE IF NOT EXISTS query_type_ids (aggregate_id VARCHAR PRIMARY KEY, key VARCHAR NOT NULL)"
        )
        cur.execute(LAYOUTS_DDL)
        cur.execute(GROUP_LAYOUTS_DDL)

    def fold(self) -> PageFold:
        return _Fold()


# -- queries ---------------------------------------------------------------------------------


def _query_type(row: tuple[Any, ...]) -> dict[str, Any]:
    key, name, definition, is_default, active, created_at, updated_at = row
    d = json.loads(definition)
    return {
        "key": key,
        "name": name,
        "description": d["description"],
        "icon": d["icon"],
        "badge": d["badge"],
        "toggles": d["toggles"],
        "component": d["component"],
        "cacheDays": d["cache_days"],
        "validityDays": d["validity_days"],
        "default": is_default,
        "active": active,
        "createdAt": created_at,
        "updatedAt": updated_at,
    }


def _catalogue_page(
    cur: duckdb.DuckDBPyConnection,
    table: str,
    columns: tuple[str, ...] | list[str],
    searched: tuple[str, str],
    order: str,
    search: str | None,
    active: bool | None,
    offset: int,
    limit: int,
) -> tuple[list[tuple[Any, ...]], int]:
    """A page of a catalogue table (``search`` in either of two columns, by status) in ``order``, and its count."""
    where: list[str] = ["1 = 1"]
    args: list[object] = []
    if search:
        where.append(f"({searched[0]} ILIKE ? OR {searched[1]} ILIKE ?)")
        args += [f"%{search}%", f"%{search}%"]
    if active is not None:
        where.append("active = ?")
        args.append(active)
    condition = " AND ".join(where)
    total = first_row(cur.execute(f"SELECT count(*) FROM {table} WHERE {condition}", args))[0]
    rows = cur.execute(
        f"SELECT {', '.join(columns)} FROM {table} WHERE {condition} ORDER BY {order} LIMIT ? OFFSET ?",
        [*args, limit, offset],
    ).fetchall()
    return rows, int(total)


def query_types_page(
    cur: duckdb.DuckDBPyConnection,
    search: str | None = None,
    active: bool | None = None,
    offset: int = 0,
    limit: int = 20,
) -> tuple[list[dict[str, Any]], int]:
    rows, total = _catalogue_page(
        cur, "query_types", _QT_COLUMNS, ("name", "key"), "created_at, key", search, active, offset, limit
    )
    return [_query_type(r) for r in rows], total


def query_type(cur: duckdb.DuckDBPyConnection, key: str) -> dict[str, Any] | None:
    row = first_row(cur.execute(f"SELECT {', '.join(_QT_COLUMNS)} FROM query_types WHERE key = ?", [key]))
    return _query_type(row) if row else None


def enabled_query_types(cur: duckdb.DuckDBPyConnection, group_id: str) -> list[dict[str, Any]]:
    """The active query types a group may run (its enabled ones), in the catalogue's order."""
    rows = cur.execute(
        f"""SELECT {", ".join("q." + c for c in _QT_COLUMNS)} FROM query_types q
        JOIN groups g ON g.group_id = ? AND list_contains(g.enabled_query_types, q.key)
        WHERE q.active ORDER BY q.created_at, q.key""",
        [group_id],
    ).fetchall()
    return [_query_type(r) for r in rows]


def _layout(row: tuple[Any, ...]) -> dict[str, Any]:
    layout_id, _, spec, active, created_at, updated_at, group_id, ready, copied_from = row
    s = json.loads(spec)
    return {
        "id": layout_id,
        "fileName": s["file_name"],
        "finalFileName": s["final_file_name"],
        "returnExtension": s["return_extension"],
        "acceptedExtension": s["accepted_extension"],
        "kind": s["kind"],
        "delimiter": s["delimiter"],
        "firstLine": s["first_line"],
        "table": s["table"],
        "rows": s["rows"],
        "active": active,
        "createdAt": created_at,
        "updatedAt": updated_at,
        "groupId": group_id,
        "ready": ready,
        "copiedFrom": copied_from,
    }


def _visible(viewer_group: str | None, scope: str | None) -> tuple[str, list[object]]:
    """Which layouts a list shows: ``ready`` the shipped ones; ``mine`` the viewer's group's own (a
    super-admin's ``viewer_group`` None: the platform's catalogue less the ready ones); neither, both."""
    ready = "ready IS NOT NULL"
    args: list[object] = []
    if viewer_group is None:
        mine = "(ready IS NULL AND group_id IS NULL)"
    else:
        mine, args = "group_id = ?", [viewer_group]
    if scope == "ready":
        return ready, []
    if scope == "mine":
        return mine, args
    if viewer_group is None:
        return "1 = 1", []
    return f"({ready} OR {mine})", args


def layouts_page(
    cur: duckdb.DuckDBPyConnection,
    search: str | None = None,
    active: bool | None = None,
    offset: int = 0,
    limit: int = 20,
    viewer_group: str | None = None,
    scope: str | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """A page of layouts a viewer sees: a super-admin (``viewer_group`` None) every one; an owner or an
    admin the ready layouts and their group's own (``scope`` narrows to either)."""
    where, args = _visible(viewer_group, scope)
    searched = "(file_name ILIKE ? OR spec ILIKE ?)" if search else "1 = 1"
    if search:
        args = [*args, f"%{search}%", f"%{search}%"]
    if active is not None:
        searched += " AND active = ?"
        args = [*args, active]
    condition = f"{where} AND {searched}"
    total = first_row(cur.execute(f"SELECT count(*) FROM layouts WHERE {condition}", args))[0]
    rows = cur.execute(
        f"""SELECT {", ".join(_LAYOUT_COLUMNS)} FROM layouts WHERE {condition}
        ORDER BY ready IS NOT NULL, created_at, layout_id LIMIT ? OFFSET ?""",
        [*args, limit, offset],
    ).fetchall()
    return [_layout(r) for r in rows], int(total)


def layout(cur: duckdb.DuckDBPyConnection, layout_id: str, viewer_group: str | None = None) -> dict[str, Any] | None:
    """One layout, if the viewer sees it (``viewer_group`` None: a super-admin, every one)."""
    where, args = _visible(viewer_group, None)
    row = first_row(
        cur.execute(
            f"SELECT {', '.join(_LAYOUT_COLUMNS)} FROM layouts WHERE layout_id = ? AND {where}", [layout_id, *args]
        )
    )
    return _layout(row) if row else None


def enabled_layouts(cur: duckdb.DuckDBPyConnection, group_id: str) -> list[dict[str, Any]]:
    """The active layouts a group may use: those enabled for it and its own."""
    rows = cur.execute(
        f"""SELECT {", ".join("l." + c for c in _LAYOUT_COLUMNS)} FROM layouts l
        WHERE l.active AND (l.group_id = ? OR EXISTS (
            SELECT 1 FROM group_layouts gl WHERE gl.layout_id = l.layout_id AND gl.group_id = ?))
        ORDER BY l.group_id IS NULL, l.created_at, l.layout_id""",
        [group_id, group_id],
    ).fetchall()
    return [_layout(r) for r in rows]

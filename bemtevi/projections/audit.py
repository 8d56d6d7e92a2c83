"""The audit log: who did what, for which tenant, when: one compact row per domain event.

Every event already carries actor, tenant and time (``AuditedAggregate``); this read model
keeps them in one table with the aggregate, the event and a short summary, so the audit
screen filters and exports without touching the event store.

Performance decision (see ``bench/projector.py``): the hot, many events are not folded here.
Credit movements and recorded consultations are already read models that say who did what
(``credit_movements.actor_id``, ``consultations.user_id``), so the audit query reads them in
place, at query time: grants and limit changes from ``credit_movements`` (reservations,
settlements and releases are the lookups themselves) and each lookup from ``consultations``.
Catch-up on a million of those events therefore costs this read model nothing. Index claims
(``UniqueIndex``) are skipped too: each is saved in the same append as the group or user it
belongs to, whose own event is the audit row. The rest are rare (registrations, edits,
sign-ins, mail) and decoded, which lets the summary be written in Python.
"""

from __future__ import annotations

import importlib
import pkgutil
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

import bemtevi.domain
from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.consultations import Consultation
from bemtevi.domain.credits import CreditAccount
from bemtevi.domain.indexes import UniqueIndex
from bemtevi.projections.base import PageFold, ReadModel, first_row, utc_wall_times

AUDIT_DDL = """
CREATE TABLE IF NOT EXISTS audit_events (
    position BIGINT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    tenant_id VARCHAR NOT NULL,
    actor_id VARCHAR,
    aggregate_type VARCHAR NOT NULL,
    event_type VARCHAR NOT NULL,
    aggregate_id VARCHAR NOT NULL,
    summary VARCHAR NOT NULL
)
"""

# Aggregates whose events the audit read model does not fold (see the module's docstring).
_SKIPPED_AGGREGATES: tuple[type[Any], ...] = (CreditAccount, Consultation, UniqueIndex)
# Fields every event has (they are columns) and fields never to show (secrets, bytes, bodies).
_BASE_FIELDS = frozenset(
    {"originator_id", "originator_version", "timestamp", "actor_id", "tenant_id", "originator_topic"}
)
_HIDDEN_WORDS = ("password", "hash", "secret", "token", "code", "data", "body", "html", "text")
SUMMARY_LENGTH = 240


def _subclasses(cls: type[Any]) -> list[type[Any]]:
    found: list[type[Any]] = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_subclasses(sub))
    return found


def audited_event_types() -> tuple[type[Any], ...]:
    """Every event class of every Bemtevi aggregate, except the skipped ones."""
    for module in pkgutil.iter_modules(bemtevi.domain.__path__):
        importlib.import_module(f"bemtevi.domain.{module.name}")
    types: dict[str, type[Any]] = {}
    for aggregate in _subclasses(AuditedAggregate):
        if issubclass(aggregate, _SKIPPED_AGGREGATES):
            continue
        for value in vars(aggregate).values():
            if isinstance(value, type) and issubclass(value, AuditedAggregate.Event):
                types[f"{value.__module__}.{value.__qualname__}"] = value
    return tuple(types[k] for k in sorted(types))


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_short(v)}" for k, v in value.items() if v not in (None, "", [], {})) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    text = str(value)
    if text.startswith("/api/group/"):
        return "(image)"
    return text if len(text) <= 40 else text[:37] + "..."


def summarise(event: Any) -> str:
    """The event's own fields, shortened, secrets left out: 'name=Acme; cnpj=...'."""
    parts = []
    for key, value in vars(event).items():
        if key in _BASE_FIELDS or any(word in key.lower() for word in _HIDDEN_WORDS):
            continue
        if value in (None, "", [], {}):
            continue
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if not any(w in k.lower() for w in _HIDDEN_WORDS)}
        parts.append(f"{key}={_short(value)}")
    text = "; ".join(parts)
    return text if len(text) <= SUMMARY_LENGTH else text[: SUMMARY_LENGTH - 3] + "..."


class _AuditFold(PageFold):
    def __init__(self) -> None:
        self.rows: dict[str, list[Any]] = {
            k: []
            for k in ("position", "tenant_id", "actor_id", "aggregate_type", "event_type", "aggregate_id", "summary")
        }
        self.times: list[datetime] = []

    def apply(self, event: Any, position: int) -> None:
        aggregate_type, _, event_type = type(event).__qualname__.rpartition(".")
        actor = getattr(event, "actor_id", None)
        self.rows["position"].append(position)
        self.rows["tenant_id"].append(str(event.tenant_id))
        self.rows["actor_id"].append(str(actor) if actor else None)
        self.rows["aggregate_type"].append(aggregate_type or event_type)
        self.rows["event_type"].append(event_type)
        self.rows["aggregate_id"].append(str(event.originator_id))
        self.rows["summary"].append(summarise(event))
        self.times.append(event.timestamp)

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if not self.times:
            return
        page = pa.table(
            {
                "position": pa.array(self.rows["position"], type=pa.int64()),
                "created_at": utc_wall_times(self.times),
                **{k: pa.array(v, type=pa.string()) for k, v in self.rows.items() if k != "position"},
            }
        )
        cur.register("page_audit", page)
        try:
            cur.execute(
                "INSERT INTO audit_events SELECT position, created_at, tenant_id, actor_id, aggregate_type, "
                "event_type, aggregate_id, summary FROM page_audit"
            )
        finally:
            cur.unregister("page_audit")


class AuditReadModel(ReadModel):
    name = "audit"
    version = 1
    tables = ("audit_events",)

    def __init__(self) -> None:
        self.event_types = audited_event_types()

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(AUDIT_DDL)

    def fold(self) -> PageFold:
        return _AuditFold()


# -- queries ---------------------------------------------------------------------------------

# The audit rows, with the hot read models' rows that say who did what (read in place).
_ALL_EVENTS = """
    SELECT position, created_at, tenant_id, actor_id, aggregate_type, event_type, aggregate_id, summary
    FROM audit_events
    UNION ALL
    SELECT position, created_at, group_id, actor_id, 'CreditAccount',
           CASE kind WHEN 'grant' THEN 'Granted' WHEN 'grant_received' THEN 'GrantReceived' ELSE 'LimitChanged' END,
           account_id,
           'category=' || category || '; amount=' || amount
               || coalesce('; counterparty_group_id=' || counterparty_group_id, '')
               || '; limit=' || coalesce(credit_limit::VARCHAR, 'unlimited')
    FROM credit_movements WHERE kind IN ('grant', 'grant_received', 'limit_change')
    UNION ALL
    SELECT position, created_at, group_id, user_id, 'Consultation', 'Recorded', consultation_id,
           'document=' || document || '; query_type=' || query_type || '; status=' || status
               || '; credits=' || credits || '; channel=' || channel
    FROM consultations
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
    "summary",
)


def audit_page(
    cur: duckdb.DuckDBPyConnection,
    group_ids: list[str],
    *,
    user_id: str | None = None,
    event_type: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
    offset: int = 0,
    limit: int | None = 50,
) -> tuple[list[dict[str, Any]], int]:
    """Events acted for one of ``group_ids`` (or on one of them), newest first; times are UTC."""
    where = ["(e.tenant_id IN (SELECT unnest(?::VARCHAR[])) OR e.aggregate_id IN (SELECT unnest(?::VARCHAR[])))"]
    params: list[Any] = [group_ids, group_ids]
    if user_id:
        where.append("e.actor_id = ?")
        params.append(user_id)
    if event_type:
        where.append("(e.aggregate_type = ? OR e.aggregate_type || '.' || e.event_type = ?)")
        params += [event_type, event_type]
    if start is not None:
        where.append("e.created_at >= ?")
        params.append(start)
    if end is not None:
        where.append("e.created_at < ?")
        params.append(end)
    condition = " AND ".join(where)
    total = first_row(cur.execute(f"SELECT count(*) FROM ({_ALL_EVENTS}) e WHERE {condition}", params))
    page = "" if limit is None else f"LIMIT {int(limit)} OFFSET {int(offset)}"
    rows = cur.execute(
        f"""
        SELECT e.position, e.created_at, e.tenant_id, g.name, e.actor_id, u.name, u.email,
               e.aggregate_type, e.event_type, e.aggregate_id, e.summary
        FROM ({_ALL_EVENTS}) e
        LEFT JOIN groups g ON g.group_id = e.tenant_id
        LEFT JOIN users u ON u.user_id = e.actor_id
        WHERE {condition}
        ORDER BY e.position DESC, e.aggregate_type
        {page}
        """,
        params,
    ).fetchall()
    return [dict(zip(AUDIT_COLUMNS, r, strict=True)) for r in rows], int(total[0]) if total else 0


def audit_types(cur: duckdb.DuckDBPyConnection) -> list[str]:
    """The aggregate types the filter offers."""
    rows = cur.execute(f"SELECT DISTINCT aggregate_type FROM ({_ALL_EVENTS}) e ORDER BY 1").fetchall()
    return [r[0] for r in rows]

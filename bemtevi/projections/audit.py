"""The audit log: who did what, to what, for which tenant, when, and what changed.

Every event already carries actor, tenant and time (``AuditedAggregate``); this read model
keeps, per event, one row with the aggregate, the event, its target (the user, company, e-mail
address or document it is about) and the fields it changed as ``[{field, before, after, kind}]``
(JSON), so the screen shows "role: user → admin" without parsing anything. "Before" is the value
the same aggregate's earlier events left: the fold keeps the last value of every shown field in
``audit_values`` (one row per aggregate and field), so an edit that re-sends a whole form shows
only the fields that differ. Beside the changes, ``details`` keeps every field of
the event a person may read (changed or not): the words of the row's sentence on the screen ("sent clientes.csv,
1,200 records, with the layout ..."). Names are resolved when read (actor and target by id against the
directory, ids in the changes and details by ``audit_queries``), so a renamed user shows their current name on
their old rows. Secrets never enter: which fields an event shows, and what it is about, is ``audit_fields``.

Performance decision (see ``bench/projector.py``): the hot, many events are not folded here.
Credit movements and recorded consultations are already read models that say who did what
(``credit_movements.actor_id``, ``consultations.user_id``), so the audit query reads them in
place, at query time: grants and limit changes from ``credit_movements`` (reservations,
settlements and releases are the lookups themselves) and each lookup from ``consultations``.
Catch-up on a million of those events therefore costs this read model nothing. Index claims
(``UniqueIndex``) are skipped too: each is saved in the same append as the group or user it
belongs to, whose own event is the audit row. The rest are rare (registrations, edits,
sign-ins, mail) and decoded, which lets the changes be worked out in Python.
"""

from __future__ import annotations

import functools
import importlib
import json
import pkgutil
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

import bemtevi.domain
from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.consultations import Consultation
from bemtevi.domain.credits import CreditAccount
from bemtevi.domain.idempotency import IdempotentRequest
from bemtevi.domain.indexes import UniqueIndex
from bemtevi.domain.leases import LeaseTally
from bemtevi.domain.query_types import QueryTypeDefaults
from bemtevi.domain.vendors import VendorList
from bemtevi.projections.audit_fields import event_target, is_image, shown_fields
from bemtevi.projections.base import PageFold, ReadModel, utc_wall_times

AUDIT_DDL = """
CREATE TABLE IF NOT EXISTS audit_events (
    position BIGINT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    tenant_id VARCHAR NOT NULL,
    actor_id VARCHAR,
    aggregate_type VARCHAR NOT NULL,
    event_type VARCHAR NOT NULL,
    aggregate_id VARCHAR NOT NULL,
    -- What the event is about: 'user' and 'group' ids are named when read; others carry a label.
    target_type VARCHAR,
    target_id VARCHAR,
    target_label VARCHAR,
    -- JSON [{"field", "before", "after", "kind": "value" | "image"}], only fields that changed.
    changes VARCHAR NOT NULL,
    -- JSON {"field": value}: every field the event carries a person may read (changed or not), the
    -- words of the row's sentence ("sent clientes.csv (1,200 records)").
    details VARCHAR NOT NULL
)
"""

VALUES_DDL = """
CREATE TABLE IF NOT EXISTS audit_values (
    aggregate_id VARCHAR NOT NULL,
    field VARCHAR NOT NULL,
    value VARCHAR,
    PRIMARY KEY (aggregate_id, field)
)
"""

# Aggregates whose events the audit read model does not fold (see the module's docstring).
# ``QueryTypeDefaults``, ``VendorList`` and ``LeaseTally`` are bookkeeping saved with the change they serve: a
# default moving shows as each query type's ``DefaultChanged``, a supplier added as its ``Registered``, a lease's
# count as its consultations. ``IdempotentRequest``: a client's retry bookkeeping; the lookup or batch it made is
# the audit row.
_SKIPPED_AGGREGATES: tuple[type[Any], ...] = (
    CreditAccount,
    Consultation,
    LeaseTally,
    UniqueIndex,
    QueryTypeDefaults,
    VendorList,
    IdempotentRequest,
)
# The aggregates whose events are read in place from other read models (see the module's docstring), and the
# kinds of row they give the log.
IN_PLACE_KINDS = (
    "CreditAccount.Granted",
    "CreditAccount.GrantReceived",
    "CreditAccount.LimitChanged",
    "Consultation.Recorded",
)
# Where an aggregate's events name their target; the rest name it on an earlier event (below).
_TARGET_KEY = "@target"


def _subclasses(cls: type[Any]) -> list[type[Any]]:
    found: list[type[Any]] = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_subclasses(sub))
    return found


@functools.cache
def audited_event_types() -> tuple[type[Any], ...]:
    """Every event class of every Bemtevi aggregate, except the skipped ones (found once: the domain's classes
    are fixed once its modules are imported, and each read store's start asks)."""
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


def audit_event_kinds() -> list[str]:
    """Every kind of row the audit log can show, as "Aggregate.Event": the events this read model folds
    (each aggregate's base ``Event`` and the library's unused ``Created`` left out) and the ones read in place.
    The API publishes the list; the web app has a sentence for each in both languages (its test checks)."""
    kinds: set[str] = set(IN_PLACE_KINDS)
    by_aggregate: dict[str, list[type[Any]]] = {}
    for event_type in audited_event_types():
        by_aggregate.setdefault(event_type.__qualname__.rpartition(".")[0], []).append(event_type)
    for aggregate, types in by_aggregate.items():
        creations = [t for t in types if issubclass(t, AuditedAggregate.Created)]
        for event_type in types:
            name = event_type.__qualname__.rpartition(".")[2]
            if name == "Event":
                continue
            # The library defines a generic ``Created`` beside the aggregate's own creation event ("Submitted").
            if name == "Created" and len(creations) > 1:
                continue
            kinds.add(f"{aggregate}.{name}")
    return sorted(kinds)


class _AuditFold(PageFold):
    def __init__(self) -> None:
        self.events: list[tuple[int, Any, dict[str, str | None], tuple[str, str, str | None] | None]] = []

    def apply(self, event: Any, position: int) -> None:
        self.events.append((position, event, shown_fields(event), event_target(event)))

    def write(self, cur: duckdb.DuckDBPyConnection) -> None:
        if not self.events:
            return
        ids = sorted({str(e.originator_id) for _, e, _, _ in self.events})
        known: dict[str, dict[str, str | None]] = {}
        for aggregate_id, field, value in cur.execute(
            "SELECT aggregate_id, field, value FROM audit_values WHERE aggregate_id IN (SELECT unnest(?::VARCHAR[]))",
            [ids],
        ).fetchall():
            known.setdefault(aggregate_id, {})[field] = value
        columns: dict[str, list[Any]] = {
            k: []
            for k in (
                "position",
                "tenant_id",
                "actor_id",
                "aggregate_type",
                "event_type",
                "aggregate_id",
                "target_type",
                "target_id",
                "target_label",
                "changes",
                "details",
            )
        }
        times: list[datetime] = []
        touched: dict[tuple[str, str], str | None] = {}
        for position, event, fields, target in self.events:
            aggregate_id = str(event.originator_id)
            state = known.setdefault(aggregate_id, {})
            if (target is None or target[2] is None) and state.get(_TARGET_KEY):
                kind, _, rest = str(state[_TARGET_KEY]).partition(":")
                target_id, _, label = rest.partition(":")
                target = (kind, target_id, label or None) if target is None else (*target[:2], label or None)
            elif target is not None and (_TARGET_KEY not in state or target[2] is not None):
                # Kept from the first event; a new label (a renamed layout) replaces the old one.
                kept = f"{target[0]}:{target[1]}:{target[2] or ''}"
                if state.get(_TARGET_KEY) != kept:
                    state[_TARGET_KEY] = kept
                    touched[(aggregate_id, _TARGET_KEY)] = kept
            changes = []
            for field, after in fields.items():
                before = state.get(field)
                if before == after:
                    continue
                image = is_image(before) or is_image(after) or field == "photo"
                changes.append(
                    {
                        "field": field,
                        "before": None if image else before,
                        "after": None if image else after,
                        "kind": "image" if image else "value",
                    }
                )
                state[field] = after
                touched[(aggregate_id, field)] = after
            aggregate_type, _, event_type = type(event).__qualname__.rpartition(".")
            actor = getattr(event, "actor_id", None)
            columns["position"].append(position)
            columns["tenant_id"].append(str(event.tenant_id))
            columns["actor_id"].append(str(actor) if actor else None)
            columns["aggregate_type"].append(aggregate_type or event_type)
            columns["event_type"].append(event_type)
            columns["aggregate_id"].append(aggregate_id)
            columns["target_type"].append(target[0] if target else None)
            columns["target_id"].append(target[1] if target else None)
            columns["target_label"].append(target[2] if target else None)
            columns["changes"].append(json.dumps(changes, ensure_ascii=False))
            # Images are named by their digest or path: the sentence needs only that one changed.
            columns["details"].append(
                json.dumps({k: v for k, v in fields.items() if not is_image(v) and k != "photo"}, ensure_ascii=False)
            )
            times.append(event.timestamp)
        page = pa.table(
            {
                "position": pa.array(columns["position"], type=pa.int64()),
                "created_at": utc_wall_times(times),
                **{k: pa.array(v, type=pa.string()) for k, v in columns.items() if k != "position"},
            }
        )
        values = pa.table(
            {
                "aggregate_id": pa.array([k[0] for k in touched], type=pa.string()),
                "field": pa.array([k[1] for k in touched], type=pa.string()),
                "value": pa.array(list(touched.values()), type=pa.string()),
            }
        )
        cur.register("page_audit", page)
        cur.register("page_audit_values", values)
        try:
            cur.execute(
                "INSERT INTO audit_events SELECT position, created_at, tenant_id, actor_id, aggregate_type, "
                "event_type, aggregate_id, target_type, target_id, target_label, changes, details FROM page_audit"
            )
            cur.execute(
                "INSERT INTO audit_values SELECT aggregate_id, field, value FROM page_audit_values "
                # The key named: the lake's statements (bench/lake.py) turn an upsert into a MERGE on it.
                "ON CONFLICT (aggregate_id, field) DO UPDATE SET value = excluded.value"
            )
        finally:
            cur.unregister("page_audit")
            cur.unregister("page_audit_values")


class AuditReadModel(ReadModel):
    name = "audit"
    # 3: catalogue and supplier events flattened into fields, their targets named, bookkeeping skipped.
    # 4: every row's details (the words of its sentence); batches, API tokens and data-subject reports named.
    # 5: an uploaded brand image named by its format and size.
    version = 5
    tables = ("audit_events", "audit_values")

    def __init__(self) -> None:
        self.event_types = audited_event_types()

    def create(self, cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(AUDIT_DDL)
        cur.execute(VALUES_DDL)

    def fold(self) -> PageFold:
        return _AuditFold()

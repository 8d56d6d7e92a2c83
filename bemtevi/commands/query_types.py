"""The write side's reader of the query type catalogue (``domain.query_types.QueryTypeCatalogue``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from uuid import UUID

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.errors import DefaultQueryNotFound, QueryNotFound
from bemtevi.domain.query_types import (
    DEFAULTS_ID,
    DocumentKind,
    QueryType,
    QueryTypeDefaults,
    QueryTypeDefinition,
    query_type_id,
)


class StoredQueryTypes:
    """The query type catalogue as the event store holds it: the one reader the write side uses (the
    embedded ledger, the ledger workers of cluster mode, a lookup's outcome).

    Each type is loaded from the store (its few events, or a snapshot) and kept ``max_age`` seconds;
    this process's saves and, in an API process, every process's saves seen on the log
    (``streams.invalidator``) drop it at once, so an inactivation stops new lookups here at once and on a
    ledger worker (which follows no log) within ``max_age``."""

    def __init__(self, app: BemteviApplication, max_age: float = 1.0) -> None:
        self._app = app
        self._max_age = max_age
        self._kept: dict[UUID, tuple[float, object]] = {}
        self._lock = threading.Lock()
        app.on_stale(self._forget)

    def _forget(self, ids: Iterable[UUID]) -> None:
        with self._lock:
            for aggregate_id in ids:
                self._kept.pop(aggregate_id, None)

    def _load(self, aggregate_id: UUID, kind: type[AuditedAggregate]) -> object:
        now = time.monotonic()
        with self._lock:
            kept = self._kept.get(aggregate_id)
        if kept is not None and now - kept[0] < self._max_age:
            return kept[1]
        found = self._app.find(aggregate_id, kind)
        value: object = None
        if isinstance(found, QueryTypeDefinition):
            value = found.value()
        elif isinstance(found, QueryTypeDefaults):
            value = dict(found.defaults)
        with self._lock:
            self._kept[aggregate_id] = (now, value)
        return value

    def get(self, key: str) -> QueryType:
        found = self._load(query_type_id(key), QueryTypeDefinition)
        if not isinstance(found, QueryType):
            raise QueryNotFound(field="query_type")
        return found

    def default_for(self, kind: DocumentKind) -> QueryType:
        defaults = self._load(DEFAULTS_ID, QueryTypeDefaults)
        key = defaults.get(kind) if isinstance(defaults, dict) else None
        if not key:
            raise DefaultQueryNotFound(field="query_type")
        try:
            return self.get(key)
        except QueryNotFound as e:
            raise DefaultQueryNotFound(field="query_type") from e

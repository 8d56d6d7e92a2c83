"""Who did it, for which tenant: stamped on every event.

The events are the audit trail and the LGPD record of who consulted which document, so no
event may be written without an acting context. Commands open the context with
``acting_as(...)``; the base aggregate copies it into every event it triggers, which keeps the
stamp out of every method signature and makes forgetting it impossible (it raises).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Self
from uuid import UUID

from eventsourcing.domain import Aggregate

from bemtevi.domain.snapshots import TypedSnapshot


@dataclass(frozen=True, slots=True)
class Actor:
    """The acting user (None for the system itself) and the tenant group acted for."""

    user_id: UUID | None
    tenant_id: UUID


_current_actor: ContextVar[Actor | None] = ContextVar("bemtevi_actor", default=None)


class MissingActor(RuntimeError):
    """An event was triggered outside ``acting_as``: a programming error, never user input."""


@contextmanager
def acting_as(actor: Actor) -> Iterator[Actor]:
    token = _current_actor.set(actor)
    try:
        yield actor
    finally:
        _current_actor.reset(token)


def current_actor() -> Actor:
    actor = _current_actor.get()
    if actor is None:
        raise MissingActor("events can only be triggered inside acting_as(...)")
    return actor


def _stamp(kwargs: dict[str, Any]) -> dict[str, Any]:
    actor = current_actor()
    kwargs.setdefault("actor_id", actor.user_id)
    kwargs.setdefault("tenant_id", actor.tenant_id)
    return kwargs


class AuditedAggregate(Aggregate):
    """Base of every Bemtevi aggregate: each event carries actor, tenant and time.

    An aggregate declares each event as a nested class with the fields its ``@event(Name)`` method takes
    (``class Closed(AuditedAggregate.Event)``; ``AuditedAggregate.Created`` for ``__init__``'s), so that the type
    checker knows ``Session.Closed``. The topic stays ``module:Aggregate.Name``, as stored. Like the classes the
    library derived from ``@event("Name")`` before, they give no defaults: an event stored before a field was
    added gets the method's default when applied.
    """

    class Event(Aggregate.Event):
        actor_id: UUID | None
        tenant_id: UUID

    class Created(Event, Aggregate.Created):
        pass

    # Snapshots give back every field with its type (an enum, not its text).
    Snapshot = TypedSnapshot

    @classmethod
    def _create(cls, event_class: Any, *, id: Any = None, **kwargs: Any) -> Self:
        return super()._create(event_class, id=id, **_stamp(kwargs))

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        super().trigger_event(event_class, **_stamp(kwargs))

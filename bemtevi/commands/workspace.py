"""What one decision of the group commit (``commands/group_commit.py``) sees: the writer's aggregates in
memory, a place to add new aggregates and ready events to its batch, and the undo of what it changed.

A decision that raises is undone: the workspace notes how many unsaved events each aggregate had when
the decision first touched it, and the writer rebuilds any aggregate that gained events past that mark.
What a decision changed outside aggregates it undoes itself, through the inverses it registers
(``on_undo``), run when it raises and when its batch's append is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import StoredEvent

from bemtevi.domain.audit import AuditedAggregate

if TYPE_CHECKING:
    from bemtevi.commands.group_commit import GroupCommit

A = TypeVar("A", bound=AuditedAggregate)


class Workspace:
    """What a decision sees: the writer's aggregates, and a place to add new ones."""

    def __init__(self, writer: GroupCommit) -> None:
        self._writer = writer
        # Aggregate id -> its number of unsaved events when this decision first touched it.
        self.marks: dict[UUID, int] = {}
        self.added: list[AuditedAggregate] = []
        self.kept: list[AuditedAggregate] = []  # of those, the ones the writer keeps once saved
        self.events: list[DomainEventProtocol[UUID]] = []
        self._undo: list[Callable[[], Any]] = []

    def find(self, aggregate_id: UUID, kind: type[A]) -> A | None:
        aggregate = self._writer._load(aggregate_id)
        if aggregate is None:
            return None
        if not isinstance(aggregate, kind):
            return None
        if aggregate_id not in self.marks:
            self.marks[aggregate_id] = len(aggregate._pending_events)
        return aggregate

    def get(self, aggregate_id: UUID, kind: type[A]) -> A:
        aggregate = self.find(aggregate_id, kind)
        if aggregate is None:
            raise AggregateNotFoundError(aggregate_id)
        return aggregate

    def peek(self, aggregate_id: UUID, kind: type[A]) -> A | None:
        """An aggregate as stored, neither kept in memory nor saved with the batch: what a decision
        only checks and other processes write (a registration's claims)."""
        try:
            aggregate: object = self._writer._app.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None
        return aggregate if isinstance(aggregate, kind) else None

    def add(self, *aggregates: AuditedAggregate, keep: bool = False) -> None:
        """New aggregates to save with this batch. Saved, they are not kept in memory (a lookup's consultation is
        never decided on again) unless ``keep``: one the next decisions touch (a lease's tally, which its holder
        checks at every lookup drawn from it) is then found in memory instead of loaded from the store."""
        self.added.extend(aggregates)
        if keep:
            self.kept.extend(aggregates)

    def add_events(self, *events: DomainEventProtocol[UUID]) -> None:
        """Ready events decided elsewhere, to save with this batch (before its aggregates)."""
        self.events.extend(events)

    def adds_events_of(self, aggregate_id: UUID) -> bool:
        """Whether an earlier decision of this batch adds ready events of this aggregate (two
        registrations claiming one value in one batch: the second is refused, not the batch's append)."""
        return aggregate_id in self._writer._batch_event_ids

    def to_domain_event(self, stored: StoredEvent) -> DomainEventProtocol[UUID]:
        """A stored event as the application's mapper reads it back."""
        return self._writer._app.mapper.to_domain_event(stored)

    def on_undo(self, inverse: Callable[[], Any]) -> None:
        """Undo a change this decision made outside aggregates, should the decision raise or its
        batch's append be refused (inverses run last registered first)."""
        self._undo.append(inverse)

    def undo_outside(self) -> None:
        """The changes made outside aggregates, undone (the aggregates are the writer's to reload)."""
        undo, self._undo = self._undo, []
        for inverse in reversed(undo):
            inverse()

    def undo(self) -> None:
        self.undo_outside()
        for aggregate_id, mark in self.marks.items():
            aggregate = self._writer._cache.get(aggregate_id)
            if aggregate is not None and len(aggregate._pending_events) != mark:
                self._writer._rebuild(aggregate, mark)

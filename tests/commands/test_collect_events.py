"""BemteviApplication.save collects pending events as the library's save does, without the
library's runtime-protocol checks for aggregates and events."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

from eventsourcing.application import ProcessingEvent

from bemtevi.commands.application import _ProcessingEvent
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.credits import CreditAccount
from bemtevi.domain.query_types import Category
from bemtevi.domain.sessions import Session


class NotAnAggregate:
    """Has pending events to collect, but is not an aggregate class: the library's checks decide."""

    def __init__(self, events: list[Any]) -> None:
        self.id = uuid4()
        self.events = events

    def collect_events(self) -> list[Any]:
        collected, self.events = self.events, []
        return collected


def test_collects_as_the_library_does() -> None:
    def objects() -> list[Any]:
        with acting_as(Actor(None, uuid4())):
            account = CreditAccount.open(uuid4(), Category.UNIT, 10)
            account.reserve(uuid4(), 2)
            session = Session(user_id=uuid4(), group_id=uuid4(), role="user", expires_at=datetime.now(UTC))
            session.close("logout")
            lone = Session(user_id=uuid4(), group_id=uuid4(), role="user", expires_at=datetime.now(UTC))
            carried = CreditAccount.open(uuid4(), Category.BATCH, None)
            pretender = CreditAccount.open(uuid4(), Category.API, 1)
        # An aggregate with an event's attributes of its own is taken as an event by the library.
        object.__setattr__(pretender, "originator_id", pretender.id)
        object.__setattr__(pretender, "originator_version", 1)
        return [account, None, session, *lone.collect_events(), NotAnAggregate(carried.collect_events()), pretender]

    ours, theirs = _ProcessingEvent(), ProcessingEvent()
    ours_objects, their_objects = objects(), objects()
    ours.collect_events(*ours_objects, tag=1)
    theirs.collect_events(*their_objects, tag=1)
    assert [(type(e), getattr(e, "originator_version", None)) for e in ours.events] == [
        (type(e), getattr(e, "originator_version", None)) for e in theirs.events
    ]
    assert len(ours.events) == 7
    assert [type(a) for a in ours.aggregates.values()] == [type(a) for a in theirs.aggregates.values()]
    assert list(ours.aggregates.values()) == [ours_objects[i] for i in (0, 2, 4)]  # the pretender is an event
    assert ours.events[-1] is ours_objects[-1]
    assert ours.saved_kwargs == theirs.saved_kwargs == {"tag": 1}

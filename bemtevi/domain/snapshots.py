"""Snapshots that give back every field with its type.

The library's snapshot keeps ``vars(aggregate)`` and the store writes it as JSON, which brings
back a ``StrEnum`` as its text, a tuple as a list, a dict with non-text keys with text keys (or
refuses it), and cannot write a set at all. An aggregate loaded from such a snapshot is not the
one its events replay to (``user.role.value`` failed on a text): every snapshot taken here
therefore wraps each value JSON would not give back as it was in a ``TypedValue`` (the topic of
its type and its plain data), which the application's transcoder writes as one of its
``{"_type_", "_data_"}`` objects, and a snapshot restores them when it makes its aggregate.

UUIDs, datetimes, dates and decimals are left as they are: the transcoder's own transcodings
keep their types.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Self
from uuid import UUID

from eventsourcing.domain import BaseAggregate, MutableOrImmutableAggregate, Snapshot
from eventsourcing.utils import get_topic, resolve_topic

# Written and read back as themselves.
_PLAIN: frozenset[type] = frozenset({str, int, float, bool, type(None)})
# JSON writes these as a list (or not at all): their type is kept with them.
_COLLECTIONS: frozenset[type] = frozenset({tuple, set, frozenset})


@dataclass(frozen=True, slots=True)
class TypedValue:
    """A value as its type's topic and data that JSON gives back exactly (``type(data)`` makes it again)."""

    topic: str
    data: Any

    def restore(self) -> Any:
        return resolve_topic(self.topic)(restored(self.data))


def portable(value: Any) -> Any:
    """``value`` with every part JSON would give back as another type wrapped in a ``TypedValue``."""
    cls = type(value)
    if cls in _PLAIN:
        return value
    if cls is list:
        return [portable(v) for v in value]
    if cls is dict:
        if all(type(k) is str for k in value):
            return {k: portable(v) for k, v in value.items()}
        # Keys JSON would turn into text (numbers, enums) or refuse (UUIDs, tuples): kept as pairs.
        return TypedValue(get_topic(dict), [[portable(k), portable(v)] for k, v in value.items()])
    if cls in _COLLECTIONS:
        return TypedValue(get_topic(cls), [portable(v) for v in value])
    if isinstance(value, Enum):
        return TypedValue(get_topic(cls), portable(value.value))
    for base in (str, int, float):
        if isinstance(value, base):  # a subclass, which JSON writes as its base type
            return TypedValue(get_topic(cls), base(value))
    return value


def restored(value: Any) -> Any:
    """What ``portable`` was given."""
    cls = type(value)
    if cls is TypedValue:
        return value.restore()
    if cls is dict:
        return {k: restored(v) for k, v in value.items()}
    if cls is list:
        return [restored(v) for v in value]
    return value


class TypedSnapshot(Snapshot):
    """The library's snapshot, whose state keeps the type of every field (see the module's docstring)."""

    @classmethod
    def take(cls, aggregate: MutableOrImmutableAggregate[UUID]) -> Self:
        snapshot = super().take(aggregate)
        return replace(snapshot, state=portable(snapshot.state))

    def mutate(self, _: None) -> BaseAggregate[UUID]:
        return Snapshot.mutate(replace(self, state=restored(self.state)), None)

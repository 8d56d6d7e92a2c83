"""Unique values (e-mail, domain, CNPJ) as index aggregates.

The eventsourcing library's pattern: an aggregate whose id is uuid5 of the normalised value,
saved in the same atomic save as the aggregate it points to. A second registration of the
same value collides on the event store's unique (id, version) key, even under concurrency.
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate

_NAMESPACE = uuid5(NAMESPACE_URL, "https://bemtevi.example/index")


class UniqueIndex(AuditedAggregate):
    class Claimed(AuditedAggregate.Created):
        kind: str
        value: str
        ref: UUID

    @event(Claimed)
    def __init__(self, kind: str, value: str, ref: UUID) -> None:
        self.kind = kind
        self.value = value
        self.ref = ref
        self.released = False

    @property
    def taken(self) -> bool:
        # An index saved before releases existed has no attribute: it is taken.
        return not getattr(self, "released", False)

    class Released(AuditedAggregate.Event):
        pass

    @event(Released)
    def release(self) -> None:
        """The value is free again (a group changed its domain, CNPJ, ...): another may claim it."""
        self.released = True

    class Reclaimed(AuditedAggregate.Event):
        ref: UUID

    @event(Reclaimed)
    def reclaim(self, ref: UUID) -> None:
        """A released value claimed again; two reclaims of one version collide like two claims."""
        self.ref = ref
        self.released = False

    @staticmethod
    def create_id(kind: str, value: str) -> UUID:
        return index_id(kind, value)


def index_id(kind: str, value: str) -> UUID:
    return uuid5(_NAMESPACE, f"{kind}:{value}")


USER_EMAIL = "user-email"
GROUP_DOMAIN = "group-domain"
GROUP_CNPJ = "group-cnpj"
GROUP_NAME = "group-name"
GROUP_PHONE = "group-phone"
GROUP_EMAIL = "group-email"

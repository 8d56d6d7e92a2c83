"""The ledger's requests: frozen dataclasses of plain values, each decided in the partition of its group.

Every movement of a credit account is one of these, carried to the ledger by a ``LedgerClient`` (encoded
by ``codec``) and decided by ``decider.Ledger``. Each answers a value (``value_from_json`` rebuilds it on
the caller's side) and is idempotent: Kafka delivers at least once (see README.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, get_args
from uuid import UUID

from bemtevi.domain.audit import Actor
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import ReasonKind, credit_account_id
from bemtevi.domain.documents import DocumentKind
from bemtevi.domain.query_types import Category

CREDITS_PER_UNIT_QUERY = 1
# A lookup's channel names its credits: /api/v1's the API credits, an advanced search's result the advanced ones.
API_CHANNEL = "api"
ADVANCED_CHANNEL = "advanced"


def lookup_category(channel: str) -> Category:
    if channel == API_CHANNEL:
        return Category.API
    return Category.ADVANCED if channel == ADVANCED_CHANNEL else Category.UNIT


# The accounts whose units may be leased (an advanced query's opened result is decided one by one).
LEASED_CATEGORIES = frozenset({Category.UNIT.value, Category.API.value})

# The fewest units a lease is granted with: an account with fewer free has its lookups decided one by one.
LEASE_MIN = 4


class _KeyedByGroup:
    """A request decided in the partition of its ``group_id``, the group whose accounts it moves."""

    __slots__ = ()
    group_id: UUID

    @property
    def partition_key(self) -> UUID:
        return self.group_id


class _AnsweredByPosition(_KeyedByGroup):
    """A request whose answer carries no value: only the position of the append that decided it."""

    __slots__ = ()

    @staticmethod
    def value_from_json(raw: Any) -> None:
        return None


class _UnitLookup(_KeyedByGroup):
    """A unit lookup's request: its group's unit account, and its user acting for that group."""

    __slots__ = ()
    user_id: UUID

    @property
    def account_id(self) -> UUID:
        return credit_account_id(self.group_id, lookup_category(getattr(self, "channel", "")))

    @property
    def actor(self) -> Actor:
        return Actor(user_id=self.user_id, tenant_id=self.group_id)


@dataclass(frozen=True, slots=True)
class ReserveLookup(_UnitLookup):
    """A unit lookup asks for its credit (answer: the query type it runs and the block it drew, or None)."""

    consultation_id: UUID
    group_id: UUID
    user_id: UUID
    document: str
    document_type: DocumentKind
    requested_type: str | None
    channel: str
    supplier: str
    # What the user said the lookup is for (``domain.consultations.purpose_of``); absent from older requests.
    purpose: str | None = None

    @staticmethod
    def value_from_json(raw: Any) -> tuple[str, str | None]:
        return raw[0], raw[1]

    def answered(self, status: ConsultationStatus) -> RecordLookup:
        """The same lookup once its supplier has answered, for one decision (``RecordLookup``)."""
        return RecordLookup(
            consultation_id=self.consultation_id,
            group_id=self.group_id,
            user_id=self.user_id,
            document=self.document,
            document_type=self.document_type,
            requested_type=self.requested_type,
            channel=self.channel,
            supplier=self.supplier,
            status=status.value,
            purpose=self.purpose,
        )

    def finished(self, query_type: str, block_id: str | None, status: ConsultationStatus) -> FinishLookup:
        return _finish_of(self, query_type, block_id, status.value)


@dataclass(frozen=True, slots=True)
class FinishLookup(_UnitLookup):
    """A lookup's supplier answered (or failed): settle or release, and record the consultation (answer: its time)."""

    consultation_id: UUID
    group_id: UUID
    user_id: UUID
    document: str
    document_type: DocumentKind
    query_type: str
    block_id: str | None
    channel: str
    supplier: str
    status: str
    purpose: str | None = None

    @property
    def charged(self) -> int:
        return CREDITS_PER_UNIT_QUERY if self.status == ConsultationStatus.DONE.value else 0

    @staticmethod
    def value_from_json(raw: Any) -> datetime:
        return datetime.fromisoformat(raw)


@dataclass(frozen=True, slots=True)
class RecordLookup(_UnitLookup):
    """A lookup its supplier has answered already (the local dataset: instant and free to ask, so nothing
    needs holding while it works): check, charge if found and record the consultation in one decision
    (answer: the query type it ran and the consultation's time). A lookup whose supplier costs time or
    money reserves first instead (``ReserveLookup``, then ``FinishLookup``)."""

    consultation_id: UUID
    group_id: UUID
    user_id: UUID
    document: str
    document_type: DocumentKind
    requested_type: str | None
    channel: str
    supplier: str
    status: str
    purpose: str | None = None

    @property
    def charged(self) -> int:
        return CREDITS_PER_UNIT_QUERY if self.status == ConsultationStatus.DONE.value else 0

    @staticmethod
    def value_from_json(raw: Any) -> tuple[str, datetime]:
        return raw[0], datetime.fromisoformat(raw[1])

    def finished(self, query_type: str, block_id: str) -> FinishLookup:
        """The same lookup drawn from a lease (``leases``): recorded as a finish of it."""
        return _finish_of(self, query_type, block_id, self.status)


def _finish_of(
    request: ReserveLookup | RecordLookup, query_type: str, block_id: str | None, status: str
) -> FinishLookup:
    return FinishLookup(
        consultation_id=request.consultation_id,
        group_id=request.group_id,
        user_id=request.user_id,
        document=request.document,
        document_type=request.document_type,
        query_type=query_type,
        block_id=block_id,
        channel=request.channel,
        supplier=request.supplier,
        status=status,
        purpose=request.purpose,
    )


class _ByParent(_AnsweredByPosition):
    """A parent's move on its child's accounts: its user acting for the parent group."""

    __slots__ = ()
    request_id: UUID
    user_id: UUID

    @property
    def actor(self) -> Actor:
        return Actor(user_id=self.user_id, tenant_id=self.group_id)


class _Work(_AnsweredByPosition):
    """A movement of work (a batch): its user (None: the system) acting for its tenant."""

    __slots__ = ()
    request_id: UUID
    user_id: UUID | None
    tenant_id: UUID

    @property
    def actor(self) -> Actor:
        return Actor(user_id=self.user_id, tenant_id=self.tenant_id)


@dataclass(frozen=True, slots=True)
class Grant(_ByParent):
    """Credits from the acting user's group (``group_id``) to its child (negative: taken back)."""

    request_id: UUID
    user_id: UUID
    group_id: UUID
    child_group_id: UUID
    category: str
    amount: int


@dataclass(frozen=True, slots=True)
class SetLimit(_ByParent):
    """A child's limit (None: unlimited); under a limited parent, a grant of the difference."""

    request_id: UUID
    user_id: UUID
    group_id: UUID
    child_group_id: UUID
    category: str
    limit: int | None


@dataclass(frozen=True, slots=True)
class ReserveWork(_Work):
    """Credits held for work other than a unit lookup (a batch)."""

    request_id: UUID
    user_id: UUID | None
    tenant_id: UUID
    group_id: UUID
    category: str
    reservation_id: UUID
    amount: int
    reason: str = ReasonKind.BATCH


@dataclass(frozen=True, slots=True)
class SettleWork(_Work):
    """Charge what the work used; the rest of its reservation is released."""

    request_id: UUID
    user_id: UUID | None
    tenant_id: UUID
    group_id: UUID
    category: str
    reservation_id: UUID
    amount: int


@dataclass(frozen=True, slots=True)
class ReleaseWork(_Work):
    request_id: UUID
    user_id: UUID | None
    tenant_id: UUID
    group_id: UUID
    category: str
    reservation_id: UUID


@dataclass(frozen=True, slots=True)
class ReleaseAbandoned(_KeyedByGroup):
    """Release the lookup reservations on a group's lookup account (unit, or API: ``lookup_category``) that
    another (stopped) owner left (answer: how many were released)."""

    group_id: UUID
    category: str = Category.UNIT.value

    @staticmethod
    def value_from_json(raw: Any) -> int:
        return int(raw)


@dataclass(frozen=True, slots=True)
class LeaseUnits(_UnitLookup):
    """Lease up to ``units`` of a busy group's lookup account (``category``: unit, or API for the public API's
    lookups) to the API process ``holder`` (``leases``): held for it as one reservation, the lease (answer: the
    units leased, 0 when the account has fewer than ``LEASE_MIN`` free or the group may not look up)."""

    lease_id: UUID
    group_id: UUID
    user_id: UUID
    units: int
    holder: str
    # Absent from a request of before API leases: the unit account.
    category: str = Category.UNIT.value

    @property
    def account_id(self) -> UUID:
        return credit_account_id(self.group_id, Category(self.category))

    @staticmethod
    def value_from_json(raw: Any) -> int:
        return int(raw)


@dataclass(frozen=True, slots=True)
class ReturnLease(_AnsweredByPosition):
    """A lease's holder is done with it: one unit is settled for each consultation in ``charged`` (recorded
    under the lease and found), and the rest goes back to the account of ``category`` it was leased from."""

    lease_id: UUID
    group_id: UUID
    charged: list[str]
    category: str = Category.UNIT.value  # absent from a request of before API leases: the unit account


@dataclass(frozen=True, slots=True)
class OpenAccounts:
    """A new group's registration: its credit accounts (each holding its quantity, granted out of the
    parent's account of its category) appended with the registration's other events (``events``, as
    stored: the group, its users, the claims on its unique values) in one append, once no value in
    ``claims`` is taken. Decided in the parent's partition (the root's own for the root's bootstrap).
    Answer: True, or False when the group exists already (delivered again, or the root registered by
    another process first): nothing is appended then."""

    group_id: UUID
    parent_id: UUID | None
    user_id: UUID | None
    tenant_id: UUID
    # Category value -> quantity (None: unlimited, only under an unlimited parent or with none).
    quantities: dict[str, int | None]
    # Stored events: topic, originator id and version, state (base64).
    events: list[dict[str, Any]]
    # [kind, value, message, field]: a value another holds refuses the registration with that message.
    claims: list[list[str]]

    @property
    def partition_key(self) -> UUID:
        return self.parent_id if self.parent_id is not None else self.group_id

    @property
    def actor(self) -> Actor:
        return Actor(user_id=self.user_id, tenant_id=self.tenant_id)

    @staticmethod
    def value_from_json(raw: Any) -> bool:
        return bool(raw)


Request = (
    ReserveLookup
    | FinishLookup
    | RecordLookup
    | Grant
    | SetLimit
    | ReserveWork
    | SettleWork
    | ReleaseWork
    | ReleaseAbandoned
    | LeaseUnits
    | ReturnLease
    | OpenAccounts
)
REQUEST_TYPES: dict[str, type[Any]] = {t.__name__: t for t in get_args(Request)}


def consultation_of(
    request: FinishLookup | RecordLookup, query_type: str, charged: int, lease_id: str | None = None
) -> Consultation:
    """The consultation a lookup's decision records (made while acting as the lookup's user); ``lease_id``:
    the lease whose unit it took (``leases``)."""
    return Consultation._create(
        Consultation.Recorded,
        id=request.consultation_id,
        group_id=request.group_id,
        user_id=request.user_id,
        document=request.document,
        document_type=request.document_type,
        query_type=query_type,
        category=lookup_category(request.channel).value,
        supplier=request.supplier,
        status=request.status,
        credits=charged,
        channel=request.channel,
        lease_id=lease_id,
        purpose=request.purpose,
    )

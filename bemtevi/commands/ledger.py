"""The ledger: the one module whose code appends credit events.

Every movement of a credit account (a lookup's reservation and its settlement or release, a lease of
a busy account's units to an API process and its settlement, a batch's reservation, settlement and
release, grants and limits, the release of reservations a dead owner left) is a *request*: a frozen
dataclass of plain values, encoded with orjson, with a partition key (the group whose accounts it
decides; a group's four accounts share it). ``Ledger`` turns a request
into a decision taken on a group-commit ``Workspace``; a ``LedgerClient`` carries requests to the
ledger and answers the decision's value and the position of its append:

- ``EmbeddedLedger``: this process's ``GroupCommit`` (the embedded deployment);
- ``bemtevi.streams.ledger_client.KafkaLedgerClient``: requests to the Kafka topic
  ``bemtevi.ledger`` keyed by partition key, decided by the ``bemtevi worker ledger`` process that
  owns the partition (``bemtevi.streams.ledger_worker``), the answer on a reply topic.

In front of either, in the process that serves lookups, ``bemtevi.commands.leases.LeasingLedger``: busy
accounts' lookups are drawn from leases of their units and recorded there, without a credit event of
their own, one request per lease instead of per lookup. The two deployments differ only in the transport.

A grant is decided in the parent's partition and writes the child's account too: should the
child's owner append to that account meanwhile, the event store's version check refuses the later
append and its batch is decided again on the new state, so the two owners never lose a movement.

Kafka delivers at least once, so every request is idempotent: a lookup's reservation for a
consultation whose credit is already held answers the same; its finish for a consultation already
recorded answers the recorded one (never a second charge); grants, limits and batch movements carry
a request id claimed in the same append (a ``UniqueIndex`` whose id is uuid5 of it), so one
delivered again answers "done" and changes nothing; a registration's ``OpenAccounts`` delivered again
finds its group in the store and appends nothing.

Registrations: a new group's credit accounts are opened here too, in the partition of the parent whose
accounts grant them (``OpenAccounts``). The registration (``commands.identity``, ``customers``,
``accounts``) builds its other aggregates (the group, its owner, the claims on unique values) and sends
their events with the request, as stored events; the ledger checks the claims, decides the accounts and
appends them with those events in one append: a group never exists without its accounts, and no API
process writes an account a ledger worker owns.
"""

from __future__ import annotations

import base64
import dataclasses
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, ClassVar, Protocol, TypeVar
from uuid import UUID, uuid4

import orjson
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import get_topic

from bemtevi.commands.group_commit import GroupCommit, Outcome, Workspace
from bemtevi.commands.query_types import StoredQueryTypes
from bemtevi.domain import errors as domain_errors
from bemtevi.domain.audit import Actor, AuditedAggregate, acting_as
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import (
    NOT_ENOUGH_MESSAGES,
    NOT_ENOUGH_TO_PROVIDE_MESSAGES,
    CreditAccount,
    ReasonKind,
    credit_account_id,
)
from bemtevi.domain.documents import DocumentKind
from bemtevi.domain.errors import (
    AccessDenied,
    DomainError,
    DuplicateValue,
    GroupInactive,
    GroupNotFound,
    InvalidData,
    NotEnoughCredits,
    NotEnoughToProvide,
    SearchFailed,
)
from bemtevi.domain.groups import Group
from bemtevi.domain.indexes import UniqueIndex, index_id
from bemtevi.domain.principals import SYSTEM
from bemtevi.domain.query_types import Category, QueryType, QueryTypeCatalogue, choose_query_type

log = logging.getLogger(__name__)

CREDITS_PER_UNIT_QUERY = 1
# The claim kind of a request id (grants, limits, batch movements): a redelivered request collides with it.
REQUEST_CLAIM = "ledger-request"


# -- requests --------------------------------------------------------------------------------------


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
        return credit_account_id(self.group_id, Category.UNIT)

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

    @property
    def charged(self) -> int:
        return CREDITS_PER_UNIT_QUERY if self.status == ConsultationStatus.DONE.value else 0

    @staticmethod
    def value_from_json(raw: Any) -> tuple[str, datetime]:
        return raw[0], datetime.fromisoformat(raw[1])

    def finished(self, query_type: str, block_id: str) -> FinishLookup:
        """The same lookup drawn from a lease (``commands.leases``): recorded as a finish of it."""
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
    )


@dataclass(frozen=True, slots=True)
class Grant(_AnsweredByPosition):
    """Credits from the acting user's group (``group_id``) to its child (negative: taken back)."""

    request_id: UUID
    user_id: UUID
    group_id: UUID
    child_group_id: UUID
    category: str
    amount: int


@dataclass(frozen=True, slots=True)
class SetLimit(_AnsweredByPosition):
    """A child's limit (None: unlimited); under a limited parent, a grant of the difference."""

    request_id: UUID
    user_id: UUID
    group_id: UUID
    child_group_id: UUID
    category: str
    limit: int | None


@dataclass(frozen=True, slots=True)
class ReserveWork(_AnsweredByPosition):
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
class SettleWork(_AnsweredByPosition):
    """Charge what the work used; the rest of its reservation is released."""

    request_id: UUID
    user_id: UUID | None
    tenant_id: UUID
    group_id: UUID
    category: str
    reservation_id: UUID
    amount: int


@dataclass(frozen=True, slots=True)
class ReleaseWork(_AnsweredByPosition):
    request_id: UUID
    user_id: UUID | None
    tenant_id: UUID
    group_id: UUID
    category: str
    reservation_id: UUID


@dataclass(frozen=True, slots=True)
class ReleaseAbandoned(_KeyedByGroup):
    """Release the lookup reservations on a group's unit account that another (stopped) owner left
    (answer: how many were released)."""

    group_id: UUID

    @staticmethod
    def value_from_json(raw: Any) -> int:
        return int(raw)


@dataclass(frozen=True, slots=True)
class LeaseUnits(_UnitLookup):
    """Lease up to ``units`` of a busy group's unit account to the API process ``holder`` (cluster mode,
    ``commands.leases``): held for it as one reservation, the lease (answer: the units leased, 0 when the
    account has fewer than ``LEASE_MIN`` free or the group may not look up)."""

    lease_id: UUID
    group_id: UUID
    user_id: UUID
    units: int
    holder: str

    @staticmethod
    def value_from_json(raw: Any) -> int:
        return int(raw)


@dataclass(frozen=True, slots=True)
class ReturnLease(_AnsweredByPosition):
    """A lease's holder is done with it: one unit is settled for each consultation in ``charged`` (recorded
    under the lease and found), and the rest goes back."""

    lease_id: UUID
    group_id: UUID
    charged: list[str]


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


def open_accounts(
    app: Any,
    actor: Actor,
    group: Group,
    quantities: Mapping[Category, int | None],
    others: list[AuditedAggregate],
    claims: Mapping[tuple[str, str], tuple[str, str | None]],
) -> OpenAccounts:
    """The request that registers ``group``: ``others`` (its owner, claims...) and the group itself go
    with it as their events (collected here: the ledger's append saves them); ``claims`` maps each
    (kind, value) to check to the refusal's (message, field). ``app``'s mapper encodes the events."""
    events = []
    for aggregate in (group, *others):
        for event in aggregate.collect_events():
            stored = app.mapper.to_stored_event(event)
            events.append(
                {
                    "topic": stored.topic,
                    "originator_id": str(stored.originator_id),
                    "originator_version": stored.originator_version,
                    "state": base64.b64encode(stored.state).decode(),
                }
            )
    return OpenAccounts(
        group_id=group.id,
        parent_id=group.parent_id,
        user_id=actor.user_id,
        tenant_id=actor.tenant_id,
        quantities={category.value: amount for category, amount in quantities.items()},
        events=events,
        claims=[[kind, value, message, field or ""] for (kind, value), (message, field) in claims.items()],
    )


def _stored(event: dict[str, Any]) -> StoredEvent:
    return StoredEvent(
        originator_id=UUID(event["originator_id"]),
        originator_version=int(event["originator_version"]),
        topic=event["topic"],
        state=base64.b64decode(event["state"]),
    )


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
REQUEST_TYPES: dict[str, type[Any]] = {
    t.__name__: t
    for t in (
        ReserveLookup,
        FinishLookup,
        RecordLookup,
        Grant,
        SetLimit,
        ReserveWork,
        SettleWork,
        ReleaseWork,
        ReleaseAbandoned,
        LeaseUnits,
        ReturnLease,
        OpenAccounts,
    )
}
_WORK_REQUESTS = (Grant, SetLimit, ReserveWork, SettleWork, ReleaseWork)
_UUID_FIELDS: dict[type[Any], frozenset[str]] = {
    t: frozenset(f.name for f in dataclasses.fields(t) if "UUID" in str(f.type)) for t in REQUEST_TYPES.values()
}


def request_to_json(request: Request) -> dict[str, Any]:
    fields = {f.name: getattr(request, f.name) for f in dataclasses.fields(request)}
    return {"kind": type(request).__name__, **fields}


def request_from_json(data: dict[str, Any]) -> Request:
    kind = REQUEST_TYPES[data["kind"]]
    uuids = _UUID_FIELDS[kind]
    fields = {
        f.name: (UUID(data[f.name]) if f.name in uuids and data[f.name] is not None else data[f.name])
        for f in dataclasses.fields(kind)
    }
    request: Request = kind(**fields)
    return request


def encode_request(request: Request) -> bytes:
    return orjson.dumps(request_to_json(request))


def decode_request(raw: bytes) -> Request:
    return request_from_json(orjson.loads(raw))


def value_to_json(value: Any) -> Any:
    """A decision's value as JSON (a datetime as ISO text, a tuple as a list)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return [value_to_json(v) for v in value]
    return value


def error_to_json(error: BaseException) -> dict[str, Any]:
    """A refusal as JSON: a domain error by its class (rebuilt as itself on the caller's side), anything
    else as an unexpected error with its text."""
    if isinstance(error, DomainError) and getattr(domain_errors, type(error).__name__, None) is type(error):
        return {"type": type(error).__name__, "message": error.message, "field": error.field}
    return {"type": "DomainError", "message": f"ledger: {type(error).__name__}: {error}", "field": None}


def error_from_json(data: dict[str, Any]) -> DomainError:
    kind = getattr(domain_errors, data["type"], DomainError)
    if not (isinstance(kind, type) and issubclass(kind, DomainError)):
        kind = DomainError
    error: DomainError = kind.__new__(kind)
    Exception.__init__(error, data["message"])
    error.message = data["message"]
    error.field = data.get("field")
    return error


# -- the client ------------------------------------------------------------------------------------

T = TypeVar("T")


class LedgerClient(Protocol):
    """Where credit requests are decided: answers the decision's value and its append's position, or
    raises its refusal (a ``DomainError``)."""

    def submit(self, request: Request) -> Outcome[Any]: ...
    async def submit_async(self, request: Request) -> Outcome[Any]: ...
    def try_draw(self, request: ReserveLookup) -> tuple[str, str | None] | None:
        """A lookup's credit taken here, without a round trip (a unit of a lease), or None."""
        ...

    def close(self) -> None: ...


def _release_left_behind(account: CreditAccount, live_owner: str) -> None:
    """Release, as the system, the lookup reservations another (stopped) ledger left on ``account``."""
    abandoned = account.abandoned(live_owner)
    if abandoned:
        with acting_as(SYSTEM):
            for reservation_id in abandoned:
                account.release(UUID(reservation_id))


def consultation_of(
    request: FinishLookup | RecordLookup, query_type: str, charged: int, lease_id: str | None = None
) -> Consultation:
    """The consultation a lookup's decision records (made while acting as the lookup's user); ``lease_id``:
    the lease whose unit it took (``commands.leases``)."""
    return Consultation._create(  # type: ignore[no-any-return]
        Consultation.Recorded,  # type: ignore[attr-defined]
        id=request.consultation_id,
        group_id=request.group_id,
        user_id=request.user_id,
        document=request.document,
        document_type=request.document_type,
        query_type=query_type,
        category=Category.UNIT.value,
        supplier=request.supplier,
        status=request.status,
        credits=charged,
        channel=request.channel,
        lease_id=lease_id,
    )


# -- lookup rates -----------------------------------------------------------------------------------


class LookupRate:
    """One account's lookups a second, as leases size what they hold:
    the count of the current one-second window, of the one before it (0 when there was a gap), and when the
    account was last seen."""

    __slots__ = ("last", "now", "seen", "start")

    def __init__(self, now: float) -> None:
        self.start = now
        self.now = 0  # lookups since ``start``
        self.last = 0  # lookups in the second before ``start``
        self.seen = now

    def count(self, now: float) -> int:
        """Count one lookup at ``now``; answers the last whole second's count."""
        if now - self.start >= 1.0:
            self.last = self.now if now - self.start < 2.0 else 0
            self.start, self.now = now, 0
        self.now += 1
        self.seen = now
        return self.last


# -- leases (the ledger's side; the API process's is commands.leases) -------------------

LEASE_MIN = 4


class LeaseLog(Protocol):
    """What the ledger reads of the event store to grant and settle leases."""

    def position(self) -> int:
        """The log's last position now (a lease granted now is followed by all its consultations)."""
        ...

    def charged_under(self, lease_id: str, since: int) -> list[str]:
        """The consultations recorded under a lease after ``since`` and charged (found), by id."""
        ...


class StoredLeaseLog:
    """``LeaseLog`` on the application's event store: the consultations recorded after a lease's grant,
    read by topic in pages (a lease lives seconds, so the pages cover seconds of the log)."""

    PAGE = 2_000

    def __init__(self, app: Any) -> None:
        self._app = app
        self._topic = get_topic(Consultation.Recorded)  # type: ignore[attr-defined]

    def position(self) -> int:
        return int(self._app.recorder.max_notification_id() or 0)

    def charged_under(self, lease_id: str, since: int) -> list[str]:
        charged: list[str] = []
        start = since + 1
        # Only the events whose stored JSON names the lease are decoded (a recovery may read many seconds of
        # lookups, most of them other leases').
        mark = lease_id.encode()
        while True:
            page = self._app.recorder.select_notifications(start, self.PAGE, topics=[self._topic])
            for notification in page:
                if mark not in notification.state:
                    continue
                recorded = self._app.mapper.to_domain_event(notification)
                if getattr(recorded, "lease_id", None) == lease_id and recorded.credits > 0:
                    charged.append(str(recorded.originator_id))
            if len(page) < self.PAGE:
                return charged
            start = page[-1].id + 1


# -- the decisions ---------------------------------------------------------------------------------


def open_or_load(ws: Workspace, group_id: UUID, category: Category) -> CreditAccount:
    """A group's account in a category; one never opened is opened now with no credits."""
    account = ws.find(credit_account_id(group_id, category), CreditAccount)
    if account is None:
        account = CreditAccount.open(group_id, category, 0)
        ws.add(account)
    return account


def opening_accounts(
    find: Callable[[UUID], CreditAccount | None],
    group_id: UUID,
    parent_id: UUID | None,
    quantities: Mapping[Category, int | None],
) -> list[CreditAccount]:
    """A new group's credit accounts, each holding its quantity granted out of the parent's account of
    its category, and the parent accounts that gave (to save with the group in its registration's one
    append: a group never exists without its accounts). Under an unlimited parent (or with no parent:
    the root) an account is opened with the quantity as its limit (None: unlimited); under a limited
    one, None or more than the parent has available is refused. ``find`` loads an account by id.

    Decided by ``Ledger`` for an ``OpenAccounts`` request, on its workspace (``find``), and appended
    with the registration's other events in the batch's one append."""
    accounts: list[CreditAccount] = []
    for category, amount in quantities.items():
        parent = find(credit_account_id(parent_id, category)) if parent_id is not None else None
        if parent_id is None or (parent is not None and parent.unlimited):
            accounts.append(CreditAccount.open(group_id, category, amount))
            continue
        child = CreditAccount.open(group_id, category, 0)
        accounts.append(child)
        if amount == 0:
            continue
        if amount is None or parent is None:
            raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
        parent.grant_to(child, amount)
        accounts.append(parent)
    return accounts


class Ledger:
    """Decides credit requests on a group-commit workspace.

    Busy accounts' lookups are not decided here one by one: the API process draws them from a lease of the
    account's units (``LeaseUnits``, ``commands.leases``), in either deployment.
    ``abandon_after``: reservations of another owner are released once seen abandoned for this long
    (0: at once, the embedded ledger, the only one of its store; a worker behind Kafka waits, since a
    partition's previous owner may have lookups whose finish is still on its way here).
    ``stale_after``: this ledger's own lookup reservations still held after this long are released (their
    caller is gone: an API process killed between reserve and finish); 0: never (embedded: caller and
    ledger die together). ``release_on_stop``: on stop, what lookups in flight hold goes back (embedded).
    """

    def __init__(
        self,
        *,
        catalogue: QueryTypeCatalogue,
        abandon_after: float = 0.0,
        stale_after: float = 0.0,
        release_on_stop: bool = True,
        lease_log: LeaseLog | None = None,
    ) -> None:
        self.owner = str(uuid4())
        # Leases are granted only by a ledger that can settle them from the log.
        self.lease_log = lease_log
        # Which query type a lookup runs, read from the event store (``commands.query_types``).
        self.catalogue = catalogue
        self.abandon_after = abandon_after
        self.stale_after = stale_after
        self.release_on_stop = release_on_stop
        # Consultation id -> (account id, when reserved): lookups in flight holding a reservation of their own.
        self._reserved: dict[UUID, tuple[UUID, float]] = {}
        # Account id -> reservation id -> when first seen abandoned (only with ``abandon_after``).
        self._abandoned_seen: dict[UUID, dict[str, float]] = {}
        # Request ids claimed lately (a redelivery in the same batch, or soon after, answers without a read).
        self._claimed: OrderedDict[UUID, None] = OrderedDict()

    def forget(self) -> None:
        """Drop what this ledger keeps in memory about accounts (a Kafka rebalance: a partition's next
        owner starts from the event store)."""
        self._abandoned_seen.clear()
        self._claimed.clear()

    def decide(self, request: Request, *, recorded: bool = False) -> Callable[[Workspace], Any]:
        """The decision of ``request``; ``recorded``: its consultation is known to be recorded already
        (a lookup's reservation delivered again after its finish)."""
        if isinstance(request, ReserveLookup):
            return partial(self._reserve_lookup, request, recorded)
        if isinstance(request, FinishLookup):
            return partial(self._finish_lookup, request)
        if isinstance(request, RecordLookup):
            return partial(self._record_lookup, request, recorded)
        if isinstance(request, ReleaseAbandoned):
            return partial(self._release_abandoned, request)
        if isinstance(request, LeaseUnits):
            return partial(self._lease_units, request)
        if isinstance(request, ReturnLease):
            return partial(self._return_lease, request)
        if isinstance(request, OpenAccounts):
            return partial(self._open_accounts, request)
        if isinstance(request, _WORK_REQUESTS):
            return partial(self._claimed_once, request)
        raise TypeError(f"not a ledger request: {request!r}")

    # lookups

    def _query_type_for(self, request: ReserveLookup | RecordLookup, ws: Workspace) -> QueryType:
        """The query type a lookup of an active group runs (the checks every lookup passes first)."""
        group = ws.find(request.group_id, Group)
        if group is None:
            raise GroupNotFound()
        if not group.active:
            raise GroupInactive()
        return choose_query_type(
            self.catalogue, request.requested_type, request.document_type, frozenset(group.enabled_query_types)
        )

    def _reserve_lookup(self, request: ReserveLookup, recorded: bool, ws: Workspace) -> tuple[str, str | None]:
        chosen = self._query_type_for(request, ws)
        account = ws.find(request.account_id, CreditAccount)
        if account is None:
            raise NotEnoughCredits()
        if recorded or account.holds(request.consultation_id) is not None:
            return chosen.key, None  # delivered again: the credit is held (or was settled) already
        if not self.abandon_after:
            # The only ledger of its store (embedded): what another left for lookups is a dead one's.
            _release_left_behind(account, self.owner)
        with acting_as(request.actor):
            account.reserve(request.consultation_id, CREDITS_PER_UNIT_QUERY, ReasonKind.CONSULTATION, owner=self.owner)
        self._reserved[request.consultation_id] = (request.account_id, time.monotonic())
        ws.on_undo(lambda: self._reserved.pop(request.consultation_id, None))
        return chosen.key, None

    def _finish_lookup(self, request: FinishLookup, ws: Workspace) -> datetime:
        """Settle (found) or release (not found, failed) and record the consultation, atomically."""
        if request.block_id is not None:
            # Drawn from a lease that went back before its consultation was recorded under it (the process
            # stopping): nothing holds its unit any more, and the answer must not be given for free.
            raise SearchFailed()
        account = ws.get(request.account_id, CreditAccount)
        charged = request.charged
        kept = self._reserved.pop(request.consultation_id, None)
        if kept is not None:
            ws.on_undo(lambda: self._reserved.__setitem__(request.consultation_id, kept))
        if account.holds(request.consultation_id) is None:
            recorded = ws.find(request.consultation_id, Consultation)
            if recorded is not None:
                return recorded.created_on  # delivered again: the recorded answer, no second charge
            # Released meanwhile (its ledger stopped): nothing was charged, and the answer must not be given
            # for free.
            raise SearchFailed()
        with acting_as(request.actor):
            if charged:
                account.settle(request.consultation_id, charged)
            else:
                account.release(request.consultation_id)
            consultation = consultation_of(request, request.query_type, charged)
        ws.add(consultation)
        return consultation.created_on

    def _record_lookup(self, request: RecordLookup, recorded: bool, ws: Workspace) -> tuple[str, datetime]:
        """A lookup already answered: the checks of a reservation, then charged (if found) and recorded at once."""
        chosen = self._query_type_for(request, ws)
        if recorded:
            # Delivered again after its decision: the recorded answer, never a second charge.
            consultation = ws.get(request.consultation_id, Consultation)
            return consultation.query_type, consultation.created_on
        account = ws.find(request.account_id, CreditAccount)
        if account is None:
            raise NotEnoughCredits()
        if not self.abandon_after:
            # The only ledger of its store (embedded): what another left for lookups is a dead one's.
            _release_left_behind(account, self.owner)
        with acting_as(request.actor):
            # As if reserved first: a tenant with no credit left is refused whatever the supplier found.
            account.charge(request.consultation_id, request.charged, CREDITS_PER_UNIT_QUERY)
            consultation = consultation_of(request, chosen.key, request.charged)
        ws.add(consultation)
        return chosen.key, consultation.created_on

    def _lease_units(self, request: LeaseUnits, ws: Workspace) -> int:
        """Lease units of an active group's unit account to an API process (delivered again: the same lease)."""
        if self.lease_log is None:
            return 0  # this ledger cannot settle a lease whose holder died: none granted
        group = ws.find(request.group_id, Group)
        if group is None or not group.active:
            return 0  # the holder's lookups go one by one, and are refused with the group's own message
        account = ws.find(request.account_id, CreditAccount)
        if account is None:
            return 0
        held = account.holds(request.lease_id)
        if held is not None:
            return held  # delivered again while open: the same lease
        if self._claimed_before(request.lease_id, ws):
            # Delivered again after the lease was settled: granted anew, it would be settled again from the
            # consultations recorded under it.
            return 0
        available = account.available
        units = request.units if available is None else min(request.units, available)
        if units < LEASE_MIN:
            return 0
        with acting_as(request.actor):
            account.reserve(
                request.lease_id, units, ReasonKind.LEASE, owner=request.holder, since=self.lease_log.position()
            )
            self._claim(request.lease_id, request.group_id, ws)
        return units

    def _return_lease(self, request: ReturnLease, ws: Workspace) -> None:
        """Settle a lease from its holder's account of it (delivered again, or settled already: nothing)."""
        account = ws.find(credit_account_id(request.group_id, Category.UNIT), CreditAccount)
        if account is None or account.holds(request.lease_id) is None:
            return
        with acting_as(SYSTEM):
            self._settle_lease(account, str(request.lease_id), request.charged)

    @staticmethod
    def _settle_lease(account: CreditAccount, lease_id: str, charged: list[str]) -> None:
        """One unit of the lease for each charged consultation, the rest released: one event."""
        unique = list(dict.fromkeys(charged))
        held = account.holds(UUID(lease_id)) or 0
        if len(unique) > held:
            log.error("lease %s held %d units for %d charged consultations", lease_id, held, len(unique))
            unique = unique[:held]
        account.settle_lease(UUID(lease_id), unique)

    def _others_leases(self, account: CreditAccount) -> dict[str, int]:
        """The account's open leases but those held for this ledger's own process (embedded: the process's
        lease holder is named by the ledger's owner, and returns them itself while it runs)."""
        return {
            lease_id: since
            for lease_id, since in account.leases().items()
            if account.owners.get(lease_id) != self.owner
        }

    def _recover_leases(
        self, account: CreditAccount, leases: dict[str, int], now: float, seen: dict[str, float]
    ) -> int:
        """Of ``leases`` (another holder's, ``_others_leases``), those whose holder has not returned them
        ``abandon_after`` after they were first seen here (the holder died, or cannot reach the ledger; embedded,
        at once: a lease of another holder is a dead process's): settled from the consultations recorded under
        them."""
        if self.lease_log is None:
            return 0
        recovered = 0
        with acting_as(SYSTEM):
            for lease_id, since in leases.items():
                first_seen = seen.setdefault(lease_id, now)
                if now - first_seen < self.abandon_after:
                    continue
                del seen[lease_id]
                self._settle_lease(account, lease_id, self.lease_log.charged_under(lease_id, since))
                recovered += 1
        return recovered

    def _release_abandoned(self, request: ReleaseAbandoned, ws: Workspace) -> int:
        account = ws.find(credit_account_id(request.group_id, Category.UNIT), CreditAccount)
        if account is None:
            return 0
        released = 0
        now = time.monotonic()
        abandoned = account.abandoned(self.owner)
        # What was seen before and is no longer abandoned (settled by its lookup meanwhile) is forgotten.
        before = self._abandoned_seen.get(account.id, {})
        leases = self._others_leases(account)
        seen = {r: before.get(r, now) for r in [*abandoned, *leases]}
        with acting_as(SYSTEM):
            for reservation_id in abandoned:
                if now - seen[reservation_id] < self.abandon_after:
                    continue
                del seen[reservation_id]
                account.release(UUID(reservation_id))
                released += 1
        released += self._recover_leases(account, leases, now, seen)
        if seen:
            self._abandoned_seen[account.id] = seen
        else:
            self._abandoned_seen.pop(account.id, None)
        return released

    def chore(self, ws: Workspace, final: bool) -> None:
        """On the writer every quarter second: this ledger's own lookup reservations whose caller is gone go
        back; on stop (embedded), so does every reservation still held for a lookup in flight (it can no
        longer be settled: its late settlement is refused uncharged)."""
        now = time.monotonic()
        release_all = final and self.release_on_stop
        if not release_all and not self.stale_after:
            return
        with acting_as(SYSTEM):
            for consultation_id, (account_id, since) in list(self._reserved.items()):
                if not release_all and now - since < self.stale_after:
                    continue
                del self._reserved[consultation_id]
                account = ws.find(account_id, CreditAccount)
                if account is not None and account.holds(consultation_id) is not None:
                    account.release(consultation_id)

    # registrations

    @staticmethod
    def _open_accounts(request: OpenAccounts, ws: Workspace) -> bool:
        """Check the claims, open the accounts and add the registration's events: one append."""
        if ws.adds_events_of(request.group_id) or ws.peek(request.group_id, Group) is not None:
            return False  # delivered again (or the root registered elsewhere first): appended already
        # The version each aggregate's events start at (a new claim: 1; a released one taken again: the next).
        starts: dict[UUID, int] = {}
        for event in request.events:
            starts.setdefault(UUID(event["originator_id"]), int(event["originator_version"]))
        for kind, value, message, field in request.claims:
            claim_id = index_id(kind, value)
            # Taken in the store, present where the registration claims it anew, or claimed by an earlier
            # registration of this batch: refused here, so the batch's append does not collide.
            claimed = ws.peek(claim_id, UniqueIndex)
            present = claimed is not None and (
                claimed.taken or claimed.version >= starts.get(claim_id, claimed.version + 1)
            )
            if present or ws.adds_events_of(claim_id):
                raise DuplicateValue(message, field=field or None)
        quantities = {Category(category): amount for category, amount in request.quantities.items()}
        with acting_as(request.actor):
            accounts = opening_accounts(
                lambda account_id: ws.find(account_id, CreditAccount), request.group_id, request.parent_id, quantities
            )
        # The parents' accounts were found on the workspace (saved with the batch); the new ones are added.
        ws.add(*(a for a in accounts if a.group_id == request.group_id))
        ws.add_events(*(ws.to_domain_event(_stored(event)) for event in request.events))
        return True

    # grants, limits, batches: claimed once by their request id

    def _claimed_once(self, request: Grant | SetLimit | ReserveWork | SettleWork | ReleaseWork, ws: Workspace) -> None:
        if self._claimed_before(request.request_id, ws):
            return None  # delivered again: done already
        if isinstance(request, Grant):
            self._grant(request, ws)
        elif isinstance(request, SetLimit):
            self._set_limit(request, ws)
        else:
            self._work(request, ws)
        actor = (
            Actor(user_id=request.user_id, tenant_id=request.group_id)
            if isinstance(request, Grant | SetLimit)
            else Actor(user_id=request.user_id, tenant_id=request.tenant_id)
        )
        with acting_as(actor):
            self._claim(request.request_id, request.group_id, ws)
        return None

    def _claimed_before(self, request_id: UUID, ws: Workspace) -> bool:
        """Whether a request id was claimed by an earlier decision (remembered here, or in the store)."""
        return request_id in self._claimed or ws.find(index_id(REQUEST_CLAIM, str(request_id)), UniqueIndex) is not None

    def _claim(self, request_id: UUID, group_id: UUID, ws: Workspace) -> None:
        """Claim a request id in this decision's append, and remember it (a redelivery soon after answers
        without a read). Made while acting as the request's actor."""
        ws.add(UniqueIndex(kind=REQUEST_CLAIM, value=str(request_id), ref=group_id))
        self._claimed[request_id] = None
        while len(self._claimed) > 10_000:
            self._claimed.popitem(last=False)
        ws.on_undo(lambda: self._claimed.pop(request_id, None))

    @staticmethod
    def _child_of(ws: Workspace, actor_group_id: UUID, child_group_id: UUID) -> Group:
        child = ws.find(child_group_id, Group)
        if child is None:
            raise GroupNotFound()
        # Credits move only from a parent to its own child: conservation is between the two.
        if child.parent_id != actor_group_id:
            raise AccessDenied()
        return child

    def _grant(self, request: Grant, ws: Workspace) -> None:
        category = Category(request.category)
        self._child_of(ws, request.group_id, request.child_group_id)
        with acting_as(Actor(user_id=request.user_id, tenant_id=request.group_id)):
            parent = ws.find(credit_account_id(request.group_id, category), CreditAccount)
            if parent is None:
                if request.amount > 0:
                    raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
                raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[category], field="amount")
            child = open_or_load(ws, request.child_group_id, category)
            parent.grant_to(child, request.amount)

    def _set_limit(self, request: SetLimit, ws: Workspace) -> None:
        category, limit = Category(request.category), request.limit
        if limit is not None and limit < 0:
            raise InvalidData("A credit limit cannot be negative", field="limit")
        self._child_of(ws, request.group_id, request.child_group_id)
        with acting_as(Actor(user_id=request.user_id, tenant_id=request.group_id)):
            parent = ws.find(credit_account_id(request.group_id, category), CreditAccount)
            child = open_or_load(ws, request.child_group_id, category)
            if parent is not None and parent.unlimited:
                if limit != child.limit:
                    child.change_limit(limit)
                return
            if limit is None:
                raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
            difference = limit - (child.limit or 0)
            if difference == 0:
                return
            if parent is None:
                raise NotEnoughToProvide(NOT_ENOUGH_TO_PROVIDE_MESSAGES[category])
            parent.grant_to(child, difference)

    @staticmethod
    def _work(request: ReserveWork | SettleWork | ReleaseWork, ws: Workspace) -> None:
        category = Category(request.category)
        account = ws.find(credit_account_id(request.group_id, category), CreditAccount)
        if account is None:
            raise NotEnoughCredits(NOT_ENOUGH_MESSAGES[category])
        with acting_as(Actor(user_id=request.user_id, tenant_id=request.tenant_id)):
            if isinstance(request, ReserveWork):
                account.reserve(request.reservation_id, request.amount, request.reason)
            elif isinstance(request, SettleWork):
                if account.holds(request.reservation_id) is None:
                    raise InvalidData("No such reservation", field="reservation_id")
                account.settle(request.reservation_id, request.amount)
            else:
                if account.holds(request.reservation_id) is None:
                    raise InvalidData("No such reservation", field="reservation_id")
                account.release(request.reservation_id)


# -- in process ------------------------------------------------------------------------------------


class EmbeddedLedger:
    """The ledger on this process's group commit (the embedded deployment): one writer per store. It grants
    leases (read from this store's log if their holder dies); ``commands.leases.LeasingLedger`` in front of
    it draws busy accounts' lookups from them, as in cluster mode."""

    transport: ClassVar[str] = "embedded"

    def __init__(self, app: Any, writer: GroupCommit, ledger: Ledger | None = None) -> None:
        self._app = app
        self._writer = writer
        self.ledger = ledger or Ledger(catalogue=StoredQueryTypes(app), lease_log=StoredLeaseLog(app))
        writer.add_chore(self.ledger.chore)

    @property
    def owner(self) -> str:
        return self.ledger.owner

    def submit(self, request: Request, *, timeout: float = 30) -> Outcome[Any]:
        return self._writer.submit(self.ledger.decide(request), timeout=timeout)

    async def submit_async(self, request: Request, *, timeout: float = 30) -> Outcome[Any]:
        return await self._writer.submit_async(self.ledger.decide(request), timeout=timeout)

    def try_draw(self, request: ReserveLookup) -> tuple[str, str | None] | None:
        return None  # every request is decided on the writer (leases are drawn from in front of it)

    def close(self) -> None:
        pass  # the writer's own stop releases what lookups in flight hold

"""Batch: one enrichment of a customer's file (specification sections 2-5, 8 and 9; issue 18).

A batch is one aggregate with few events, never one per record: ``Submitted`` (the file checked and
previewed, the credits for its valid documents reserved in the ledger just before), ``Started``
(each start or resume of the processing), ``Progressed`` (about one a second while it runs),
then one of ``Finished`` / ``Failed`` / ``Canceled``, and ``Deleted``. A batch canceled while it ran (the user's
event, which the runner sees at its next look) gets ``RunStopped`` from the runner once it writes no more: the
moment its looked-up documents are complete (``projections.data_subject``). Statuses:

    waiting --Started--> processing --Finished--> available
       |                     |------Failed-----> error
       |--------Canceled-----+------Canceled---> canceled

``Failed`` and ``Canceled`` are accepted while waiting too (a batch refused before it ran, a batch
canceled in the queue). A batch is deleted only once over (cancel first); nothing is undoable.
The methods refuse illegal steps with domain errors, so a runner that arrives late (a batch
canceled under it) is told, and moves nothing.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate
from bemtevi.domain.batch_errors import (
    BatchNotCancellable,
    BatchNotDeletable,
    BatchNotFound,
    BatchNotRunnable,
    BatchStillOpen,
)
from bemtevi.domain.query_types import Category


class BatchStatus(StrEnum):
    WAITING = "waiting"
    PROCESSING = "processing"
    AVAILABLE = "available"
    ERROR = "error"
    CANCELED = "canceled"


class BatchKind(StrEnum):
    BATCH = "batch"  # a user's own upload on batch-query
    MANUAL = "manual"  # a manual enrichment, possibly for a customer below the user's group


OPEN_STATUSES = frozenset({BatchStatus.WAITING, BatchStatus.PROCESSING})
TERMINAL_STATUSES = frozenset({BatchStatus.AVAILABLE, BatchStatus.ERROR, BatchStatus.CANCELED})

TIME_LIMIT_SECONDS = 3600
TIME_LIMIT_CODE = "time_limit"
TIME_LIMIT_MESSAGE = "Process terminated after exceeding the 1 hour limit"
# "Canceled by owner" was every cancel but a super-admin's before ``Canceled`` named the canceler's role (a
# plain user canceling their own batch included); it stays the message (and code) of those older events.
CANCELED_BY_OWNER = "Canceled by owner"
CANCELED_BY_SUPER_ADMIN = "Canceled by super-admin"
# The message of a cancel by each role (a role's value: user, admin, owner, super-admin).
CANCEL_MESSAGES = {
    "user": "Canceled by user",
    "admin": "Canceled by admin",
    "owner": CANCELED_BY_OWNER,
    "super-admin": CANCELED_BY_SUPER_ADMIN,
}
# The stable code of each cancel message; a failure's code is ``Failed.code`` (``time_limit``,
# ``processing_error``, ...). The web app translates by code, and names the canceler when it can.
CANCEL_CODES = {
    "Canceled by user": "canceled_by_user",
    "Canceled by admin": "canceled_by_admin",
    CANCELED_BY_OWNER: "canceled_by_owner",
    CANCELED_BY_SUPER_ADMIN: "canceled_by_super_admin",
}


def cancel_message(role: str) -> str:
    return CANCEL_MESSAGES.get(role, "Canceled")


def cancel_code(message: str) -> str:
    return CANCEL_CODES.get(message, "canceled")


def cancellable(status: str) -> bool:
    """Whether a batch in ``status`` may be canceled (waiting or processing)."""
    return status in OPEN_STATUSES


def deletable(status: str) -> bool:
    """Whether a batch in ``status`` may be deleted (only once over: cancel first)."""
    return status in TERMINAL_STATUSES


_NAMESPACE = uuid5(NAMESPACE_URL, "https://bemtevi.example/batch")


def ledger_request_id(batch_id: UUID, step: str) -> UUID:
    """The ledger request id of a batch's ``reserve`` / ``settle`` / ``release``: the same for every
    attempt, so the ledger (which claims a request id once) moves the credits once."""
    return uuid5(_NAMESPACE, f"{batch_id}:{step}")


def kept_result_id(batch_id: UUID, document: str) -> UUID:
    """The id a supplier's result for one of a batch's documents is kept (and reopened) under: the same for
    every attempt, so a resumed batch replaces what it kept rather than keeping it twice."""
    return uuid5(_NAMESPACE, f"{batch_id}:kept:{document}")


def reservation_id(batch_id: UUID) -> UUID:
    """The reservation a batch holds on its group's account of the batch's category."""
    return uuid5(_NAMESPACE, f"{batch_id}:reservation")


class Batch(AuditedAggregate):
    # Inactive (spec: "Enrichment can be activated or inactivated"): listed as such, its return file not served,
    # until activated again; a class default, so batches submitted (or snapshotted) before it load active.
    active: bool = True

    class Submitted(AuditedAggregate.Created):
        group_id: UUID
        user_id: UUID | None
        kind: str
        layout_id: str
        query_type: str | None
        file_name: str
        extension: str
        encoding: str
        size: int
        records: int
        valid_documents: int
        credits_reserved: int
        reservation_id: UUID | None
        observation: str
        webhook_url: str | None
        webhook_secret_sealed: str | None
        category: str
        purpose: str | None

    @event(Submitted)
    def __init__(
        self,
        group_id: UUID,
        user_id: UUID | None,
        kind: str,
        layout_id: str,
        query_type: str | None,
        file_name: str,
        extension: str,
        encoding: str,
        size: int,
        records: int,
        valid_documents: int,
        credits_reserved: int,
        reservation_id: UUID | None,
        observation: str,
        webhook_url: str | None,
        webhook_secret_sealed: str | None,
        # The credit category the batch's reservation is on: a batch sent through the public API is charged to
        # the API credits. Events stored before it was recorded load with the default (the panel's BATCH).
        category: str = Category.BATCH.value,
        # What its sender said the batch's lookups are for (``consultations.purpose_of``); older events have none.
        purpose: str | None = None,
    ) -> None:
        self.group_id = group_id
        self.user_id = user_id
        self.kind = BatchKind(kind)
        self.layout_id = layout_id
        self.query_type = query_type
        self.file_name = file_name
        self.extension = extension
        self.encoding = encoding
        self.size = size
        self.records = records
        self.valid_documents = valid_documents
        self.credits_reserved = credits_reserved
        self.reservation_id = reservation_id
        self.observation = observation
        self.webhook_url = webhook_url
        self.webhook_secret_sealed = webhook_secret_sealed
        self.category = Category(category)
        self.purpose = purpose
        self.status = BatchStatus.WAITING
        self.attempts = 0
        self.records_done = 0
        self.found = 0
        self.invalid = 0
        self.charged = 0
        self.return_file_name: str | None = None
        self.message: str | None = None
        self.error_code: str | None = None
        self.started_at: Any = None  # the first start's time (the 1-hour limit counts from it)
        self.finished_at: Any = None
        self.deleted = False
        self.run_stopped = False

    @classmethod
    def submit(cls, batch_id: UUID, **fields: Any) -> Batch:
        """A batch with a chosen id: the ledger's reservation is named after it before it exists."""
        fields.setdefault("category", Category.BATCH.value)  # the event class knows no defaults of its own
        fields.setdefault("purpose", None)
        return cls._create(cls.Submitted, id=batch_id, **fields)

    # -- figures -------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    @property
    def is_over(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def awaits_run_stop(self) -> bool:
        """Canceled after its run started, and the runner has not said yet that it writes no more."""
        # A batch saved (or snapshotted) before ``RunStopped`` existed loads without the attribute.
        return (
            self.status == BatchStatus.CANCELED
            and self.started_at is not None
            and not getattr(self, "run_stopped", False)
        )

    # -- events whose time the state keeps (started_at, finished_at: the event's own timestamp) ---

    class Started(AuditedAggregate.Event):
        attempt: int

        def apply(self, aggregate: Any) -> None:
            aggregate.attempts = self.attempt
            if aggregate.started_at is None:
                aggregate.started_at = self.timestamp
            aggregate.status = BatchStatus.PROCESSING

    class Finished(AuditedAggregate.Event):
        records: int
        found: int
        invalid: int
        charged: int
        return_file_name: str

        def apply(self, aggregate: Any) -> None:
            aggregate.records = self.records
            aggregate.records_done = self.records
            aggregate.found = self.found
            aggregate.invalid = self.invalid
            aggregate.charged = self.charged
            aggregate.return_file_name = self.return_file_name
            aggregate.status = BatchStatus.AVAILABLE
            aggregate.finished_at = self.timestamp

    class Failed(AuditedAggregate.Event):
        code: str
        message: str

        def apply(self, aggregate: Any) -> None:
            aggregate.error_code = self.code
            aggregate.message = self.message
            aggregate.status = BatchStatus.ERROR
            aggregate.finished_at = self.timestamp

    class Canceled(AuditedAggregate.Event):
        """Who canceled is the event's ``actor_id`` (as on every event); ``role`` is their role then."""

        # 2: ``role``. A version 1 event knew only its message: a super-admin's says so, any other
        # ("Canceled by owner") may have been a plain user's, an admin's or an owner's (None: not known).
        class_version = 2

        message: str
        role: str | None

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["role"] = "super-admin" if state.get("message") == CANCELED_BY_SUPER_ADMIN else None

        def apply(self, aggregate: Any) -> None:
            aggregate.message = self.message
            aggregate.status = BatchStatus.CANCELED
            aggregate.finished_at = self.timestamp

    # -- the runner's steps ---------------------------------------------------------------------

    def start(self) -> None:
        """Start (or resume, after a worker stopped mid-batch) the processing."""
        if not self.is_open or self.deleted:
            raise BatchNotRunnable()
        self.trigger_event(self.Started, attempt=self.attempts + 1)

    def progress(self, records_done: int, found: int, invalid: int) -> None:
        if self.status != BatchStatus.PROCESSING:
            raise BatchNotRunnable()
        self._progressed(records_done=records_done, found=found, invalid=invalid)

    class Progressed(AuditedAggregate.Event):
        records_done: int
        found: int
        invalid: int

    @event(Progressed)
    def _progressed(self, records_done: int, found: int, invalid: int) -> None:
        self.records_done = records_done
        self.found = found
        self.invalid = invalid

    def finish(self, records: int, found: int, invalid: int, charged: int, return_file_name: str) -> None:
        if self.status != BatchStatus.PROCESSING:
            raise BatchNotRunnable()
        self.trigger_event(
            self.Finished,
            records=records,
            found=found,
            invalid=invalid,
            charged=charged,
            return_file_name=return_file_name,
        )

    def fail(self, code: str, message: str) -> None:
        if not self.is_open:
            raise BatchNotRunnable()
        self.trigger_event(self.Failed, code=code, message=message)

    def stop_run(self) -> None:
        """The runner of a batch canceled under it wrote its last chunk (it may write one after ``Canceled``).
        Allowed once, and on a deleted batch too: its documents were consulted all the same."""
        if not self.awaits_run_stop:
            raise BatchNotRunnable()
        self._run_stopped()

    class RunStopped(AuditedAggregate.Event):
        pass

    @event(RunStopped)
    def _run_stopped(self) -> None:
        self.run_stopped = True

    # -- the user's steps ------------------------------------------------------------------------

    def cancel(self, role: str) -> None:
        """Canceled by the acting user (the event's ``actor_id``), who has ``role``."""
        if not cancellable(self.status):
            raise BatchNotCancellable()
        self.trigger_event(self.Canceled, message=cancel_message(role), role=role)

    def set_active(self, active: bool) -> None:
        """Activate or inactivate a batch that is over; the same state again appends nothing."""
        if self.is_open:
            raise BatchStillOpen()
        if self.deleted:
            raise BatchNotFound()
        if active and not self.active:
            self._activated()
        elif not active and self.active:
            self._inactivated()

    class Activated(AuditedAggregate.Event):
        pass

    @event(Activated)
    def _activated(self) -> None:
        self.active = True

    class Inactivated(AuditedAggregate.Event):
        pass

    @event(Inactivated)
    def _inactivated(self) -> None:
        self.active = False

    def delete(self) -> None:
        if not deletable(self.status) or self.deleted:
            raise BatchNotDeletable()
        self._deleted()

    class Deleted(AuditedAggregate.Event):
        pass

    @event(Deleted)
    def _deleted(self) -> None:
        self.deleted = True

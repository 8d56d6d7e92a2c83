"""The runner's steps on a batch (start, progress, finish, fail, run_stopped): each appends the batch's event as the
system, in the batch's group. Credits move first, through the ledger, on the account of the batch's category
(``Batch.category``: API for a batch sent through the public API), with a request id derived from the batch id,
so a step repeated after a crash moves them once: ``finish`` settles ``found`` (the rest released), ``fail`` releases.
A step the batch no longer allows (canceled under the runner) raises ``BatchNotRunnable``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.commands.credits import CreditCommands
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.batch_errors import (
    BatchNotRunnable,
)
from bemtevi.domain.batches import (
    Batch,
    BatchStatus,
    ledger_request_id,
)


class BatchSteps:
    def __init__(
        self,
        app: BemteviApplication,
        credits: CreditCommands,
        remove_files: Callable[[UUID], None] = lambda batch_id: None,
    ) -> None:
        self._app = app
        self._credits = credits
        self._remove_files = remove_files  # a deleted batch's (``BatchCommands``): its documents kept apart

    @staticmethod
    def system(batch: Batch) -> Actor:
        """The actor of a runner's step: the system, in the batch's group."""
        return Actor(user_id=None, tenant_id=batch.group_id)

    def _step(self, batch_id: UUID, change: Any) -> int:
        def decide() -> int:
            batch = self._app.get(batch_id, Batch)
            with acting_as(self.system(batch)):
                change(batch)
            return self._app.save_all(batch)

        return retry_on_conflict(decide)

    def start(self, batch_id: UUID) -> int:
        """Start or resume (``Started(attempt)``); refused once the batch is over or deleted."""
        return self._step(batch_id, lambda b: b.start())

    def progress(self, batch_id: UUID, records_done: int, found: int, invalid: int) -> int:
        return self._step(batch_id, lambda b: b.progress(records_done, found, invalid))

    def finish(self, batch_id: UUID, records: int, found: int, invalid: int, return_file_name: str) -> int:
        """Settle ``found`` credits (at most the reservation; the rest released), then ``Finished``.
        Finishing again after a crash between the two settles once and finishes once."""
        batch = self._app.get(batch_id, Batch)
        if batch.status == BatchStatus.AVAILABLE:
            return self._app.max_position()
        if batch.status != BatchStatus.PROCESSING:
            raise BatchNotRunnable()
        charged = min(found, batch.credits_reserved)
        if batch.reservation_id is not None:
            self._credits.settle(
                self.system(batch),
                batch.group_id,
                batch.category,
                batch.reservation_id,
                charged,
                request_id=ledger_request_id(batch_id, "settle"),
            )
        return self._step(batch_id, lambda b: b.finish(records, found, invalid, charged, return_file_name))

    def fail(self, batch_id: UUID, code: str, message: str) -> int:
        """Release the reservation, then ``Failed`` (the 1-hour limit: ``TIME_LIMIT_CODE``)."""
        batch = self._app.get(batch_id, Batch)
        if batch.status == BatchStatus.ERROR:
            return self._app.max_position()
        if not batch.is_open:
            raise BatchNotRunnable()
        self.release(batch, self.system(batch))
        return self._step(batch_id, lambda b: b.fail(code, message))

    def run_stopped(self, batch_id: UUID) -> int | None:
        """``RunStopped`` on a batch canceled after it started, once its runner writes no more; nothing on any
        other batch (canceled before it ran, finished, failed, told already, unknown): the runner says it after
        every batch it leaves, and a runner that resumes a batch says it again after a crash."""
        batch = self._app.find(batch_id, Batch)
        if not isinstance(batch, Batch) or not batch.awaits_run_stop:
            return None
        try:
            position = self._step(batch_id, lambda b: b.stop_run())
        except BatchNotRunnable:  # another runner said it meanwhile
            return None
        if self._app.get(batch_id, Batch).deleted:  # deleted while it was stopping: its deletion left the files
            self._remove_files(batch_id)
        return position

    def release(self, batch: Batch, actor: Actor) -> None:
        """Release what the batch holds (nothing if it holds nothing), as ``actor``."""
        if batch.reservation_id is None:
            return
        self._credits.release(
            actor,
            batch.group_id,
            batch.category,
            batch.reservation_id,
            request_id=ledger_request_id(batch.id, "release"),
        )

"""The enrichment processor: runs every submitted batch to its end, exactly once (embedded mode; cluster mode's
is ``bemtevi.streams.enrichment_worker``, a faust agent, with the same ``BatchRunner``).

A batch is run by ``BatchRunner.run``: the runner side of the batch commands records ``Started`` (each start or
resume), then the file pipeline (``run_batch``) enriches it chunk by chunk into ``<var>/batches/<batch_id>/``
(each chunk's output written atomically, so a run after a kill -9 skips the chunks on disk), with ``Progressed``
at most every ``progress_seconds`` and a look, at most as often, at whether the batch was canceled or is past its
time limit (``BEMTEVI_BATCH_TIME_LIMIT_SECONDS``, 1 hour: then ``Failed(time_limit)``, the credits released).
At the end ``finish`` settles the credits of the records found with a request id of the batch's own (claimed
once by the ledger: a crash between the settle and ``Finished`` is mended by finishing again) and appends
``Finished``; a failure of the pipeline is ``fail`` (credits released). Then the optional webhook, whose outcome
is a log line and never holds the next batch. A batch canceled under the runner (the user's ``Canceled``, seen at
the next look) may get one more chunk after the cancel; once the runner leaves it, writing no more, it says so
(``run_stopped``: ``RunStopped``, which the data-subject report's index waits for), and says it again on meeting a
batch canceled while its process was down.

Exactly once, in either mode, comes from three things: the batch's own state (a batch already over is not run
again), the chunk files (work done before a kill is not done again) and the ledger's request ids (nothing is
charged twice). The embedded processor's position in the log (the read store's tracking table, as the mailer's)
moves past a ``Batch.Submitted`` only once that batch is over, so a server killed mid-batch meets it again when it
starts and resumes it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from uuid import UUID

from eventsourcing.persistence import Notification

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.batch_errors import BatchNotRunnable
from bemtevi.domain.batches import TIME_LIMIT_CODE, TIME_LIMIT_MESSAGE, Batch
from bemtevi.domain.layouts import Layout
from bemtevi.infra.batches.upload_checks import UploadCheck
from bemtevi.infra.webhooks import WebhookSender
from bemtevi.projections.store import ReadStore
from bemtevi.streams.follower import TrackedFollower

log = logging.getLogger(__name__)

TRACKING_NAME = "enrichment"
# The topic of ``bemtevi.domain.batches.Batch.Submitted`` as eventsourcing names it (``get_topic``).
SUBMITTED_TOPIC = "bemtevi.domain.batches:Batch.Submitted"
TERMINAL = frozenset({"available", "error", "canceled"})
PROCESSING_ERROR_CODE = "processing_error"


@dataclass(frozen=True)
class BatchJob:
    """What the runner needs of a submitted batch (read from the event store by the runner side)."""

    id: UUID
    status: str
    started_at: float | None  # epoch seconds of the first ``Started``, None while waiting
    webhook_url: str | None = None
    webhook_secret: str | None = None  # opened from its sealed form by the runner side
    inputs: dict[str, Any] = field(default_factory=dict)  # the file, its check, the layout, the dataset
    group_id: UUID | None = None  # whose the batch is: the owner of the vendor results it keeps
    user_id: UUID | None = None


class RunnerSteps(Protocol):
    """The batch commands' runner side (``bemtevi.commands.batch_steps.BatchSteps``): each step appends the
    batch's event (``finish`` settles first, ``fail`` releases first); a step the batch no longer allows (canceled
    under the runner) raises ``BatchNotRunnable``."""

    def start(self, batch_id: UUID) -> Any: ...

    def progress(self, batch_id: UUID, records_done: int, found: int, invalid: int) -> Any: ...

    def finish(self, batch_id: UUID, records: int, found: int, invalid: int, return_file_name: str) -> Any: ...

    def fail(self, batch_id: UUID, code: str, message: str) -> Any: ...

    def run_stopped(self, batch_id: UUID) -> Any: ...


class RunnerSide(Protocol):
    """What ``BatchRunner`` asks of a batch: ``BatchSide`` over the event store and the batch commands."""

    def job(self, batch_id: UUID) -> BatchJob | None: ...

    def status(self, batch_id: UUID) -> str | None: ...

    def start(self, batch_id: UUID) -> None: ...

    def progress(self, batch_id: UUID, progress: Any) -> None: ...

    def finish(self, batch_id: UUID, outcome: Any) -> None: ...

    def fail(self, batch_id: UUID, code: str, message: str) -> None: ...

    def run_stopped(self, batch_id: UUID) -> None: ...


def pipeline_inputs(
    app: BemteviApplication, sent_file: Callable[[Batch], Path], dataset: Path, chunk_rows: int = 100_000
) -> Callable[[Batch], dict[str, Any]]:
    """``run_batch``'s first arguments for a batch: its sent file, the check made at upload (kept on the batch),
    its layout as it is now, and the dataset."""

    def inputs(batch: Batch) -> dict[str, Any]:
        layout = app.find(UUID(batch.layout_id), Layout)
        if layout is None:
            raise LookupError(f"layout {batch.layout_id} of batch {batch.id} not found")
        return {
            "path": sent_file(batch),
            "check": UploadCheck(batch.encoding, batch.extension, batch.size),  # type: ignore[arg-type]
            "spec": layout.value(),
            "dataset": dataset,
            "chunk_rows": chunk_rows,
            "query_type": batch.query_type,
        }

    return inputs


class BatchSide:
    """``RunnerSide`` over the event store: the batch read back for ``job``/``status``, the steps given to
    ``steps`` (the batch commands), and the pipeline's inputs (file, check, layout, dataset) from ``inputs``."""

    def __init__(
        self,
        app: BemteviApplication,
        steps: RunnerSteps,
        inputs: Callable[[Batch], dict[str, Any]],
        open_secret: Callable[[str], str] | None = None,
    ) -> None:
        self._app = app
        self._steps = steps
        self._inputs = inputs
        self._open_secret = open_secret

    def _batch(self, batch_id: UUID) -> Batch | None:
        batch = self._app.find(batch_id, Batch)
        return batch if isinstance(batch, Batch) else None

    def job(self, batch_id: UUID) -> BatchJob | None:
        batch = self._batch(batch_id)
        if batch is None:
            return None
        secret = batch.webhook_secret_sealed
        return BatchJob(
            id=batch_id,
            status=str(batch.status),
            started_at=batch.started_at.timestamp() if batch.started_at is not None else None,
            webhook_url=batch.webhook_url,
            webhook_secret=self._open_secret(secret) if secret and self._open_secret else secret,
            inputs=self._inputs(batch) if batch.is_open else {},
            group_id=batch.group_id,
            user_id=batch.user_id,
        )

    def status(self, batch_id: UUID) -> str | None:
        batch = self._batch(batch_id)
        return None if batch is None else str(batch.status)

    def start(self, batch_id: UUID) -> None:
        self._steps.start(batch_id)

    def progress(self, batch_id: UUID, progress: Any) -> None:
        """``progress``: the pipeline's ``BatchProgress(records_done, found, invalid)``."""
        self._steps.progress(batch_id, progress.records_done, progress.found, progress.invalid)

    def finish(self, batch_id: UUID, outcome: Any) -> None:
        """``outcome``: the pipeline's ``BatchOutcome(records, valid, invalid, found, return_file)``."""
        self._steps.finish(batch_id, outcome.records, outcome.found, outcome.invalid, Path(outcome.return_file).name)

    def fail(self, batch_id: UUID, code: str, message: str) -> None:
        self._steps.fail(batch_id, code, message)

    def run_stopped(self, batch_id: UUID) -> None:
        """``RunStopped`` if the batch was canceled after it started and is not told yet; else nothing."""
        self._steps.run_stopped(batch_id)


# H1's ``run_batch(path, check, spec, dataset, work_dir, *, on_progress, should_stop, resolve_missing)``, with
# the first four from ``BatchJob.inputs``.
RunBatch = Callable[..., Any]


class BatchRunner:
    """Runs one batch to its end (``run``); the same code in the embedded follower and the faust agent."""

    def __init__(
        self,
        side: RunnerSide,
        run_batch: RunBatch,
        work_dir: Callable[[UUID], Path],
        stopping: threading.Event,
        *,
        time_limit_seconds: float = 3600.0,
        progress_seconds: float = 1.0,
        webhooks: WebhookSender | None = None,
        resolve_missing: Callable[[BatchJob], Callable[[list[str]], dict[str, dict[str, Any]]] | None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._side = side
        self._run_batch = run_batch
        self.work_dir = work_dir
        self._stopping = stopping
        self._time_limit = time_limit_seconds
        self._progress_seconds = progress_seconds
        self._webhooks = webhooks or WebhookSender()
        self._resolve_missing = resolve_missing
        self._clock = clock

    def run(self, batch_id: UUID) -> bool:
        """Run the batch to its end unless it is over already; False when this process stopped first (the batch
        stays unfinished, to be resumed)."""
        if not self._run(batch_id):
            return False
        # Left for good, whichever way (stopped at a look, refused a step, met over on a resume): nothing of this
        # run writes to its files any more. A batch canceled after it started gets ``RunStopped`` (once).
        self._side.run_stopped(batch_id)
        return True

    def _run(self, batch_id: UUID) -> bool:
        job = self._side.job(batch_id)
        if job is None or job.status in TERMINAL:
            return True
        try:
            self._side.start(batch_id)  # Started(attempt): the first start or a resume
        except BatchNotRunnable:
            return True  # canceled or over meanwhile
        job = self._side.job(batch_id) or job
        started = job.started_at if job.started_at is not None else self._clock()
        deadline = started + self._time_limit
        reason: list[str] = []  # why should_stop answered true: "canceled", "time_limit" or "stopping"
        last_look = 0.0
        last_progress = 0.0

        def should_stop() -> bool:
            nonlocal last_look
            if reason:
                return True
            if self._stopping.is_set():
                reason.append("stopping")
                return True
            now = self._clock()
            if now >= deadline:
                reason.append(TIME_LIMIT_CODE)
                return True
            if now - last_look >= self._progress_seconds:
                last_look = now
                if self._side.status(batch_id) == "canceled":
                    reason.append("canceled")
                    return True
            return False

        def on_progress(progress: Any) -> None:
            nonlocal last_progress
            now = self._clock()
            if now - last_progress >= self._progress_seconds:
                last_progress = now
                try:
                    self._side.progress(batch_id, progress)
                except BatchNotRunnable:
                    reason.append("canceled")  # canceled under the runner: the next look stops it

        if self._clock() >= deadline:  # resumed after its hour was over
            return self._stopped(job, TIME_LIMIT_CODE)
        work_dir = self.work_dir(batch_id)
        work_dir.mkdir(parents=True, exist_ok=True)
        resolve = self._resolve_missing(job) if self._resolve_missing else None
        try:
            outcome = self._run_batch(
                **{k: v for k, v in job.inputs.items() if k != "query_type"},
                work_dir=work_dir,
                on_progress=on_progress,
                should_stop=should_stop,
                resolve_missing=resolve,
            )
        except Exception as e:
            if reason:  # stopped between chunks (the pipeline's BatchStopped, whatever its class)
                return self._stopped(job, reason[-1])
            log.exception("batch %s failed", batch_id)
            try:
                self._side.fail(batch_id, PROCESSING_ERROR_CODE, f"Processing failed: {type(e).__name__}"[:300])
            except BatchNotRunnable:
                return True
            self._notify(job, "error")
            return True
        try:
            self._side.finish(batch_id, outcome)
        except BatchNotRunnable:
            return True  # canceled in the last second: its reservation was released by the cancel
        self._notify(job, "available", outcome)
        return True

    def _stopped(self, job: BatchJob, why: str) -> bool:
        if why == "stopping":
            log.info("batch %s left unfinished: this process is stopping", job.id)
            return False
        if why == TIME_LIMIT_CODE:
            log.warning("batch %s ended: over its time limit", job.id)
            try:
                self._side.fail(job.id, TIME_LIMIT_CODE, TIME_LIMIT_MESSAGE)
            except BatchNotRunnable:
                return True
            self._notify(job, "error")
        else:
            log.info("batch %s stopped: canceled", job.id)  # cancel released the credits already
            self._notify(job, "canceled")
        return True

    def _notify(self, job: BatchJob, status: str, outcome: Any = None) -> None:
        if not job.webhook_url:
            return
        payload: dict[str, object] = {"id": str(job.id), "status": status}
        if outcome is not None:
            for name in ("records", "valid", "invalid", "found"):
                if hasattr(outcome, name):
                    payload[name] = getattr(outcome, name)
        try:
            self._webhooks.send(job.webhook_url, job.webhook_secret, payload)
        except Exception:  # never holds the next batch
            log.exception("webhook of batch %s", job.id)


class Enrichment(TrackedFollower):
    """The embedded processor: a thread of the server following the log for ``Batch.Submitted``, its position in
    the read store, moved past a batch only once the batch is over (a restart resumes the unfinished one)."""

    thread_name = "bemtevi-enrichment"
    topic = SUBMITTED_TOPIC

    def __init__(
        self,
        app: BemteviApplication,
        store: ReadStore,
        runner_factory: Callable[[threading.Event], BatchRunner],
        page_size: int = 100,
        poll_interval: float = 0.5,
        gather_seconds: float = 0.1,
    ) -> None:
        # Every save wakes it, and a round that finds no batch still moved the position in the read store (a
        # DuckDB commit): per lookup, about a fifth of the server's thread samples under 32 clients of vendor
        # lookups. A submitted batch may wait ``gather_seconds`` to start instead: 0.1 s, not the mailer's 0.25,
        # since an empty round now costs one read of the log (its position is written lazily) and a 1M-record
        # batch after its preview runs in ~0.5 s (upload to return file 3.2-3.6 s against 3.4-4.1 s with 0.25,
        # alternated; vendor lookups per second and server CPU per lookup the same in a swapped pair).
        super().__init__(
            app, store, TRACKING_NAME, poll_interval=poll_interval, gather_seconds=gather_seconds, page_size=page_size
        )
        self._runner = runner_factory(self._stopping)

    def handle(self, notification: Notification) -> bool:
        return self._runner.run(UUID(str(notification.originator_id)))  # False: stopping mid-batch, resumed later

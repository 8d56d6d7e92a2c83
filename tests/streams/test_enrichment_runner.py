"""The enrichment processor's runner on a real event store (SQLite) and the real ``Batch`` aggregate.

What an operator sees: a batch runs to ``available`` with progress events about a second apart (never one per
record); a batch canceled mid-run stops within about a second; a batch past its time limit ends with the
specification's message; a run stopped by its process leaves the batch to be resumed from its chunk files; the
embedded follower resumes an unfinished batch when it starts again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest
from support import make_settings, wait_until
from webhook_receiver import receiver

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.batches import TIME_LIMIT_MESSAGE, Batch, BatchStatus
from bemtevi.domain.principals import ROOT_GROUP_ID
from bemtevi.infra.webhooks import WebhookSender, signature
from bemtevi.projections.store import ReadStore
from bemtevi.streams.enrichment import TRACKING_NAME, BatchRunner, BatchSide, Enrichment

SYSTEM = Actor(user_id=None, tenant_id=ROOT_GROUP_ID)


class Stopped(Exception):
    pass


@dataclass
class Outcome:
    records: int
    valid: int
    invalid: int
    found: int
    return_file: Path


@dataclass
class Progress:
    records_done: int
    found: int
    invalid: int


class ChunkedPipeline:
    """A stand-in for the file pipeline with its contract: ``chunks`` chunks of ``per_chunk`` records, each taking
    ``seconds``, written as chunk files and skipped when on disk (a resumed run), ``should_stop`` asked between."""

    def __init__(self, chunks: int, per_chunk: int = 100, seconds: float = 0.05) -> None:
        self.chunks, self.per_chunk, self.seconds = chunks, per_chunk, seconds
        self.computed: list[int] = []

    def __call__(
        self,
        *,
        work_dir: Path,
        on_progress: Callable[[Progress], None],
        should_stop: Callable[[], bool],
        resolve_missing: Any = None,
    ) -> Outcome:
        for n in range(self.chunks):
            if should_stop():
                raise Stopped()
            chunk = work_dir / f"chunk-{n:06d}.arrow"
            if not chunk.exists():
                time.sleep(self.seconds)
                self.computed.append(n)
                chunk.with_suffix(".tmp").write_text(str(n))
                chunk.with_suffix(".tmp").rename(chunk)
            done = (n + 1) * self.per_chunk
            on_progress(Progress(done, done // 2, 0))
        total = self.chunks * self.per_chunk
        (work_dir / "return.csv").write_text("ok")
        return Outcome(total, total, 0, total // 2, work_dir / "return.csv")


class AggregateSteps:
    """The runner's steps straight on the aggregate (the batch commands add the ledger's settle and release)."""

    def __init__(self, app: BemteviApplication) -> None:
        self.app = app
        self.progressed: list[float] = []

    def _step(self, batch_id: UUID, act: Callable[[Batch], None]) -> None:
        batch = self.app.get(batch_id, Batch)
        with acting_as(SYSTEM):
            act(batch)
        self.app.save(batch)

    def start(self, batch_id: UUID) -> None:
        self._step(batch_id, lambda b: b.start())

    def progress(self, batch_id: UUID, records_done: int, found: int, invalid: int) -> None:
        self.progressed.append(time.monotonic())
        self._step(batch_id, lambda b: b.progress(records_done, found, invalid))

    def finish(self, batch_id: UUID, records: int, found: int, invalid: int, return_file_name: str) -> None:
        self._step(batch_id, lambda b: b.finish(records, found, invalid, found, return_file_name))

    def fail(self, batch_id: UUID, code: str, message: str) -> None:
        self._step(batch_id, lambda b: b.fail(code, message))

    def run_stopped(self, batch_id: UUID) -> None:
        batch = self.app.find(batch_id, Batch)
        if batch is not None and batch.awaits_run_stop:
            self._step(batch_id, lambda b: b.stop_run())


def kinds(app: BemteviApplication, batch_id: UUID) -> list[str]:
    return [type(e).__name__ for e in app.repository.event_store.get(batch_id)]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[BemteviApplication]:
    app = BemteviApplication(env=make_settings(tmp_path / "var", tmp_path / "none.parquet").event_store_env())
    yield app
    app.close()


def submit(app: BemteviApplication, records: int = 1000, webhook_url: str | None = None) -> UUID:
    batch_id = uuid4()
    with acting_as(SYSTEM):
        batch = Batch.submit(
            batch_id,
            group_id=ROOT_GROUP_ID,
            user_id=None,
            kind="batch",
            layout_id="layout",
            query_type=None,
            file_name="clientes.csv",
            extension="CSV",
            encoding="utf-8",
            size=100,
            records=records,
            valid_documents=records,
            credits_reserved=records,
            reservation_id=None,
            observation="",
            webhook_url=webhook_url,
            webhook_secret_sealed="sealed-s3cret" if webhook_url else None,
        )
    app.save(batch)
    return batch_id


def runner(
    app: BemteviApplication, pipeline: ChunkedPipeline, work: Path, stopping: threading.Event | None = None, **kw: Any
) -> tuple[BatchRunner, AggregateSteps]:
    steps = AggregateSteps(app)
    side = BatchSide(app, steps, inputs=lambda batch: {}, open_secret=lambda sealed: sealed.removeprefix("sealed-"))
    return BatchRunner(
        side, pipeline, lambda batch_id: work / str(batch_id), stopping or threading.Event(), progress_seconds=0.2, **kw
    ), steps


def test_a_batch_runs_to_available_with_progress_events_apart(app: BemteviApplication, tmp_path: Path) -> None:
    batch_id = submit(app)
    pipeline = ChunkedPipeline(chunks=20, seconds=0.03)  # 0.6 s of work
    run, steps = runner(app, pipeline, tmp_path / "batches")
    assert run.run(batch_id)
    batch = app.get(batch_id, Batch)
    assert batch.status == BatchStatus.AVAILABLE and batch.found == 1000 and batch.attempts == 1
    assert 2 <= len(steps.progressed) <= 5  # throttled: about one per 0.2 s, not one per chunk (20)
    assert run.run(batch_id)  # a batch over is not run again
    assert app.get(batch_id, Batch).attempts == 1


def test_cancel_mid_run_stops_the_batch_within_the_interval(app: BemteviApplication, tmp_path: Path) -> None:
    batch_id = submit(app)
    pipeline = ChunkedPipeline(chunks=3_000, seconds=0.02)  # a minute of work at least, however fast the machine
    run, _ = runner(app, pipeline, tmp_path / "batches")
    done = threading.Event()
    thread = threading.Thread(target=lambda: (run.run(batch_id), done.set()))
    thread.start()
    wait_until(lambda: app.get(batch_id, Batch).records_done > 0)
    batch = app.get(batch_id, Batch)
    with acting_as(SYSTEM):
        batch.cancel("user")
    app.save(batch)
    computed_at_cancel = len(pipeline.computed)
    assert done.wait(30)
    assert app.get(batch_id, Batch).status == BatchStatus.CANCELED
    # Stopped at the next check, not at the end: a few chunks after the cancel (at 20 ms each), of thousands left.
    assert len(pipeline.computed) - computed_at_cancel < 500
    # Once it wrote its last chunk, the runner said so (the data-subject report's index waits for that), once.
    assert kinds(app, batch_id)[-2:] == ["Canceled", "RunStopped"]
    assert run.run(batch_id)
    assert kinds(app, batch_id).count("RunStopped") == 1


def test_a_runner_meeting_a_batch_canceled_while_its_process_was_down_says_its_run_stopped(
    app: BemteviApplication, tmp_path: Path
) -> None:
    """A run killed mid-batch may have written a chunk after the user's cancel: the runner that meets the batch
    again (as the embedded follower does after a restart) says that run stopped; a batch canceled before it ever
    ran has no run to say so of."""
    started, waiting = submit(app), submit(app)
    stopping = threading.Event()
    first = ChunkedPipeline(chunks=40, seconds=0.02)
    run, _ = runner(app, first, tmp_path / "batches", stopping)
    thread = threading.Thread(target=run.run, args=(started,))
    thread.start()
    wait_until(lambda: len(first.computed) >= 2, timeout=5)
    stopping.set()  # the process goes down mid-batch
    thread.join(5)
    for batch_id in (started, waiting):
        batch = app.get(batch_id, Batch)
        with acting_as(SYSTEM):
            batch.cancel("user")
        app.save(batch)
    assert kinds(app, started)[-1] == "Canceled"
    again, _ = runner(app, ChunkedPipeline(chunks=40), tmp_path / "batches")
    assert again.run(started) and again.run(waiting)
    assert kinds(app, started)[-2:] == ["Canceled", "RunStopped"]
    assert kinds(app, waiting) == ["Submitted", "Canceled"]


def test_the_time_limit_ends_the_batch_with_the_specification_message(app: BemteviApplication, tmp_path: Path) -> None:
    batch_id = submit(app)
    pipeline = ChunkedPipeline(chunks=200, seconds=0.02)
    run, _ = runner(app, pipeline, tmp_path / "batches", time_limit_seconds=0.5)
    assert run.run(batch_id)
    batch = app.get(batch_id, Batch)
    assert batch.status == BatchStatus.ERROR and batch.message == TIME_LIMIT_MESSAGE
    assert batch.error_code == "time_limit"


def test_a_stopped_run_is_resumed_from_its_chunk_files(app: BemteviApplication, tmp_path: Path) -> None:
    batch_id = submit(app)
    stopping = threading.Event()
    first = ChunkedPipeline(chunks=40, seconds=0.02)
    run, _ = runner(app, first, tmp_path / "batches", stopping)
    thread = threading.Thread(target=run.run, args=(batch_id,))
    thread.start()
    wait_until(lambda: len(first.computed) >= 5, timeout=5)
    stopping.set()
    thread.join(5)
    assert app.get(batch_id, Batch).status == BatchStatus.PROCESSING
    second = ChunkedPipeline(chunks=40, seconds=0.02)
    run, _ = runner(app, second, tmp_path / "batches")
    assert run.run(batch_id)
    batch = app.get(batch_id, Batch)
    assert batch.status == BatchStatus.AVAILABLE and batch.attempts == 2
    assert sorted(first.computed + second.computed) == list(range(40))  # no chunk computed twice


def test_the_embedded_follower_resumes_an_unfinished_batch_when_it_starts_again(
    app: BemteviApplication, tmp_path: Path
) -> None:
    store = ReadStore(tmp_path / "read.duckdb")
    try:
        batch_id = submit(app)
        pipeline = ChunkedPipeline(chunks=60, seconds=0.02)
        follower = Enrichment(app, store, lambda stopping: runner(app, pipeline, tmp_path / "batches", stopping)[0])
        follower.start()
        wait_until(lambda: len(pipeline.computed) >= 5, timeout=5)
        follower.stop()  # as a server stopping mid-batch
        assert app.get(batch_id, Batch).status == BatchStatus.PROCESSING
        position = follower.position
        again = Enrichment(app, store, lambda stopping: runner(app, pipeline, tmp_path / "batches", stopping)[0])
        assert again.position == position  # not moved past the unfinished batch
        again.start()
        wait_until(lambda: app.get(batch_id, Batch).status == BatchStatus.AVAILABLE, timeout=10)
        again.stop()
        assert sorted(pipeline.computed) == list(range(60))
    finally:
        store.close()


def test_the_follower_keeps_its_skips_past_other_events_every_few_seconds_and_at_stop(
    app: BemteviApplication, tmp_path: Path
) -> None:
    # Every save wakes it: a DuckDB commit of its position per round cost every lookup. What it skipped is still
    # kept once it stops, so a restart does not read that log again.
    store = ReadStore(tmp_path / "read.duckdb")
    try:
        pipeline = ChunkedPipeline(chunks=2, seconds=0)
        follower = Enrichment(app, store, lambda stopping: runner(app, pipeline, tmp_path / "batches", stopping)[0])
        first = submit(app)
        follower.catch_up()  # runs the batch, then skips the batch's own events: the first skip is written
        assert app.get(first, Batch).status == BatchStatus.AVAILABLE
        assert store.tracked_position(TRACKING_NAME) == follower.position == app.max_position()
        second = submit(app)
        follower.catch_up()
        assert app.get(second, Batch).status == BatchStatus.AVAILABLE
        assert follower.position == app.max_position()
        assert store.tracked_position(TRACKING_NAME) < follower.position  # past the batch; the skip waits
        follower.stop()
        assert store.tracked_position(TRACKING_NAME) == app.max_position()
    finally:
        store.close()


def test_the_webhook_is_sent_signed_once_the_batch_is_over(app: BemteviApplication, tmp_path: Path) -> None:
    with receiver(failures_first=1) as got:
        batch_id = submit(app, webhook_url=got.url)
        run, _ = runner(
            app,
            ChunkedPipeline(chunks=3),
            tmp_path / "batches",
            webhooks=WebhookSender(backoff=0.01, allow_private=True),
        )
        assert run.run(batch_id)
    assert len(got.bodies) == 2  # refused once (503), delivered on the first retry
    body = got.bodies[-1]
    assert got.signatures[-1] == signature("s3cret", body)
    assert b'"status":"available"' in body and b'"found":150' in body and str(batch_id).encode() in body

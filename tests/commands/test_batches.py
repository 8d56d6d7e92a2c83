"""The Batch aggregate's steps and the batch commands' credit rules: few events, illegal steps
refused, credits reserved once, settled once for what was found (a crash between the settle and
``Finished`` mended by finishing again), released on failure and cancel."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID, uuid4

import pytest
from support import KNOWN_CPF, super_admin

from bemtevi.bootstrap import Platform
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.batch_errors import BatchNotCancellable, BatchNotDeletable, BatchNotRunnable
from bemtevi.domain.batches import (
    TIME_LIMIT_CODE,
    TIME_LIMIT_MESSAGE,
    Batch,
    BatchStatus,
    ledger_request_id,
)
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.documents import cpf_check_digits
from bemtevi.domain.layouts import LayoutRow, LayoutSpec
from bemtevi.domain.principals import ROOT_GROUP_ID, Principal
from bemtevi.domain.query_types import Category

ACTOR = Actor(user_id=None, tenant_id=uuid4())


def submitted() -> Batch:
    with acting_as(ACTOR):
        return Batch.submit(
            uuid4(),
            group_id=ACTOR.tenant_id,
            user_id=None,
            kind="batch",
            layout_id="layout",
            query_type=None,
            file_name="lista.csv",
            extension="CSV",
            encoding="utf-8",
            size=10,
            records=3,
            valid_documents=2,
            credits_reserved=2,
            reservation_id=uuid4(),
            observation="",
            webhook_url=None,
            webhook_secret_sealed=None,
        )


def replayed(batch: Batch) -> Batch:
    copy = None
    for event in batch.collect_events():
        copy = event.mutate(copy)
    assert isinstance(copy, Batch)
    return copy


def test_a_batch_runs_through_few_events_and_a_resume_keeps_its_first_start() -> None:
    batch = submitted()
    assert batch.status == BatchStatus.WAITING
    with acting_as(ACTOR):
        batch.start()
        first = batch.started_at
        for done in range(1, 4):
            batch.progress(done, done - 1, 0)
        batch.start()  # a worker killed mid-batch resumes it
        batch.finish(3, 2, 1, 2, "retorno.csv")
    assert (batch.attempts, batch.started_at, batch.status) == (2, first, BatchStatus.AVAILABLE)
    copy = replayed(batch)
    assert (copy.status, copy.found, copy.charged, copy.started_at) == (BatchStatus.AVAILABLE, 2, 2, first)
    assert copy.finished_at is not None and copy.finished_at >= first


def test_illegal_steps_are_refused_and_move_nothing() -> None:
    batch = submitted()
    with acting_as(ACTOR):
        with pytest.raises(BatchNotRunnable):
            batch.progress(1, 0, 0)  # not started
        with pytest.raises(BatchNotRunnable):
            batch.finish(3, 1, 0, 1, "r.csv")
        with pytest.raises(BatchNotDeletable):
            batch.delete()  # cancel first
        batch.cancel("user")
        for step in (batch.start, lambda: batch.fail("x", "y"), lambda: batch.progress(1, 1, 0)):
            with pytest.raises(BatchNotRunnable):
                step()
        with pytest.raises(BatchNotCancellable):
            batch.cancel("user")
        batch.delete()
        with pytest.raises(BatchNotDeletable):
            batch.delete()
    assert [type(e).__name__ for e in batch.collect_events()] == ["Submitted", "Canceled", "Deleted"]


def test_only_a_run_canceled_under_its_runner_is_said_stopped_and_once() -> None:
    """``RunStopped``: the runner's word that it writes no more to a batch canceled while it ran (the data-subject
    index waits for it); a batch canceled before it ran, or one that ended otherwise, has no such run."""
    waiting, finished, running = submitted(), submitted(), submitted()
    with acting_as(ACTOR):
        waiting.cancel("user")
        finished.start()
        finished.finish(3, 2, 1, 2, "r.csv")
        running.start()
        for batch in (waiting, finished, running):  # running: not canceled yet
            assert not batch.awaits_run_stop
            with pytest.raises(BatchNotRunnable):
                batch.stop_run()
        running.cancel("user")
        assert running.awaits_run_stop
        running.delete()  # deleted before its runner's word: the word still comes
        running.stop_run()
        with pytest.raises(BatchNotRunnable):
            running.stop_run()
    events = running.collect_events()
    assert [type(e).__name__ for e in events][-3:] == ["Canceled", "Deleted", "RunStopped"]
    copy = None
    for event in events:
        copy = event.mutate(copy)
    assert isinstance(copy, Batch)
    assert (copy.status, copy.run_stopped, copy.awaits_run_stop) == (BatchStatus.CANCELED, True, False)


def test_the_runners_stopped_step_appends_once_and_only_where_it_applies(
    sqlite_platform: Platform, tmp_path: Path
) -> None:
    platform = sqlite_platform
    admin = super_admin(platform)
    waiting = a_batch(platform, admin, tmp_path, [cpf(5)])
    running = a_batch(platform, admin, tmp_path, [cpf(6)])
    platform.batches.cancel(admin, waiting)
    platform.batches.steps.start(running)
    assert platform.batches.steps.run_stopped(running) is None  # still running
    platform.batches.cancel(admin, running)
    assert platform.batches.steps.run_stopped(waiting) is None  # never ran
    assert platform.batches.steps.run_stopped(uuid4()) is None  # unknown
    assert platform.batches.steps.run_stopped(running) is not None
    assert platform.batches.steps.run_stopped(running) is None  # told twice: once
    events = [type(e).__name__ for e in platform.app.repository.event_store.get(running)]
    assert events.count("RunStopped") == 1 and events[-1] == "RunStopped"


def test_the_ledger_request_ids_are_the_batchs_own() -> None:
    batch_id = uuid4()
    assert ledger_request_id(batch_id, "settle") == ledger_request_id(batch_id, "settle")
    assert len({ledger_request_id(batch_id, s) for s in ("reserve", "settle", "release")}) == 3
    assert ledger_request_id(batch_id, "settle") != ledger_request_id(uuid4(), "settle")


# -- the commands, on a real event store and ledger --------------------------------------------


def cpf(n: int) -> str:
    base = f"{n:09d}"
    return base + cpf_check_digits(base)


def account(platform: Platform, group_id: UUID = ROOT_GROUP_ID) -> CreditAccount:
    found = platform.app.find(credit_account_id(group_id, Category.BATCH), CreditAccount)
    assert found is not None
    return found


def a_batch(platform: Platform, principal: Principal, tmp_path: Path, documents: list[str]) -> UUID:
    spec = LayoutSpec(
        "clientes",
        "retorno",
        "csv",
        "csv",
        "delimited",
        ";",
        True,
        "pessoas",
        (LayoutRow("CPF", "document", 1, "", None, "entry"), LayoutRow("CPF", "document", 1, "", None, "exit")),
    )
    layout_id = platform.catalogue.add_layout(principal, spec).id
    data = ("CPF\n" + "".join(f"{d}\n" for d in documents)).encode()
    uploaded = platform.batches.uploads.upload(principal, layout_id, [data], "lista.csv")
    return platform.batches.submit(principal, uploaded.upload_id).batch_id


def test_finishing_again_after_a_crash_between_settle_and_finished_charges_once(
    sqlite_platform: Platform, tmp_path: Path
) -> None:
    platform = sqlite_platform
    admin = super_admin(platform)
    before = account(platform)
    used_before, reserved_before = before.used, before.reserved
    batch_id = a_batch(platform, admin, tmp_path, [KNOWN_CPF, cpf(1), cpf(2)])
    assert account(platform).reserved == reserved_before + 3
    platform.batches.steps.start(batch_id)
    # The runner settled, then died before appending Finished: the same settle request, sent by hand.
    batch = platform.app.get(batch_id, Batch)
    assert batch.reservation_id is not None
    platform.credits.settle(
        Actor(None, ROOT_GROUP_ID),
        ROOT_GROUP_ID,
        Category.BATCH,
        batch.reservation_id,
        1,
        request_id=ledger_request_id(batch_id, "settle"),
    )
    platform.batches.steps.start(batch_id)  # resumed
    platform.batches.steps.finish(batch_id, 3, 1, 0, "retorno.csv")
    platform.batches.steps.finish(batch_id, 3, 1, 0, "retorno.csv")  # and told twice
    after = account(platform)
    assert (after.used - used_before, after.reserved) == (1, reserved_before)
    finished = platform.app.get(batch_id, Batch)
    assert (finished.status, finished.charged, finished.attempts) == (BatchStatus.AVAILABLE, 1, 2)
    with pytest.raises(BatchNotRunnable):
        platform.batches.steps.fail(batch_id, TIME_LIMIT_CODE, TIME_LIMIT_MESSAGE)


def test_the_time_limit_fails_the_batch_and_releases_its_credits_once(
    sqlite_platform: Platform, tmp_path: Path
) -> None:
    platform = sqlite_platform
    admin = super_admin(platform)
    used_before = account(platform).used
    batch_id = a_batch(platform, admin, tmp_path, [cpf(3), cpf(4)])
    reserved = account(platform).reserved
    platform.batches.steps.start(batch_id)
    platform.batches.steps.fail(batch_id, TIME_LIMIT_CODE, TIME_LIMIT_MESSAGE)
    platform.batches.steps.fail(batch_id, TIME_LIMIT_CODE, TIME_LIMIT_MESSAGE)  # told twice: nothing more
    assert (account(platform).reserved, account(platform).used) == (reserved - 2, used_before)
    failed = platform.app.get(batch_id, Batch)
    assert (failed.status, failed.error_code, failed.message) == (
        BatchStatus.ERROR,
        "time_limit",
        "Process terminated after exceeding the 1 hour limit",
    )
    with pytest.raises(BatchNotRunnable):
        platform.batches.steps.finish(batch_id, 2, 2, 0, "r.csv")
    with pytest.raises(BatchNotCancellable):
        platform.batches.cancel(admin, batch_id)

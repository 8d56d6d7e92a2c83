"""Projector catch-up on a large log against merely reading and decoding the same log.

    python bench/projector.py [--events 1000000] [--page-size 1000]

Seeds a SQLite event store with realistic lookup histories (reservation, settlement and
consultation events), then in one run: (1) reads the whole log page by page and decodes every
event, (2) catches the projector up from zero into a fresh DuckDB file. The ratio of the two
rates is the figure (issue 35: catch-up at least as fast as reading and decoding, ratio >= 1.0). Each lookup is
three events, so issue 35's rebuild of 10,000,000 consultations is ``--events 30000000 --no-read --seeders 2``:
the catch-up's time and its peak memory (the process's high-water mark, reset before the catch-up; target <= 2 GB).
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import temp_dir, warn_if_busy

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.batch_files import BatchFiles
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.consultations import Consultation
from bemtevi.domain.credits import CreditAccount
from bemtevi.domain.query_types import Category
from bemtevi.infra.settings import Settings
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.store import ReadStore
from bemtevi.streams.projector import Projector

GROUPS = 100
DOCUMENTS = ["52998224725", "11144477735", "11222333000181", "00000000191"]


def seed(app: BemteviApplication, events: int, batch: int = 20_000, processes: int = 1) -> None:
    """Append ``events`` events in large transactions (seeding is not what is measured). With ``processes`` > 1,
    that many processes make the events (each for its own groups) and this one appends them."""
    if processes <= 1:
        for stored in _lookups(app, events, batch, range(GROUPS)):
            app.recorder.insert_events(stored)
        return
    queue: Any = multiprocessing.get_context("fork").Queue(maxsize=8)
    share = -(-events // processes)
    makers = [
        multiprocessing.get_context("fork").Process(
            target=_make_into, args=(queue, share, batch, range(n, GROUPS, processes)), daemon=True
        )
        for n in range(processes)
    ]
    for maker in makers:
        maker.start()
    done = 0
    while done < processes:
        stored = queue.get()
        if stored is None:
            done += 1
        else:
            app.recorder.insert_events(stored)
    for maker in makers:
        maker.join()


def _make_into(queue: Any, events: int, batch: int, groups: range) -> None:
    app = BemteviApplication(env=Settings(var_dir=Path(temp_dir())).event_store_env())  # its mapper only
    for stored in _lookups(app, events, batch, groups):
        queue.put(stored)
    queue.put(None)


def _lookups(app: BemteviApplication, events: int, batch: int, groups_of: range) -> Iterator[list[Any]]:
    """Stored events of lookup histories over ``groups_of`` of the ``GROUPS`` groups, ``batch`` at a time."""
    groups = [uuid4() for _ in groups_of]
    accounts = {}
    pending: list[Any] = []
    written = 0
    lookups = 0
    for group_id in groups:
        with acting_as(Actor(None, group_id)):
            account = CreditAccount.open(group_id, Category.UNIT, None)
        accounts[group_id] = account
        pending.extend(account.collect_events())
    while written + len(pending) < events:
        group_id = groups[lookups % len(groups)]
        account = accounts[group_id]
        user_id = group_id  # any stable id: the acting user is not what is measured
        consultation_id = uuid4()
        document = DOCUMENTS[lookups % len(DOCUMENTS)]
        with acting_as(Actor(user_id, group_id)):
            account.reserve(consultation_id, 1)
            found = lookups % 7 != 0
            if found:
                account.settle(consultation_id, 1)
            else:
                account.release(consultation_id)
            consultation = Consultation._create(
                Consultation.Recorded,
                id=consultation_id,
                group_id=group_id,
                user_id=user_id,
                document=document,
                document_type="cnpj" if len(document) == 14 else "cpf",
                query_type="cnpj-complete" if len(document) == 14 else "cpf-complete",
                category="unit",
                supplier="local",
                status="done" if found else "not_found",
                credits=1 if found else 0,
                channel="panel",
                lease_id=None,
                purpose=None,
            )
        pending.extend(account.collect_events())
        pending.extend(consultation.collect_events())
        lookups += 1
        if len(pending) >= batch:
            written += len(pending)
            yield [app.mapper.to_stored_event(e) for e in pending]
            pending = []
    yield [app.mapper.to_stored_event(e) for e in pending[: max(0, events - written)]]


def warm_projector_folds(app: BemteviApplication, projector: Projector) -> list:
    folds = [model.fold() for model in projector._read_models]
    projector._fold(app.recorder.select_notifications(1, 500), folds)
    return folds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--page-size", type=int, default=1000)
    parser.add_argument("--no-read", action="store_true", help="only the catch-up (no read-and-decode pass)")
    parser.add_argument("--seeders", type=int, default=1, help="processes making the seeded events")
    args = parser.parse_args()
    warn_if_busy()

    var = Path(temp_dir())
    try:
        run(args, var)
    finally:
        shutil.rmtree(var, ignore_errors=True)  # the seeded log: gigabytes


def run(args: argparse.Namespace, var: Path) -> None:
    settings = Settings(var_dir=var)
    app = BemteviApplication(env=settings.event_store_env())
    started = time.perf_counter()
    seed(app, args.events, processes=args.seeders)
    total = app.max_position()
    print(f"seeded {total:,} events in {time.perf_counter() - started:.1f} s (SQLite)")

    # (1) Merely read the log and decode every event.
    started = time.perf_counter()
    position, decoded = 0, 0
    while not args.no_read:
        page = app.recorder.select_notifications(position, args.page_size, inclusive_of_start=False)
        if not page:
            break
        for notification in page:
            app.mapper.to_domain_event(notification)
        decoded += len(page)
        position = page[-1].id
    read_seconds = time.perf_counter() - started
    read_rate = decoded / read_seconds if decoded else 0.0

    # (2) Projector catch-up from zero into a fresh DuckDB file. A warm-up projection of a
    # few events first pays the one-time lazy imports (pyarrow, DuckDB's arrow scan) that a
    # running server has long paid.
    warm = ReadStore(var / "warm_up.duckdb")
    warm_projector = Projector(
        app,
        warm,
        all_read_models(BatchFiles(settings.batches_dir).looked_up),
        page_size=args.page_size,
        batch_size=args.page_size,
    )
    warm_projector._write(warm_projector_folds(app, warm_projector), 0)
    warm.close()
    store = ReadStore(var / "bench_read_models.duckdb")
    projector = Projector(
        app, store, all_read_models(BatchFiles(settings.batches_dir).looked_up), page_size=args.page_size
    )
    peak_before = peak_rss_mib(reset=True)
    started = time.perf_counter()
    projected = projector.catch_up()
    project_seconds = time.perf_counter() - started
    project_rate = projected / project_seconds
    rows = store.cursor().execute("SELECT count(*) FROM consultations").fetchone()
    store.close()

    if decoded:
        print(f"read + decode : {decoded:,} events in {read_seconds:.1f} s = {read_rate:,.0f} events/s")
    print(f"catch-up      : {projected:,} events in {project_seconds:.1f} s = {project_rate:,.0f} events/s")
    print(f"consultation rows projected: {rows[0] if rows else 0:,}")
    print(f"peak memory during the catch-up: {peak_rss_mib():,.0f} MiB (before it: {peak_before:,.0f} MiB)")
    if decoded:
        print(f"ratio catch-up / read+decode: {project_rate / read_rate:.2f} (issue 35: >= 1.0)")


def peak_rss_mib(*, reset: bool = False) -> float:
    """This process's resident high-water mark (Linux); ``reset`` starts it again from the current size."""
    status = Path("/proc/self/status").read_text()
    peak = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")) / 1024
    if reset:
        Path("/proc/self/clear_refs").write_text("5")
    return peak


if __name__ == "__main__":
    main()

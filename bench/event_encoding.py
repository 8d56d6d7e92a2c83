"""CPU per stored event of the group-commit writer's appends: the library's way and this tree's.

    python bench/event_encoding.py [--rounds 9] [--saves 20] [--lookups 32] [--sqlite-only]

A charged lookup on a busy account saves two events: a ``Consultation.Recorded`` (a new
aggregate) and a ``CreditAccount.SettledFromBlock``. The writer saves the lookups of one batch
in one append; here every save carries ``--lookups`` lookups (64 events by default), as in the
profile of the server under load.

Two applications on the same store, timed alternately in the same run:

* ``before``: the library's ``JSONTranscoder``, the library's ``save`` (its
  ``ProcessingEvent``) and, on PostgreSQL, the one-call recorder's previous ``insert_events``
  (four arrays dumped by psycopg);
* ``after``: ``BemteviApplication`` as it is (``bemtevi.infra.event_encoding``, its ``save``,
  ``bemtevi.infra.postgres_store``).

Figures are CPU µs per event (``time.process_time``: this process's CPU in every thread, not
wall clock, so other load on the machine matters less and waiting on the server not at all):

* ``encode``: ``mapper.to_stored_event`` of the save's events;
* ``insert``: ``recorder.insert_events`` of them;
* ``save``: the whole ``app.save`` of the aggregates (collect, encode, insert, snapshots, listeners).

In a round the two applications take turns, one save of each kind at a time, ``--saves`` times
(so both run under the same load); a figure is the median over the rounds, and so is the ratio
after / before of each round (its range is shown).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import postgres_database, temp_dir
from event_store import consultation as sample_consultation
from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.utils import retry
from psycopg.sql import SQL, Identifier

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.credits import CreditAccount, ReasonKind
from bemtevi.domain.query_types import Category
from bemtevi.infra.postgres_store import OneCallPostgresApplicationRecorder
from bemtevi.infra.settings import Settings

LIBRARY_CODING = {"TRANSCODER_TOPIC": "eventsourcing.persistence:JSONTranscoder"}


class PreviousOneCallRecorder(OneCallPostgresApplicationRecorder):
    """The one-call recorder's ``insert_events`` before it packed its arrays itself."""

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        function = Identifier(self.datastore.schema, f"{self.events_table_name}_append")
        self._append_statement = SQL(
            "SELECT notification_id FROM {function}(%b, %b, %b, %b) AS appended(notification_id)"
        ).format(function=function)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        params = (
            [e.originator_id for e in stored_events],
            [e.originator_version for e in stored_events],
            [e.topic for e in stored_events],
            [e.state for e in stored_events],
        )
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._append_statement, params, prepare=True)
            return [row["notification_id"] for row in curs.fetchall()]


class LibrarySaveApplication(BemteviApplication):
    """``BemteviApplication`` with the library's ``save`` (its ``ProcessingEvent``), and its
    snapshot check as it was (the aggregate of every event looked up by id)."""

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        return Application.save(self, *objs, **kwargs)

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        due: dict[UUID, Any] = {}
        for event in processing_event.events:
            aggregate = processing_event.aggregates.get(event.originator_id)
            interval = self.snapshotting_intervals.get(type(aggregate)) if aggregate is not None else None
            if interval is not None and event.originator_version % interval == 0:
                due[event.originator_id] = aggregate
        if due and self.snapshots:
            self.snapshots.put([type(a).Snapshot.take(a) for a in due.values()])


class Lookups:
    """One busy account and its block; each call makes a batch of lookups' aggregates, unsaved."""

    def __init__(self, app: BemteviApplication) -> None:
        self.group = uuid4()
        self.actor = Actor(uuid4(), self.group)
        with acting_as(self.actor):
            self.account = CreditAccount.open(self.group, Category.UNIT, None)
            self.block = uuid4()
            self.account.reserve(self.block, 10**12, ReasonKind.BLOCK)
        app.save(self.account)

    def batch(self, lookups: int) -> list[Any]:
        consultations = []
        with acting_as(self.actor):
            for _ in range(lookups):
                consultation = sample_consultation(self.group, self.actor.user_id)
                self.account.settle_from_block(self.block, consultation.id, 1)
                consultations.append(consultation)
        return [*consultations, self.account]


def events_of(aggregates: list[Any]) -> list[Any]:
    return [e for a in aggregates for e in a.collect_events()]


FIGURES = ("encode", "insert", "encode+insert", "save")


class Variant:
    def __init__(self, name: str, app: BemteviApplication) -> None:
        self.name = name
        self.app = app
        self.encoding = Lookups(app)  # its events are encoded and inserted with the recorder
        self.saving = Lookups(app)  # its aggregates are saved with app.save
        self.figures: dict[str, list[float]] = {figure: [] for figure in FIGURES}  # per round, µs per event
        self._cpu = dict.fromkeys(FIGURES, 0.0)
        self._events = 0

    def step(self, lookups: int) -> None:
        """One save of each kind: a batch's events encoded and inserted, and a batch saved."""
        mapper, recorder = self.app.mapper, self.app.recorder
        batch = events_of(self.encoding.batch(lookups))
        started = time.process_time()
        stored = [mapper.to_stored_event(e) for e in batch]
        encoded = time.process_time()
        recorder.insert_events(stored)
        inserted = time.process_time()
        aggregates = self.saving.batch(lookups)
        saving = time.process_time()
        self.app.save(*aggregates)
        saved = time.process_time()
        self._cpu["encode"] += encoded - started
        self._cpu["insert"] += inserted - encoded
        self._cpu["encode+insert"] += inserted - started
        self._cpu["save"] += saved - saving
        self._events += len(batch)

    def end_round(self) -> None:
        for figure, cpu in self._cpu.items():
            self.figures[figure].append(cpu * 1e6 / self._events)
        self._cpu = dict.fromkeys(FIGURES, 0.0)
        self._events = 0


def run_round(variants: tuple[Variant, Variant], saves: int, lookups: int) -> None:
    """``saves`` steps of each variant, alternating (and which goes first), so both see the same load."""
    gc.collect()
    for i in range(saves):
        for variant in variants if i % 2 == 0 else variants[::-1]:
            variant.step(lookups)
    for variant in variants:
        variant.end_round()


def compare(backend: str, make_app: Callable[[dict[str, str], bool], BemteviApplication], args: Any) -> None:
    before = Variant("before", make_app(LIBRARY_CODING, True))
    after = Variant("after", make_app({}, False))
    try:
        # The same events are stored as the same bytes either way.
        sample = events_of(Lookups(before.app).batch(2))
        assert [after.app.mapper.to_stored_event(e) for e in sample] == [
            before.app.mapper.to_stored_event(e) for e in sample
        ]
        run_round((before, after), 4, args.lookups)  # warm-up: prepared statements, caches
        for variant in (before, after):
            for figures in variant.figures.values():
                figures.clear()
        for _ in range(args.rounds):
            run_round((before, after), args.saves, args.lookups)
        print(f"\n{backend}: {args.lookups} lookups per save ({2 * args.lookups} events), CPU µs per event")
        print(f"  {'':<14}{'before':>9}{'after':>9}{'after/before':>14}   (ratio's range over {args.rounds} rounds)")
        for figure in FIGURES:
            b, a = before.figures[figure], after.figures[figure]
            ratios = [x / y for x, y in zip(a, b, strict=True)]
            print(
                f"  {figure:<14}{statistics.median(b):>9.2f}{statistics.median(a):>9.2f}"
                f"{statistics.median(ratios):>14.2f}   ({min(ratios):.2f} to {max(ratios):.2f})"
            )
    finally:
        before.app.close()
        after.app.close()


@contextmanager
def sqlite_env() -> Iterator[Callable[[dict[str, str], bool], BemteviApplication]]:
    def make(extra: dict[str, str], library_save: bool) -> BemteviApplication:
        env = Settings(var_dir=Path(temp_dir())).event_store_env() | extra
        return (LibrarySaveApplication if library_save else BemteviApplication)(env=env)

    yield make


@contextmanager
def postgres_env() -> Iterator[Callable[[dict[str, str], bool], BemteviApplication]]:
    with postgres_database() as url:
        settings = Settings(var_dir=Path(temp_dir()), database_url=url)

        def make(extra: dict[str, str], library_save: bool) -> BemteviApplication:
            env = settings.event_store_env() | extra
            if library_save:
                env["APPLICATION_RECORDER_TOPIC"] = f"{__name__}:PreviousOneCallRecorder"
                return LibrarySaveApplication(env=env)
            return BemteviApplication(env=env)

        yield make


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--saves", type=int, default=20)
    parser.add_argument("--lookups", type=int, default=32)
    parser.add_argument("--sqlite-only", action="store_true")
    args = parser.parse_args()
    with sqlite_env() as make:
        compare("SQLite", make, args)
    if not args.sqlite_only:
        with postgres_env() as make:
            compare("PostgreSQL", make, args)


if __name__ == "__main__":
    main()

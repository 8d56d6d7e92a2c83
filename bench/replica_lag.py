"""Lag of a replica fed from Kafka: from the commit of an event to its fold in the replica, under a steady rate.

    python bench/replica_lag.py [--lookups-per-second 100] [--seconds 30] [--windows 0.5,0.1,0]

A PostgreSQL event store (the project's own server, or BEMTEVI_TEST_POSTGRES_URL's), a Kafka broker (the
project's own, or BEMTEVI_KAFKA_BOOTSTRAP's) and `bemtevi relay` in a process of its own, as in cluster
mode. This process appends lookups (a reservation, a settlement or release, the recorded consultation: one
append of three events, on 20 groups' accounts) at a steady rate and, like an API process, runs a replica
(``Projector`` fed by ``KafkaFeed``) into its own DuckDB file. An event's lag is the time from its append's
commit (the save returned) to the replica's position reaching it (watched every millisecond). Each coalescing
window (``BEMTEVI_PROJECTOR_COALESCE_SECONDS``, 0.5 s by default) is measured with a fresh replica over the
same topic, after it has caught up. Also printed: the replica's catch-up rate from the topic's first record.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID, uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import in_background, percentile, postgres_database, temp_dir

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.batch_files import BatchFiles
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.consultations import Consultation
from bemtevi.domain.credits import CreditAccount
from bemtevi.domain.query_types import Category
from bemtevi.infra.local_services.kafka import KafkaBroker
from bemtevi.infra.settings import Settings
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.store import ReadStore
from bemtevi.streams.kafka_feed import KafkaFeed
from bemtevi.streams.projector import Projector
from bemtevi.streams.relay import tracking_name

GROUPS = 20


class Appender:
    """Lookups appended at a steady rate; remembers each append's last position and commit time."""

    def __init__(self, app: BemteviApplication) -> None:
        self._app = app
        self._accounts: dict[UUID, CreditAccount] = {}
        for _ in range(GROUPS):
            group_id = uuid4()
            with acting_as(Actor(None, group_id)):
                self._accounts[group_id] = CreditAccount.open(group_id, Category.UNIT, None)
        app.save(*self._accounts.values())
        self._n = 0
        self.commits: list[tuple[int, float]] = []

    def lookup(self) -> None:
        group_id = list(self._accounts)[self._n % GROUPS]
        account = self._accounts[group_id]
        consultation_id = uuid4()
        found = self._n % 5 != 0
        self._n += 1
        with acting_as(Actor(group_id, group_id)):
            account.reserve(consultation_id, 1)
            if found:
                account.settle(consultation_id, 1)
            else:
                account.release(consultation_id)
            consultation = Consultation._create(
                Consultation.Recorded,
                id=consultation_id,
                group_id=group_id,
                user_id=group_id,
                document="52998224725",
                document_type="cpf",
                query_type="cpf-complete",
                category="unit",
                supplier="local",
                status="done" if found else "not_found",
                credits=1 if found else 0,
                channel="panel",
                lease_id=None,
                purpose=None,
            )
        recordings = self._app.save(account, consultation)
        self.commits.append((recordings[-1].notification.id, time.monotonic()))

    def run(self, rate: float, seconds: float) -> None:
        interval = 1.0 / rate
        began = time.monotonic()
        n = 0
        while (now := time.monotonic()) - began < seconds:
            due = began + n * interval
            if now < due:
                time.sleep(due - now)
            self.lookup()
            n += 1


@contextlib.contextmanager
def watched(projector: Projector) -> Iterator[list[tuple[int, float]]]:
    """The replica's position every millisecond: (position, first time seen)."""
    seen: list[tuple[int, float]] = []

    def watch(stop: threading.Event) -> None:
        last = -1
        while not stop.is_set():
            position = projector.position
            if position != last:
                seen.append((position, time.monotonic()))
                last = position
            time.sleep(0.001)

    with in_background(watch):
        yield seen


def lags(commits: list[tuple[int, float]], seen: list[tuple[int, float]]) -> list[float]:
    out = []
    index = 0
    for position, committed in commits:
        while index < len(seen) and seen[index][0] < position:
            index += 1
        if index < len(seen):
            out.append(seen[index][1] - committed)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lookups-per-second", type=float, default=100.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--windows", default="0.5,0.1,0", help="coalescing windows to measure, seconds")
    parser.add_argument("--seed-lookups", type=int, default=20_000, help="history before the measure")
    args = parser.parse_args()

    with contextlib.ExitStack() as stack:
        database = stack.enter_context(postgres_database())
        bootstrap = os.environ.get("BEMTEVI_KAFKA_BOOTSTRAP") or stack.enter_context(KafkaBroker()).bootstrap
        var = Path(temp_dir())
        settings = Settings(var_dir=var, database_url=database)
        app = BemteviApplication(env=settings.event_store_env())
        stack.callback(app.close)
        appender = Appender(app)
        began = time.perf_counter()
        for _ in range(args.seed_lookups):
            appender.lookup()
        print(f"seeded {app.max_position():,} events in {time.perf_counter() - began:.1f} s")
        topic = "bench.events"
        env = {
            **os.environ,
            "BEMTEVI_DATABASE_URL": database,
            "BEMTEVI_KAFKA_BOOTSTRAP": bootstrap,
            "BEMTEVI_KAFKA_EVENTS_TOPIC": topic,
        }
        relay_log = (var / "relay.log").open("wb")
        relay = subprocess.Popen(
            [sys.executable, "-m", "bemtevi.cli", "relay"], env=env, stdout=relay_log, stderr=relay_log
        )
        stack.callback(relay.wait, 20)
        stack.callback(relay.terminate)
        relayed = app.factory.tracking_recorder()
        began = time.perf_counter()
        while (relayed.max_tracking_id(tracking_name(topic)) or 0) < app.max_position():
            time.sleep(0.05)
        print(f"relayed in {time.perf_counter() - began:.1f} s")

        # The replica's own application, as in an API process that did not make these appends.
        replica_app = BemteviApplication(env=settings.event_store_env())
        stack.callback(replica_app.close)
        for index, window in enumerate(float(w) for w in args.windows.split(",")):
            store = ReadStore(var / f"replica-{index}.duckdb")
            projector = Projector(
                replica_app,
                store,
                all_read_models(BatchFiles(settings.batches_dir).looked_up),
                coalesce_window=window,
                source=KafkaFeed(store, bootstrap, topic),
            )
            target = app.max_position()
            began = time.perf_counter()
            projector.start()
            while projector.position < target:
                time.sleep(0.01)
            catch_up = time.perf_counter() - began
            cpu = time.process_time()
            with watched(projector) as seen:
                appender.commits.clear()
                appender.run(args.lookups_per_second, args.seconds)
                last = app.max_position()
                deadline = time.monotonic() + 30
                while projector.position < last and time.monotonic() < deadline:
                    time.sleep(0.01)
            cpu = time.process_time() - cpu
            measured = lags(appender.commits, seen)
            projector.stop()
            store.close()
            events = len(appender.commits) * 3
            print(
                f"window {window:.2f} s: catch-up of {target:,} events from the topic in {catch_up:.1f} s "
                f"({target / catch_up:,.0f} events/s); {len(appender.commits):,} appends ({events / args.seconds:.0f} "
                f"events/s) for {args.seconds:.0f} s: lag p50 {percentile(measured, 50) * 1000:.0f} ms, "
                f"p99 {percentile(measured, 99) * 1000:.0f} ms, max {max(measured) * 1000:.0f} ms; "
                f"this process's CPU {cpu:.1f} s ({cpu / args.seconds * 100:.0f}% of a core, appender included)"
            )


if __name__ == "__main__":
    main()

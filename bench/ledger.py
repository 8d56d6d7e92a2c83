"""Cluster mode's ledger: charged lookups per second through KafkaLedgerClient, against 1 and 2 workers.

    python bench/ledger.py [--seconds 15] [--threads 32] [--tenants 16] [--partitions 12]

On a fresh PostgreSQL event store (the project's own server) and a Kafka broker (the project's own,
started here, or BEMTEVI_KAFKA_BOOTSTRAP's), with 16 companies holding ample unit credits:

1. for 1 and then 2 `bemtevi worker ledger` processes (a fresh request topic each), 32 threads of an
   in-process platform run unit lookups (``ConsultationCommands.run_unit_query``: reserve through
   Kafka, the local supplier, finish through Kafka) for ``--seconds``; printed: charged lookups/s, the
   round trip of the reserve and finish requests (p50/p99), and each worker's requests per batch;
2. the same load on the embedded ledger (this process's group commit, blocks on), for scale;
3. the worker's decision and append alone, in process: a Ledger as the worker builds it (no blocks)
   on a GroupCommit, fed batches of 1 to 512 lookup reservations: appends/s and requests/s per size.

Every run checks the store afterwards: credits used == consultations recorded as charged.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _common import cheap_settings, percentile, postgres_database, temp_dir
from lookups import ROOT, dataset

from bemtevi.bootstrap import Platform, build_platform
from bemtevi.commands.group_commit import GroupCommit, Outcome
from bemtevi.commands.ledger import FinishLookup, Ledger, LedgerClient, Request, ReserveLookup
from bemtevi.commands.query_types import StoredQueryTypes
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.infra.settings import Settings

KNOWN_CPF = "52998224725"


class Timed(LedgerClient):
    """A ledger client that times each request's round trip, by kind."""

    def __init__(self, inner: LedgerClient) -> None:
        self.inner = inner
        self.times: dict[str, list[float]] = {"ReserveLookup": [], "FinishLookup": []}
        self._lock = threading.Lock()

    async def submit_async(self, request: Request) -> Outcome[Any]:
        began = time.perf_counter()
        outcome = await self.inner.submit_async(request)
        took = time.perf_counter() - began
        if isinstance(request, ReserveLookup | FinishLookup):
            with self._lock:
                self.times[type(request).__name__].append(took)
        return outcome

    def try_draw(self, request: ReserveLookup) -> tuple[str, str | None] | None:
        return self.inner.try_draw(request)

    def close(self) -> None:
        self.inner.close()


def settings_for(database_url: str, var: Path, data: Path, **update: Any) -> Settings:
    return cheap_settings(
        var_dir=var,
        database_url=database_url,
        dataset_path=data,
        admin_email="admin@bemtevi.local",
        admin_password="Adm1n!secret",
        access_log=False,
        **update,
    )


def tenants_of(platform: Platform, count: int) -> list[Any]:
    from support import new_tenant

    return [new_tenant(platform, f"Bench {uuid.uuid4().hex[:6]} {n}", 10**9) for n in range(count)]


def load(platform: Platform, tenants: list[Any], threads: int, seconds: float) -> tuple[int, float]:
    """``threads`` threads of lookups for ``seconds``: charged lookups and the seconds they took."""
    stop = threading.Event()
    counts = [0] * threads

    def client(n: int) -> None:
        principal = tenants[n % len(tenants)]
        while not stop.is_set():
            outcome = platform.consultations.run_unit_query(principal, KNOWN_CPF)
            if outcome.status == ConsultationStatus.DONE:
                counts[n] += 1

    workers = [threading.Thread(target=client, args=(n,)) for n in range(threads)]
    began = time.perf_counter()
    for w in workers:
        w.start()
    time.sleep(seconds)
    stop.set()
    for w in workers:
        w.join(60)
    return sum(counts), time.perf_counter() - began


def check(platform: Platform, tenants: list[Any]) -> None:
    from support import charged_in_store

    from bemtevi.domain.credits import CreditAccount, credit_account_id
    from bemtevi.domain.query_types import Category

    for principal in tenants:
        account = platform.app.get(credit_account_id(principal.group_id, Category.UNIT), CreditAccount)
        charged = charged_in_store(platform.app, principal.group_id)
        assert account.used == len(charged) and max(charged.values(), default=1) == 1, "the ledger is not exact"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for_group(settings: Settings, members: int, timeout: float = 90) -> None:
    """Until the workers' consumer group has ``members`` members sharing every partition."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError

    from bemtevi.streams.ledger_worker import consumer_group

    admin = KafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap, client_id="bemtevi-bench")
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                described = admin.describe_groups([consumer_group(settings.kafka_ledger_topic)])
            except KafkaError:  # a fresh broker has no group coordinator yet
                time.sleep(0.5)
                continue
            group = next(iter(described.values()))
            owned = [
                p
                for member in group.get("members", [])
                for topic in (member.get("member_assignment") or {}).get("assigned_partitions", [])
                if topic["topic"] == settings.kafka_ledger_topic
                for p in topic["partitions"]
            ]
            if len(group.get("members", [])) == members and len(owned) == settings.kafka_ledger_partitions:
                return
            time.sleep(0.5)
    finally:
        admin.close()
    raise TimeoutError("the ledger workers did not share the partitions in time")


def kafka_run(args: argparse.Namespace, database_url: str, bootstrap: str, data: Path, workers: int) -> None:
    topic = f"bench-ledger-{uuid.uuid4().hex[:6]}"
    settings = settings_for(
        database_url,
        Path(temp_dir()),
        data,
        ledger="kafka",
        kafka_bootstrap=bootstrap,
        kafka_ledger_topic=topic,
        kafka_ledger_partitions=args.partitions,
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEMTEVI_")}
    env.update(
        {
            "BEMTEVI_DATABASE_URL": database_url,
            "BEMTEVI_KAFKA_BOOTSTRAP": bootstrap,
            "BEMTEVI_KAFKA_LEDGER_TOPIC": topic,
            "BEMTEVI_KAFKA_LEDGER_PARTITIONS": str(args.partitions),
        }
    )
    logs = Path(temp_dir())
    procs = []
    for n in range(workers):
        with (logs / f"worker-{n}.log").open("w") as out:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "bemtevi.cli", "worker", "ledger"], env=env, stdout=out, stderr=out
                )
            )
    platform = build_platform(settings, start_projector=False)
    try:
        wait_for_group(settings, workers)
        tenants = tenants_of(platform, args.tenants)
        timed = Timed(platform.consultations.ledger)
        platform.consultations.ledger = timed
        load(platform, tenants, args.threads, 3)  # warm-up
        timed.times = {"ReserveLookup": [], "FinishLookup": []}
        cpu_before = sum(cpu_seconds(p.pid) for p in procs)
        own_before = time.process_time()
        charged, took = load(platform, tenants, args.threads, args.seconds)
        cpu = sum(cpu_seconds(p.pid) for p in procs) - cpu_before
        own = time.process_time() - own_before
        check(platform, tenants)
        reserve, finish = timed.times["ReserveLookup"], timed.times["FinishLookup"]
        print(
            f"kafka, {workers} worker(s): {charged / took:,.0f} charged lookups/s ({charged} in {took:.1f} s); "
            f"reserve round trip p50 {percentile(reserve, 50) * 1000:.1f} ms "
            f"p99 {percentile(reserve, 99) * 1000:.1f} ms; "
            f"finish p50 {percentile(finish, 50) * 1000:.1f} ms p99 {percentile(finish, 99) * 1000:.1f} ms; "
            f"CPU per lookup: workers {cpu / max(charged, 1) * 1000:.2f} ms, "
            f"the calling process {own / max(charged, 1) * 1000:.2f} ms",
            flush=True,
        )
        client = timed.inner
        if hasattr(client, "records_sent"):
            print(f"  client: {client.requests_sent} requests in {client.records_sent} records", flush=True)
        from bemtevi.streams.ledger_worker import thread_cpu

        print(f"  the calling process's CPU seconds by thread: {thread_cpu()}", flush=True)
    finally:
        platform.close()
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        for n in range(workers):
            for line in (logs / f"worker-{n}.log").read_text().splitlines():
                if "ledger worker stopped" in line:
                    print(f"  worker {n}: {line.strip()}")


def embedded_run(args: argparse.Namespace, database_url: str, data: Path) -> None:
    settings = settings_for(database_url, Path(temp_dir()), data)
    platform = build_platform(settings, start_projector=False)
    try:
        tenants = tenants_of(platform, args.tenants)
        load(platform, tenants, args.threads, 3)
        charged, took = load(platform, tenants, args.threads, args.seconds)
        check(platform, tenants)
        print(f"embedded (in process, blocks on): {charged / took:,.0f} charged lookups/s", flush=True)
    finally:
        platform.close()


class _Batch:
    """Counts a batch's answers down; ``done`` once all are in."""

    def __init__(self, size: int) -> None:
        self.remaining = size
        self.done = threading.Event()
        self._lock = threading.Lock()

    def answered(self, _: Any) -> None:
        with self._lock:
            self.remaining -= 1
            if self.remaining == 0:
                self.done.set()


def batch_sizes(args: argparse.Namespace, database_url: str, data: Path) -> None:
    """The worker's decisions and appends alone: batches of k lookup reservations over the tenants."""
    settings = settings_for(database_url, Path(temp_dir()), data)
    platform = build_platform(settings, start_projector=False)
    try:
        tenants = tenants_of(platform, args.tenants)
        writer = GroupCommit(platform.app, max_batch=1024)
        ledger = Ledger(catalogue=StoredQueryTypes(platform.app), release_on_stop=False)
        for size in (1, 8, 32, 128, 512):
            rounds = max(5, 2_000 // size)
            began = time.perf_counter()
            for _ in range(rounds):
                batch = _Batch(size)
                requests = [
                    ReserveLookup(uuid.uuid4(), t.group_id, t.user_id, KNOWN_CPF, "cpf", None, "api", "local")
                    for t in (tenants[i % len(tenants)] for i in range(size))
                ]
                writer.enqueue_batch([(ledger.decide(r), batch.answered) for r in requests])
                batch.done.wait(60)
                # Then their finishes (not found: released), so that accounts do not pile reservations up.
                batch = _Batch(size)
                finishes = [r.finished("cpf-simples", None, ConsultationStatus.NOT_FOUND) for r in requests]
                writer.enqueue_batch([(ledger.decide(f), batch.answered) for f in finishes])
                batch.done.wait(60)
            took = time.perf_counter() - began
            print(
                f"  batch of {size:>3}: {2 * rounds / took:,.0f} appends/s, {2 * rounds * size / took:,.0f} requests/s",
                flush=True,
            )
        writer.stop()
    finally:
        platform.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--threads", type=int, default=32)
    parser.add_argument("--tenants", type=int, default=16)
    parser.add_argument("--partitions", type=int, default=12, help="partitions of the request topic")
    parser.add_argument("--workers", default="1,2", help="worker counts to run, comma-separated")
    parser.add_argument("--parts", default="kafka,embedded,batches", help="what to run, comma-separated")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    data = dataset(ROOT / "var" / "bench")
    from bemtevi.infra.local_services.kafka import KafkaBroker

    bootstrap = os.environ.get("BEMTEVI_KAFKA_BOOTSTRAP")
    broker = None if bootstrap else KafkaBroker().start()
    bootstrap = bootstrap or (broker.bootstrap if broker else "")
    try:
        with postgres_database() as database_url:
            if "kafka" in parts:
                for workers in (int(w) for w in args.workers.split(",")):
                    kafka_run(args, database_url, bootstrap, data, workers)
            if "embedded" in parts:
                embedded_run(args, database_url, data)
            if "batches" in parts:
                print("the worker's group commit alone (in process), PostgreSQL:")
                batch_sizes(args, database_url, data)
    finally:
        if broker is not None:
            broker.stop()


if __name__ == "__main__":
    main()

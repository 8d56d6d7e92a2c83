"""Cluster mode's read side, measured: DuckLake on PostgreSQL against a DuckDB replica per API process.

    python bench/read_side.py [--lookups 200000] [--tenants 100] [--days 90] [--readers 2] [--rounds 6]
                              [--users-per-white-label 150] [--users-per-group 5]  (see --help for the rest)

One run, one generated history, both candidates (issue 15):

(a) DuckLake: one writer process runs the product's projector (``Projector`` and every read model of
    ``all_read_models``) from the event log into DuckLake (catalog in a database of the project's
    PostgreSQL, Parquet in a temp folder; ``bench/lake.py``), while ``--readers`` reader processes
    query the lake.
(b) Replica per API process: ``--readers`` processes each run the same projector into a DuckDB file of
    their own (as a replica fed from Kafka would: every process folds every event) and query it.

Data: ``--lookups`` unit lookups (reservation, settlement or release, consultation record: three events
each) over ``--tenants`` groups (root, white-labels, resellers, companies, with users and granted credit
accounts) spread over ``--days`` days, appended to a PostgreSQL event store; each candidate builds its
read models from that log with the real projector. Then, while this process appends a page of
``--page-lookups`` lookups every ``--interval`` seconds, rounds alternate the candidates (so the
machine's load weighs on both alike): in each, the candidate's readers run every query ``--repeat``
times at once; read-your-writes probes append a page and time until each reader sees its position.

Figures: p50/p99 per query per candidate and their ratio; read-your-writes lag; the projector's
catch-up rate (the writer's, and a new replica's: its rebuild); projection CPU per process under the
same appends; peak memory per process; disk. Every follower is woken by PostgreSQL's NOTIFY.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eventsourcing.domain
import psycopg
from _common import percentile, postgres_database, temp_dir
from lake import LakeReadStore

from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.batch_files import BatchFiles
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.brand import DEFAULT_BRAND
from bemtevi.domain.consultations import Consultation
from bemtevi.domain.credits import CreditAccount
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role, User, UserStatus
from bemtevi.infra.postgres_store import AppendListener
from bemtevi.infra.settings import Settings
from bemtevi.projections.base import PRODUCT_TIME_ZONE, SAO_PAULO
from bemtevi.projections.catalogue import all_read_models
from bemtevi.projections.consultations import recent_consultations, usage_summary
from bemtevi.projections.credit_queries import balances_of, movement_history, subtree_ids
from bemtevi.projections.directory import customers_of
from bemtevi.projections.store import ReadStore
from bemtevi.projections.users import users_of_group
from bemtevi.streams.projector import TRACKING_NAME, Projector

# -- the generated history -------------------------------------------------------------------

FIRST_NAMES = ("Ana", "Bruno", "Carla", "Diego", "Elisa", "Fábio", "Gabriela", "Heitor", "Iara", "João", "Larissa")
LAST_NAMES = ("Silva", "Santos", "Oliveira", "Souza", "Lima", "Pereira", "Costa", "Almeida", "Ferreira", "Rocha")
DOCUMENTS = ("52998224725", "11144477735", "11222333000181", "00000000191")
WHITE_LABELS = 3
RESELLERS_PER_WHITE_LABEL = 3
# Credits each level grants each group below it: white-labels, resellers, companies.
GRANTS = (100_000_000, 20_000_000, 1_000_000)


@contextmanager
def clock(now: Callable[[], datetime]) -> Iterator[None]:
    """Events created inside take their time from ``now`` (a history spread over past days)."""
    real = eventsourcing.domain.datetime_now_with_tzinfo
    eventsourcing.domain.datetime_now_with_tzinfo = now  # type: ignore[assignment]
    try:
        yield
    finally:
        eventsourcing.domain.datetime_now_with_tzinfo = real  # type: ignore[assignment]


@dataclass
class Targets:
    """Whom the queries ask about: ids found while generating the history."""

    white_label: str
    reseller: str
    company: str


@dataclass
class History:
    """Generates tenants, users, credit accounts and lookups, and appends them to the event store."""

    app: BemteviApplication
    tenants: int
    rng: random.Random
    users_per_white_label: int = 150
    users_per_group: int = 5
    accounts: dict[UUID, CreditAccount] = field(default_factory=dict)
    users: dict[UUID, list[UUID]] = field(default_factory=dict)
    parents: dict[UUID, UUID] = field(default_factory=dict)
    lookup_groups: list[UUID] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    pending: list[Any] = field(default_factory=list)

    def append(self) -> list[int]:
        """Append what is pending; answers the notification ids."""
        stored = [self.app.mapper.to_stored_event(e) for e in self.pending]
        self.pending = []
        return list(self.app.recorder.insert_events(stored) or [])

    def _group(self, name: str, group_type: GroupType, parent: UUID | None, index: int) -> UUID:
        group_id = uuid4()
        with acting_as(Actor(None, parent or group_id)):
            group = Group.register(
                name=name,
                group_type=group_type,
                parent_id=parent,
                domain_url=f"wl{index}.example.com.br" if group_type == GroupType.WHITE_LABEL else None,
                brand=DEFAULT_BRAND,
                enabled_query_types=["cpf-complete", "cnpj-complete"],
                cnpj=f"{index:014d}",
                profile={"tradeName": f"{name} (fantasia)"},
                group_id=group_id,
            )
            account = CreditAccount.open(group_id, Category.UNIT, None if parent is None else 0)
        self.pending += [*group.collect_events(), *account.collect_events()]
        self.accounts[group_id] = account
        if parent is not None:
            self.parents[group_id] = parent
            parent_account = self.accounts[parent]
            with acting_as(Actor(None, parent)):
                parent_account.grant_to(account, GRANTS[len(self._chain(parent)) - 1])
            self.pending += [*parent_account.collect_events(), *account.collect_events()]
        count = self.users_per_white_label if group_type == GroupType.WHITE_LABEL else self.users_per_group
        self.users[group_id] = [self._user(group_id, index, n) for n in range(count)]
        return group_id

    def _chain(self, group_id: UUID) -> list[UUID]:
        chain = [group_id]
        while chain[-1] in self.parents:
            chain.append(self.parents[chain[-1]])
        return chain

    def _user(self, group_id: UUID, group_index: int, n: int) -> UUID:
        name = f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}"
        with acting_as(Actor(None, group_id)):
            user = User.register(
                group_id=group_id,
                name=name,
                email=f"user{n}@g{group_index}.example.com.br",
                role=Role.OWNER if n == 0 else Role.USER,
                status=UserStatus.ACTIVE,
                password_hash="not-a-real-hash",
            )
            user.change_details(name, f"{self.rng.randrange(10**11):011d}", None, "Analista", None, None, None)
        self.pending += user.collect_events()
        return user.id

    def tree(self) -> Targets:
        """Root, white-labels, resellers under each, companies under the resellers (``tenants`` in all)."""
        root = self._group("Bemtevi", GroupType.WHITE_LABEL, None, 0)
        index = 1
        white_labels: list[UUID] = []
        resellers: list[UUID] = []
        for w in range(WHITE_LABELS):
            white_labels.append(self._group(f"Marca Branca {w + 1}", GroupType.WHITE_LABEL, root, index))
            index += 1
            for r in range(RESELLERS_PER_WHITE_LABEL):
                resellers.append(self._group(f"Revenda {w + 1}.{r + 1}", GroupType.RESELLER, white_labels[-1], index))
                index += 1
        companies: list[UUID] = []
        kinds = ("Comércio Ltda", "Serviços S.A.", "Indústria Ltda", "Consultoria ME")
        while index < self.tenants:
            parent = resellers[len(companies) % len(resellers)]
            name = f"{self.rng.choice(LAST_NAMES)} {index:03d} {kinds[index % len(kinds)]}"
            companies.append(self._group(name, GroupType.COMPANY, parent, index))
            index += 1
        self.append()
        # Lookups come from companies and resellers, a few companies much busier than the rest.
        self.lookup_groups = companies + resellers
        self.weights = [1 / (rank + 1) ** 0.8 for rank in range(len(self.lookup_groups))]
        busiest = self.lookup_groups[0]
        return Targets(
            white_label=str(self.parents[self.parents[busiest]]),
            reseller=str(self.parents[busiest]),
            company=str(busiest),
        )

    def lookups(self, count: int, group: str | None = None) -> None:
        """``count`` lookups (of ``group``, else of the tenants, a few much busier than the rest), pending: a
        reservation, its settlement (6 in 7) or release, the consultation's record."""
        groups = [UUID(group)] * count if group else self.rng.choices(self.lookup_groups, self.weights, k=count)
        for group_id in groups:
            account = self.accounts[group_id]
            user_id = self.rng.choice(self.users[group_id])
            document = self.rng.choice(DOCUMENTS)
            consultation_id = uuid4()
            found = self.rng.randrange(7) != 0
            with acting_as(Actor(user_id, group_id)):
                account.reserve(consultation_id, 1)
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
            self.pending += [*account.collect_events(), *consultation.collect_events()]

    def past(self, lookups: int, days: int, batch: int = 5_000) -> None:
        """``lookups`` lookups at random times of the last ``days`` days, in time order."""
        end = datetime.now(UTC) - timedelta(minutes=1)
        span = timedelta(days=days).total_seconds()
        times = sorted(end - timedelta(seconds=self.rng.random() * span) for _ in range(lookups))
        moments = iter(times)
        current = [end]

        def now() -> datetime:
            return current[0]

        with clock(now):
            for start in range(0, lookups, batch):
                for _ in range(min(batch, lookups - start)):
                    current[0] = next(moments)
                    self.lookups(1)
                self.append()


# -- the queries the screens run ---------------------------------------------------------------


def consultations_per_day(cur: Any, group_id: str, days: int) -> list[tuple[Any, ...]]:
    """A report: consultations and credits per São Paulo day and query type of a tenant's subtree."""
    since = datetime.now(UTC).replace(tzinfo=None) - timedelta(days=days)
    rows: list[tuple[Any, ...]] = cur.execute(
        f"""
        SELECT timezone('{PRODUCT_TIME_ZONE}', timezone('UTC', created_at))::DATE AS day, query_type,
               count(*) AS consultations, sum(credits) AS credits
        FROM consultations
        WHERE group_id IN (SELECT unnest(?::VARCHAR[])) AND created_at >= ?
        GROUP BY ALL ORDER BY day, query_type
        """,
        [subtree_ids(cur, group_id), since],
    ).fetchall()
    return rows


def dashboard(cur: Any, group_id: str) -> dict[str, Any]:
    """What GET /api/dashboard reads."""
    return {
        **usage_summary(cur, group_id, datetime.now(SAO_PAULO).date()),
        "credits": balances_of(cur, group_id),
        "recent": recent_consultations(cur, group_id),
    }


def queries(targets: Targets, days: int) -> dict[str, Callable[[Any], Any]]:
    return {
        "dashboard": lambda cur: dashboard(cur, targets.company),
        "users list": lambda cur: users_of_group(cur, targets.white_label, "a", offset=20, limit=20),
        "customers list": lambda cur: customers_of(cur, targets.white_label, "ltda", offset=20, limit=20),
        "credit history": lambda cur: movement_history(
            cur, subtree_ids(cur, targets.reseller), category="unit", offset=50, limit=50
        ),
        f"report ({days} days)": lambda cur: consultations_per_day(cur, targets.white_label, days),
    }


# -- the processes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    events_url: str
    lake_url: str
    lake_data: Path
    replica_dir: Path
    targets: Targets
    days: int
    coalesce: float
    compact_seconds: float


def _memory() -> dict[str, int]:
    """This process's resident memory now and at its peak, in bytes."""
    figures = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                figures[key] = int(value.split()[0]) * 1024
    return figures


class Member:
    """One child process: a read store, maybe a projector, the queries; answers the parent's requests."""

    def __init__(self, setup: Setup, store: ReadStore, projector: Projector | None) -> None:
        self.setup = setup
        self.store = store
        self.projector = projector
        self.queries = queries(setup.targets, setup.days)
        self.cpu_mark = time.process_time()
        self.compactor: threading.Thread | None = None
        self.stopping = threading.Event()

    def catch_up(self) -> tuple[int, float]:
        assert self.projector is not None
        started = time.perf_counter()
        events = self.projector.catch_up()
        return events, time.perf_counter() - started

    def follow(self) -> None:
        """Follow the log from now on, woken by PostgreSQL's NOTIFY (as ``LogFollower(listen=True)``)."""
        assert self.projector is not None
        self.projector._listener = AppendListener.for_recorder(self.projector._app.recorder, self.projector._wake.set)
        self.projector.start()
        if isinstance(self.store, LakeReadStore) and self.setup.compact_seconds > 0:
            self.compactor = threading.Thread(target=self._compact, daemon=True)
            self.compactor.start()

    def _compact(self) -> None:
        """The lake's one writer also merges the small files its commits leave (DuckLake's CHECKPOINT)."""
        assert isinstance(self.store, LakeReadStore)
        while not self.stopping.wait(self.setup.compact_seconds):
            self.store.compact()

    def run_queries(self, repeat: int) -> dict[str, list[float]]:
        cur = self.store.cursor()
        times: dict[str, list[float]] = {name: [] for name in self.queries}
        for _ in range(repeat):
            for name, query in self.queries.items():
                started = time.perf_counter()
                query(cur)
                times[name].append(time.perf_counter() - started)
        return times

    def query_names(self) -> list[str]:
        return list(self.queries)

    def query(self, name: str) -> Any:
        """One query's answer (the test compares the candidates' answers)."""
        return self.queries[name](self.store.cursor())

    def wait_visible(self, position: int, timeout: float = 30.0) -> float:
        """Wall time at which ``position`` is visible to this process's queries."""
        if self.projector is not None:  # the replica: the API's ?position= wait
            if not self.projector.wait_for(position, timeout):
                raise TimeoutError(f"position {position} not reached")
            return time.time()
        deadline = time.monotonic() + timeout
        while self.store.tracked_position(TRACKING_NAME) < position:  # the lake: read its position
            if time.monotonic() > deadline:
                raise TimeoutError(f"position {position} not reached")
            time.sleep(0.002)
        return time.time()

    def cpu(self) -> float:
        """CPU seconds this process used since the last call."""
        now = time.process_time()
        used, self.cpu_mark = now - self.cpu_mark, now
        return used

    def stats(self) -> dict[str, Any]:
        return {**_memory(), "position": self.store.tracked_position(TRACKING_NAME)}

    def close(self) -> None:
        self.stopping.set()
        if self.projector is not None:
            self.projector.stop()
        if self.compactor is not None:
            self.compactor.join()
        self.store.close()


def _open(kind: str, setup: Setup, index: int) -> Member:
    if kind == "lake-reader":
        return Member(setup, LakeReadStore(setup.lake_url, setup.lake_data, read_only=True), None)
    app = BemteviApplication(env=Settings(database_url=setup.events_url).event_store_env())
    store: ReadStore
    if kind == "lake-writer":
        store = LakeReadStore(setup.lake_url, setup.lake_data)
    else:
        store = ReadStore(setup.replica_dir / f"replica-{index}.duckdb")
    return Member(
        setup,
        store,
        Projector(
            app,
            store,
            all_read_models(BatchFiles(setup.replica_dir / "batches").looked_up),
            coalesce_window=setup.coalesce,
        ),
    )


def child_main(conn: Connection, kind: str, setup: Setup, index: int) -> None:
    """A child process: opens its role, then answers (operation, *arguments) until 'stop'."""
    try:
        started = time.perf_counter()
        role = _open(kind, setup, index)
        conn.send(("ok", time.perf_counter() - started))
    except BaseException:
        conn.send(("error", traceback.format_exc()))
        return
    while True:
        operation, *arguments = conn.recv()
        try:
            if operation == "stop":
                role.close()
                conn.send(("ok", None))
                return
            conn.send(("ok", getattr(role, operation)(*arguments)))
        except BaseException:
            conn.send(("error", traceback.format_exc()))


class Child:
    def __init__(self, kind: str, setup: Setup, index: int = 0) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # never fork a process with threads
        self.kind = kind
        self.name = f"{kind} {index}" if kind != "lake-writer" else kind
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=child_main, args=(theirs, kind, setup, index), daemon=True)
        self.process.start()
        self.opened_seconds = self.answer()

    def send(self, operation: str, *arguments: Any) -> None:
        self.conn.send((operation, *arguments))

    def answer(self, timeout: float = 900.0) -> Any:
        if not self.conn.poll(timeout):
            raise TimeoutError(f"{self.name} did not answer")
        status, value = self.conn.recv()
        if status == "error":
            raise RuntimeError(f"{self.name} failed:\n{value[-4000:]}")  # DuckLake's errors quote whole commits
        return value

    def call(self, operation: str, *arguments: Any) -> Any:
        self.send(operation, *arguments)
        return self.answer()

    def stop(self) -> None:
        if self.process.is_alive():
            try:
                self.call("stop")
            finally:
                self.process.join(timeout=30)
                if self.process.is_alive():
                    self.process.kill()


def stop_all(children: list[Child]) -> None:
    for child in reversed(children):
        child.stop()


def all_at_once(children: list[Child], operation: str, *arguments: Any) -> list[Any]:
    for child in children:
        child.send(operation, *arguments)
    return [child.answer() for child in children]


# -- the run ------------------------------------------------------------------------------------


class Appender:
    """Appends a page of lookups every ``interval`` seconds in a thread (the writers of the cluster)."""

    def __init__(self, history: History, page_lookups: int, interval: float) -> None:
        self.history = history
        self.page_lookups = page_lookups
        self.interval = interval
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.appended = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def page(self) -> int:
        """Append one page now; answers its last position."""
        with self.lock:
            self.history.lookups(self.page_lookups)
            ids = self.history.append()
            self.appended += len(ids)
            return max(ids)

    def _run(self) -> None:
        while not self.stopping.wait(self.interval):
            self.page()

    def __enter__(self) -> Appender:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join()


@dataclass
class Figures:
    latencies: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # candidate -> query -> s
    lags: dict[str, list[float]] = field(default_factory=dict)  # candidate -> s

    def add_latencies(self, candidate: str, results: list[dict[str, list[float]]]) -> None:
        mine = self.latencies.setdefault(candidate, {})
        for result in results:
            for name, values in result.items():
                mine.setdefault(name, []).extend(values)


def _disk(path: Path) -> int:
    """Bytes of a folder's files, or of a DuckDB file and its write-ahead log."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + ".wal")) if p.exists())


def _database_bytes(url: str) -> int:
    with psycopg.connect(url) as con:
        row = con.execute("SELECT pg_database_size(current_database())").fetchone()
    return int(row[0]) if row else 0


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


def _mb(size: float) -> str:
    return f"{size / 2**20:,.0f} MB"


def run(args: argparse.Namespace) -> Figures:
    figures = Figures()
    work = Path(temp_dir())
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, work, ignore_errors=True)
        events_url = stack.enter_context(postgres_database())
        lake_url = stack.enter_context(postgres_database())
        app = BemteviApplication(env=Settings(database_url=events_url).event_store_env())
        stack.callback(app.close)
        history = History(app, args.tenants, random.Random(args.seed), args.users_per_white_label, args.users_per_group)
        began = time.perf_counter()
        targets = history.tree()
        tree_events = app.max_position()
        setup = Setup(
            events_url,
            lake_url,
            work / "lake",
            work / "replicas",
            targets,
            args.days,
            args.coalesce,
            args.compact_seconds,
        )
        children: list[Child] = []
        stack.callback(stop_all, children)
        writer = Child("lake-writer", setup)
        replicas = [Child("replica", setup, index) for index in range(args.readers)]
        children += [writer, *replicas]
        # Catch-up from zero, one process at a time: the lake's writer, then each replica (a new API process
        # rebuilds its replica like this before it can answer). First the tenants and their users (rare
        # events, folded row by row), then the lookups (the many events, folded set-wise).
        catch_ups: dict[str, dict[str, tuple[int, float]]] = {"tenants and users": {}, "lookups": {}}
        for phase in catch_ups:
            if phase == "lookups":
                history.past(args.lookups, args.days)
                print(
                    f"history: {tree_events:,} events of tenants and users, "
                    f"{app.max_position() - tree_events:,} of {args.lookups:,} lookups over {args.days} days, "
                    f"appended in {time.perf_counter() - began:.0f} s",
                    flush=True,
                )
            for child in (writer, *replicas):
                catch_ups[phase][child.name] = events, seconds = child.call("catch_up")
                print(
                    f"catch-up ({phase}) {child.name}: {events:,} events in {seconds:.1f} s "
                    f"= {events / seconds:,.0f} events/s",
                    flush=True,
                )
        readers = [Child("lake-reader", setup, index) for index in range(args.readers)]
        children += readers
        candidates = {"ducklake": readers, "replica": replicas}

        writer.call("follow")
        for replica in replicas:
            replica.call("follow")
        with Appender(history, args.page_lookups, args.interval) as appender:
            for group in candidates.values():
                all_at_once(group, "run_queries", 1)  # warm: first reads of files, plans, caches
            cpu_children = [writer, *replicas, *readers]
            all_at_once(cpu_children, "cpu")
            for round_ in range(args.rounds):
                order = list(candidates) if round_ % 2 == 0 else list(reversed(candidates))
                for candidate in order:
                    figures.add_latencies(candidate, all_at_once(candidates[candidate], "run_queries", args.repeat))
                for _ in range(args.probes):
                    # Every reader of both candidates waits for the same fresh page.
                    position = appender.page()
                    appended_at = time.time()
                    seen = all_at_once([*readers, *replicas], "wait_visible", position)
                    figures.lags.setdefault("ducklake", []).extend(t - appended_at for t in seen[: len(readers)])
                    figures.lags.setdefault("replica", []).extend(t - appended_at for t in seen[len(readers) :])
                print(f"round {round_ + 1}/{args.rounds} done", flush=True)
            query_cpu = dict(zip([c.name for c in cpu_children], all_at_once(cpu_children, "cpu"), strict=True))
            # Projection only: the same appends, no queries.
            appended_before = appender.appended
            time.sleep(args.apply_seconds)
            applied = appender.appended - appended_before
            apply_cpu = dict(zip([c.name for c in cpu_children], all_at_once(cpu_children, "cpu"), strict=True))
        last = app.max_position()
        for child in [writer, *replicas]:
            child.call("wait_visible", last)
        stats = {c.name: c.call("stats") for c in children}

        print_figures(
            args,
            figures,
            catch_ups,
            query_cpu,
            apply_cpu,
            applied,
            stats,
            lake_open=[r.opened_seconds for r in readers],
            lake_disk=_disk(setup.lake_data),
            catalog_disk=_database_bytes(lake_url),
            replica_disk=[_disk(setup.replica_dir / f"replica-{i}.duckdb") for i in range(args.readers)],
            events=last,
        )
    return figures


def print_figures(
    args: argparse.Namespace,
    figures: Figures,
    catch_ups: dict[str, dict[str, tuple[int, float]]],
    query_cpu: dict[str, float],
    apply_cpu: dict[str, float],
    applied: int,
    stats: dict[str, dict[str, Any]],
    *,
    lake_open: list[float],
    lake_disk: int,
    catalog_disk: int,
    replica_disk: list[int],
    events: int,
) -> None:
    rows = {
        name: (figures.latencies["ducklake"][name], values) for name, values in figures.latencies["replica"].items()
    }
    rows["read-your-writes lag"] = (figures.lags["ducklake"], figures.lags["replica"])
    print()
    print(
        f"{args.readers} readers per candidate, {args.rounds} alternating rounds x {args.repeat} of each query "
        f"per reader, appends of {args.page_lookups * 3} events every {args.interval} s meanwhile"
    )
    print(f"{'(ms)':<22}{'lake p50':>9}{'p99':>9}{'replica p50':>13}{'p99':>9}{'p50 ratio':>11}")
    for name, (lake, replica) in rows.items():
        lp50, lp99 = percentile(lake, 50), percentile(lake, 99)
        rp50, rp99 = percentile(replica, 50), percentile(replica, 99)
        print(f"{name:<22}{_ms(lp50):>9}{_ms(lp99):>9}{_ms(rp50):>13}{_ms(rp99):>9}{lp50 / rp50:>10.1f}x")
    print()
    for phase, rates in catch_ups.items():
        print(
            f"catch-up from zero, {phase}: "
            + ", ".join(
                f"{name} {count / seconds:,.0f} events/s ({seconds:.1f} s for {count:,})"
                for name, (count, seconds) in rates.items()
            )
        )
    print(f"opening the lake in a reader: {min(lake_open):.2f}-{max(lake_open):.2f} s")
    print(
        f"projection CPU, {applied:,} events appended in {args.apply_seconds:.0f} s without queries: "
        + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in apply_cpu.items())
    )
    print("CPU during the query rounds: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in query_cpu.items()))
    print(
        "memory (RSS at the end / peak): "
        + ", ".join(f"{name} {_mb(s['VmRSS'])} / {_mb(s['VmHWM'])}" for name, s in stats.items())
    )
    print(
        f"disk: lake {_mb(lake_disk)} of Parquet + {_mb(catalog_disk)} catalog database; "
        f"replicas {', '.join(_mb(size) for size in replica_disk)} each ({events:,} events)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lookups", type=int, default=200_000)
    parser.add_argument("--tenants", type=int, default=100)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--users-per-white-label", type=int, default=150)
    parser.add_argument("--users-per-group", type=int, default=5)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=10, help="runs of each query per reader per round")
    parser.add_argument("--probes", type=int, default=5, help="read-your-writes probes per round")
    parser.add_argument("--page-lookups", type=int, default=10)
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--apply-seconds", type=float, default=10.0)
    parser.add_argument("--coalesce", type=float, default=0.1, help="the projectors' coalescing window")
    parser.add_argument("--compact-seconds", type=float, default=10.0, help="the lake writer's CHECKPOINT period")
    parser.add_argument("--seed", type=int, default=15)
    run(parser.parse_args())


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()

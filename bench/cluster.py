"""Embedded against cluster mode under the same lookup load, in one run.

    python bench/cluster.py [--tenants 32] [--connections 32] [--seconds 15]
                             [--deployments embedded,cluster-1,cluster-2] [--one-partition]
                             [--baseline CHECKOUT [--repeat N] | --pairs N]

Every deployment gets a fresh PostgreSQL database on the project's own server (and, for the cluster, fresh Kafka
topics on one broker started for the run), the same tenants (``--tenants`` companies under the root, each with one
user and a large unit-credit limit) and the default demo dataset. Then wrk sends ``--connections`` concurrent
lookups for ``--seconds``, each request signed in as the next tenant in turn, so the load spreads over the
tenants' credit accounts (and, in the cluster, over the ledger's partitions) as many customers' would.

Deployments:
- ``embedded``: one ``bemtevi serve`` process (ledger, projector and mailer inside), as ``make run`` but on PostgreSQL;
- ``cluster-N``: the relay, two ledger workers, the mailer worker and N API processes on one port (as
  ``make cluster`` starts them), each API process with its own read replica fed from Kafka.

Printed per deployment: charged lookups/s (credits used over the window), wrk's p50/p99, answers other than 200;
the projection lag under that load (a probe looks a document up every 0.2 s and times, from its answer, a read
of the credit balances with ``?position=`` until it is up to date, p50/p99); CPU per lookup summed over every
process of the deployment (API processes, workers, relay, broker, PostgreSQL), and per kind of process. And, from
the cluster's figures, an estimate of the ledger partitions, ledger workers and API processes 20,000 charged
lookups/s would need (per-process CPU per lookup, and one partition's rate measured with one tenant).

``--baseline CHECKOUT`` (another checkout of the repository, e.g. a ``git worktree`` of the revision before a
change) measures every cluster deployment twice, once with that checkout's code (its processes run with it first
on ``PYTHONPATH``) and once with this one's, alternated (``--repeat N`` times, the order swapped each time), so
that the two revisions meet the same machine in the same minutes.

``--pairs N`` measures each cluster deployment N times, each time back to back with an embedded run of its own
(the order swapped each time), and gives each cluster figure against its own pair's embedded one, then the
median and the lowest of those ratios. On a host whose speed moves by half within minutes (this 2-core machine:
embedded 1,414 and 2,689 lookups/s in one hour), a ratio of two windows minutes apart says more about the
host's minute than about the deployments; adjacent windows meet the same minute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import free_port, multi_tenant_lookups_script, percentile, postgres_database, warn_if_busy
from lookups import PASSWORD, ROOT, dataset, documents

from bemtevi.infra.local_services.kafka import KafkaBroker
from bemtevi.infra.local_services.postgres import ensure_postgres

TENANT_PASSWORD = "Bench!tenant1"


# -- processes and their CPU -------------------------------------------------------------------------------------


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (its own threads; children are counted as processes of their own)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        with suppress(FileNotFoundError):
            for task in Path(f"/proc/{parent}/task").iterdir():
                children = (task / "children").read_text().split()
                found.extend(int(c) for c in children)
                frontier.extend(int(c) for c in children)
    return found


def _postgres_pids(server_url: str) -> list[int]:
    """The PostgreSQL server's processes: its postmaster (from the data folder it reports) and every child."""
    with psycopg.connect(server_url) as con:
        row = con.execute("SELECT setting FROM pg_settings WHERE name = 'data_directory'").fetchone()
    assert row is not None
    postmaster = int((Path(row[0]) / "postmaster.pid").read_text().split()[0])
    return [postmaster, *_descendants(postmaster)]


@dataclass
class Deployment:
    """The processes of one deployment by kind, and the address its API answers at."""

    name: str
    base: str
    kinds: dict[str, list[int]] = field(default_factory=dict)

    def cpu(self) -> dict[str, float]:
        return {kind: sum(_cpu_seconds(p) for p in pids) for kind, pids in self.kinds.items()}


def _start(command: list[str], env: dict[str, str], log: Path, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    # ``python -m`` puts the working directory first on sys.path: a baseline's processes run in its checkout.
    with open(log, "ab") as out:
        return subprocess.Popen(command, env=env, stdout=out, stderr=out, start_new_session=True, cwd=cwd)


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in reversed(processes):
        if process.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
    for process in reversed(processes):
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_healthy(base: str, processes: list[subprocess.Popen[bytes]], logs: Path, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with suppress(httpx.TransportError):
            if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                return
        if any(p.poll() is not None for p in processes):
            break
        time.sleep(0.2)
    tails = "\n".join(f"--- {f.name}\n{f.read_text(errors='replace')[-3000:]}" for f in sorted(logs.glob("*.log")))
    raise SystemExit(f"the deployment did not answer:\n{tails}")


# -- tenants, load and probes ------------------------------------------------------------------------------------


def seed_tenants(env: dict[str, str], count: int) -> list[str]:
    """``count`` companies under the root, each with a user and a large unit limit; their sign-in e-mails.

    Seeded through the product's own commands on an embedded platform over the deployment's store, before the
    deployment starts (its read side then projects them like any history)."""
    from bemtevi.bootstrap import build_platform
    from bemtevi.domain.groups import GroupType
    from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
    from bemtevi.domain.users import Role
    from bemtevi.infra.settings import Settings

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        settings = Settings()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    # Embedded ledger: registrations open their accounts through the ledger, and no ledger worker runs yet.
    platform = build_platform(settings.model_copy(update={"ledger": "embedded"}), start_projector=False)
    emails = []
    try:
        for n in range(count):
            group_id, _ = platform.identity.register_group(
                SYSTEM,
                name=f"Bench company {n:03d}",
                group_type=GroupType.COMPANY,
                parent_id=ROOT_GROUP_ID,
                unit_credit_limit=100_000_000,
            )
            email = f"bench{n:03d}@bench.example.com"
            platform.identity.register_user(
                SYSTEM,
                group_id=group_id,
                name=f"Bench user {n:03d}",
                email=email,
                password=TENANT_PASSWORD,
                role=Role.OWNER,
            )
            emails.append(email)
    finally:
        platform.close()
    return emails


def sign_in(base: str, emails: list[str]) -> list[str]:
    tokens = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for email in emails:
            answer = client.post("/api/auth/auth", json={"email": email, "password": TENANT_PASSWORD})
            answer.raise_for_status()
            tokens.append(f"Bearer {answer.json()['token']}")
    return tokens


def run_wrk(base: str, tokens: list[str], docs: list[str], connections: int, seconds: int) -> dict[str, float]:
    script = multi_tenant_lookups_script(tokens, docs)
    threads = max(1, min(2, connections))
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", str(script), base],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    latency = dict(re.findall(r"^\s+(50%|99%)\s+(\S+)", out, re.MULTILINE))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    requests = re.search(r"(\d+) requests in", out)
    return {
        "p50_ms": _ms(latency.get("50%", "0ms")),
        "p99_ms": _ms(latency.get("99%", "0ms")),
        "requests": float(requests.group(1)) if requests else 0.0,
        "errors": float(errors.group(1)) if errors else 0.0,
    }


def _ms(text: str) -> float:
    value = float(re.sub(r"[a-z]+$", "", text))
    unit = re.search(r"[a-z]+$", text)
    return value * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}[unit.group(0) if unit else "ms"]


class LagProbe:
    """Every 0.2 s: a lookup, then a read of the credit balances with the lookup's ``position`` (the API waits
    until its read side includes it); the lag is that read's time, less the same read's time without a position."""

    def __init__(self, base: str, token: str, docs: list[str]) -> None:
        self._client = httpx.Client(base_url=base, headers={"Authorization": token}, timeout=30)
        self._docs = docs
        self.lags: list[float] = []
        self.not_up_to_date = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> LagProbe:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self._client.close()

    def _run(self) -> None:
        n = 0
        while not self._stop.wait(0.2):
            n += 1
            answer = self._client.post("/api/consultations", json={"document": self._docs[n % len(self._docs)]})
            if answer.status_code != 200:
                continue
            position = answer.json()["position"]
            t0 = time.perf_counter()
            read = self._client.get("/api/credits/balances", params={"position": position})
            waited = time.perf_counter() - t0
            t1 = time.perf_counter()
            self._client.get("/api/credits/balances")
            plain = time.perf_counter() - t1
            self.lags.append(max(0.0, waited - plain))
            if not read.json().get("upToDate", True):
                self.not_up_to_date += 1


def credits_used(database_url: str) -> int:
    """Credits charged so far, from the event store itself (every settlement's amount)."""
    from bemtevi.commands.application import BemteviApplication
    from bemtevi.domain.credits import CreditAccount
    from bemtevi.infra.settings import Settings

    app = BemteviApplication(Settings(database_url=database_url, var_dir=Path(tempfile.mkdtemp())).event_store_env())
    try:
        total = 0
        with psycopg.connect(database_url) as con:
            rows = con.execute(
                "SELECT DISTINCT originator_id FROM bemtevi_events WHERE topic LIKE %s",
                ("bemtevi.domain.credits:CreditAccount.Opened%",),
            ).fetchall()
        for (account_id,) in rows:
            account = app.find(account_id, CreditAccount)
            if account is not None:
                total += account.used
        return total
    finally:
        app.close()


def last_notification_id(database_url: str) -> int:
    with psycopg.connect(database_url) as con:
        row = con.execute("SELECT coalesce(max(notification_id), 0) FROM bemtevi_events").fetchone()
    return int(row[0]) if row else 0


def credit_events_since(database_url: str, after: int) -> dict[str, int]:
    """The credit accounts' events appended after notification ``after``, by kind (``Charged``: a lookup decided
    by the ledger one by one; ``Reserved``/``LeaseSettled``: a lease granted/returned; ...)."""
    prefix = "bemtevi.domain.credits:CreditAccount."
    with psycopg.connect(database_url) as con:
        rows = con.execute(
            "SELECT topic, count(*) FROM bemtevi_events WHERE notification_id > %s AND topic LIKE %s GROUP BY topic",
            (after, prefix + "%"),
        ).fetchall()
    return {topic.removeprefix(prefix): int(count) for topic, count in rows}


# -- deployments -------------------------------------------------------------------------------------------------


@contextmanager
def embedded(env: dict[str, str], logs: Path, code: Path | None = None) -> Iterator[Deployment]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = _start(
        [sys.executable, "-m", "bemtevi.cli", "serve"], {**env, "PORT": str(port)}, logs / "server.log", code
    )
    try:
        _wait_healthy(base, [server], logs)
        yield Deployment(
            "embedded", base, {"api (with ledger, projector, mailer)": [server.pid, *_descendants(server.pid)]}
        )
    finally:
        _stop([server])


KINDS = {"relay": "relay", "worker ledger": "ledger workers", "worker mailer": "mailer worker", "serve": "api"}


def _kind(pid: int) -> str | None:
    """Which kind of the deployment's processes ``pid`` is, from its ``bemtevi`` command's words."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except FileNotFoundError:
        return None
    if "bemtevi.cli" not in words:
        return None
    command = " ".join(words[words.index("bemtevi.cli") + 1 :])
    return next((kind for prefix, kind in KINDS.items() if command.startswith(prefix)), None)


@contextmanager
def cluster(env: dict[str, str], logs: Path, api_processes: int, code: Path | None = None) -> Iterator[Deployment]:
    """``bemtevi cluster`` (what ``make cluster`` runs) on the run's PostgreSQL database and broker: the relay,
    two ledger workers, the mailer worker and ``api_processes`` API processes on one port."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    supervisor = _start(
        [sys.executable, "-m", "bemtevi.cli", "cluster", "--port", str(port), "--api-processes", str(api_processes)],
        env,
        logs / "supervisor.log",
        code,
    )
    try:
        _wait_healthy(base, [supervisor], logs)
        kinds: dict[str, list[int]] = {kind: [] for kind in KINDS.values()}
        for pid in _descendants(supervisor.pid):
            kind = _kind(pid)
            if kind is not None:
                kinds[kind].append(pid)
        yield Deployment(f"cluster, {api_processes} API process(es)", base, kinds)
    finally:
        _stop([supervisor])


# -- the run -----------------------------------------------------------------------------------------------------


@dataclass
class Figures:
    name: str
    rate: float
    p50_ms: float
    p99_ms: float
    errors: float
    lag_p50_ms: float
    lag_p99_ms: float
    not_up_to_date: int
    cpu_ms_per_lookup: dict[str, float]
    credit_events: dict[str, int] = field(default_factory=dict)
    charged: int = 0


def measure(
    name: str,
    deployment_of: object,
    base_env: dict[str, str],
    broker: KafkaBroker | None,
    args: argparse.Namespace,
    docs: list[str],
    code: Path | None = None,
) -> Figures:
    with postgres_database() as database_url:
        var = Path(tempfile.mkdtemp(prefix="bemtevi-bench-cluster-"))
        logs = var / "logs"
        logs.mkdir()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("BEMTEVI_")},
            **base_env,
            "BEMTEVI_VAR_DIR": str(var),
            "BEMTEVI_DATABASE_URL": database_url,
        }
        if code is not None:  # the deployment's processes import the ``bemtevi`` of that checkout
            env["PYTHONPATH"] = os.pathsep.join([str(code), *filter(None, [os.environ.get("PYTHONPATH")])])
        if broker is not None:
            suffix = uuid.uuid4().hex[:8]
            env.update(
                {
                    "BEMTEVI_KAFKA_BOOTSTRAP": broker.bootstrap,
                    "BEMTEVI_KAFKA_EVENTS_TOPIC": f"bench.events.{suffix}",
                    "BEMTEVI_KAFKA_MAIL_TOPIC": f"bench.mail.{suffix}",
                    "BEMTEVI_KAFKA_LEDGER_TOPIC": f"bench.ledger.{suffix}",
                    "BEMTEVI_LEDGER": "kafka",
                    "BEMTEVI_READ_FEED": "kafka",
                    "BEMTEVI_MAILER": "worker",
                }
            )
        emails = seed_tenants(env, args.tenants)
        with deployment_of(env, logs, code) as deployment:  # type: ignore[operator]
            tokens = sign_in(deployment.base, emails)
            # Warm-up: every tenant's first lookups (sessions, accounts and blocks loaded, partitions assigned).
            run_wrk(deployment.base, tokens, docs, args.connections, 3)
            used_before = credits_used(database_url)
            events_before = last_notification_id(database_url)
            postgres = _postgres_pids(database_url)
            deployment.kinds["PostgreSQL"] = postgres
            if broker is not None:
                assert broker.process is not None
                deployment.kinds["Kafka broker"] = [broker.process.pid]
            cpu_before = deployment.cpu()
            started = time.monotonic()
            with LagProbe(deployment.base, tokens[0], docs) as probe:
                load = run_wrk(deployment.base, tokens, docs, args.connections, args.seconds)
            elapsed = time.monotonic() - started
            cpu_after = deployment.cpu()
            time.sleep(1.0)  # lookups in flight at the window's end are settled before counting
            charged = credits_used(database_url) - used_before
            credit_events = credit_events_since(database_url, events_before)
        shutil.rmtree(var, ignore_errors=True)
    per_lookup = {kind: (cpu_after[kind] - cpu_before[kind]) / max(1, charged) * 1000 for kind in cpu_after}
    per_lookup["all processes"] = sum(per_lookup.values())
    return Figures(
        name=name,
        rate=charged / elapsed,
        p50_ms=load["p50_ms"],
        p99_ms=load["p99_ms"],
        errors=load["errors"],
        lag_p50_ms=percentile(probe.lags, 50) * 1000 if probe.lags else float("nan"),
        lag_p99_ms=percentile(probe.lags, 99) * 1000 if probe.lags else float("nan"),
        not_up_to_date=probe.not_up_to_date,
        cpu_ms_per_lookup=per_lookup,
        credit_events=credit_events,
        charged=charged,
    )


def report(figures: list[Figures]) -> None:
    embedded_rate = next((f.rate for f in figures if f.name == "embedded"), None)
    print()
    print("| deployment | charged lookups/s | vs embedded | p50 ms | p99 ms | non-200 | lag p50 ms | lag p99 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for f in figures:
        ratio = f"{f.rate / embedded_rate:.2f}x" if embedded_rate else "-"
        print(
            f"| {f.name} | {f.rate:,.0f} | {ratio} | {f.p50_ms:.1f} | {f.p99_ms:.1f} | {f.errors:.0f} | "
            f"{f.lag_p50_ms:.0f} | {f.lag_p99_ms:.0f} |"
        )
    print()
    print("CPU per charged lookup (ms), by kind of process:")
    for f in figures:
        parts = ", ".join(f"{kind} {ms:.3f}" for kind, ms in f.cpu_ms_per_lookup.items())
        print(f"  {f.name}: {parts}")
    print()
    print("Credit events per 100 charged lookups, by kind (how the ledger decided them):")
    for f in figures:
        parts = ", ".join(
            f"{kind} {count * 100 / max(1, f.charged):.1f}" for kind, count in sorted(f.credit_events.items())
        )
        print(f"  {f.name}: {parts}")


def estimate(figures: list[Figures], one_partition_rate: float | None, target: float = 20_000) -> None:
    cluster = [f for f in figures if f.name.startswith("cluster")]
    if not cluster:
        return
    f = max(cluster, key=lambda c: c.rate)
    print()
    print(f"Estimate for {target:,.0f} charged lookups/s (from '{f.name}', CPU per lookup as measured; a core each):")
    for kind, ms in f.cpu_ms_per_lookup.items():
        if kind == "all processes":
            continue
        print(f"  {kind}: {target * ms / 1000:.1f} cores")
    print(f"  all processes: {target * f.cpu_ms_per_lookup['all processes'] / 1000:.1f} cores")
    ledger_ms = f.cpu_ms_per_lookup.get("ledger workers", 0.0)
    if ledger_ms:
        per_core = 1000 / ledger_ms
        print(
            f"  a ledger worker's core decides about {per_core:,.0f} charged lookups/s at that CPU per lookup, so"
            f" {target / per_core:.0f} worker cores, each owning at least one partition"
        )
    if one_partition_rate:
        print(
            f"  one ledger partition (one tenant: every lookup on one account) carried {one_partition_rate:,.0f}"
            f" charged lookups/s here, with every process of the deployment sharing the machine's cores:"
            f" at that rate {target / one_partition_rate:.0f} partitions"
        )


def cluster_label(processes: int) -> str:
    return f"cluster, {processes} API process{'es' if processes > 1 else ''}"


def cluster_of(processes: int) -> Any:
    """``cluster`` with ``processes`` API processes, as ``measure`` starts a deployment: (env, logs, code)."""

    def start(env: dict[str, str], logs: Path, code: Path | None) -> Any:
        return cluster(env, logs, processes, code)

    return start


def paired(
    names: list[str], base_env: dict[str, str], broker: KafkaBroker | None, args: argparse.Namespace, docs: list[str]
) -> None:
    """``--pairs``: every cluster deployment against an embedded run adjacent to it, ``args.pairs`` times."""
    ratios: dict[str, list[float]] = {}
    figures: list[Figures] = []
    print("| pair | first | then | cluster / embedded |")
    print("|---|---|---|---|")
    for round_ in range(args.pairs):
        for name in names:
            if not name.startswith("cluster"):
                continue
            processes = int(name.split("-")[1])
            clustered = cluster_label(processes)
            order = [("embedded", embedded, None), (clustered, cluster_of(processes), broker)]
            if round_ % 2:
                order.reverse()
            measured = {}
            for label, deployment_of, its_broker in order:
                measured[label] = measure(label, deployment_of, base_env, its_broker, args, docs)
                figures.append(measured[label])
            ratio = measured[clustered].rate / measured["embedded"].rate
            ratios.setdefault(clustered, []).append(ratio)
            first, then = (measured[label] for label, _, _ in order)
            print(
                f"| {round_ + 1} | {first.name} {first.rate:,.0f}/s | {then.name} {then.rate:,.0f}/s | {ratio:.2f}x |",
                flush=True,
            )
    print()
    for label, found in ratios.items():
        print(
            f"{label}: against the adjacent embedded run median {statistics.median(found):.2f}x,"
            f" lowest {min(found):.2f}x ({len(found)} pairs)"
        )
    print()
    print("Every run, in order:")
    report(figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tenants", type=int, default=32)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--deployments", default="embedded,cluster-1,cluster-2")
    parser.add_argument(
        "--one-partition", action="store_true", help="also measure cluster-1 with one tenant: one ledger partition"
    )
    parser.add_argument(
        "--baseline", type=Path, help="another checkout whose code each cluster deployment is also measured with"
    )
    parser.add_argument("--repeat", type=int, default=1, help="with --baseline: rounds of both, order swapped")
    parser.add_argument(
        "--pairs", type=int, default=0, help="each cluster deployment N times, each back to back with an embedded run"
    )
    args = parser.parse_args()
    if args.pairs and args.baseline:
        raise SystemExit("--pairs compares with embedded, --baseline with another checkout: one at a time")
    if not shutil.which("wrk"):
        raise SystemExit("wrk is needed: make wrk")
    warn_if_busy()  # before PostgreSQL starts, should it not run yet: its start is not other work
    ensure_postgres()
    data = dataset(ROOT / "var" / "bench-cache")
    docs = documents(data, 2000)
    base_env = {
        "BEMTEVI_DATASET_PATH": str(data),
        "BEMTEVI_ADMIN_PASSWORD": PASSWORD,
        "BEMTEVI_ACCESS_LOG": "false",
    }
    names = [n.strip() for n in args.deployments.split(",") if n.strip()]
    broker = KafkaBroker() if any(n.startswith("cluster") for n in names) else None
    if broker is not None:
        broker.start()
    figures = []
    one_partition_rate = None
    this = Path(__file__).resolve().parent.parent
    try:
        if args.pairs:
            paired(names, base_env, broker, args, docs)
            return
        for round_ in range(args.repeat if args.baseline else 1):
            for name in names:
                if name == "embedded":
                    if round_ == 0:
                        figures.append(measure(name, embedded, base_env, None, args, docs))
                        print(figures[-1], flush=True)
                    continue
                processes = int(name.split("-")[1])
                label = cluster_label(processes)
                codes: list[tuple[str, Path | None]] = [(label, None)]
                if args.baseline:
                    both = [(f"{label}, baseline", args.baseline.resolve()), (f"{label}, this checkout", this)]
                    codes = both if round_ % 2 == 0 else both[::-1]
                for code_label, code in codes:
                    figures.append(
                        measure(
                            name,
                            cluster_of(processes),
                            base_env,
                            broker,
                            args,
                            docs,
                            code,
                        )
                    )
                    figures[-1].name = code_label
                    print(figures[-1], flush=True)
        if args.one_partition and broker is not None:
            single = argparse.Namespace(**{**vars(args), "tenants": 1})
            one = measure("one partition", cluster_of(1), base_env, broker, single, docs)
            one_partition_rate = one.rate
            print(one, flush=True)
    finally:
        if broker is not None:
            broker.stop()
    report(figures)
    estimate(figures, one_partition_rate)


if __name__ == "__main__":
    main()

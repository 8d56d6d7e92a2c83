"""``ClusterSupervisor``: cluster mode's processes started in order, kept running, stopped in order (what it
starts and how it keeps them: the package's docstring)."""

from __future__ import annotations

import os
import select
import signal
import socket
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from urllib.parse import urlparse

import psycopg

from bemtevi.cluster.children import (
    STOP_SECONDS,
    Child,
    describe_exit,
    next_backoff,
    start_process,
    stop_children,
)
from bemtevi.cluster.databases import cluster_database, prepare_event_store
from bemtevi.infra.local_services.kafka import KafkaBroker
from bemtevi.infra.local_services.postgres import ensure_postgres
from bemtevi.infra.settings import Settings

# How many processes of a worker the cluster runs (one unless named here).
WORKER_PROCESSES = {"ledger": 2}
READY_SECONDS = 300.0
DATABASE_CHECK_SECONDS = 5.0


class Stopped(Exception):
    """SIGINT or SIGTERM arrived while the cluster was starting."""


@dataclass
class ClusterSupervisor:
    settings: Settings
    workers: list[str]
    api_processes: int = 2
    say: Callable[[str], None] = field(default=lambda text: print(text, flush=True))
    children: list[Child] = field(default_factory=list)
    broker: KafkaBroker | None = None
    database_url: str = ""
    _stop: threading.Event = field(default_factory=threading.Event)
    _broker_backoff: float = 0.0
    _broker_started: float = 0.0
    _broker_restart_at: float | None = None
    _broker_thread: threading.Thread | None = None
    _waiting_for_database: bool = False
    _next_database_check: float = 0.0

    @property
    def directory(self) -> Path:
        return self.settings.var_dir / "cluster"

    @property
    def address(self) -> str:
        return f"http://{self.settings.host}:{self.settings.port}"

    # -- running ---------------------------------------------------------------------------------------------

    def run(self) -> int:
        """Start everything, print the address, keep every process running until a signal; answers the exit
        status."""
        previous = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            try:
                self.start()
            except Stopped:
                return 0
            except (RuntimeError, OSError) as e:  # a child or a server that did not start (LocalServiceError too)
                self.say(f"The cluster did not start: {e}")
                return 1
            self.say(f"Bemtevi (cluster mode) at {self.address}")
            self.say(f"Logs in {self.directory / 'logs'}; Ctrl-C stops everything.")
            while not self._stop.wait(0.2):
                self.supervise()
            return 0
        finally:
            self.stop()
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _on_signal(self, signum: int, frame: object) -> None:
        self._stop.set()

    def supervise(self) -> None:
        """One round: note the processes that ended, start again those whose back-off has passed."""
        now = time.monotonic()
        self._supervise_broker(now)
        if now >= self._next_database_check:  # said when it stops answering, even with every process alive
            self._next_database_check = now + DATABASE_CHECK_SECONDS
            self._database_answers()
        for child in self.children:
            if child.ready_fd >= 0 and select.select([child.ready_fd], [], [], 0)[0]:
                served = os.read(child.ready_fd, 64)
                os.close(child.ready_fd)
                child.ready_fd = -1
                if served:
                    self.say(f"{child.name} serves again")
            if child.restart_at is None and child.process.poll() is not None:
                ran = now - child.started
                child.backoff = next_backoff(child.backoff, ran)
                child.restart_at = now + child.backoff
                self.say(
                    f"{child.name} ended ({describe_exit(child.process.returncode)}) after {ran:.1f} s; "
                    f"starting it again in {child.backoff:.1f} s; see {child.log}"
                )
        due = [c for c in self.children if c.restart_at is not None and c.restart_at <= now]
        # Not while the broker starts again, nor while PostgreSQL does not answer: the processes would end at
        # once, and be started each time later.
        if due and not self.broker_restarting and self._database_answers():
            for child in due:
                if self._stop.is_set():
                    return
                self._restart(child)

    def _supervise_broker(self, now: float) -> None:
        """A broker this process started that ended is started again on its ports, with its data, in a thread
        (a JVM takes seconds to answer, longer on a busy machine, and deaths meanwhile are still seen)."""
        broker = self.broker
        if broker is None or self._stop.is_set() or self.broker_restarting:
            return
        if self._broker_restart_at is None:
            if broker.process is not None and broker.process.poll() is None:
                return
            code = broker.process.returncode if broker.process is not None else None
            ran = now - self._broker_started
            self._broker_backoff = next_backoff(self._broker_backoff, ran)
            self._broker_restart_at = now + self._broker_backoff
            ended = describe_exit(code) if code is not None else "did not start"
            self.say(
                f"The Kafka broker ended ({ended}); the processes wait for it; starting it again at "
                f"{broker.bootstrap} in {self._broker_backoff:.1f} s; see {broker.log_file}"
            )
            return
        if self._broker_restart_at > now:
            return
        self._broker_restart_at = None
        self._broker_started = now
        self._broker_thread = threading.Thread(target=self._restart_broker, args=(broker,), daemon=True)
        self._broker_thread.start()

    @property
    def broker_restarting(self) -> bool:
        return self._broker_thread is not None and self._broker_thread.is_alive()

    def _restart_broker(self, broker: KafkaBroker) -> None:
        self.say(f"Starting the Kafka broker again at {broker.bootstrap}…")
        try:
            broker.restart(timeout=90.0)
        except (RuntimeError, OSError) as e:
            if not self._stop.is_set():  # the next round sees it not running and waits a longer back-off
                self.say(f"The Kafka broker did not start again: {e}")
            return
        self.say(f"Kafka broker at {broker.bootstrap} again (answering after {broker.started_seconds:.1f} s)")

    def _database_answers(self) -> bool:
        """Whether the event store's PostgreSQL answers; said once when it stops answering and once when it
        answers again (children are not started again meanwhile: they would end at once, each time longer
        off)."""
        try:
            with psycopg.connect(self.database_url, connect_timeout=2):
                pass
        except psycopg.Error as e:
            if not self._waiting_for_database:
                self._waiting_for_database = True
                where = urlparse(self.database_url)
                reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                self.say(
                    f"PostgreSQL at {where.hostname}:{where.port} does not answer ({reason}); "
                    "waiting for it before starting processes again"
                )
            if self._uses_own_postgres():
                try:
                    ensure_postgres()
                except (RuntimeError, OSError) as start_error:
                    self.say(f"PostgreSQL did not start again: {start_error}")
            return False
        if self._waiting_for_database:
            self._waiting_for_database = False
            self.say("PostgreSQL answers again")
        return True

    def _uses_own_postgres(self) -> bool:
        return not self.settings.database_url

    def _restart(self, child: Child) -> None:
        child.restart_at = None
        if child.ready_fd >= 0:
            os.close(child.ready_fd)
            child.ready_fd = -1
        try:
            new = self._start_again(child)
        except OSError as e:  # no process could be made (out of memory, of file descriptors): try later
            child.backoff = next_backoff(child.backoff, 0.0)
            child.restart_at = time.monotonic() + child.backoff
            self.say(f"{child.name} could not be started again ({e}); trying in {child.backoff:.1f} s")
            return
        self.children.remove(child)
        new.backoff = child.backoff
        self.say(f"{child.name} started again (pid {new.process.pid})")

    def _start_again(self, child: Child) -> Child:
        if child.name.startswith("api-"):
            read_end, write_end = os.pipe()
            try:
                new = self._spawn(child.name, [*child.args, "--ready-fd", str(write_end)], child.env, (write_end,))
            except OSError:
                os.close(read_end)
                raise
            finally:
                os.close(write_end)
            new.ready_fd = read_end
            return new
        return self._spawn(child.name, child.args, child.env)

    def _check_stop(self) -> None:
        """Raises ``Stopped`` on a signal, and ``RuntimeError`` when a child already ended: the address is
        printed only while every child runs (a relay that died at its start had the cluster stopped just after
        the address was printed, resetting the first requests)."""
        if self._stop.is_set():
            raise Stopped
        ended = next((c for c in self.children if c.process.poll() is not None), None)
        if ended is not None:
            raise RuntimeError(f"{ended.name} ended ({ended.process.returncode}) while starting; see {ended.log}")

    def start(self) -> None:
        (self.directory / "logs").mkdir(parents=True, exist_ok=True)
        env = self._environment()
        self._check_stop()
        self._spawn("relay", ["relay"], env)
        for name in self.workers:
            count = WORKER_PROCESSES.get(name, 1)
            for n in range(1, count + 1):
                self._spawn(f"{name}-worker-{n}" if count > 1 else f"{name}-worker", ["worker", name], env)
        self._check_address_free()
        for n in range(1, self.api_processes + 1):
            self._check_stop()
            self._start_api(n, env)
        self._wait_answering()

    def _environment(self) -> dict[str, str]:
        settings = self.settings
        database_url = settings.database_url
        if not database_url:
            self.say("Starting PostgreSQL…")
            database_url = cluster_database(ensure_postgres())
        self.database_url = database_url
        prepare_event_store(database_url)
        self._check_stop()
        bootstrap = settings.kafka_bootstrap
        if not bootstrap:
            self.say("Starting the Kafka broker…")
            self.broker = KafkaBroker(directory=self.directory / "kafka").start()
            self._broker_started = time.monotonic()
            bootstrap = self.broker.bootstrap
            self.say(f"Kafka broker at {bootstrap} (started in {self.broker.started_seconds:.1f} s)")
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "BEMTEVI_DATABASE_URL": database_url,
            "BEMTEVI_KAFKA_BOOTSTRAP": bootstrap,
            "BEMTEVI_SECRET_KEY": settings.signing_key,
            "BEMTEVI_DATASET_PATH": str(settings.demo_dataset_path.resolve()),
            "BEMTEVI_MAILER": "worker",
            "BEMTEVI_ENRICHMENT": "worker",
            # One batches folder for the API processes (uploads, downloads) and the enrichment worker (each API
            # process has a var folder of its own).
            "BEMTEVI_BATCHES_PATH": str((self.directory / "batches").resolve()),
        }
        env.pop("PORT", None)
        if "ledger" in self.workers:
            env["BEMTEVI_LEDGER"] = "kafka"
        env["BEMTEVI_READ_FEED"] = "kafka"
        return env

    def _spawn(self, name: str, args: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()) -> Child:
        log = self.directory / "logs" / f"{name}.log"
        process = start_process(args, env, log, pass_fds)
        # What it is started again with, should it end (an API process's ready pipe is a new one each time).
        kept = args[: args.index("--ready-fd")] if "--ready-fd" in args else args
        child = Child(name, process, log, args=list(kept), env=env)
        self.children.append(child)
        assert process.stdout is not None
        threading.Thread(target=self._show_output, args=(name, process.stdout), daemon=True).start()
        return child

    def _show_output(self, name: str, stream: IO[bytes]) -> None:
        for line in stream:
            self.say(f"[{name}] {line.decode(errors='replace').rstrip()}")

    def _check_address_free(self) -> None:
        """Refuse an address in use, as a plain bind would: the API processes' sockets allow one another on the
        port (``SO_REUSEPORT``), and would as well join those of another cluster still running there. Bound, never
        listening: a client connecting in that instant would be queued on it and reset when it closes."""
        with socket.socket() as probe:  # IPv4, as the API processes bind (``serve --reuse-port``)
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((self.settings.host, self.settings.port))

    def _start_api(self, n: int, env: dict[str, str]) -> None:
        """Start API process ``n`` and wait until it serves. It binds a socket of its own at the address with
        ``SO_REUSEPORT`` once it can serve (``serve --reuse-port``), so that the kernel spreads new connections
        over the processes: from one socket shared by all, the process that woke first accepted most of a burst
        (32 connections opened at once went 24-30 to one process and 2-9 to the other). Should it end, its
        socket leaves the port with it rather than keeping connections nobody accepts; started again, it takes
        no share of new connections before it can answer them."""
        read_end, write_end = os.pipe()
        try:
            api_env = {**env, "BEMTEVI_VAR_DIR": str((self.directory / f"api-{n}").resolve())}
            args = ["serve", "--reuse-port", "--host", self.settings.host, "--port", str(self.settings.port)]
            child = self._spawn(f"api-{n}", [*args, "--ready-fd", str(write_end)], api_env, pass_fds=(write_end,))
            os.close(write_end)
            write_end = -1
            deadline = time.monotonic() + READY_SECONDS
            while True:
                self._check_stop()
                ready, _, _ = select.select([read_end], [], [], 0.2)
                if ready:
                    if os.read(read_end, 64):
                        return
                    raise RuntimeError(f"{child.name} ended before serving; see {child.log}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{child.name} did not start; see {child.log}")
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)

    def _wait_answering(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self._check_stop()
            try:
                with urllib.request.urlopen(f"{self.address}/api/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing answers at {self.address}")
            time.sleep(0.2)
        self._check_stop()

    # -- stopping --------------------------------------------------------------------------------------------

    def stop(self) -> None:
        """API processes, then workers, then the relay, then the broker; SIGKILL after ``STOP_SECONDS``."""
        self._stop.set()  # nothing is started again from here on
        for child in self.children:
            if child.ready_fd >= 0:
                os.close(child.ready_fd)
                child.ready_fd = -1
        apis = [c for c in self.children if c.name.startswith("api-")]
        workers = [c for c in self.children if "-worker" in c.name]
        relays = [c for c in self.children if c.name == "relay"]
        for tier in (apis, workers, relays):
            stop_children(tier, self.say)
        if self.broker is not None:
            starting = self._broker_thread
            if starting is not None and starting.is_alive():
                # A broker starting again: its start ends as soon as its process does.
                process = self.broker.process
                if process is not None and process.poll() is None:
                    process.terminate()
                starting.join(STOP_SECONDS)
            self.say("Stopping the Kafka broker…")
            self.broker.stop(keep_data=True)
            self.broker = None
        self.children.clear()

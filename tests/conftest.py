"""Shared fixtures: real SQLite and PostgreSQL event stores, a real Kafka broker, a small real demo dataset.

The PostgreSQL server and the Kafka broker are the project's own (`bemtevi.infra.local_services`), started here
when no existing server is named, so that `make test` needs nothing running beforehand."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse, urlunparse

import hypothesis
import pytest
from _pytest.nodeid import NodeId

from bemtevi.infra.process_tuning import mark_absent_modules, settle_heap

# pytest-xdist's controller loads this file too, and collects and runs nothing: what only fixtures use (the app,
# the platform, the clients of PostgreSQL and Kafka: seconds of imports) is imported where they use it, so
# that the controller starts the workers sooner. The workers have it all imported by the test modules anyway.
if TYPE_CHECKING:
    import psycopg
    from fastapi.testclient import TestClient

    from bemtevi.bootstrap import Platform
    from bemtevi.infra.settings import Settings

E2E_DIR = Path(__file__).parent / "e2e"


# The test process runs DuckDB's statements by the thousand, as a server does: its absent optional modules too.
mark_absent_modules()
# Collection makes objects that live as long as the process (modules, classes, test items): collecting garbage
# among them is wasted. Back on, with that heap frozen, once collection is done.
gc.disable()

# Hypothesis: `dev` (the default, the inner loop) runs a tenth of the examples; `make test` passes
# `--hypothesis-profile=full`. Tests naming their own count scale it with `support.examples(n)`.
# No deadline: hypothesis's per-example deadline (200 ms) judges how busy the machine is, not the code.
hypothesis.settings.register_profile("full", max_examples=100, deadline=None)
hypothesis.settings.register_profile("dev", max_examples=10, deadline=None)
hypothesis.settings.load_profile("dev")

# Markers that keep a test out of the inner loop `pytest -m "not e2e and not postgres and not kafka and not process"`.
SLOW_MARKERS = ("e2e", "postgres", "kafka", "process")


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """Collection imported every module the tests use: from here on the test process is a long-running one
    like a server, and its collector is settled as a server's is (start-up heap frozen out of full
    collections, fewer young ones). Each xdist worker, and the controller, which collects nothing, runs this loop."""
    settle_heap()
    gc.enable()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test by what it needs, from the fixtures it uses, so that the fast inner loop
    `pytest -m "not e2e and not postgres and not kafka and not process"` cannot be broken by a forgotten
    marker (a test starting a subprocess without one fails: `refuse_unmarked_processes`)."""
    for item in items:
        # schemathesis names each API operation's test ``test_x[GET /path]`` but, on pytest 9 (which keeps the
        # node id in ``_id``, not in the ``_nodeid`` schemathesis sets), they all get the node id ``...::test_x``:
        # pytest-xdist schedules by node id, and under `--dist loadfile` ran one operation of a module's
        # hundreds, saying nothing. Each gets the id its name says.
        if "[" in item.name and not item.nodeid.endswith("]"):
            item._id = NodeId.parse(f"{item.nodeid.rpartition('::')[0]}::{item.name}")
        names = getattr(item, "fixturenames", ())
        if E2E_DIR in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)
        if "postgres_server" in names:
            item.add_marker(pytest.mark.postgres)
        if "kafka_broker" in names:
            item.add_marker(pytest.mark.kafka)
    shared = [nodeid for nodeid, count in Counter(item.nodeid for item in items).items() if count > 1]
    if shared:  # two tests under one id: a run on several workers would run one of them
        raise pytest.UsageError(f"tests share a node id: {', '.join(shared[:5])}")
    _waiting_files_first(items)


def _waiting_files_first(items: list[pytest.Item]) -> None:
    """Under `--dist loadfile --no-loadscope-reorder` the workers take the files in this order: first the files
    whose tests wait on a broker or on processes (tens of seconds a file, mostly waiting), then the others,
    those with more tests first. The run then ends on short files shared by both workers, not on one long
    file while the other worker idles (pytest-xdist's own order, by test count alone, put the two one-test
    cluster files last: a 72 s tail)."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.partition("::")[0], []).append(item)

    def waits(tests: list[pytest.Item]) -> bool:
        return any(test.get_closest_marker("kafka") or test.get_closest_marker("process") for test in tests)

    ordered = sorted(files.values(), key=lambda tests: (not waits(tests), -len(tests)))
    items[:] = [test for tests in ordered for test in tests]


@pytest.fixture(autouse=True)
def refuse_unmarked_processes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that starts a subprocess (the server, the CLI, a worker) takes seconds and is no inner-loop
    test: unless it carries one of SLOW_MARKERS, starting one fails it, naming the marker to add."""
    if any(request.node.get_closest_marker(name) for name in SLOW_MARKERS):
        return
    test = request.node.nodeid

    def refuse(self: subprocess.Popen[bytes], *args: object, **kwargs: object) -> None:
        raise AssertionError(f"{test} starts a subprocess: mark it @pytest.mark.process (or e2e/postgres/kafka)")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """BEMTEVI_TEST_POSTGRES_URL names an existing server; without it the project's own is started."""
    import psycopg

    from bemtevi.infra.local_services.postgres import ensure_postgres

    url = os.environ.get("BEMTEVI_TEST_POSTGRES_URL") or ensure_postgres()
    try:
        with psycopg.connect(url, connect_timeout=3) as con:
            con.execute("SELECT 1")
    except psycopg.OperationalError as e:
        if os.environ.get("BEMTEVI_TEST_POSTGRES") == "skip":
            pytest.skip(f"PostgreSQL not reachable and BEMTEVI_TEST_POSTGRES=skip: {e}")
        raise RuntimeError(
            "The test suite runs the event store on PostgreSQL too; start the local server or set "
            "BEMTEVI_TEST_POSTGRES_URL (BEMTEVI_TEST_POSTGRES=skip to skip those tests knowingly)."
        ) from e
    return url


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[str]:
    """A real Kafka broker's bootstrap address: BEMTEVI_KAFKA_BOOTSTRAP's, or one started once for the run."""
    existing = os.environ.get("BEMTEVI_KAFKA_BOOTSTRAP")
    if existing:
        yield existing
        return
    from bemtevi.infra.local_services.kafka import KafkaBroker

    with KafkaBroker() as broker:
        yield broker.bootstrap


def _autocommit(url: str) -> psycopg.Connection[tuple[object, ...]]:
    import psycopg

    return psycopg.connect(url, autocommit=True)


class DatabasePool:
    """Empty databases for the tests, each used by one test at a time and emptied again between tests.

    A database given back is emptied on a thread of its own while the next tests run: its connections ended,
    its `public` schema (where the event store, the attempt log and every table the code makes live) dropped
    and made again, so the next test finds it as a new one. Why not CREATE and DROP DATABASE per test:
    PostgreSQL's DROP DATABASE forces a checkpoint of the whole cluster (measured 0.5-1.5 s each under the
    suite's own load), and CREATE DATABASE copies the template and logs it (0.1-0.7 s); the suite has ~300
    PostgreSQL tests. The databases are dropped when the session ends."""

    def __init__(self, server: str) -> None:
        self._server = server
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-databases")
        self._lock = threading.Lock()
        self._empty: list[str] = []
        self._every: list[str] = []

    def take(self) -> str:
        """An empty database's name: one emptied since its last test, or a new one."""
        with self._lock:
            if self._empty:
                return self._empty.pop()
        name = f"bemtevi_test_{uuid.uuid4().hex[:12]}"
        with _autocommit(self._server) as con:
            con.execute(f'CREATE DATABASE "{name}"')
        with self._lock:
            self._every.append(name)
        return name

    def give_back(self, name: str) -> None:
        self._thread.submit(self._empty_out, name)

    def _empty_out(self, name: str) -> None:
        with _autocommit(self.url(name)) as con:
            others = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            deadline = time.monotonic() + 30
            while con.execute(f"SELECT pg_terminate_backend(pid) FROM ({others}) AS o").fetchall():
                if time.monotonic() > deadline:
                    raise RuntimeError(f"connections to {name} did not end")
                time.sleep(0.02)
            con.execute("DROP SCHEMA public CASCADE")
            con.execute("CREATE SCHEMA public AUTHORIZATION pg_database_owner")
            con.execute("GRANT USAGE ON SCHEMA public TO PUBLIC")
        with self._lock:
            self._empty.append(name)

    def url(self, name: str) -> str:
        return urlunparse(urlparse(self._server)._replace(path=f"/{name}"))

    def close(self) -> None:
        self._thread.shutdown(wait=True)
        with _autocommit(self._server) as con:
            for name in self._every:
                con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def database_pool(postgres_server: str) -> Iterator[DatabasePool]:
    pool = DatabasePool(postgres_server)
    yield pool
    pool.close()


@pytest.fixture
def postgres_database(postgres_server: str, database_pool: DatabasePool) -> Iterator[str]:
    """An empty database for one test, emptied again for another afterwards (see DatabasePool)."""
    name = database_pool.take()
    yield database_pool.url(name)
    database_pool.give_back(name)


@pytest.fixture(scope="module")
def module_postgres_database(postgres_server: str, database_pool: DatabasePool) -> Iterator[str]:
    """An empty database shared by one module's tests (for servers started once per module)."""
    name = database_pool.take()
    yield database_pool.url(name)
    database_pool.give_back(name)


@pytest.fixture(scope="session")
def dataset_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bemtevi.infra.demo_data import generate_demo_dataset

    path = tmp_path_factory.mktemp("dataset") / "dataset.duckdb"
    generate_demo_dataset(path, people=2_000, companies=400, seed=7)
    return path


BACKENDS = ("sqlite", "postgres")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test using ``backend`` (``settings``, ``platform``, ``api``) runs on each event store, or on those its
    module's ``pytest.mark.backends(...)`` names (a test of the API's texts needs no second store)."""
    if "backend" not in metafunc.fixturenames:
        return
    chosen = metafunc.definition.get_closest_marker("backends")
    names = chosen.args if chosen is not None else BACKENDS
    metafunc.parametrize(
        "backend",
        [pytest.param(name, marks=pytest.mark.postgres) if name == "postgres" else name for name in names],
        indirect=True,
    )


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def settings(backend: str, tmp_path: Path, dataset_path: Path, request: pytest.FixtureRequest) -> Settings:
    from support import make_settings

    database_url = request.getfixturevalue("postgres_database") if backend == "postgres" else None
    return make_settings(tmp_path / "var", dataset_path, database_url)


@pytest.fixture(scope="session")
def started_settings(tmp_path_factory: pytest.TempPathFactory, dataset_path: Path) -> Settings:
    """The tests' SQLite settings, with a var directory a platform started on and stopped: its store
    bootstrapped and seeded, its read models caught up (see ``started_platform``)."""
    import duckdb
    from support import make_settings

    from bemtevi.bootstrap import build_platform

    settings = make_settings(tmp_path_factory.mktemp("started") / "var", dataset_path)
    build_platform(settings).close()
    # A stop leaves the read store's write-ahead log to the next start (ReadStore): checkpointed here once, so
    # that each copy's start does not replay it.
    for log in settings.var_dir.glob("*.duckdb.wal"):
        duckdb.connect(str(log.with_suffix(""))).close()
    return settings


# Settings a server reads as it runs, none of which the first start writes anything from: a var directory
# started with other values of these is the one a first start with them would have made.
RUNTIME_SETTINGS = (
    "token_ttl_hours",
    "recovery_code_minutes",
    "smtp_host",
    "smtp_port",
    "mail_attempts",
    "mail_retry_seconds",
    "google_client_id",
    "google_jwks_url",
    "ledger_lease_seconds",
    "reservation_sweep_seconds",
    "webhook_allow_private",
)


def started_platform(settings: Settings, started: Settings, **options: Any) -> Platform:
    """``build_platform(settings)``; on the tests' SQLite settings, on a copy of ``started``'s var directory: as
    a server's second start, it finds the super-admin, the seeded catalogue and the read models there instead
    of writing and projecting them again (most of a platform's start). Each test has a store of its own all
    the same; a test of the first start builds its platform itself, as do tests with settings of their own
    (beyond ``RUNTIME_SETTINGS``). ``options``: ``build_platform``'s."""
    from bemtevi.bootstrap import build_platform

    as_started = {"var_dir": started.var_dir} | {name: getattr(started, name) for name in RUNTIME_SETTINGS}
    if not settings.var_dir.exists() and settings.model_copy(update=as_started) == started:
        shutil.copytree(started.var_dir, settings.var_dir)
    return build_platform(settings, **options)


@pytest.fixture
def start_platform(started_settings: Settings) -> Callable[..., Platform]:
    """``build_platform`` for a test that starts its platform itself: on a copy of the started var directory
    when its settings allow (``started_platform``)."""
    return lambda settings, **options: started_platform(settings, started_settings, **options)


@pytest.fixture
def platform(settings: Settings, started_settings: Settings) -> Iterator[Platform]:
    platform = started_platform(settings, started_settings)
    yield platform
    platform.close()


@pytest.fixture
def sqlite_platform(tmp_path: Path, dataset_path: Path, started_settings: Settings) -> Iterator[Platform]:
    from support import make_settings

    platform = started_platform(make_settings(tmp_path / "var", dataset_path), started_settings)
    yield platform
    platform.close()


@pytest.fixture
def client(sqlite_platform: Platform) -> Iterator[TestClient]:
    from api_client import ApiClient

    from bemtevi.api.app import create_app

    with ApiClient(create_app(sqlite_platform)) as test_client:
        yield test_client


@contextmanager
def api_on(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, dataset_path: Path
) -> Iterator[tuple[TestClient, Platform]]:
    """A platform on ``backend`` (a database of the pool for PostgreSQL) and a client of its API."""
    from api_client import ApiClient
    from support import make_settings

    from bemtevi.api.app import create_app

    pool: DatabasePool | None = request.getfixturevalue("database_pool") if backend == "postgres" else None
    database = pool.take() if pool is not None else None
    database_url = pool.url(database) if pool is not None and database is not None else None
    settings = make_settings(tmp_path_factory.mktemp("api") / "var", dataset_path, database_url)
    platform = started_platform(settings, request.getfixturevalue("started_settings"))
    try:
        with ApiClient(create_app(platform)) as test_client:
            yield test_client, platform
    finally:
        platform.close()
        if pool is not None and database is not None:
            pool.give_back(database)


# A platform and its app cost ~0.4 s of CPU to build (FastAPI builds ~250 routes' models): a module's refusals
# share one. A refusal changes nothing the next one looks at, so each finds the state the first one did; a test
# that changes state keeps its own `client` or `platform`.
@pytest.fixture(scope="module")
def refusing_client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, dataset_path: Path
) -> Iterator[tuple[TestClient, Platform]]:
    """One SQLite platform and client for a module's refusals."""
    with api_on("sqlite", request, tmp_path_factory, dataset_path) as shared:
        yield shared


@pytest.fixture(scope="module")
def module_api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, dataset_path: Path
) -> Iterator[tuple[TestClient, Platform]]:
    """One SQLite platform and client for a module whose tests read a state built once (a module-scoped
    fixture's), or each write only what no other test of the module looks at."""
    with api_on("sqlite", request, tmp_path_factory, dataset_path) as shared:
        yield shared


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def refusing_backend_api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, dataset_path: Path
) -> Iterator[tuple[TestClient, Platform]]:
    """One platform and client per backend for a module's refusals."""
    with api_on(str(request.param), request, tmp_path_factory, dataset_path) as shared:
        yield shared

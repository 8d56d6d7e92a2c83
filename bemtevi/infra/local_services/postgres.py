"""The project's own PostgreSQL cluster: the machine's binaries, its own folder and port, trust on loopback."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
from pathlib import Path

import psycopg

from bemtevi.infra.local_services import LocalServiceError, file_lock, services_dir

DEFAULT_POSTGRES_PORT = 55432
# Debian's package names this account; PostgreSQL refuses to run as root.
POSTGRES_OS_USER = "postgres"


def postgres_bin_dir() -> Path:
    """The newest installed PostgreSQL's binaries (Debian keeps them out of PATH, per major version)."""
    found = sorted(
        (Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1]
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise LocalServiceError(
        "PostgreSQL's server binaries are not installed: `make test` installs Debian's `postgresql` package, "
        "or set BEMTEVI_TEST_POSTGRES_URL to an existing server."
    )


def _as_server_user(args: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return args
    try:
        pwd.getpwnam(POSTGRES_OS_USER)
    except KeyError as e:
        raise LocalServiceError(
            f"PostgreSQL cannot run as root and there is no '{POSTGRES_OS_USER}' account to run it as"
        ) from e
    return ["runuser", "-u", POSTGRES_OS_USER, "--", *args]


def _run(args: list[str], what: str) -> None:
    done = subprocess.run(_as_server_user(args), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise LocalServiceError(f"{what} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")


def postgres_url(port: int) -> str:
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


def _postgres_answers(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=2) as con:
            con.execute("SELECT 1")
        return True
    except psycopg.OperationalError:
        return False


def ensure_postgres(port: int | None = None) -> str:
    """Start the project's own PostgreSQL cluster (creating it on first use) and answer its URL.

    Safe to call any number of times, from several processes at once: a running server is left as it is."""
    port = port or int(os.environ.get("BEMTEVI_LOCAL_POSTGRES_PORT", DEFAULT_POSTGRES_PORT))
    url = postgres_url(port)
    if _postgres_answers(url):
        return url
    base = services_dir()
    data = base / f"postgres-{port}"
    with file_lock(base / f"postgres-{port}.lock"):
        if _postgres_answers(url):
            return url
        bin_dir = postgres_bin_dir()
        if not (data / "PG_VERSION").exists():
            _init_cluster(bin_dir, data, port)
        log = data / "server.log"
        _run(
            [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60", "start"],
            f"Starting PostgreSQL (log: {log})",
        )
    if not _postgres_answers(url):
        raise LocalServiceError(f"PostgreSQL started but does not answer at {url} (log: {data / 'server.log'})")
    return url


def _init_cluster(bin_dir: Path, data: Path, port: int) -> None:
    if data.exists():
        shutil.rmtree(data)  # a folder without PG_VERSION is a half-made cluster of ours: make it again
    data.mkdir(mode=0o700)
    if os.geteuid() == 0:
        shutil.chown(data, POSTGRES_OS_USER, POSTGRES_OS_USER)
    _run(
        [
            str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
            "--encoding=UTF8", "--no-locale", "--no-instructions",
        ],
        "initdb",
    )  # fmt: skip
    # Loopback only, the socket in the cluster's own folder (no shared /var/run), room for the tests' pools.
    settings = (
        f"\nlisten_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{data}'\n"
        "max_connections = 300\nshared_buffers = 128MB\n"
    )
    with open(data / "postgresql.conf", "a") as handle:
        handle.write(settings)


def stop_postgres(port: int | None = None) -> bool:
    """Stop the project's own cluster if it runs; answers whether it did."""
    port = port or int(os.environ.get("BEMTEVI_LOCAL_POSTGRES_PORT", DEFAULT_POSTGRES_PORT))
    data = services_dir() / f"postgres-{port}"
    if not (data / "postmaster.pid").exists():
        return False
    _run([str(postgres_bin_dir() / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], "Stopping PostgreSQL")
    return True

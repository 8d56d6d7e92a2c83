"""Unit lookups through the HTTP API: latency (p50/p99) and lookups per second.

    python bench/lookups.py [--requests 2000] [--clients 8] [--postgres [postgresql://…]]

Starts the real server (``bemtevi serve``) on a free loopback port with a fresh store and the
default-size demo dataset (100,000 people, 20,000 companies; generated once into a cache
folder), signs in, and sends lookups of documents from the dataset: first one client at a time
(latency), then several concurrent clients (throughput). Target: p50 <= 5 ms on SQLite.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import duckdb
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import DEFAULT_POSTGRES, describe_ms, postgres_database, running_server, warn_if_busy

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "Bench!pass1"


def dataset(cache: Path) -> Path:
    from bemtevi.infra.demo_data import generate_demo_dataset

    path = cache / "dataset-100k.duckdb"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        summary = generate_demo_dataset(path, 100_000, 20_000, 20111)
        print(f"generated the demo dataset in {summary.seconds:.1f} s")
    return path


def documents(path: Path, count: int) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        people = [r[0] for r in con.execute("SELECT cpf FROM people USING SAMPLE 2000 ROWS").fetchall()]
    finally:
        con.close()
    return [people[i % len(people)] for i in range(count)]


WRK_SCRIPT = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "%s"
local docs = {%s}
local i = 0
request = function()
  i = i %% #docs + 1
  return wrk.format(nil, "/api/consultations", nil, '{"document":"' .. docs[i] .. '"}')
end
"""


def run_wrk(base: str, headers: dict[str, str], docs: list[str], connections: int, seconds: int = 10) -> str:
    script = Path(tempfile.mkdtemp(prefix="bemtevi-wrk-")) / "lookups.lua"
    script.write_text(WRK_SCRIPT % (headers["Authorization"], ",".join(f'"{d}"' for d in docs)))
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", str(script), base],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    figures = dict(re.findall(r"^\s+(50%|99%)\s+(\S+)", out, re.MULTILINE))
    rate = re.search(r"Requests/sec:\s+(\S+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return (
        f"{float(rate.group(1)) if rate else 0:,.0f} lookups/s, p50 {figures.get('50%')}, p99 {figures.get('99%')}"
        + (f", {errors.group(1)} non-2xx answers" if errors else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument(
        "--postgres",
        nargs="?",
        const=DEFAULT_POSTGRES,
        default=None,
        help="put the event store on PostgreSQL: a fresh database on this server (default: the project's own)",
    )
    args = parser.parse_args()
    warn_if_busy()
    if args.postgres is not None:
        with postgres_database(args.postgres) as database_url:
            run(args, database_url)
    else:
        run(args, None)


def run(args: argparse.Namespace, database_url: str | None) -> None:

    data = dataset(ROOT / "var" / "bench-cache")
    var = Path(tempfile.mkdtemp(prefix="bemtevi-bench-"))
    env = {"BEMTEVI_VAR_DIR": str(var), "BEMTEVI_DATASET_PATH": str(data), "BEMTEVI_ADMIN_PASSWORD": PASSWORD}
    if database_url:
        env["BEMTEVI_DATABASE_URL"] = database_url
    with running_server(env) as base:
        login = httpx.post(f"{base}/api/auth/auth", json={"email": "admin@bemtevi.local", "password": PASSWORD})
        headers = {"Authorization": f"Bearer {login.json()['token']}"}
        docs = documents(data, args.requests)

        with httpx.Client(base_url=base, headers=headers) as client:
            for document in docs[:200]:  # warm-up
                client.post("/api/consultations", json={"document": document})
            latencies = []
            started = time.perf_counter()
            for document in docs:
                t0 = time.perf_counter()
                response = client.post("/api/consultations", json={"document": document})
                latencies.append(time.perf_counter() - t0)
                assert response.status_code == 200, response.text
            sequential_rate = len(docs) / (time.perf_counter() - started)
        print(f"backend: {'PostgreSQL' if database_url else 'SQLite'}")
        print(f"1 client : {sequential_rate:,.0f} lookups/s, {describe_ms(latencies)}")

        concurrent: list[float] = []
        lock = threading.Lock()

        def client_loop(share: list[str]) -> None:
            with httpx.Client(base_url=base, headers=headers) as client:
                local = []
                for document in share:
                    t0 = time.perf_counter()
                    response = client.post("/api/consultations", json={"document": document})
                    local.append(time.perf_counter() - t0)
                    assert response.status_code == 200, response.text
            with lock:
                concurrent.extend(local)

        shares = [docs[i :: args.clients] for i in range(args.clients)]
        threads = [threading.Thread(target=client_loop, args=(share,)) for share in shares]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rate = len(concurrent) / (time.perf_counter() - started)
        print(f"{args.clients} clients: {rate:,.0f} lookups/s, {describe_ms(concurrent)}")
        if shutil.which("wrk"):
            # The Python client shares the two cores with the server; wrk (C) measures the
            # server with far less of the client's own cost in the figures.
            for connections in (1, args.clients):
                print(f"wrk, {connections} connection(s): {run_wrk(base, headers, docs, connections)}")


if __name__ == "__main__":
    main()

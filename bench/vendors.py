"""Lookups answered by an HTTP supplier (the vendor simulator at 20 ms), and kept-result hits.

    python bench/vendors.py [--latency-ms 20] [--clients 32] [--seconds 10]

Starts the vendor simulator (``bemtevi vendor-simulator``, a process of its own) and the real server
(``bemtevi serve``, fresh store, the default demo dataset), adds a supplier pointing at the simulator,
then:

- throughput: wrk with ``--clients`` connections sends lookups of documents the local dataset does not
  know (each one a vendor call, none repeated); the ideal is clients / latency (32 / 0.020 s = 1,600
  lookups/s: the vendor's latency is the only wait); target >= 70% of it, i.e. the server is not the
  bottleneck;
- the rig's own ceiling first: wrk straight at the simulator (no server), the same connections, with the CPU
  wrk and the simulator spend per request: what this machine gives the bench before a server shares it;
- kept-result hits: one client repeats documents already answered (within the cache days): answered
  from the kept result, no vendor call; target p50 <= 3 ms.

Beside the vendor lookups' wrk window a probe writes 4 KB and syncs it (``fdatasync``) every 50 ms in a
scratch file of the server's folder, and prints the slowest syncs: every lookup's answer waits for the event
store's sync on the same disk, and a sync the disk holds for a few hundred milliseconds holds all 32 lookups
in flight with it. On this machine's virtual disk a lone sync loop, with no server running, saw such stalls a
few times a minute; the probe says whether one fell in the measured window (20 small syncs a second beside the
server's thousands).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import describe_ms, free_port, in_background, running_server, warn_if_busy
from lookups import dataset, documents

from bemtevi.domain.documents import cpf_check_digits
from bemtevi.infra.suppliers.local import LocalDatasetSupplier

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "Bench!pass1"
TOKEN = "bench-token"

WRK_SCRIPT = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "%s"
local docs = {%s}
local i = 0
request = function()
  i = i + 1
  return wrk.format(nil, "/api/consultations", nil, '{"document":"' .. docs[i %% #docs + 1] .. '"}')
end
"""


def unknown_cpfs(data: Path, count: int, seed: int) -> list[str]:
    """Valid CPFs the local dataset does not know (so each lookup reaches the vendor)."""
    local = LocalDatasetSupplier(data)
    rng = random.Random(seed)
    found: set[str] = set()
    try:
        while len(found) < count:
            base = f"{rng.randrange(10**8, 10**9):09d}"
            number = base + cpf_check_digits(base)
            if len(set(number)) > 1 and local.lookup("cpf", number) is None:
                found.add(number)
    finally:
        local.close()
    return sorted(found)


def simulator(port: int, latency_ms: float) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bemtevi.cli",
            "vendor-simulator",
            "--port",
            str(port),
            "--latency-ms",
            str(latency_ms),
            "--authorization",
            f"Bearer {TOKEN}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/__stats", timeout=1)
            return process
        except httpx.TransportError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit("the vendor simulator did not start") from None
            time.sleep(0.1)


def children_cpu(part: slice = slice(11, 13)) -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system; ``slice(11, 12)`` user only) of each child process of this one, by pid,
    with its command line."""
    found: dict[int, tuple[str, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            found[int(entry.name)] = (command, sum(int(f) for f in fields[part]) / tick)
    return found


def cpu_share(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]], word: str) -> float:
    return sum(cpu - before.get(pid, ("", 0.0))[1] for pid, (command, cpu) in after.items() if word in command)


def profile(children: dict[int, tuple[str, float]], out: Path, seconds: int) -> subprocess.Popen[bytes]:
    """py-spy sampling the server for the next ``seconds``, without pausing it: only the thread holding
    the interpreter lock (``--gil``), as one server process runs Python on one core at a time."""
    server = next(pid for pid, (command, _) in children.items() if command.endswith(" serve "))
    spy = Path(sys.executable).parent / "py-spy"
    form = "flamegraph" if out.suffix == ".svg" else "raw"
    command = [str(spy), "record", "--pid", str(server), "--duration", str(seconds), "--nonblocking", "--gil"]
    return subprocess.Popen(
        [*command, "--format", form, "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


@contextmanager
def disk_sync_probe(folder: Path, every: float = 0.05) -> Iterator[list[float]]:
    """Sync 4 KB in a scratch file of ``folder`` every ``every`` seconds while inside; yields the sync times (s)."""
    times: list[float] = []
    path = folder / "disk-sync-probe"

    def run(stop: threading.Event) -> None:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            block = os.urandom(4096)
            while not stop.wait(every):
                os.pwrite(fd, block, 0)
                started = time.perf_counter()
                os.fdatasync(fd)
                times.append(time.perf_counter() - started)
        finally:
            os.close(fd)
            path.unlink(missing_ok=True)

    with in_background(run):
        yield times


def describe_syncs(times: list[float]) -> str:
    slow = sorted((t for t in times if t > 0.05), reverse=True)
    longest = max(times, default=0.0) * 1000
    return f"disk syncs beside it: {len(times)}, longest {longest:.0f} ms, {len(slow)} over 50 ms" + (
        f" ({', '.join(f'{t * 1000:.0f}' for t in slow[:5])} ms)" if slow else ""
    )


RIG_SCRIPT = """
wrk.headers["Authorization"] = "Bearer %s"
local docs = {%s}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", "/v1/pessoas/" .. docs[i %% #docs + 1])
end
"""


def rig_ceiling(sim_port: int, docs: list[str], connections: int, seconds: int) -> tuple[float, str]:
    """wrk straight at the simulator (no server): requests/s, and the CPU wrk and the simulator spend on each."""
    script = Path(tempfile.mkdtemp(prefix="bemtevi-wrk-")) / "rig.lua"
    script.write_text(RIG_SCRIPT % (TOKEN, ",".join(f'"{d}"' for d in docs)))
    before, wrk_before = children_cpu(), os.times()
    rate, detail = run_wrk(f"http://127.0.0.1:{sim_port}", "", docs, connections, seconds, script)
    after, wrk_after = children_cpu(), os.times()
    requests = max(1, int(rate * seconds))
    wrk_cpu = (wrk_after.children_user + wrk_after.children_system) - (
        wrk_before.children_user + wrk_before.children_system
    )
    simulator_cpu = cpu_share(before, after, "vendor-simulator")
    return rate, (
        f"{detail}; CPU per request: simulator {simulator_cpu / requests * 1000:.2f} ms, "
        f"wrk {wrk_cpu / requests * 1000:.3f} ms"
    )


def run_wrk(
    base: str, authorization: str, docs: list[str], connections: int, seconds: int, script: Path | None = None
) -> tuple[float, str]:
    if script is None:
        script = Path(tempfile.mkdtemp(prefix="bemtevi-wrk-")) / "vendor-lookups.lua"
        script.write_text(WRK_SCRIPT % (authorization, ",".join(f'"{d}"' for d in docs)))
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", str(script), base],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    figures = dict(re.findall(r"^\s+(50%|99%)\s+(\S+)", out, re.MULTILINE))
    rate = re.search(r"Requests/sec:\s+(\S+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    value = float(rate.group(1)) if rate else 0.0
    detail = f"p50 {figures.get('50%')}, p99 {figures.get('99%')}" + (
        f", {errors.group(1)} non-2xx answers" if errors else ""
    )
    return value, detail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--hits", type=int, default=1000, help="kept-result hits measured at 1 client")
    parser.add_argument(
        "--profile",
        type=Path,
        help="py-spy record the server during the vendor lookups into this file (.svg flame graph, else collapsed "
        "stacks: one line per stack with its sample count)",
    )
    args = parser.parse_args()
    warn_if_busy()

    data = dataset(ROOT / "var" / "bench-cache")
    ideal = args.clients / (args.latency_ms / 1000)
    # Enough documents that wrk never repeats one within the run (each lookup a vendor call).
    docs = unknown_cpfs(data, int(ideal * args.seconds * 1.5) + 2000, seed=17)
    sim_port = free_port()
    sim = simulator(sim_port, args.latency_ms)
    rig_rate, rig_detail = rig_ceiling(sim_port, docs[-2000:], args.clients, args.seconds)
    print(
        f"rig ceiling (wrk straight at the simulator, no server): {rig_rate:,.0f} requests/s = "
        f"{rig_rate / ideal:.0%} of {ideal:,.0f}/s; {rig_detail}"
    )
    var = Path(tempfile.mkdtemp(prefix="bemtevi-bench-"))
    env = {"BEMTEVI_VAR_DIR": str(var), "BEMTEVI_DATASET_PATH": str(data), "BEMTEVI_ADMIN_PASSWORD": PASSWORD}
    try:
        with running_server(env) as base:
            login = httpx.post(f"{base}/api/auth/auth", json={"email": "admin@bemtevi.local", "password": PASSWORD})
            authorization = f"Bearer {login.json()['token']}"
            headers = {"Authorization": authorization}
            added = httpx.post(
                f"{base}/api/suppliers",
                headers=headers,
                json={
                    "name": "Simulador",
                    "contact": "bench@vendor.example",
                    "url": "http://vendor.example",
                    "server": "127.0.0.1",
                    "port": sim_port,
                    "route": "/v1/pessoas/{document}",
                    "authMethod": "bearer",
                    "token": TOKEN,
                    "allowedQueryTypes": ["cpf-complete"],
                    "cacheDays": 30,
                    "validityDays": 90,
                },
            )
            assert added.status_code == 200, added.text
            with httpx.Client(base_url=base, headers=headers) as client:
                for document in docs[:100]:  # warm-up: connections, caches
                    answer = client.post("/api/consultations", json={"document": document})
                    assert answer.status_code == 200 and answer.json()["data"]["status"] == "done", answer.text
            calls_before = httpx.get(f"http://127.0.0.1:{sim_port}/__stats").json()
            cpu_before, user_before = children_cpu(), children_cpu(slice(11, 12))
            profiler = profile(cpu_before, args.profile, args.seconds) if args.profile else None
            with disk_sync_probe(var) as syncs:
                rate, detail = run_wrk(base, authorization, docs[100:-2000], args.clients, args.seconds)
            cpu_after, user_after = children_cpu(), children_cpu(slice(11, 12))
            if profiler is not None:
                profiler.wait(timeout=60)
            calls = {
                k: v - calls_before.get(k, 0)
                for k, v in httpx.get(f"http://127.0.0.1:{sim_port}/__stats").json().items()
            }
            print(f"vendor latency {args.latency_ms:g} ms, {args.clients} connections (wrk, {args.seconds} s)")
            print(
                f"vendor lookups: {rate:,.0f} lookups/s = {rate / ideal:.0%} of {args.clients} / "
                f"{args.latency_ms / 1000:g} s ({ideal:,.0f}/s); {detail}; vendor calls {calls.get('ok', 0):,}"
            )
            print(f"  {describe_syncs(syncs)}")
            lookups = max(1, int(rate * args.seconds))
            cores = os.cpu_count() or 1
            print(
                f"CPU per vendor lookup: server {cpu_share(cpu_before, cpu_after, ' serve') / lookups * 1000:.2f} ms "
                f"({cpu_share(user_before, user_after, ' serve') / lookups * 1000:.2f} user), "
                f"simulator {cpu_share(cpu_before, cpu_after, 'vendor-simulator') / lookups * 1000:.2f} ms ({cores} "
                f"cores: {cores * 1000 / max(rate, 1):.2f} ms of CPU time per lookup at this rate)"
            )
            # The same server and load on documents the local dataset knows: the ceiling this machine
            # gives any lookup, to tell the vendor path's cost from the machine's.
            local_docs = documents(data, 4000)
            cpu_before = children_cpu()
            local_out = args.profile.with_stem(args.profile.stem + "-local") if args.profile else None
            profiler = profile(cpu_before, local_out, args.seconds) if local_out else None
            local_rate, local_detail = run_wrk(base, authorization, local_docs, args.clients, args.seconds)
            cpu_after = children_cpu()
            if profiler is not None:
                profiler.wait(timeout=60)
            local_cpu = cpu_share(cpu_before, cpu_after, " serve") / max(1, int(local_rate * args.seconds)) * 1000
            print(
                f"local-dataset lookups, same load: {local_rate:,.0f} lookups/s; {local_detail}; "
                f"server CPU per lookup {local_cpu:.2f} ms"
            )

            repeated = docs[: min(100, args.hits)]
            latencies = []
            with httpx.Client(base_url=base, headers=headers) as client:
                before = httpx.get(f"http://127.0.0.1:{sim_port}/__stats").json().get("requests", 0)
                for i in range(args.hits):
                    t0 = time.perf_counter()
                    answer = client.post("/api/consultations", json={"document": repeated[i % len(repeated)]})
                    latencies.append(time.perf_counter() - t0)
                    assert answer.status_code == 200, answer.text
                after = httpx.get(f"http://127.0.0.1:{sim_port}/__stats").json().get("requests", 0)
            print(f"kept-result hits, 1 client: {describe_ms(latencies)}; vendor calls during them: {after - before}")
    finally:
        sim.terminate()
        sim.wait(timeout=10)


if __name__ == "__main__":
    main()

"""Token lookups on the public API against session lookups on the panel's route, and the limiter's cost.

    python bench/api.py [--seconds 3] [--rounds 3] [--against OTHER_CHECKOUT]

Starts a ``bemtevi serve`` (a fresh store, the small demo dataset of ``bench/routes.py``) with the API
ceilings raised so that no limit binds, signs the super-admin in and gives the root group an API token.
Then, with wrk, in windows of ``--seconds``, alternating the two paths within each round:

- ``session``: ``POST /api/consultations`` with the session's bearer token (charged to unit credits);
- ``token``: ``POST /api/v1/lookups`` with the API token (charged to API credits, rate limits counted);

at 1 connection and at 32. ``--against`` serves another checkout (e.g. a ``git worktree`` of main) beside this
one, every window taken on each server in turn (the order reversed each round). Printed: p50/p99 of each, the
server's CPU per request (all its threads, from ``/proc``), the token path's p50 as a ratio of the session path's
in the same round (issue 34's target: within 10%), and the limiter's own cost: ``RateLimiter.admit`` timed in
this process against a store file of its own, as a share of the token lookup's p50 measured above.
The limit's accuracy over two API processes is measured by
``tests/api/test_api_processes.py::test_a_tokens_limit_holds_across_two_processes_within_ten_percent``
(PostgreSQL; it prints what it admitted).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from uuid import uuid4

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import server_process, warn_if_busy
from routes import ROOT, cpu_seconds, dataset, documents, load, seconds_of, wrk

PASSWORD = "Bench!pass1"
PATHS = {"session": "/api/consultations", "token": "/api/v1/lookups"}
LOOKUPS = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local docs = {%s}
local i = 0
request = function()
  i = i %% #docs + 1
  return wrk.format(nil, "%s", nil, '{"document":"' .. docs[i] .. '"}')
end
"""


def wrk_at(url: str, seconds: float, authorization: str, script: str, connections: int) -> tuple[float, float, int]:
    """p50 and p99 (seconds) and the number of requests of one window."""
    if connections == 1:
        p50, p99, requests, errors = wrk(url, seconds, authorization, script)
    else:
        command = ["wrk", "-t2", f"-c{connections}", f"-d{int(seconds)}s", "--latency"]
        command += ["-H", f"Authorization: Bearer {authorization}", "-s", script, url]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        figures = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.MULTILINE))
        p50, p99 = seconds_of(figures["50"]), seconds_of(figures["99"])
        found = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        errors = int(found.group(1)) if found else 0
        done = re.search(r"(\d+) requests in", out)
        requests = int(done.group(1)) if done else 0
    if errors:
        raise SystemExit(f"{errors} answers were not 2xx ({url})")
    return p50, p99, requests


def limiter_cost(calls: int = 20_000) -> float:
    """Seconds per ``RateLimiter.admit`` of one busy token (a share taken from the store now and then)."""
    from bemtevi.commands.rate_limits import RateLimiter
    from bemtevi.infra.rate_windows import SqliteRateWindows

    limiter = RateLimiter(SqliteRateWindows(Path(tempfile.mkdtemp(prefix="bemtevi-rates-")) / "rates.sqlite"))
    token = uuid4()
    began = time.perf_counter()
    for _ in range(calls):
        limiter.admit(token, 1_000_000, 100_000_000)
    spent = (time.perf_counter() - began) / calls
    limiter.close()
    return spent


def start(stack: ExitStack, tree: Path, data: Path) -> tuple[str, int, dict[str, str]]:
    """A server of ``tree``'s code: its URL, its process id, and the session's and the API token's bearers."""
    env = {
        "BEMTEVI_VAR_DIR": tempfile.mkdtemp(prefix="bemtevi-bench-"),
        "BEMTEVI_DATASET_PATH": str(data),
        "BEMTEVI_ADMIN_PASSWORD": PASSWORD,
        "BEMTEVI_API_MAX_PER_SECOND": "1000000",
        "BEMTEVI_API_MAX_PER_DAY": "100000000",
        "BEMTEVI_ACCESS_LOG": "false",
        "PYTHONPATH": str(tree),
    }
    url, process = stack.enter_context(server_process(env))
    login = httpx.post(f"{url}/api/auth/auth", json={"email": "admin@bemtevi.local", "password": PASSWORD})
    session = login.json()["token"]
    issued = httpx.post(
        f"{url}/api/api-tokens",
        headers={"Authorization": f"Bearer {session}"},
        json={"name": "bench", "queryTypes": ["cpf-complete", "cnpj-complete"]},
    ).json()
    return url, process.pid, {"session": session, "token": issued["accessToken"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout of the project, served beside this one")
    args = parser.parse_args()
    warn_if_busy()
    data = dataset()
    docs = ",".join(f'"{d}"' for d in documents(data))
    folder = Path(tempfile.mkdtemp(prefix="bemtevi-wrk-"))
    scripts = {}
    for name, path in PATHS.items():
        scripts[name] = folder / f"{name}.lua"
        scripts[name].write_text(LOOKUPS % (docs, path))
    trees = {"this": ROOT, **({"other": args.against.resolve()} if args.against else {})}
    print(f"load average before: {load()}")
    p50: dict[tuple[str, str, int], list[float]] = {}
    p99: dict[tuple[str, str, int], list[float]] = {}
    cpu: dict[tuple[str, str, int], list[float]] = {}
    with ExitStack() as stack:
        servers = {label: start(stack, tree, data) for label, tree in trees.items()}
        for url, _, bearers in servers.values():  # warm-up
            for name in PATHS:
                wrk_at(url + PATHS[name], 1, bearers[name], str(scripts[name]), 1)
        for round_ in range(args.rounds):
            for connections in (1, 32):
                pairs = [(label, name) for label in servers for name in PATHS]
                for label, name in pairs if round_ % 2 == 0 else reversed(pairs):
                    url, pid, bearers = servers[label]
                    spent = cpu_seconds(pid)
                    a, b, requests = wrk_at(
                        url + PATHS[name], args.seconds, bearers[name], str(scripts[name]), connections
                    )
                    key = (label, name, connections)
                    cpu.setdefault(key, []).append((cpu_seconds(pid) - spent) / max(1, requests))
                    p50.setdefault(key, []).append(a)
                    p99.setdefault(key, []).append(b)
            print(f"round {round_ + 1}: load average {load()}")
    cost = limiter_cost()
    print(f"\nmedians of {args.rounds} rounds of {args.seconds} s windows (wrk)")
    print("p50 / p99 ms / the server's CPU µs a request")
    for label in servers:
        for connections in (1, 32):
            for name in PATHS:
                key = (label, name, connections)
                print(
                    f"{label:<6} {name:<8} {connections:>2} connections: {statistics.median(p50[key]) * 1e3:7.2f} / "
                    f"{statistics.median(p99[key]) * 1e3:7.2f} / {statistics.median(cpu[key]) * 1e6:5.0f}"
                )
            ratios = [
                t / s
                for s, t in zip(p50[(label, "session", connections)], p50[(label, "token", connections)], strict=True)
            ]
            print(
                f"{label:<6} token / session p50 at {connections}: median {statistics.median(ratios):.2f}x "
                f"({', '.join(f'{r:.2f}' for r in ratios)})"
            )
    token_p50 = statistics.median(p50[("this", "token", 1)])
    print(f"\nlimiter: {cost * 1e6:.1f} µs per admitted request = {cost / token_p50:.1%} of a token lookup's p50")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()

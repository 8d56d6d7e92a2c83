"""Token lookups on the public API against session lookups on the panel's route, and the limiter's cost.

    python bench/api.py [--seconds 3] [--rounds 3]

Starts one ``bemtevi serve`` (a fresh store, the small demo dataset of ``bench/routes.py``) with the API
ceilings raised so that no limit binds, signs the super-admin in and gives the root group an API token.
Then, with wrk, in windows of ``--seconds``, alternating the two paths within each round:

- ``session``: ``POST /api/consultations`` with the session's bearer token (charged to unit credits);
- ``token``: ``POST /api/v1/lookups`` with the API token (charged to API credits, rate limits counted);

at 1 connection and at 32. Printed: p50/p99 of each, the token path's p50 as a ratio of the session path's
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
from pathlib import Path
from uuid import uuid4

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import server_process, warn_if_busy
from routes import dataset, documents, load, seconds_of, wrk

PASSWORD = "Bench!pass1"
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


def wrk_at(url: str, seconds: float, authorization: str, script: str, connections: int) -> tuple[float, float]:
    if connections == 1:
        p50, p99, _, errors = wrk(url, seconds, authorization, script)
    else:
        command = ["wrk", "-t2", f"-c{connections}", f"-d{int(seconds)}s", "--latency"]
        command += ["-H", f"Authorization: Bearer {authorization}", "-s", script, url]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        figures = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.MULTILINE))
        p50, p99 = seconds_of(figures["50"]), seconds_of(figures["99"])
        found = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        errors = int(found.group(1)) if found else 0
    if errors:
        raise SystemExit(f"{errors} answers were not 2xx ({url})")
    return p50, p99


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    warn_if_busy()
    data = dataset()
    docs = ",".join(f'"{d}"' for d in documents(data))
    folder = Path(tempfile.mkdtemp(prefix="bemtevi-wrk-"))
    scripts = {}
    for name, path in (("session", "/api/consultations"), ("token", "/api/v1/lookups")):
        scripts[name] = folder / f"{name}.lua"
        scripts[name].write_text(LOOKUPS % (docs, path))
    env = {
        "BEMTEVI_VAR_DIR": tempfile.mkdtemp(prefix="bemtevi-bench-"),
        "BEMTEVI_DATASET_PATH": str(data),
        "BEMTEVI_ADMIN_PASSWORD": PASSWORD,
        "BEMTEVI_API_MAX_PER_SECOND": "1000000",
        "BEMTEVI_API_MAX_PER_DAY": "100000000",
        "BEMTEVI_ACCESS_LOG": "false",
    }
    print(f"load average before: {load()}")
    with server_process(env) as (url, _):
        login = httpx.post(f"{url}/api/auth/auth", json={"email": "admin@bemtevi.local", "password": PASSWORD})
        session = login.json()["token"]
        issued = httpx.post(
            f"{url}/api/api-tokens",
            headers={"Authorization": f"Bearer {session}"},
            json={"name": "bench", "queryTypes": ["cpf-complete", "cnpj-complete"]},
        ).json()
        authorizations = {"session": session, "token": issued["accessToken"]}
        paths = {"session": "/api/consultations", "token": "/api/v1/lookups"}
        for name in authorizations:  # warm-up
            wrk_at(url + paths[name], 1, authorizations[name], str(scripts[name]), 1)
        p50: dict[tuple[str, int], list[float]] = {}
        p99: dict[tuple[str, int], list[float]] = {}
        for round_ in range(args.rounds):
            for connections in (1, 32):
                order = ["session", "token"] if round_ % 2 == 0 else ["token", "session"]
                for name in order:
                    a, b = wrk_at(
                        url + paths[name], args.seconds, authorizations[name], str(scripts[name]), connections
                    )
                    p50.setdefault((name, connections), []).append(a)
                    p99.setdefault((name, connections), []).append(b)
            print(f"round {round_ + 1}: load average {load()}")
    cost = limiter_cost()
    print(f"\nmedians of {args.rounds} rounds of {args.seconds} s windows (wrk); p50 / p99 ms")
    for connections in (1, 32):
        for name in ("session", "token"):
            median_50 = statistics.median(p50[(name, connections)]) * 1e3
            median_99 = statistics.median(p99[(name, connections)]) * 1e3
            print(f"{name:<8} {connections:>2} connections: {median_50:7.2f} / {median_99:7.2f}")
        ratios = [t / s for s, t in zip(p50[("session", connections)], p50[("token", connections)], strict=True)]
        print(
            f"token / session p50 at {connections}: median {statistics.median(ratios):.2f}x "
            f"({', '.join(f'{r:.2f}' for r in ratios)})"
        )
    token_p50 = statistics.median(p50[("token", 1)])
    print(f"\nlimiter: {cost * 1e6:.1f} µs per admitted request = {cost / token_p50:.1%} of a token lookup's p50")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()

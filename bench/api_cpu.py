"""CPU per request of a token lookup on the public API against a session lookup on the panel's route, in process.

    python bench/api_cpu.py [--rounds 5] [--count 2000] [--profile FILE]
    python bench/api_cpu.py --against REV                    # a git revision and this tree, alternating

The wall-clock figures of ``bench/api.py`` move with the machine's load; CPU time (``time.process_time``, every
thread of the process) moves far less. Builds a platform on SQLite in a temporary folder (a demo dataset of
5,000 people, the projector not started, the ledger in the process), signs the super-admin in and gives the
root group an API token with the limits' ceilings raised so that none binds, then drives the whole ASGI app
(without the access log, as ``bench/api.py`` serves it), alternating the two paths in each round:

- ``session``: ``POST /api/consultations`` with the session's bearer token;
- ``token``: ``POST /api/v1/lookups`` with the API token;

at 1 client and at 32 concurrent clients on one uvloop event loop. Printed: the lowest CPU µs per lookup of
each over the rounds (of the process, and ``loop``: of the event loop's thread alone, which the two paths' own
work runs on; the ledger's group commit is the same for both and is on another thread), token / session of
those, and the median of each round's token / session (a round's two windows are back to back: the machine's
load changes less between them). ``--profile FILE`` also writes
cProfiles (this thread's CPU) of the two paths at 32 clients: FILE (token) and ``FILE.session`` (read them
with ``python -m pstats FILE``).

With ``--against REV`` the revision is checked out in a temporary ``git worktree`` and both trees run in child
processes, alternating, two children of ``--rounds`` each per tree; the table gives each tree's lowest figures
and the median of its children's median ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import asgi_post, cheap_settings

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "Bench!pass1"
PATHS = {"session": "/api/consultations", "token": "/api/v1/lookups"}


async def _lookups(app: Any, path: str, token: str, bodies: list[bytes], count: int, clients: int) -> None:
    headers = [
        (b"host", b"127.0.0.1:8000"),
        (b"authorization", f"Bearer {token}".encode()),
        (b"content-type", b"application/json"),
    ]
    queue = iter(range(count))

    async def client() -> None:
        for n in queue:
            await asgi_post(app, path, headers, bodies[n % len(bodies)])

    await asyncio.gather(*(client() for _ in range(clients)))


def measure(rounds: int, count: int, profile: Path | None) -> dict[str, float]:
    import duckdb
    import uvloop

    import bemtevi
    from bemtevi.api.app import create_app
    from bemtevi.bootstrap import build_platform
    from bemtevi.domain.api_tokens import TokenForm
    from bemtevi.infra.demo_data import generate_demo_dataset

    print(f"  code: {Path(bemtevi.__file__).parent.parent}", file=sys.stderr)
    var = Path(tempfile.mkdtemp(prefix="bemtevi-api-cpu-"))
    dataset = var / "dataset.duckdb"
    generate_demo_dataset(dataset, people=5_000, companies=1_000, seed=7)
    con = duckdb.connect(str(dataset), read_only=True)
    people = [r[0] for r in con.execute("SELECT cpf FROM people ORDER BY cpf LIMIT 500").fetchall()]
    con.close()
    os.environ["BEMTEVI_LEDGER_PROCESS"] = "false"  # for revisions that had a ledger process; others ignore it
    settings = cheap_settings(
        var_dir=var / "var",
        dataset_path=dataset,
        admin_password=PASSWORD,
        api_max_per_second=1_000_000,
        api_max_per_day=100_000_000,
        access_log=False,
    )
    platform = build_platform(settings, start_projector=False)
    figures: dict[str, float] = {}
    ratios: dict[int, list[float]] = {}  # token / session of each round's pair of windows
    try:
        session = platform.identity.sign_in(settings.admin_email, PASSWORD, "localhost").token
        principal = platform.identity.authenticate(session)
        issued = platform.api_tokens.generate(principal, TokenForm("bench", ("cpf-complete", "cnpj-complete")))
        tokens = {"session": session, "token": issued.access_token}
        app = create_app(platform)
        bodies = [json.dumps({"document": d}).encode() for d in people]
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            for name in PATHS:  # warm-up: blocks, caches
                runner.run(_lookups(app, PATHS[name], tokens[name], bodies, count // 4, 32))
            for round_ in range(rounds):
                order = list(PATHS) if round_ % 2 == 0 else list(reversed(PATHS))
                for clients in (1, 32):
                    spent = {}
                    for name in order:
                        started, started_here = time.process_time(), time.thread_time()
                        runner.run(_lookups(app, PATHS[name], tokens[name], bodies, count, clients))
                        spent[name] = (time.process_time() - started) / count * 1e6
                        here = (time.thread_time() - started_here) / count * 1e6
                        for key, value in ((f"{name} ({clients})", spent[name]), (f"{name} loop ({clients})", here)):
                            figures[key] = min(figures.get(key, float("inf")), value)
                    ratios.setdefault(clients, []).append(spent["token"] / spent["session"])
            if profile is not None:
                for name, file in (("token", profile), ("session", profile.with_name(profile.name + ".session"))):
                    profiler = cProfile.Profile(time.thread_time)  # this thread's CPU: the load elsewhere counts less
                    profiler.enable()
                    runner.run(_lookups(app, PATHS[name], tokens[name], bodies, count, 32))
                    profiler.disable()
                    profiler.dump_stats(file)
    finally:
        platform.close()
        shutil.rmtree(var, ignore_errors=True)
    for clients in (1, 32):
        figures[f"token/session ({clients})"] = figures[f"token ({clients})"] / figures[f"session ({clients})"]
        figures[f"median ratio ({clients})"] = statistics.median(ratios[clients])
        loop = figures[f"token loop ({clients})"] / figures[f"session loop ({clients})"]
        figures[f"token/session loop ({clients})"] = loop
    return figures


def _child(code: Path, rounds: int, count: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--json", "--rounds", str(rounds), "--count", str(count)],
        env={**os.environ, "PYTHONPATH": str(code)},
        cwd=code,
        check=True,
        capture_output=True,
        text=True,
    )
    sys.stderr.write(out.stderr)
    figures: dict[str, float] = json.loads(out.stdout)
    return figures


def _row(name: str, value: float) -> str:
    return f"{value:9.2f}x" if "/" in name or "ratio" in name else f"{value:9.1f} µs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=2000, help="lookups per path, clients and round")
    parser.add_argument("--profile", type=Path, help="write cProfiles of the two paths at 32 clients here")
    parser.add_argument("--against", metavar="REV", help="also measure this git revision, alternating")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.rounds, args.count, None)))
        return
    if not args.against:
        for name, value in measure(args.rounds, args.count, args.profile).items():
            print(f"{name:22} {_row(name, value)}")
        return
    tree = Path(tempfile.mkdtemp(prefix="bemtevi-api-cpu-tree-")) / "old"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(tree), args.against], check=True)
    try:
        old: dict[str, float] = {}
        new: dict[str, float] = {}
        medians: dict[str, list[float]] = {}
        for _ in range(2):  # each child runs its own rounds; two children per tree, alternating
            for code, best in ((tree, old), (ROOT, new)):
                for name, value in _child(code, args.rounds, args.count).items():
                    if name.startswith("median"):
                        medians.setdefault(f"{code}{name}", []).append(value)
                    best[name] = min(best.get(name, float("inf")), value)
        for best, code in ((old, tree), (new, ROOT)):
            for name in best:
                if name.startswith("token/"):  # the ratio of the lowest figures
                    kind, _, clients = name.removeprefix("token/session").partition("(")
                    best[name] = best[f"token{kind}({clients}"] / best[f"session{kind}({clients}"]
                elif name.startswith("median"):
                    best[name] = statistics.median(medians[f"{code}{name}"])
        print(f"{'CPU per lookup':22} {args.against[:10]:>12} {'this tree':>12}")
        for name in old:
            print(f"{name:22} {_row(name, old[name]):>12} {_row(name, new[name]):>12}")
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)


if __name__ == "__main__":
    main()

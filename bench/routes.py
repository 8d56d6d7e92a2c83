"""What the ordinary route path costs: p50/p99 at one client of a bare Starlette route and of product routes.

    python bench/routes.py [--seconds 3] [--rounds 3] [--against OTHER_CHECKOUT]

Starts ``bemtevi serve`` (a fresh store, a small demo dataset generated once into ``var/bench-cache``) with
routes added by this script only: ``GET /bench/bare``, a bare Starlette route in front of the app's routes,
behind the same ASGI layers (access log, FastAPI's middleware), and ``GET /bench/principal``. Then, with wrk
at one connection, in windows of ``--seconds``:

- ``bare``: that route; ``principal``: ``GET /bench/principal``, also added by this script, a trivial
  authenticated read through FastAPI (the caller's principal, a response model), in front of the app's routes;
- ``health``: ``GET /api/health`` (the last API route); ``me``: ``GET /api/me`` (signed in);
- ``lookup``: ``POST /api/consultations`` (signed in, documents of the dataset; each one writes events);
- ``direct``: the same lookup answered by ``POST /bench/direct-lookup``, a hand-written ASGI layer in front of
  the app (where the old hot path stood, behind the access log) that does what the route declares for a valid
  body and nothing more: the bearer token's caller, the role's permission, the body read by orjson, the same
  lookup command, the same answer's bytes. It stands for the hot path on today's commands: the ratio
  lookup / direct is what the route path costs the lookup, with everything the lookup itself does the same.

A checkout with ``bemtevi/api/hot_path.py`` is served twice, with ``BEMTEVI_HOT_LOOKUP_PATH`` true and false;
``--against`` adds another checkout's servers (e.g. a ``git worktree`` of main). All servers run at once,
idle but for the one measured, and every window is taken on each server in turn (the order reversed each
round), so a minute of other work on the machine falls on all of them alike. Printed: each figure's median
over the rounds, and the ratios the targets name (issue 33: an authenticated read <= 1.5x the bare route;
the lookup through FastAPI within 10% of the hot path).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import server_process, warn_if_busy

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "Bench!pass1"
BARE_PATH = "/bench/bare"
PRINCIPAL_PATH = "/bench/principal"
DIRECT_PATH = "/bench/direct-lookup"
TARGETS = ("bare", "principal", "health", "me", "lookup", "direct")

LOOKUP_SCRIPT = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local docs = {%s}
local i = 0
request = function()
  i = i %% #docs + 1
  return wrk.format(nil, "%s", nil, '{"document":"' .. docs[i] .. '"}')
end
"""


def serve_with_bare_route() -> None:
    """``bemtevi serve`` with ``GET /bench/bare`` added (this script's server process; not product code)."""
    import orjson
    from pydantic import BaseModel
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route
    from starlette.types import ASGIApp, Receive, Scope, Send

    import bemtevi.api.app as app_module
    from bemtevi.api.access_log import note_tenant
    from bemtevi.api.deps import PrincipalDep, token_of
    from bemtevi.api.request_body import header_of
    from bemtevi.api.routers.consultations import LOOKUP_ROUTE, consultation_json
    from bemtevi.cli import app as cli
    from bemtevi.domain.errors import AccessDenied
    from bemtevi.domain.menus import may_open

    build = app_module.create_app

    def direct_lookup(app: ASGIApp, platform: Any) -> ASGIApp:
        """``POST /bench/direct-lookup``: the lookup without the route path (see the module's docstring)."""

        async def layer(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope["path"] != DIRECT_PATH:
                await app(scope, receive, send)
                return
            chunks = []
            while True:
                message = await receive()
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    break
            principal = platform.identity.authenticate(token_of(header_of(scope, b"authorization") or ""))
            note_tenant(scope, principal.group_id)
            if not may_open(principal.role, LOOKUP_ROUTE):
                raise AccessDenied()
            fields = orjson.loads(b"".join(chunks))
            outcome = await platform.consultations.run_unit_query_async(
                principal, fields["document"], fields.get("query_type"), purpose=fields.get("purpose")
            )
            payload = consultation_json(outcome)
            headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(payload))]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": payload})

        return layer

    async def bare(_: Request) -> Response:
        return Response(b'{"status":"ok"}', media_type="application/json")

    class Caller(BaseModel):
        id: str
        role: str

    async def principal(caller: PrincipalDep) -> Caller:
        return Caller(id=str(caller.user_id), role=caller.role.value)

    # This module's annotations are text, and these names are not its globals.
    principal.__annotations__ = {"caller": PrincipalDep, "return": Caller}

    def create_app(platform: object) -> object:
        app = build(platform)  # type: ignore[arg-type]
        app.add_api_route(PRINCIPAL_PATH, principal, methods=["GET"], response_model=Caller)
        # Both in front of the app's own routes (and of the web app's catch-all).
        app.router.routes.insert(0, app.router.routes.pop())
        app.router.routes.insert(0, Route(BARE_PATH, bare, methods=["GET"]))
        # behind the access log, as the hot path was
        app.front_layers = [*app.front_layers, lambda inner: direct_lookup(inner, platform)]
        return app

    app_module.create_app = create_app  # type: ignore[assignment]
    cli(["serve"])


def dataset(people: int = 20_000, companies: int = 2_000) -> Path:
    from bemtevi.infra.demo_data import generate_demo_dataset

    path = ROOT / "var" / "bench-cache" / f"dataset-{people // 1000}k.duckdb"
    if not path.exists():
        summary = generate_demo_dataset(path, people, companies, 20111)
        print(f"generated the demo dataset in {summary.seconds:.1f} s")
    return path


def documents(path: Path, count: int = 2000) -> list[str]:
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        return [r[0] for r in con.execute(f"SELECT cpf FROM people USING SAMPLE {count} ROWS").fetchall()]
    finally:
        con.close()


def seconds_of(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[unit]


def wrk(url: str, seconds: float, token: str, script: str | None = None) -> tuple[float, float, int, int]:
    """p50 and p99 (seconds), requests and non-2xx answers of one window at one connection."""
    command = ["wrk", "-t1", "-c1", f"-d{int(seconds)}s", "--latency", "-H", f"Authorization: Bearer {token}"]
    if script:
        command += ["-s", script]
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    figures = dict(re.findall(r"^\s+(50|99)\.000%\s+(\S+)", out, re.MULTILINE)) or dict(
        re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.MULTILINE)
    )
    done = re.search(r"(\d+) requests in", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return (
        seconds_of(figures["50"]),
        seconds_of(figures["99"]),
        int(done.group(1)) if done else 0,
        int(errors.group(1)) if errors else 0,
    )


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system, all threads) a process has spent so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=3, help="one window (default 3)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout of the project, served beside this one")
    parser.add_argument("--targets", default=",".join(TARGETS), help=f"some of {','.join(TARGETS)} (default all)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_with_bare_route()
        return
    targets = [t for t in TARGETS if t in args.targets.split(",")]
    if "bare" not in targets:
        targets.insert(0, "bare")  # every ratio is to it
    if not shutil.which("wrk"):
        raise SystemExit("wrk is needed (one connection, latency percentiles)")
    warn_if_busy()
    data = dataset()
    docs = documents(data)
    scripts = Path(tempfile.mkdtemp(prefix="bemtevi-wrk-"))
    listed = ",".join(f'"{d}"' for d in docs)
    for target, path in (("lookup", "/api/consultations"), ("direct", DIRECT_PATH)):
        (scripts / f"{target}.lua").write_text(LOOKUP_SCRIPT % (listed, path))

    servers: list[tuple[str, Path, dict[str, str]]] = []
    for tree, name in ((ROOT, "this"), *(((args.against.resolve(), "other"),) if args.against else ())):
        if (tree / "bemtevi" / "api" / "hot_path.py").exists():
            servers.append((f"{name}, hot path", tree, {"BEMTEVI_HOT_LOOKUP_PATH": "true"}))
            servers.append((f"{name}, route", tree, {"BEMTEVI_HOT_LOOKUP_PATH": "false"}))
        else:
            servers.append((f"{name}", tree, {}))

    print(f"load average before: {load()}")
    with ExitStack() as stack:
        urls: dict[str, tuple[str, str]] = {}
        pids: dict[str, int] = {}
        for label, tree, extra in servers:
            env = {
                "BEMTEVI_VAR_DIR": tempfile.mkdtemp(prefix="bemtevi-bench-"),
                "BEMTEVI_DATASET_PATH": str(data),
                "BEMTEVI_ADMIN_PASSWORD": PASSWORD,
                "PYTHONPATH": str(tree),
                **extra,
            }
            command = [sys.executable, str(Path(__file__).resolve()), "--serve"]
            url, process = stack.enter_context(server_process(env, command=command))
            pids[label] = process.pid
            login = httpx.post(f"{url}/api/auth/auth", json={"email": "admin@bemtevi.local", "password": PASSWORD})
            urls[label] = (url, login.json()["token"])

        def window(label: str, target: str, seconds: float) -> tuple[float, float, int, int]:
            url, token = urls[label]
            path = {"bare": BARE_PATH, "principal": PRINCIPAL_PATH, "health": "/api/health", "me": "/api/me"}.get(
                target, ""
            )
            script = scripts / f"{target}.lua"
            return wrk(url + path, seconds, token, str(script) if script.exists() else None)

        # A tree with its own hot path is measured with it instead of the direct layer (which needs today's modules).
        hot_paths = {label for label, tree, _ in servers if (tree / "bemtevi" / "api" / "hot_path.py").exists()}
        for label in urls:  # warm-up: caches, the session, the first lookups
            for target in targets:
                if not (target == "direct" and label in hot_paths):
                    window(label, target, 1)
        p50: dict[tuple[str, str], list[float]] = {}
        p99: dict[tuple[str, str], list[float]] = {}
        cpu: dict[tuple[str, str], list[float]] = {}
        order = list(urls)
        for round_ in range(args.rounds):
            for target in targets:
                for label in order if round_ % 2 == 0 else reversed(order):
                    if target == "direct" and label in hot_paths:
                        continue
                    spent = cpu_seconds(pids[label])
                    a, b, requests, errors = window(label, target, args.seconds)
                    cpu.setdefault((label, target), []).append((cpu_seconds(pids[label]) - spent) / max(1, requests))
                    if errors or not requests:
                        raise SystemExit(f"{label} {target}: {errors} of {requests} answers were not 2xx")
                    p50.setdefault((label, target), []).append(a)
                    p99.setdefault((label, target), []).append(b)
            print(f"round {round_ + 1}: load average {load()}")

    def median(figures: dict[tuple[str, str], list[float]], label: str, target: str) -> float:
        return statistics.median(figures.get((label, target), [float("nan")]))

    print(f"\nmedians of {args.rounds} rounds of {args.seconds:g} s windows, 1 connection (wrk)")
    print("p50 / p99 ms, and the server's CPU per request (µs, all its threads)")
    print(f"{'server':<20}" + "".join(f"{t:>22}" for t in targets))
    for label in urls:
        cells = "".join(
            f"{median(p50, label, t) * 1e3:>7.2f} /{median(p99, label, t) * 1e3:>6.2f}"
            f" /{median(cpu, label, t) * 1e6:>5.0f}"
            for t in targets
        )
        print(f"{label:<20}{cells}")
    print(f"load average after: {load()}")
    print("\np50 ratios to the bare route in the same process (CPU per request ratios in brackets)")
    for label in urls:
        bare, bare_cpu = median(p50, label, "bare"), median(cpu, label, "bare")
        shares = [
            f"{t} {median(p50, label, t) / bare:.2f}x ({median(cpu, label, t) / bare_cpu:.1f}x)" for t in targets[1:]
        ]
        print(f"{label:<20}" + ", ".join(shares))
    if "lookup" not in targets:
        return

    def ratios(label: str, to: tuple[str, str], of: tuple[str, str]) -> None:
        p50s = [b / a for a, b in zip(p50[to], p50[of], strict=True)]
        cpus = [b / a for a, b in zip(cpu[to], cpu[of], strict=True)]
        print(
            f"{label:<20}p50 median {statistics.median(p50s):.2f}x ({', '.join(f'{r:.2f}' for r in p50s)}); "
            f"CPU median {statistics.median(cpus):.2f}x ({', '.join(f'{r:.2f}' for r in cpus)})"
        )

    if "direct" in targets:
        print("\nthe lookup's route against the direct layer in the same process, round by round: p50, CPU per request")
        for label in order:
            if label not in hot_paths:
                ratios(label, (label, "direct"), (label, "lookup"))
    if len(order) > 1:
        reference = next((label for label in order if label.endswith("hot path")), order[0])
        print(f"\nlookup ratios to '{reference}', round by round: p50, CPU per request")
        for label in order:
            if label != reference:
                ratios(label, (reference, "lookup"), (label, "lookup"))


if __name__ == "__main__":
    main()

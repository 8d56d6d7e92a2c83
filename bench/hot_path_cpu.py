"""CPU time of the lookup hot path (``POST /api/consultations``), in process, per call.

    python bench/hot_path_cpu.py                              # this tree
    python bench/hot_path_cpu.py --against HEAD~3             # a git revision and this tree
    python bench/hot_path_cpu.py --against REV1 --new REV2    # two git revisions
    python bench/hot_path_cpu.py --dataset var/bench-cache/dataset-100k.duckdb

Measures with ``time.process_time`` (CPU of the whole process, every thread), not wall clock, so
other load on the machine matters less. Builds a platform on SQLite in a temporary folder with
a demo dataset (5,000 people and 1,000 companies generated, or ``--dataset``), the projector
not started and the lookups' ledger in the process (the embedded ledger; revisions that had a
ledger process get BEMTEVI_LEDGER_PROCESS=false, so the writer's share of a lookup counts in every
revision alike), and times:

* ``request``: reading the request body (``ConsultationRequest.model_validate_json`` before);
* ``parse``: ``Document.parse`` of a bare and of a punctuated CPF and CNPJ;
* ``authenticate``: ``IdentityCommands.authenticate`` of a signed-in token;
* ``supplier``: ``LocalDatasetSupplier.lookup`` of CPFs and CNPJs found in the dataset;
* ``answer``: one lookup outcome to the answer's bytes;
* ``lookup (32 clients)``: the whole ASGI hot path, 32 concurrent requests on the event loop
  (uvloop, as the server), CPU per charged lookup;
* ``route only (1 client)``: the same requests one at a time with the lookup command answering at once (its
  outcome computed beforehand) and no access log: what the route layer costs a request around the command (the
  body, the caller, the dependencies, the answer), without the threads' and the store's share.

With ``--against REV`` the revision (and ``--new REV``, if given) is checked out in a temporary
``git worktree`` and the same script runs on both trees in child processes, alternating, several
rounds; each figure is the lowest of the rounds, and the table gives the ratio new / old.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import asgi_post, cheap_settings

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "Bench!pass1"
CONCURRENCY = 32


def _per_call(fn: Callable[[], object], calls: int, repeats: int = 5) -> float:
    """Lowest CPU µs per call of ``fn`` over ``repeats`` runs of ``calls`` calls."""
    for _ in range(min(calls, 1000)):
        fn()
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - started) / calls)
    return best * 1e6


def _cycle(fn: Callable[[Any], object], values: list[Any]) -> Callable[[], object]:
    state = {"i": 0}

    def call() -> object:
        i = state["i"] = (state["i"] + 1) % len(values)
        return fn(values[i])

    return call


def _old_answer(outcome: Any) -> bytes:
    """The answer's bytes as the hot path made them before ``consultation_json``."""
    from bemtevi.api.schemas import ConsultationData, ConsultationResponse

    return (
        ConsultationResponse.model_construct(
            data=ConsultationData.model_construct(
                id=str(outcome.consultation_id),
                document=outcome.document.number,
                documentType=outcome.document.kind,
                queryType=outcome.query_type.key,
                status=outcome.status.value,
                credits=1 if outcome.status.value == "done" else 0,
                createdAt=outcome.created_at,
                result=outcome.result,
            ),
            position=outcome.position,
        )
        .model_dump_json()
        .encode()
    )


def _old_request(body: bytes) -> Any:
    from bemtevi.api.schemas import ConsultationRequest

    return ConsultationRequest.model_validate_json(body)


def _documents(dataset: Path) -> tuple[list[str], list[str]]:
    import duckdb

    con = duckdb.connect(str(dataset), read_only=True)
    try:
        people = [r[0] for r in con.execute("SELECT cpf FROM people ORDER BY cpf LIMIT 500").fetchall()]
        companies = [r[0] for r in con.execute("SELECT cnpj FROM companies ORDER BY cnpj LIMIT 200").fetchall()]
    finally:
        con.close()
    return people, companies


async def _lookups(app: Any, token: str, documents: list[str], count: int) -> int:
    """``count`` lookups from ``CONCURRENCY`` concurrent clients."""
    headers = [(b"authorization", f"Bearer {token}".encode()), (b"content-type", b"application/json")]
    bodies = [json.dumps({"document": d}).encode() for d in documents]
    queue = iter(range(count))

    async def client() -> None:
        for n in queue:
            await asgi_post(app, "/api/consultations", headers, bodies[n % len(bodies)])

    await asyncio.gather(*(client() for _ in range(CONCURRENCY)))
    return count


async def _route_only(app: Any, token: str, document: str, count: int) -> float:
    """CPU µs per request of ``count`` lookups one after another (the lowest of three runs)."""
    headers = [(b"authorization", f"Bearer {token}".encode()), (b"content-type", b"application/json")]
    body = json.dumps({"document": document}).encode()
    for _ in range(count // 10):
        await asgi_post(app, "/api/consultations", headers, body)
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for _ in range(count):
            await asgi_post(app, "/api/consultations", headers, body)
        best = min(best, (time.process_time() - started) / count)
    return best * 1e6


def measure(dataset: Path, scale: float) -> dict[str, float]:
    import uvloop

    import bemtevi
    from bemtevi.api.app import create_app
    from bemtevi.api.routers import consultations as route
    from bemtevi.bootstrap import build_platform
    from bemtevi.domain.documents import Document

    print(f"  code: {Path(bemtevi.__file__).parent.parent.name or '.'}", file=sys.stderr)
    people, companies = _documents(dataset)
    var = Path(tempfile.mkdtemp(prefix="bemtevi-bench-"))
    os.environ["BEMTEVI_LEDGER_PROCESS"] = "false"  # for revisions that had a ledger process; others ignore it
    settings = cheap_settings(var_dir=var, dataset_path=dataset, admin_password=PASSWORD)
    platform = build_platform(settings, start_projector=False)
    figures: dict[str, float] = {}
    n = max(1, int(20_000 * scale))
    try:
        admin = platform.identity.find_user_by_email(settings.admin_email)
        assert admin is not None
        token = platform.identity.sign_in(settings.admin_email, PASSWORD, "localhost").token
        principal = platform.identity.authenticate(token)

        try:
            from bemtevi.api.hot_path import read_request
        except ImportError:  # no hot path: the route's request model reads the body
            read_request = _old_request
        bodies = [json.dumps({"document": d}).encode() for d in people[:50]]
        figures["request"] = _per_call(_cycle(read_request, bodies), n)
        for name, value in (
            ("parse cpf", people[0]),
            ("parse cpf punctuated", f"{people[1][:3]}.{people[1][3:6]}.{people[1][6:9]}-{people[1][9:]}"),
            ("parse cnpj", companies[0]),
            ("parse cnpj punctuated", Document.parse(companies[1]).formatted),
        ):
            figures[name] = _per_call(lambda value=value: Document.parse(value), n)
        figures["authenticate"] = _per_call(lambda: platform.identity.authenticate(token), n)
        supplier = platform.consultations._supplier
        figures["supplier cpf"] = _per_call(_cycle(lambda d: supplier.lookup("cpf", d), people), n)
        figures["supplier cnpj"] = _per_call(_cycle(lambda d: supplier.lookup("cnpj", d), companies), n)
        outcome = platform.consultations.run_unit_query(principal, people[2])
        answer = getattr(route, "consultation_json", None) or _old_answer
        assert json.loads(answer(outcome)) == json.loads(_old_answer(outcome))
        figures["answer"] = _per_call(lambda: answer(outcome), n)

        app = create_app(platform)
        count = max(CONCURRENCY, int(4_000 * scale))
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(_lookups(app, token, people, count // 4))  # warm-up: blocks, caches
            best = float("inf")
            for _ in range(3):
                started = time.process_time()
                answered = runner.run(_lookups(app, token, people, count))
                best = min(best, (time.process_time() - started) / answered)
            figures[f"lookup ({CONCURRENCY} clients)"] = best * 1e6

            async def answered_at_once(*args: Any, **kwargs: Any) -> Any:
                return outcome

            platform.consultations.run_unit_query_async = answered_at_once  # type: ignore[method-assign]
            # Without the access log's line a request (a write to this process's output, whose cost swings).
            platform.settings = platform.settings.model_copy(update={"access_log": False})
            quiet = create_app(platform)
            figures["route only (1 client)"] = runner.run(_route_only(quiet, token, people[2], n))
    finally:
        platform.close()
        shutil.rmtree(var, ignore_errors=True)
    return figures


def _child(code: Path, dataset: Path, scale: float) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    out = subprocess.run(
        [sys.executable, __file__, "--json", "--dataset", str(dataset), "--scale", str(scale)],
        env=env,
        cwd=code,
        check=True,
        capture_output=True,
        text=True,
    )
    sys.stderr.write(out.stderr)
    figures: dict[str, float] = json.loads(out.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", metavar="REV", help="also measure this git revision, alternating with this tree")
    parser.add_argument("--new", metavar="REV", help="with --against: measure this revision instead of this tree")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per tree with --against")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the number of calls timed")
    parser.add_argument("--dataset", type=Path, help="demo dataset file to use (its lookup copy is made if missing)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bemtevi-hot-cpu-"))
    try:
        dataset: Path = (args.dataset or work / "dataset.duckdb").resolve()
        if not dataset.exists():
            from bemtevi.infra.demo_data import generate_demo_dataset

            generate_demo_dataset(dataset, people=5_000, companies=1_000, seed=7)
        if args.json:
            print(json.dumps(measure(dataset, args.scale)))
            return
        if not args.against:
            for name, value in measure(dataset, args.scale).items():
                print(f"{name:24} {value:9.2f} µs")
            return
        trees = {"old": (work / "old", args.against), "new": (work / "new", args.new)}
        checked_out = []
        try:
            for tree, revision in trees.values():
                if revision is not None:
                    subprocess.run(
                        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), revision], check=True
                    )
                    checked_out.append(tree)
            old_tree = trees["old"][0]
            new_tree = trees["new"][0] if args.new else ROOT
            old: dict[str, float] = {}
            new: dict[str, float] = {}
            for _ in range(args.rounds):
                for tree, best in ((old_tree, old), (new_tree, new)):
                    for name, value in _child(tree, dataset, args.scale).items():
                        best[name] = min(best.get(name, float("inf")), value)
        finally:
            for tree in checked_out:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
        print(f"{'CPU µs per call':24} {args.against[:10]:>10} {(args.new or 'this tree')[:10]:>10} {'new/old':>7}")
        for name, before in old.items():
            after = new[name]
            print(f"{name:24} {before:10.2f} {after:10.2f} {after / before:7.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""A platform's start and stop on a var directory a platform has started on before: what a server's restart
costs, and what most tests pay (each starts on a copy of a started var directory: ``started_platform`` in
tests/conftest.py).

    python bench/platform_start.py [--starts 40] [--rounds 3] [--against OTHER_CHECKOUT]

Makes a small demo dataset and a started var directory once, in a temporary folder; then, in a child process for
each round and code, copies that directory ``--starts`` times and starts and stops a platform on each copy (three
first as a warm-up), and prints the process's CPU per start and per stop. The settings are the tests' (cheap
password hashing, no enrichment thread, no leases). ``--against`` alternates another checkout's code, each in turn
first: only ratios within one run count on this machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import cheap_settings, code_env, compared_codes, print_ratios, warn_if_busy

if TYPE_CHECKING:
    from bemtevi.infra.settings import Settings

WARM_UP = 3


def _settings(var_dir: Path, dataset: Path) -> Settings:
    return cheap_settings(
        var_dir=var_dir,
        dataset_path=dataset,
        admin_email="admin@bench.local",
        admin_password="Bench!admin1",
        enrichment="worker",
        ledger_lease_seconds=0.0,
    )


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(started: Path, dataset: Path, work: Path, starts: int) -> None:
    """In a process of the code under test: ``starts`` timed starts and stops, each on a copy of ``started``."""
    from bemtevi.bootstrap import build_platform
    from bemtevi.infra.process_tuning import mark_absent_modules

    mark_absent_modules()  # as a server and the tests do
    start_cpu, stop_cpu = 0.0, 0.0
    for n in range(WARM_UP + starts):
        var_dir = work / f"var{n}"
        shutil.copytree(started, var_dir)
        before = _cpu()
        platform = build_platform(_settings(var_dir, dataset))
        built = _cpu()
        platform.close()
        if n >= WARM_UP:
            start_cpu += built - before
            stop_cpu += _cpu() - built
        shutil.rmtree(var_dir)
    print(json.dumps({"start_ms": 1000 * start_cpu / starts, "stop_ms": 1000 * stop_cpu / starts}))


def prepare(root: Path) -> tuple[Path, Path]:
    """A demo dataset and a var directory a platform started on and stopped (its read store checkpointed)."""
    import duckdb

    from bemtevi.bootstrap import build_platform
    from bemtevi.infra.demo_data import generate_demo_dataset

    dataset = root / "dataset.duckdb"
    generate_demo_dataset(dataset, people=2_000, companies=400, seed=7)
    started = root / "started"
    build_platform(_settings(started, dataset)).close()
    for log in started.glob("*.duckdb.wal"):
        duckdb.connect(str(log.with_suffix(""))).close()
    return started, dataset


def run_child(checkout: Path | None, started: Path, dataset: Path, root: Path, starts: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(dir=root) as work:
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(started), str(dataset), work, str(starts)],
            env=code_env(checkout),
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    answer: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return answer


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        template, data, work, count = sys.argv[2:6]
        child(Path(template), Path(data), Path(work), int(count))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=40, help="timed starts a round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout, alternated with this one")
    args = parser.parse_args()
    warn_if_busy()

    root = Path(tempfile.mkdtemp(prefix="bemtevi-bench-"))
    try:
        started, dataset = prepare(root)
        starts: dict[str, list[float]] = {}
        for name, checkout in compared_codes(args.against, args.rounds):
            figures = run_child(checkout, started, dataset, root, args.starts)
            starts.setdefault(name, []).append(figures["start_ms"])
            print(f"{name}: a start {figures['start_ms']:.1f} ms of CPU, a stop {figures['stop_ms']:.1f} ms")
        print_ratios("a start's CPU", starts)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

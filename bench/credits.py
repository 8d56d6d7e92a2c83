"""Charged lookups per second through the HTTP API: one hot account, and 100 accounts.

    python bench/credits.py [--seconds 10] [--backends sqlite,postgres] [--modes one-save,group]

For each backend and each write mode, starts the real server (``bemtevi serve``) on a fresh
store holding 100 companies with ample unit credits, signs one user of each in, and drives
``POST /api/consultations`` with wrk (C, on the same machine) at 1, 8 and 32 connections, first
all on one company's account, then spread over the 100. Every answer must be 200 (a charged
lookup); the server's figures are checked at the end (credits used == lookups answered).

Write modes: ``one-save`` is the baseline (one append per command, BEMTEVI_WRITE_BATCH_MAX=1);
``group`` is the group commit (many commands per append). Both run in the same invocation so
their ratio is measured on the same machine state. Both modes run the server as shipped otherwise
(busy accounts' lookups draw from leases of the embedded ledger, ``LeasingLedger``), so the ratio is
the group commit's alone. The ledger behind Kafka is measured by ``bench/ledger.py``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import cheap_settings, multi_tenant_lookups_script, postgres_database, running_server, warn_if_busy
from lookups import ROOT, dataset, documents

PASSWORD = "Bench!pass1"
COMPANIES = 100
CREDITS_EACH = 50_000_000


def prepare_store(var: Path, data: Path, database_url: str | None) -> list[str]:
    """100 companies with a user each, made before the server starts; returns their e-mails."""
    from bemtevi.bootstrap import build_platform
    from bemtevi.domain.groups import GroupType
    from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM

    settings = cheap_settings(var_dir=var, dataset_path=data, database_url=database_url, admin_password=PASSWORD)
    platform = build_platform(settings, start_projector=False)
    emails = []
    try:
        for n in range(COMPANIES):
            group_id, _ = platform.identity.register_group(
                SYSTEM,
                name=f"Empresa {n:03d}",
                group_type=GroupType.COMPANY,
                parent_id=ROOT_GROUP_ID,
                unit_credit_limit=CREDITS_EACH,
            )
            email = f"usuario{n:03d}@empresa{n:03d}.com.br"
            platform.identity.register_user(
                SYSTEM, group_id=group_id, name=f"Usuária {n}", email=email, password=PASSWORD
            )
            emails.append(email)
    finally:
        platform.close()
    return emails


def run_wrk(base: str, tokens: list[str], docs: list[str], connections: int, seconds: int) -> tuple[float, str, int]:
    script = multi_tenant_lookups_script([f"Bearer {t}" for t in tokens], docs)
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", str(script), base],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rate = float(re.search(r"Requests/sec:\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    figures = dict(re.findall(r"^\s+(50%|99%)\s+(\S+)", out, re.MULTILINE))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    total = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    bad = int(errors.group(1)) if errors else 0
    return (
        rate,
        f"p50 {figures.get('50%')}, p99 {figures.get('99%')}" + (f", {bad} non-2xx" if bad else ""),
        total - bad,
    )


def run_mode(
    backend: str, mode: str, data: Path, docs: list[str], seconds: int, connections: list[int]
) -> dict[tuple[str, int], float]:
    var = Path(tempfile.mkdtemp(prefix="bemtevi-bench-"))
    results: dict[tuple[str, int], float] = {}
    with postgres_database() if backend == "postgres" else nullcontext() as database_url:
        emails = prepare_store(var, data, database_url)
        env = {
            "BEMTEVI_VAR_DIR": str(var),
            "BEMTEVI_DATASET_PATH": str(data),
            "BEMTEVI_ADMIN_PASSWORD": PASSWORD,
            "BEMTEVI_WRITE_BATCH_MAX": "1" if mode == "one-save" else "512",
        }
        if database_url:
            env["BEMTEVI_DATABASE_URL"] = database_url
        with running_server(env) as base:
            tokens = []
            for email in emails:
                login = httpx.post(
                    f"{base}/api/auth/auth", json={"email": email, "password": PASSWORD, "domain_url": "localhost"}
                )
                tokens.append(login.json()["token"])
            answered = run_wrk(base, tokens[:1], docs, 8, 3)[2]  # warm-up, counted in the ledger check
            for accounts, chosen in (("1 account", tokens[:1]), ("100 accounts", tokens)):
                for n in connections:
                    rate, detail, ok = run_wrk(base, chosen, docs, n, seconds)
                    answered += ok
                    results[(accounts, n)] = rate
                    print(
                        f"  {backend:8} {mode:8} {accounts:12} {n:2} clients: {rate:7,.0f} charged lookups/s, {detail}"
                    )
        # Each run (the warm-up's 8 connections included) may leave its in-flight requests uncounted.
        check_exact(var, data, database_url, answered, 8 + 2 * sum(connections))
    return results


def check_exact(var: Path, data: Path, database_url: str | None, answered: int, in_flight: int) -> None:
    """Credits used over the accounts equal the lookups wrk saw answered, give or take the requests
    still in flight when a run stopped (charged, not counted); none negative, none left reserved."""
    from bemtevi.bootstrap import build_platform
    from bemtevi.domain.credits import CreditAccount
    from bemtevi.infra.settings import Settings

    settings = Settings(var_dir=var, dataset_path=data, database_url=database_url, admin_password=PASSWORD)
    platform = build_platform(settings, start_projector=False, bootstrap=False)
    try:
        used = 0
        for notification in platform.app.recorder.select_notifications(0, 10_000_000, topics=[_topic()]):
            account = platform.app.repository.get(notification.originator_id)
            assert isinstance(account, CreditAccount)
            assert account.available is None or account.available >= 0
            assert account.reserved == 0, f"reservations left behind: {account.reservations} ({account.reasons})"
            used += account.used
        assert answered <= used <= answered + in_flight, (used, answered)
        print(f"  ledger check: {used:,} credits used, {answered:,} charged lookups counted by wrk")
    finally:
        platform.close()


def _topic() -> str:
    from eventsourcing.utils import get_topic

    from bemtevi.domain.credits import CreditAccount

    return get_topic(CreditAccount.Opened)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--modes", default="one-save,group")
    parser.add_argument("--connections", default="1,8,32")
    args = parser.parse_args()
    warn_if_busy()
    if not shutil.which("wrk"):
        raise SystemExit("bench/credits.py drives the server with wrk (Debian package 'wrk')")
    data = dataset(ROOT / "var" / "bench-cache")
    docs = documents(data, 2000)
    connections = [int(c) for c in args.connections.split(",")]
    for backend in args.backends.split(","):
        by_mode = {
            mode: run_mode(backend, mode, data, docs, args.seconds, connections) for mode in args.modes.split(",")
        }
        if {"one-save", "group"} <= set(by_mode):
            for key, group_rate in by_mode["group"].items():
                base = by_mode["one-save"][key]
                print(
                    f"  {backend:8} {key[0]:12} {key[1]:2} clients: group commit / one save = {group_rate / base:.2f}x"
                )


if __name__ == "__main__":
    main()

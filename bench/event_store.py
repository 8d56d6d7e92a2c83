"""Events appended per second to the event store, SQLite and PostgreSQL.

    python bench/event_store.py [--saves 2000]

Two shapes: one save per command (one new consultation aggregate per transaction, as the
API does today), and 100 aggregates per save (what group commit would reach).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from uuid import UUID, uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import postgres_database, temp_dir

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.consultations import Consultation
from bemtevi.infra.settings import Settings

GROUP = uuid4()


def consultation(group_id: UUID = GROUP, user_id: UUID = GROUP) -> Consultation:
    """A charged unit lookup's record, as the ledger makes one."""
    with acting_as(Actor(user_id, group_id)):
        return Consultation(
            group_id=group_id,
            user_id=user_id,
            document="52998224725",
            document_type="cpf",
            query_type="cpf-complete",
            category="unit",
            supplier="local",
            status="done",
            credits=1,
            channel="panel",
        )


def run(app: BemteviApplication, saves: int, per_save: int, threads: int) -> float:
    def worker(count: int) -> None:
        for _ in range(count):
            app.save(*[consultation() for _ in range(per_save)])

    share = saves // threads
    pool = [threading.Thread(target=worker, args=(share,)) for _ in range(threads)]
    started = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return share * threads * per_save / (time.perf_counter() - started)


def measure(name: str, make_app: Callable[[], BemteviApplication], saves: int) -> None:
    app = make_app()
    try:
        for per_save, threads in ((1, 1), (1, 8), (100, 1)):
            count = saves if per_save == 1 else max(20, saves // 20)
            events_per_second = run(app, count, per_save, threads)
            print(
                f"{name:<10} {per_save:>3} aggregate(s)/save, {threads} thread(s): {events_per_second:>9,.0f} events/s"
            )
    finally:
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--saves", type=int, default=2000)
    args = parser.parse_args()
    measure("SQLite", lambda: BemteviApplication(env=Settings(var_dir=Path(temp_dir())).event_store_env()), args.saves)
    with postgres_database() as url:
        settings = Settings(var_dir=Path(temp_dir()), database_url=url)
        measure("PostgreSQL", lambda: BemteviApplication(env=settings.event_store_env()), args.saves)


if __name__ == "__main__":
    main()

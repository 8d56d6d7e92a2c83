"""Reservations left by a lookups' ledger that died come back by themselves.

A ledger releases what it holds when it stops; one killed (kill -9, a crash, the machine going
down) cannot. Its reservations name it as their owner, and one ledger runs per store, so what
any other owner holds was left by a ledger that is gone (in cluster mode: a worker that died or lost
the account's partition; the worker releases those only once they stayed abandoned for a while, so
that lookups in flight on the previous owner can still finish). At start and then every few seconds
this thread finds, in the balances read model, the groups whose unit account holds anything, and
sends the ledger a ``ReleaseAbandoned`` request for each. No lookup on the account is needed, and a
restart of the whole server finds them the same way.

The read model may be a moment behind the store: what it has not seen yet is found on a later
round. Batches' reservations (no owner) are never touched.
"""

from __future__ import annotations

import logging
import threading

from bemtevi.commands.ledger import LedgerClient, ReleaseAbandoned
from bemtevi.domain.query_types import Category
from bemtevi.projections.credit_queries import groups_holding_reservations
from bemtevi.projections.store import ReadStore

log = logging.getLogger(__name__)


class ReservationSweeper:
    def __init__(self, store: ReadStore, ledger: LedgerClient, interval: float) -> None:
        self._store = store
        self._ledger = ledger
        self._interval = interval
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def sweep(self) -> None:
        """One round: the groups whose lookup accounts (unit, and API: the public API's lookups) hold credits,
        each a request to the ledger."""
        for category in (Category.UNIT.value, Category.API.value):
            for group_id in groups_holding_reservations(self._store.cursor(), category):
                self._ledger.submit(ReleaseAbandoned(group_id, category))

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="bemtevi-reservation-sweeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self) -> None:
        while True:
            try:
                self.sweep()
            except Exception:
                log.exception("the sweep of abandoned reservations failed; tried again next round")
            if self._stopping.wait(self._interval):
                return

"""What ``IdentityCommands.authenticate`` remembers: the principal of each token that passed every check."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from uuid import UUID

from bemtevi.domain.principals import Principal


class KnownPrincipals:
    """The principals of tokens that passed every check of ``authenticate``, each with the
    aggregates it was decided on (the session, the user, the group and its ancestors).

    Loading those (from the read cache) and building the principal on every call cost some
    twenty times what finding a remembered one does (bench/hot_path_cpu.py). An entry is
    forgotten at every save of one of its aggregates, by the same saves (in this process, or
    read from the log for other processes' saves) that evict the application's read cache, and before the
    save returns, so a logout or an inactivation is seen at once. An entry is used only until the
    token's and the session's expiry, less a margin; after that the full checks decide, and
    answer as they always did.
    """

    MAX_ENTRIES = 20_000
    EXPIRY_MARGIN_SECONDS = 0.001

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Principal, float, tuple[UUID, ...]]] = {}
        self._tokens_of: dict[UUID, set[str]] = {}
        self._lock = threading.Lock()
        # Counts saves: an entry decided while one happened may rest on a copy it made stale.
        self.generation = 0

    def get(self, token: str) -> Principal | None:
        entry = self._entries.get(token)
        if entry is not None and time.time() < entry[1]:
            return entry[0]
        return None

    def remember(
        self, token: str, principal: Principal, expires: float, aggregate_ids: tuple[UUID, ...], generation: int
    ) -> None:
        with self._lock:
            if generation != self.generation:
                return
            if len(self._entries) >= self.MAX_ENTRIES:
                self._entries.clear()
                self._tokens_of.clear()
            self._drop(token)
            self._entries[token] = (principal, expires - self.EXPIRY_MARGIN_SECONDS, aggregate_ids)
            for aggregate_id in aggregate_ids:
                self._tokens_of.setdefault(aggregate_id, set()).add(token)

    def forget(self, aggregate_ids: Iterable[UUID]) -> None:
        """After a save of ``aggregate_ids``: the entries decided on any of them."""
        with self._lock:
            self.generation += 1
            for aggregate_id in aggregate_ids:
                tokens = self._tokens_of.get(aggregate_id)
                if tokens:
                    for token in list(tokens):
                        self._drop(token)

    def forget_token(self, token: str) -> None:
        with self._lock:
            self._drop(token)

    def _drop(self, token: str) -> None:
        entry = self._entries.pop(token, None)
        if entry is None:
            return
        for aggregate_id in entry[2]:
            tokens = self._tokens_of.get(aggregate_id)
            if tokens is not None:
                tokens.discard(token)
                if not tokens:
                    del self._tokens_of[aggregate_id]

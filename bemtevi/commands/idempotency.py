"""``Idempotency-Key`` of the public API: a retried lookup or batch submission answers the first one's outcome,
never charged twice, in either deployment (the claim is an event in the shared event store, see
``domain.idempotency``). Concurrent retries wait (bounded) for the first one's outcome."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar
from uuid import UUID

from eventsourcing.persistence import IntegrityError
from uuid_utils.compat import uuid7

from bemtevi.commands.api_tokens import ApiCaller
from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.domain.api_client_errors import IdempotencyInProgress, IdempotencyKeyReused
from bemtevi.domain.audit import acting_as
from bemtevi.domain.errors import InvalidData
from bemtevi.domain.idempotency import IdempotentRequest, idempotent_request_id, valid_key

T = TypeVar("T")


def fingerprint(operation: str, body: bytes) -> str:
    """What makes a request the same one: its operation and its body."""
    return hashlib.sha256(operation.encode() + b"\n" + body).hexdigest()


class IdempotentRequests:
    POLL_SECONDS = 0.02

    def __init__(self, app: BemteviApplication, wait_seconds: float = 30.0) -> None:
        self._app = app
        # How long a retry waits for the first request's outcome before answering 409 (it may retry again).
        self.wait_seconds = wait_seconds

    async def run(
        self,
        caller: ApiCaller,
        key: str,
        operation: str,
        body: bytes,
        first: Callable[[UUID], Awaitable[T]],
        replay: Callable[[UUID], T],
        resource_of: Callable[[T], UUID],
        made: Callable[[UUID], bool],
    ) -> T:
        """``first(resource_id)`` once per key (its outcome's resource named by ``resource_of``); any retry
        answers ``replay(resource)``. ``made(resource_id)``: whether a claim whose process died made its
        resource already (then answered from it, not run again)."""
        if not valid_key(key):
            raise InvalidData("The Idempotency-Key must be 1 to 255 visible characters", field="Idempotency-Key")
        print_ = fingerprint(operation, body)
        request_id = idempotent_request_id(caller.token_id, key)
        deadline = time.monotonic() + self.wait_seconds
        while True:
            now = datetime.now(UTC)
            existing = self._app.find(request_id, IdempotentRequest)
            if existing is not None and not existing.expired(now) and not existing.released:
                if existing.fingerprint != print_:
                    raise IdempotencyKeyReused(field="Idempotency-Key")
                if existing.answered is not None:
                    return replay(existing.answered)
                if existing.stale(now) and made(existing.resource_id):
                    self._settle(caller, request_id, lambda r: r.answer(r.resource_id))
                    return replay(existing.resource_id)
                if not existing.stale(now):
                    if time.monotonic() > deadline:
                        raise IdempotencyInProgress(field="Idempotency-Key")
                    await asyncio.sleep(self.POLL_SECONDS)
                    continue
            resource_id = uuid7()
            with acting_as(caller.principal.actor):
                if existing is None:
                    claim = IdempotentRequest.claim(caller.token_id, key, operation, print_, resource_id, now)
                else:
                    claim = existing
                    claim.reclaim(operation, print_, resource_id, now)
            try:
                self._app.save_all(claim)
            except IntegrityError:
                continue  # another retry claimed it first: wait for its outcome
            return await self._first(caller, request_id, resource_id, first, resource_of)

    async def _first(
        self,
        caller: ApiCaller,
        request_id: UUID,
        resource_id: UUID,
        first: Callable[[UUID], Awaitable[T]],
        resource_of: Callable[[T], UUID],
    ) -> T:
        try:
            outcome = await first(resource_id)
        except BaseException:
            # Refused or failed: nothing charged, so a retry runs it again.
            self._settle(caller, request_id, lambda r: r.release())
            raise
        made = resource_of(outcome)
        self._settle(caller, request_id, lambda r: r.answer(made))
        return outcome

    def _settle(self, caller: ApiCaller, request_id: UUID, change: Callable[[IdempotentRequest], None]) -> None:
        def decide() -> None:
            request = self._app.get(request_id, IdempotentRequest)
            if request.answered is not None or request.released:
                return
            with acting_as(caller.principal.actor):
                change(request)
            self._app.save_all(request)

        retry_on_conflict(decide)

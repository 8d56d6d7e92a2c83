"""Where a caller sends its requests: the embedded ledger, the Kafka client, or the leases in front of either."""

from __future__ import annotations

from typing import Any, Protocol

from bemtevi.commands.group_commit import Outcome
from bemtevi.commands.ledger.requests import Request, ReserveLookup
from bemtevi.infra.blocking import wait


class LedgerUnavailable(TimeoutError):
    """The ledger did not answer in time (cluster mode: no ledger worker took the request, or the broker is
    down); the request is not decided later."""


class LedgerClient(Protocol):
    """Where credit requests are decided: answers the decision's value and its append's position, or
    raises its refusal (a ``DomainError``). A client implements ``submit_async``; one that names this
    class as its base has ``submit`` for a caller on a thread with no event loop."""

    async def submit_async(self, request: Request) -> Outcome[Any]: ...

    def submit(self, request: Request) -> Outcome[Any]:
        """``submit_async`` run to its end on the calling thread's own loop (``bemtevi.infra.blocking``)."""
        return wait(self.submit_async(request))

    def try_draw(self, request: ReserveLookup) -> tuple[str, str | None] | None:
        """A lookup's credit taken here, without a round trip (a unit of a lease), or None."""
        ...

    def close(self) -> None: ...

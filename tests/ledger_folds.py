"""Folds of the ledger's stored events: what a statement of an account must say, for the tests that compare the
read side's figures (the statement, the monthly close and its files) with the ledger's own."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from bemtevi.bootstrap import Platform
from bemtevi.domain.credits import CreditAccount


def _balance(event: Any) -> int | None:
    if isinstance(event, CreditAccount.Opened):
        return event.limit  # type: ignore[no-any-return]
    if event.limit_after is None:
        return None
    return int(event.limit_after - event.used_after - event.reserved_after - event.granted_after)


def folded_statement(
    platform: Platform, account_id: UUID, start: datetime, end: datetime, category: str
) -> dict[str, Any]:
    """The statement of [start, end) (UTC wall times) of the account of ``category`` as a fold of its stored
    events says it: figures of the ledger's own, never of a read model."""
    events = [platform.app.mapper.to_domain_event(e) for e in platform.app.recorder.select_events(account_id)]
    flows = dict.fromkeys(("received", "returned", "granted", "takenBack", "charged", "released", "limitChanges"), 0)
    # Before its first event an account reads as it was opened: unlimited (None) or with nothing yet.
    opening: int | None = None if events and events[0].limit is None else 0
    closing = opening
    consumed = lines = 0
    for event in events:
        when = event.timestamp.astimezone(UTC).replace(tzinfo=None)
        if when < start:
            opening = _balance(event)
        if when < end:
            closing = _balance(event)
        if not start <= when < end:
            continue
        amount = getattr(event, "amount", 0)
        match event:
            case CreditAccount.Opened():
                flows["received"] += event.limit or 0
                lines += bool(event.limit)
                continue
            case CreditAccount.GrantReceived() if amount > 0:
                flows["received"] += amount
            case CreditAccount.GrantReceived():
                flows["returned"] -= amount
            case CreditAccount.Granted() if amount > 0:
                flows["granted"] += amount
            case CreditAccount.Granted():
                flows["takenBack"] -= amount
            case CreditAccount.Reserved():
                flows["charged"] += amount
            case CreditAccount.Charged():
                flows["charged"] += amount
                consumed += amount
            case CreditAccount.Settled() | CreditAccount.LeaseSettled():
                flows["released"] += event.released
                consumed += amount
            case CreditAccount.SettledFromBlock():
                consumed += amount
            case CreditAccount.Released():
                flows["released"] += amount
            case CreditAccount.LimitChanged() if None not in (event.limit_after, event.previous_limit):
                flows["limitChanges"] += event.limit_after - event.previous_limit
            case CreditAccount.LimitChanged():
                pass  # to or from unlimited: no balance to move
        lines += 1
    return {
        "category": category,
        "openingBalance": opening,
        "closingBalance": closing,
        "consumed": consumed,
        "lines": lines,
        **flows,
    }

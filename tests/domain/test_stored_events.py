"""Credit events stored before the aggregates declared their event classes (``@event("Reserved")`` then,
``class Reserved`` with ``@event(Reserved)`` now) still decode and fold into the accounts they did.

A stored event names its class by topic (``module:Aggregate.Name``) and holds its fields as JSON; both are
below as the code before the change wrote them, for a parent's unit account through every kind of movement
and the child it granted to. They must resolve to the classes declared now, fold into the same state, and
write back byte for byte.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import orjson
from eventsourcing.persistence import StoredEvent

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.query_types import Category

PARENT = credit_account_id(UUID(int=0xA1), Category.UNIT)
CHILD = credit_account_id(UUID(int=0xA2), Category.UNIT)

STORED: dict[UUID, list[tuple[int, str, bytes]]] = {
    PARENT: [
        (
            1,
            "bemtevi.domain.credits:CreditAccount.Opened",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.363383+00:00"},'
            b'"originator_topic":"bemtevi.domain.credits:CreditAccount","actor_id":{"_type_":"uuid_hex",'
            b'"_data_":"000000000000000000000000000000b1"},"tenant_id":{"_type_":"uuid_hex",'
            b'"_data_":"000000000000000000000000000000c1"},"group_id":{"_type_":"uuid_hex",'
            b'"_data_":"000000000000000000000000000000a1"},"category":"unit","limit":100}',
        ),
        (
            2,
            "bemtevi.domain.credits:CreditAccount.Reserved",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.363747+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"reservation_id":"00000000-0000-0000-0000-000000000001","amount":10,"reason":"consultation",'
            b'"used_after":0,"reserved_after":10,"granted_after":0,"limit_after":100,"owner":"ledger-a",'
            b'"since":null}',
        ),
        (
            3,
            "bemtevi.domain.credits:CreditAccount.Settled",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.363921+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"reservation_id":"00000000-0000-0000-0000-000000000001","amount":7,"released":3,'
            b'"reason":"consultation","used_after":7,"reserved_after":0,"granted_after":0,"limit_after":100}',
        ),
        (
            4,
            "bemtevi.domain.credits:CreditAccount.Reserved",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364012+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"reservation_id":"00000000-0000-0000-0000-000000000002","amount":5,"reason":"block",'
            b'"used_after":7,"reserved_after":5,"granted_after":0,"limit_after":100,"owner":"ledger-a",'
            b'"since":null}',
        ),
        (
            5,
            "bemtevi.domain.credits:CreditAccount.SettledFromBlock",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364106+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"block_id":"00000000-0000-0000-0000-000000000002",'
            b'"reservation_id":"00000000-0000-0000-0000-000000000003","amount":1,"reason":"consultation",'
            b'"used_after":8,"reserved_after":4,"granted_after":0,"limit_after":100}',
        ),
        (
            6,
            "bemtevi.domain.credits:CreditAccount.Reserved",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364187+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"reservation_id":"00000000-0000-0000-0000-000000000004","amount":4,"reason":"lease",'
            b'"used_after":8,"reserved_after":8,"granted_after":0,"limit_after":100,"owner":"api-1",'
            b'"since":42}',
        ),
        (
            7,
            "bemtevi.domain.credits:CreditAccount.LeaseSettled",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364289+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"reservation_id":"00000000-0000-0000-0000-000000000004","amount":2,"released":2,'
            b'"reason":"lease","consultations":["00000000-0000-0000-0000-000000000005",'
            b'"00000000-0000-0000-0000-000000000006"],"used_after":10,"reserved_after":4,"granted_after":0,'
            b'"limit_after":100}',
        ),
        (
            8,
            "bemtevi.domain.credits:CreditAccount.Charged",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364424+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"reservation_id":"00000000-0000-0000-0000-000000000007","amount":1,"reason":"consultation",'
            b'"used_after":11,"reserved_after":4,"granted_after":0,"limit_after":100}',
        ),
        (
            9,
            "bemtevi.domain.credits:CreditAccount.Reserved",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364504+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"reservation_id":"00000000-0000-0000-0000-000000000008","amount":3,"reason":"batch",'
            b'"used_after":11,"reserved_after":7,"granted_after":0,"limit_after":100,"owner":null,'
            b'"since":null}',
        ),
        (
            10,
            "bemtevi.domain.credits:CreditAccount.Released",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364596+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"reservation_id":"00000000-0000-0000-0000-000000000008","amount":3,"reason":"batch",'
            b'"used_after":11,"reserved_after":4,"granted_after":0,"limit_after":100}',
        ),
        (
            11,
            "bemtevi.domain.credits:CreditAccount.LimitChanged",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364701+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"previous_limit":100,"used_after":11,"reserved_after":4,"granted_after":0,"limit_after":120}',
        ),
        (
            12,
            "bemtevi.domain.credits:CreditAccount.Granted",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364804+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"counterparty_group_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000a2"},'
            b'"amount":5,"used_after":11,"reserved_after":4,"granted_after":5,"limit_after":120}',
        ),
        (
            13,
            "bemtevi.domain.credits:CreditAccount.Reserved",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364978+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"reservation_id":"00000000-0000-0000-0000-000000000009","amount":2,"reason":"lease",'
            b'"used_after":11,"reserved_after":6,"granted_after":5,"limit_after":120,"owner":"api-2",'
            b'"since":77}',
        ),
    ],
    CHILD: [
        (
            1,
            "bemtevi.domain.credits:CreditAccount.Opened",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.363574+00:00"},'
            b'"originator_topic":"bemtevi.domain.credits:CreditAccount","actor_id":{"_type_":"uuid_hex",'
            b'"_data_":"000000000000000000000000000000b1"},"tenant_id":{"_type_":"uuid_hex",'
            b'"_data_":"000000000000000000000000000000c1"},"group_id":{"_type_":"uuid_hex",'
            b'"_data_":"000000000000000000000000000000a2"},"category":"unit","limit":0}',
        ),
        (
            2,
            "bemtevi.domain.credits:CreditAccount.GrantReceived",
            b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-29T08:26:12.364911+00:00"},'
            b'"actor_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000b1"},'
            b'"tenant_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000c1"},'
            b'"counterparty_group_id":{"_type_":"uuid_hex","_data_":"000000000000000000000000000000a1"},'
            b'"amount":5,"used_after":0,"reserved_after":0,"granted_after":0,"limit_after":5}',
        ),
    ],
}


def _at(seconds: int, microseconds: int) -> datetime:
    return datetime(2026, 11, 29, 8, 26, seconds, microseconds, tzinfo=UTC)


def _app_with(stored: list[StoredEvent]) -> BemteviApplication:
    app = BemteviApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    app.recorder.insert_events(stored)
    return app


def _state(account: CreditAccount) -> dict[str, Any]:
    return {name: value for name, value in vars(account).items() if name != "_pending_events"}


def test_credit_events_stored_before_the_declared_event_classes_fold_into_the_same_accounts() -> None:
    stored = [
        StoredEvent(originator_id=account_id, originator_version=version, topic=topic, state=state)
        for account_id, events in STORED.items()
        for version, topic, state in events
    ]
    assert {s.topic.rpartition(".")[2] for s in stored} == {
        "Opened",
        "Reserved",
        "Settled",
        "SettledFromBlock",
        "LeaseSettled",
        "Charged",
        "Released",
        "LimitChanged",
        "Granted",
        "GrantReceived",
    }
    app = _app_with(stored)
    for event in stored:
        decoded = app.mapper.to_domain_event(event)
        assert type(decoded) is getattr(CreditAccount, event.topic.rpartition(".")[2])
        assert app.mapper.to_stored_event(decoded) == event
    assert _state(app.get(PARENT, CreditAccount)) == {
        "_id": PARENT,
        "_version": 13,
        "_created_on": _at(12, 363383),
        "_modified_on": _at(12, 364978),
        "group_id": UUID(int=0xA1),
        "category": Category.UNIT,
        "limit": 120,
        "used": 11,
        "granted": 5,
        "reservations": {str(UUID(int=2)): 4, str(UUID(int=9)): 2},
        "reasons": {str(UUID(int=2)): "block", str(UUID(int=9)): "lease"},
        "owners": {str(UUID(int=2)): "ledger-a", str(UUID(int=9)): "api-2"},
        "lease_since": {str(UUID(int=9)): 77},
    }
    assert _state(app.get(CHILD, CreditAccount)) == {
        "_id": CHILD,
        "_version": 2,
        "_created_on": _at(12, 363574),
        "_modified_on": _at(12, 364911),
        "group_id": UUID(int=0xA2),
        "category": Category.UNIT,
        "limit": 5,
        "used": 0,
        "granted": 0,
        "reservations": {},
        "reasons": {},
        "owners": {},
        "lease_since": {},
    }


def test_a_reservation_stored_before_owners_and_leases_takes_the_methods_defaults() -> None:
    """The declared ``Reserved`` gives no defaults, as the derived class did not: an event stored before
    ``owner`` and ``since`` existed lacks them, and applying it takes the decorated method's (None)."""
    (_, opened_topic, opened), (_, reserved_topic, reserved) = STORED[PARENT][:2]
    older = orjson.loads(reserved)
    del older["owner"], older["since"]
    app = _app_with(
        [
            StoredEvent(originator_id=PARENT, originator_version=1, topic=opened_topic, state=opened),
            StoredEvent(originator_id=PARENT, originator_version=2, topic=reserved_topic, state=orjson.dumps(older)),
        ]
    )
    account = app.get(PARENT, CreditAccount)
    assert account.reservations == {str(UUID(int=1)): 10} and account.reasons == {str(UUID(int=1)): "consultation"}
    assert account.owners == {} and account.lease_since == {}

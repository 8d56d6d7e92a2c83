"""The ledger: the one package whose code appends credit events.

Every movement of a credit account (a lookup's reservation and its settlement or release, a lease of
a busy account's units to an API process and its settlement, a batch's reservation, settlement and
release, grants and limits, the release of reservations a dead owner left) is a *request*: a frozen
dataclass of plain values, encoded with orjson, with a partition key (the group whose accounts it
decides; a group's four accounts share it). ``decider.Ledger`` turns a request
into a decision taken on a group-commit ``Workspace``; a ``LedgerClient`` carries requests to the
ledger and answers the decision's value and the position of its append:

- ``embedded.EmbeddedLedger``: this process's ``GroupCommit`` (the embedded deployment);
- ``bemtevi.streams.ledger_client.KafkaLedgerClient``: requests to the Kafka topic
  ``bemtevi.ledger`` keyed by partition key, decided by the ``bemtevi worker ledger`` process that
  owns the partition (``bemtevi.streams.ledger_worker``), the answer on a reply topic.

In front of either, in the process that serves lookups, ``leases.LeasingLedger``: busy
accounts' lookups are drawn from leases of their units and recorded there, without a credit event of
their own, one request per lease instead of per lookup. The two deployments differ only in the transport.

A grant is decided in the parent's partition and writes the child's account too: should the
child's owner append to that account meanwhile, the event store's version check refuses the later
append and its batch is decided again on the new state, so the two owners never lose a movement.

Kafka delivers at least once, so every request is idempotent: a lookup's reservation for a
consultation whose credit is already held answers the same; its finish for a consultation already
recorded answers the recorded one (never a second charge); grants, limits and batch movements carry
a request id claimed in the same append (a ``UniqueIndex`` whose id is uuid5 of it), so one
delivered again answers "done" and changes nothing; a registration's ``OpenAccounts`` delivered again
finds its group in the store and appends nothing.

Registrations: a new group's credit accounts are opened here too, in the partition of the parent whose
accounts grant them (``OpenAccounts``). The registration (``commands.identity``, ``customers``,
``accounts``) builds its other aggregates (the group, its owner, the claims on unique values) and sends
their events with the request, as stored events; the ledger checks the claims, decides the accounts and
appends them with those events in one append: a group never exists without its accounts, and no API
process writes an account a ledger worker owns.

Its files: ``requests`` (the request dataclasses), ``codec`` (requests, answers and refusals as JSON),
``client`` (``LedgerClient``), ``decider`` (``Ledger``), ``accounts`` (registrations, grants, limits, work
movements), ``lease_log`` (the ledger's reading of leases from the event store), ``embedded``
(``EmbeddedLedger``), ``leases`` and ``held_leases`` (the API process's side of leases).

Unit leases (``leases``): a busy account's lookups without a decision of the ledger for each one.

A lookup's credit is decided by the ledger that owns its group's account: in cluster mode the ledger worker
that owns its group's partition (two crossings of the broker per lookup), embedded the server's own ledger on
its group commit (a credit event beside each consultation). For a busy account the process that serves
lookups asks that owner for a *lease* instead: a block of units held for that process (``LeaseUnits``: one
reservation on the account, appended by the ledger, naming this process and the log position it was granted
after). Each lookup then takes a unit of the lease here and records its consultation on this process's own
group commit, naming the lease (``Consultation.lease_id``); no credit event is written here. When the lease
is drawn out or its time is up (``BEMTEVI_LEDGER_LEASE_SECONDS``, counted from when the account's open leases
end, at most one lease time ahead: a lease ends at most two lease times after its grant) and its lookups in
flight are over, this process returns it with the consultations it charged (``ReturnLease``): the ledger
settles one unit for each and releases the rest, in one event (one line of the balance history for the lease,
naming its consultations).

A process that dies holding a lease cannot return it. Once the lease has stayed open
``BEMTEVI_LEDGER_ABANDON_SECONDS`` (at least twice the lease time plus 2 s, which ``Settings`` checks: a live
holder's lease ends first; found by the reservation sweep; embedded, at the first sweep after the
server starts again, since a lease of another holder is then a dead process's), the ledger settles it from
the consultations recorded under it in the event store. Either way one unit is charged per found
consultation, once (the first settlement closes the lease, a second finds nothing to settle), and
never more than the lease held: the account's limit holds.

The checks every lookup passes first (the group active, a query type it may run) are made here on the
group as the API process last saw it (kept current with its saves and the log); a lookup that does not
pass them, or of an account with no lease, goes to the ledger as before, which decides or refuses it.
A lookup still in flight when its lease was returned without it (the process stopping, or a lookup
held past ``STUCK_SECONDS``), or, in cluster mode, finishing later than the abandon time less a second after
its lease was asked for (the ledger may have settled the lease from the log by then), finds no lease at its
finish and is answered ``SearchFailed``, uncharged.
"""

from bemtevi.commands.ledger.accounts import open_accounts, opening_accounts
from bemtevi.commands.ledger.client import LedgerClient
from bemtevi.commands.ledger.codec import (
    decode_request,
    encode_request,
    error_from_json,
    error_to_json,
    request_from_json,
    request_to_json,
    value_to_json,
)
from bemtevi.commands.ledger.decider import Ledger
from bemtevi.commands.ledger.embedded import EmbeddedLedger
from bemtevi.commands.ledger.lease_log import LeaseLog, StoredLeaseLog
from bemtevi.commands.ledger.leases import LeasingLedger
from bemtevi.commands.ledger.requests import (
    CREDITS_PER_UNIT_QUERY,
    LEASE_MIN,
    REQUEST_TYPES,
    FinishLookup,
    Grant,
    LeaseUnits,
    OpenAccounts,
    RecordLookup,
    ReleaseAbandoned,
    ReleaseWork,
    Request,
    ReserveLookup,
    ReserveWork,
    ReturnLease,
    SetLimit,
    SettleWork,
)

__all__ = [
    "CREDITS_PER_UNIT_QUERY",
    "LEASE_MIN",
    "REQUEST_TYPES",
    "EmbeddedLedger",
    "FinishLookup",
    "Grant",
    "LeaseLog",
    "LeaseUnits",
    "LeasingLedger",
    "Ledger",
    "LedgerClient",
    "OpenAccounts",
    "RecordLookup",
    "ReleaseAbandoned",
    "ReleaseWork",
    "Request",
    "ReserveLookup",
    "ReserveWork",
    "ReturnLease",
    "SetLimit",
    "SettleWork",
    "StoredLeaseLog",
    "decode_request",
    "encode_request",
    "error_from_json",
    "error_to_json",
    "open_accounts",
    "opening_accounts",
    "request_from_json",
    "request_to_json",
    "value_to_json",
]

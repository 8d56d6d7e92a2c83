"""The ledger: the one package whose code appends credit events.

Every movement of a credit account is a request (``requests``), decided by ``decider.Ledger`` on a
group-commit workspace by the account's one owner: this process's ``embedded.EmbeddedLedger``, or in cluster
mode the ledger worker of the group's partition (``bemtevi.streams.ledger_worker``, reached through
``bemtevi.streams.ledger_client.KafkaLedgerClient``). In front of either, in the process that serves lookups,
``leases.LeasingLedger`` draws busy accounts' lookups from leases of their units. Why the count is exact (one
owner per account, one effect per request, what a dead owner held, leases and their times): README.md, beside
this file.

Its files: ``requests`` (the request dataclasses), ``codec`` (requests, answers and refusals as JSON),
``client`` (``LedgerClient``), ``decider`` (``Ledger``: a handler per request type), ``accounts``
(registrations, grants, limits, work movements), ``lease_log`` (the ledger's reading of leases from the event
store), ``embedded`` (``EmbeddedLedger``), ``leases`` and ``held_leases`` (the API process's side of leases).
Callers import what they use from the package itself.
"""

from bemtevi.commands.ledger.accounts import open_accounts, opening_accounts
from bemtevi.commands.ledger.client import LedgerClient, LedgerUnavailable
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
    "LedgerUnavailable",
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

"""Unit leases (bemtevi.commands.ledger.leases): busy accounts' lookups recorded by the API process, the ledger apart.

The ledger's decisions are the Kafka worker's whatever carries the requests, so here a ledger on a group
commit of its own stands in for the worker (``worker``), with the log reader the worker has, and the
leasing client records lookups on the platform's group commit, as an API process does on its own. What a
customer or finance would notice: every found lookup is charged once, whether the process returns its
lease or dies holding it; nothing found is free; the limit holds; nothing stays reserved.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any
from uuid import UUID, uuid4

import orjson
import pytest
from api_client import ApiClient
from support import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    KNOWN_CPF,
    charged_in_store,
    lookup_record,
    new_tenant,
    settlements_by_consultation,
    super_admin,
    unknown_cpfs,
    wait_until,
)

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform
from bemtevi.commands.group_commit import GroupCommit
from bemtevi.commands.ledger import (
    EmbeddedLedger,
    LeaseUnits,
    LeasingLedger,
    Ledger,
    ReleaseAbandoned,
    ReturnLease,
    StoredLeaseLog,
)
from bemtevi.commands.query_types import StoredQueryTypes
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import DomainError, SearchFailed
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import Category

ABANDON_SECONDS = 0.3


@pytest.fixture
def worker(platform: Platform) -> Iterator[EmbeddedLedger]:
    """A ledger worker's decisions on a group commit of their own (the API process's is the platform's).

    The platform's sweeper is stopped: it would send ``ReleaseAbandoned`` to the platform's embedded ledger, a
    second ledger on this store that a cluster's API process does not run, which (the only ledger of its store,
    as it believes) takes this worker's live leases for a dead process's at once and settles them from the log
    before their consultations are recorded. A cluster's sweeper asks the worker; the tests here ask it."""
    platform.sweeper.stop()
    writer = GroupCommit(platform.app)
    ledger = Ledger(
        catalogue=StoredQueryTypes(platform.app),
        abandon_after=ABANDON_SECONDS,
        release_on_stop=False,
        lease_log=StoredLeaseLog(platform.app),
    )
    yield EmbeddedLedger(platform.app, writer, ledger)
    writer.stop()


@pytest.fixture
def leasing(platform: Platform, worker: EmbeddedLedger) -> Iterator[Callable[..., LeasingLedger]]:
    """The API process's client: leases from ``worker``, lookups recorded on the platform's group commit.

    Closed on the way out whatever the test did (closing twice is harmless): a keeper left running after its
    platform closed would try, every tick, to return its leases to a closed store for the rest of the run."""
    clients: list[LeasingLedger] = []

    def start(*, lease_seconds: float = 0.3, record_within: float | None = None) -> LeasingLedger:
        client = LeasingLedger(
            worker,
            platform.app,
            platform.writer,
            StoredQueryTypes(platform.app),
            lease_seconds=lease_seconds,
            tick=0.02,
            record_within=record_within,
        )
        clients.append(client)
        platform.consultations.ledger = client
        return client

    yield start
    for client in clients:
        client.close()


def account(platform: Platform, group_id: UUID) -> CreditAccount:
    return platform.app.get(credit_account_id(group_id, Category.UNIT), CreditAccount)


def charged_once(platform: Platform, group_id: UUID, found: int) -> Counter[str]:
    """The group's charged consultations, after checking that ``found`` were charged, each settled once (a
    lease's settlement names each of its own), and that nothing stays reserved."""
    balance = account(platform, group_id)
    charged = charged_in_store(platform.app, group_id)
    assert (balance.used, balance.reserved, sum(charged.values())) == (found, 0, found)
    assert settlements_by_consultation(platform.app, group_id) == charged
    return charged


def look_up_until_leased(
    platform: Platform, client: LeasingLedger, principal: Principal, documents: list[str], channel: str = "panel"
) -> int:
    """Lookups one after another (on ``channel``: ``api`` for the public API's) until some were recorded under a
    lease; how many were found."""
    found = 0
    # Only a guard against a lease that never comes: on a loaded machine (a CI run beside other work) the
    # lookups and the lease's grant thread get a share of a core, and 20 s was once too short.
    deadline = time.monotonic() + 120
    for i in range(100_000):
        try:
            outcome = platform.consultations.run_unit_query(principal, documents[i % len(documents)], channel=channel)
        except DomainError:
            continue
        found += outcome.status == ConsultationStatus.DONE
        if client.recorded >= 30 and i % 7 == 0:
            return found
        assert time.monotonic() < deadline, "no lookup was recorded under a lease"
    return found


def test_a_returned_lease_charges_each_found_lookup_once_and_gives_back_the_rest(
    platform: Platform, leasing: Callable[..., LeasingLedger]
) -> None:
    principal = new_tenant(platform, "Empresa", 10_000)
    client = leasing()
    documents = [KNOWN_CPF, *unknown_cpfs(platform.supplier, 3)]
    found = look_up_until_leased(platform, client, principal, documents)
    assert client.leased >= 1
    client.close()
    charged = charged_once(platform, principal.group_id, found)
    leased = [
        e
        for e in (platform.app.get(UUID(c), Consultation) for c in charged)
        if e.lease_id is not None  # recorded by the API process, no round trip to the ledger
    ]
    assert leased


def test_a_lease_whose_process_died_is_settled_from_the_consultations_recorded_under_it(
    platform: Platform, worker: EmbeddedLedger, leasing: Callable[..., LeasingLedger]
) -> None:
    principal = new_tenant(platform, "Empresa", 10_000)
    client = leasing(lease_seconds=30.0)  # open until the process dies: its keeper does not return it first
    found = look_up_until_leased(platform, client, principal, [KNOWN_CPF, *unknown_cpfs(platform.supplier, 2)])
    # The process dies: its keeper stops, and nothing is returned.
    client._stopping.set()
    client._thread.join(timeout=5)
    held = account(platform, principal.group_id)
    assert held.leases() and held.reserved > 0
    assert worker.submit(ReleaseAbandoned(principal.group_id)).value == 0  # seen: its holder may still return it
    time.sleep(ABANDON_SECONDS + 0.1)
    assert worker.submit(ReleaseAbandoned(principal.group_id)).value >= 1
    charged = charged_once(platform, principal.group_id, found)
    # The holder's late return (it was only slow) finds the lease settled: nothing is charged twice.
    for lease_id in held.leases():
        worker.submit(ReturnLease(UUID(lease_id), principal.group_id, list(charged)))
    assert account(platform, principal.group_id).used == found


def test_a_lease_and_its_return_delivered_twice_move_credits_once(platform: Platform, worker: EmbeddedLedger) -> None:
    principal = new_tenant(platform, "Empresa", 50)
    lease = LeaseUnits(uuid4(), principal.group_id, principal.user_id, 20, "api-test")
    assert worker.submit(lease).value == 20
    assert worker.submit(lease).value == 20
    assert (account(platform, principal.group_id).reserved, account(platform, principal.group_id).available) == (20, 30)
    # More than is available is leased down to what is; under the minimum, nothing.
    assert worker.submit(LeaseUnits(uuid4(), principal.group_id, principal.user_id, 100, "api-test")).value == 30
    assert worker.submit(LeaseUnits(uuid4(), principal.group_id, principal.user_id, 10, "api-test")).value == 0
    charged = [str(uuid4()), str(uuid4())]
    back = ReturnLease(lease.lease_id, principal.group_id, charged)
    worker.submit(back)
    worker.submit(back)
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.reserved, balance.available) == (2, 30, 18)
    assert set(settlements_by_consultation(platform.app, principal.group_id)) == set(charged)


def test_no_lease_is_granted_by_a_ledger_that_cannot_settle_one_from_the_log(platform: Platform) -> None:
    principal = new_tenant(platform, "Empresa", 50)
    embedded = EmbeddedLedger(platform.app, platform.writer, Ledger(catalogue=StoredQueryTypes(platform.app)))
    assert embedded.submit(LeaseUnits(uuid4(), principal.group_id, principal.user_id, 20, "api-test")).value == 0
    assert account(platform, principal.group_id).reserved == 0


def test_consultations_and_leases_stored_before_leases_existed_read_as_having_none(platform: Platform) -> None:
    """Events appended before these fields existed lack them: they read as no lease, no lease position."""
    principal = new_tenant(platform, "Empresa", 50)
    outcome = platform.consultations.run_unit_query(principal, KNOWN_CPF)
    mapper = platform.app.mapper
    for aggregate_id in (outcome.consultation_id, credit_account_id(principal.group_id, Category.UNIT)):
        stored = [mapper.to_stored_event(e) for e in platform.app.repository.event_store.get(aggregate_id)]
        older = []
        for event in stored:
            state = orjson.loads(event.state)
            state.pop("lease_id", None)
            state.pop("since", None)
            older.append(mapper.to_domain_event(replace(event, state=orjson.dumps(state))))
        aggregate: Any = None
        for event in older:
            aggregate = event.mutate(aggregate)
        if isinstance(aggregate, Consultation):
            assert aggregate.lease_id is None and aggregate.credits == 1
        else:
            assert aggregate.lease_since == {} and aggregate.used == 1


def test_a_lease_request_delivered_again_after_its_lease_was_settled_grants_nothing(
    platform: Platform, worker: EmbeddedLedger
) -> None:
    """Kafka may deliver a lease request again after its lease was returned (a worker died before committing
    its offset): granted anew, the lease would be settled a second time from the same consultations."""
    principal = new_tenant(platform, "Empresa", 50)
    lease = LeaseUnits(uuid4(), principal.group_id, principal.user_id, 20, "api-test")
    assert worker.submit(lease).value == 20
    worker.submit(ReturnLease(lease.lease_id, principal.group_id, [str(uuid4())]))
    assert worker.submit(lease).value == 0
    worker.ledger.forget()  # a partition's next owner: from the store, not from memory
    assert worker.submit(lease).value == 0
    balance = account(platform, principal.group_id)
    assert (balance.used, balance.reserved, balance.leases()) == (1, 0, {})


def test_a_lookup_that_finishes_after_its_lease_went_back_is_refused_uncharged(
    platform: Platform, leasing: Callable[..., LeasingLedger]
) -> None:
    """The process stopping returns its leases: a lookup that drew a unit and was still asking its supplier
    is refused at its finish, and neither charged nor recorded (the ledger has no lease to take it from)."""
    principal = new_tenant(platform, "Empresa", 10_000)
    client = leasing(lease_seconds=30.0)  # the lease still open for the late lookup's draw
    found = look_up_until_leased(platform, client, principal, [KNOWN_CPF])
    late = lookup_record(principal.group_id).request
    drawn = client.try_draw(late)
    assert drawn is not None
    client.close()  # the process stops: every lease goes back
    with pytest.raises(SearchFailed):
        client.submit(late.finished(drawn[0], drawn[1], ConsultationStatus.DONE))
    charged = charged_once(platform, principal.group_id, found)
    assert str(late.consultation_id) not in charged


def test_a_lookup_that_finishes_after_the_ledger_may_have_taken_its_lease_for_abandoned_is_refused_uncharged(
    platform: Platform, leasing: Callable[..., LeasingLedger]
) -> None:
    """A lookup that drew a unit of a lease and asked its supplier for longer than the ledger waits before it
    settles another process's lease from the log (the abandon time) is refused at its finish, uncharged: the
    lease may have been settled meanwhile, and a consultation recorded under it afterwards would never be
    charged. The lease itself is still held here (a lookup is in flight on it)."""
    principal = new_tenant(platform, "Empresa", 10_000)
    client = leasing(lease_seconds=30.0, record_within=1.0)  # the lease open for the late draw, however busy
    found = look_up_until_leased(platform, client, principal, [KNOWN_CPF])
    late = lookup_record(principal.group_id).request
    drawn = client.try_draw(late)
    assert drawn is not None
    time.sleep(1.1)  # the supplier slow: past the lease's ask by more than ``record_within``
    with pytest.raises(SearchFailed):
        client.submit(late.finished(drawn[0], drawn[1], ConsultationStatus.DONE))
    # A lookup answered at once is not refused: a lease of its own, or the ledger, charges it.
    found += platform.consultations.run_unit_query(principal, KNOWN_CPF).status == ConsultationStatus.DONE
    client.close()
    charged = charged_once(platform, principal.group_id, found)
    assert str(late.consultation_id) not in charged


def test_a_lease_goes_back_only_after_the_consultations_being_recorded_under_it(
    platform: Platform, leasing: Callable[..., LeasingLedger], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A consultation whose append is under way when the process stops is settled with its lease: returned
    before it, the lease would leave it recorded as charged and never charged."""
    principal = new_tenant(platform, "Empresa", 10_000)
    client = leasing(lease_seconds=30.0)  # the lease still open for the late lookup's draw
    found = look_up_until_leased(platform, client, principal, [KNOWN_CPF])
    late = lookup_record(principal.group_id).request
    drawn = client.try_draw(late)
    assert drawn is not None
    hold, holding = threading.Event(), threading.Event()

    def busy(ws: object) -> None:  # the API process's group commit busy with an earlier batch
        holding.set()
        hold.wait(10)

    held = threading.Thread(target=platform.writer.submit, args=(busy,))
    held.start()
    holding.wait(5)
    queued = threading.Event()
    submit_async = platform.writer.submit_async

    async def noting_queued(decide: Any, **options: Any) -> Any:
        queued.set()
        return await submit_async(decide, **options)

    # The close starts only once the consultation waits on the group commit: started before, it would return
    # the lease first and the consultation would rightly go to the ledger instead (not what this test is about).
    monkeypatch.setattr(platform.writer, "submit_async", noting_queued)
    finishing = threading.Thread(
        target=client.submit, args=(late.finished(drawn[0], drawn[1], ConsultationStatus.DONE),)
    )
    finishing.start()
    assert queued.wait(10)
    closing = threading.Thread(target=client.close)
    closing.start()
    time.sleep(0.3)
    assert closing.is_alive()  # waiting for the consultation under way
    hold.set()
    for thread in (held, finishing, closing):
        thread.join(10)
    charged = charged_once(platform, principal.group_id, found + 1)
    assert charged[str(late.consultation_id)] == 1


def test_finance_sees_a_lease_as_one_block_of_lookups_in_the_balance_history(
    platform: Platform, worker: EmbeddedLedger
) -> None:
    """The lease's reservation and its settlement are two lines of the history (reason "lease", the lease's
    id), labelled in both languages in the export."""
    principal = new_tenant(platform, "Empresa", 50)
    lease = LeaseUnits(uuid4(), principal.group_id, principal.user_id, 20, "api-test")
    worker.submit(lease)
    settled = worker.submit(ReturnLease(lease.lease_id, principal.group_id, [str(uuid4()), str(uuid4())]))
    with ApiClient(create_app(platform)) as api:
        signed = api.post("/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
        headers = {"Authorization": f"Bearer {signed.json()['token']}"}
        query = f"groupId={principal.group_id}&category=unit"
        body = api.get(f"/api/credits/history?{query}&position={settled.position}", headers=headers).json()
        lines = [(m["kind"], m["amount"], m["reason"], m["reasonId"], m["balance"]) for m in body["data"]]
        assert lines[:2] == [
            ("settlement", 2, "lease", str(lease.lease_id), 48),
            ("reservation", 20, "lease", str(lease.lease_id), 30),
        ]
        for lang, label in (("pt-BR", "Bloco de consultas"), ("en-US", "Block of queries")):
            export = api.get(f"/api/credits/history/export?{query}&lang={lang}", headers=headers)
            assert export.status_code == 200 and label in export.text


def test_leases_asked_while_others_are_open_end_within_two_lease_times_of_their_grant(
    platform: Platform, leasing: Callable[..., LeasingLedger]
) -> None:
    """A next lease's time starts when the account's open leases end, but at most one lease time after its grant.
    When demand outran each lease's units, the keeper asked again while the last lease was open, and each end was
    chained on the one before, drifting further ahead with every ask: a lease still drawn from could outlive the
    ledger's wait before it settles another process's lease from the log as abandoned, and the lookups recorded
    under it after that were never charged (seen once in the killed-worker test of the ledger workers)."""
    principal = new_tenant(platform, "Empresa", 100_000)
    # Long enough that no lease ends while the seven are asked, however busy the machine: a chained end would
    # still lie up to seven lease times ahead.
    client = leasing(lease_seconds=30)
    look_up_until_leased(platform, client, principal, [KNOWN_CPF])
    account_id = credit_account_id(principal.group_id, Category.UNIT)
    for _ in range(6):  # as the keeper asks when each lease runs out of units at once
        ask = LeaseUnits(uuid4(), principal.group_id, principal.user_id, 50, client.holder)
        asyncio.run(client._ask(account_id, ask))
    now = time.monotonic()
    ends = sorted(lease.until - now for lease in client._accounts[account_id].leases)
    assert len(ends) >= 6 and ends[-1] <= 2 * client.lease_seconds, ends


def test_a_ledger_out_of_reach_is_logged_once_not_every_round_and_the_lease_goes_back_when_it_returns(
    platform: Platform,
    worker: EmbeddedLedger,
    leasing: Callable[..., LeasingLedger],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    principal = new_tenant(platform, "Empresa", 10_000)
    client = leasing()
    found = look_up_until_leased(platform, client, principal, [KNOWN_CPF])
    reachable = worker.submit_async
    attempts = 0

    async def out_of_reach(request: Any) -> Any:
        nonlocal attempts
        attempts += 1
        raise ConnectionError("the ledger is out of reach")

    def warnings() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.levelname == "WARNING" and "not returned" in r.getMessage()]

    caplog.set_level("INFO", logger="bemtevi.commands.ledger.leases")
    monkeypatch.setattr(worker, "submit_async", out_of_reach)
    # The lease's time runs out and its return fails: one line; then the return is tried again every round.
    wait_until(warnings, message="no line for the failed return")
    tried = attempts
    wait_until(lambda: attempts >= tried + 10, message="the return was not tried again round after round")
    assert len(warnings()) == 1 and warnings()[0].exc_info is not None, [r.getMessage() for r in warnings()]

    monkeypatch.setattr(worker, "submit_async", reachable)
    wait_until(lambda: not account(platform, principal.group_id).reserved, message="the lease never went back")
    assert any("works again" in r.getMessage() for r in caplog.records)
    client.close()
    charged_once(platform, principal.group_id, found)


def test_a_consultation_whose_append_is_held_past_the_abandon_time_is_charged_or_refused(
    platform: Platform, leasing: Callable[..., LeasingLedger], worker: EmbeddedLedger
) -> None:
    """A lookup drawn from a lease passes the keeper's check well within ``record_within``, then its append waits
    on the API process's group commit (a machine too busy to run it) while the ledger takes the lease for
    abandoned and settles it from the log. The consultation must then be refused uncharged, or charged: never
    recorded as charged under a lease that was settled without it. (``record_within`` is generous here: the held
    group commit stands for a stall longer than the real margin of one second.)"""
    principal = new_tenant(platform, "Empresa", 10_000)
    client = leasing(lease_seconds=30.0, record_within=60.0)
    found = look_up_until_leased(platform, client, principal, [KNOWN_CPF])
    late = lookup_record(principal.group_id).request
    drawn = client.try_draw(late)
    assert drawn is not None
    hold, holding = threading.Event(), threading.Event()

    def busy(ws: object) -> None:  # the API process's group commit held by a batch before the late lookup's
        holding.set()
        hold.wait(10)

    held = threading.Thread(target=platform.writer.submit, args=(busy,))
    held.start()
    holding.wait(5)
    outcome: list[object] = []

    def finish() -> None:
        try:
            outcome.append(client.submit(late.finished(drawn[0], drawn[1], ConsultationStatus.DONE)))
        except SearchFailed as refused:
            outcome.append(refused)

    finishing = threading.Thread(target=finish)
    finishing.start()
    deadline = time.monotonic() + 10
    while worker.submit(ReleaseAbandoned(principal.group_id)).value == 0:  # the ledger's wait, then its settlement
        assert time.monotonic() < deadline, "the ledger did not take the lease for abandoned"
        time.sleep(0.05)
    hold.set()
    for thread in (held, finishing):
        thread.join(10)
    client.close()
    charged_once(platform, principal.group_id, found + (not isinstance(outcome[0], SearchFailed)))


# -- the public API's lookups: leases of the group's API account ---------------------------------------------


def api_tenant(platform: Platform, api_credits: int, unit_credits: int = 0) -> Principal:
    """A company with ``api_credits`` API credits (granted by the root) and ``unit_credits`` unit credits."""
    principal = new_tenant(platform, "Empresa API", unit_credits)
    platform.credits.grant(super_admin(platform), principal.group_id, Category.API, api_credits)
    return principal


def charged_once_on(platform: Platform, group_id: UUID, category: Category, found: int) -> Counter[str]:
    """``charged_once`` on the group's account of ``category``: ``found`` of its consultations charged there, each
    settled once on that account, nothing reserved."""
    balance = platform.app.get(credit_account_id(group_id, category), CreditAccount)
    charged = charged_in_store(platform.app, group_id, category)
    assert (balance.used, balance.reserved, sum(charged.values())) == (found, 0, found)
    assert settlements_by_consultation(platform.app, group_id, category) == charged
    return charged


def leased_consultations(platform: Platform, charged: Counter[str]) -> list[Consultation]:
    consultations = (platform.app.get(UUID(c), Consultation) for c in charged)
    return [c for c in consultations if c.lease_id is not None]


def test_the_public_apis_lookups_are_drawn_from_a_lease_of_the_api_account_and_charged_exactly(
    platform: Platform, leasing: Callable[..., LeasingLedger]
) -> None:
    principal = api_tenant(platform, 10_000)
    client = leasing()
    documents = [KNOWN_CPF, *unknown_cpfs(platform.supplier, 3)]
    found = look_up_until_leased(platform, client, principal, documents, channel="api")
    client.close()
    charged = charged_once_on(platform, principal.group_id, Category.API, found)
    leased = leased_consultations(platform, charged)
    assert leased and all((c.category, c.channel) == ("api", "api") for c in leased)
    unit = account(platform, principal.group_id)
    assert (unit.used, unit.reserved) == (0, 0)


def test_an_api_lease_whose_process_died_is_settled_exactly_from_what_was_recorded_under_it(
    platform: Platform, worker: EmbeddedLedger, leasing: Callable[..., LeasingLedger]
) -> None:
    principal = api_tenant(platform, 10_000)
    group_id = principal.group_id
    client = leasing(lease_seconds=30.0)
    found = look_up_until_leased(platform, client, principal, [KNOWN_CPF, *unknown_cpfs(platform.supplier, 2)], "api")
    client._stopping.set()  # the process dies: its keeper stops, and nothing is returned
    client._thread.join(timeout=5)
    held = platform.app.get(credit_account_id(group_id, Category.API), CreditAccount)
    assert held.leases() and held.reserved > 0
    # The unit account's sweep does not touch it; the API account's settles it once its wait is over.
    assert worker.submit(ReleaseAbandoned(group_id, Category.API.value)).value == 0
    time.sleep(ABANDON_SECONDS + 0.1)
    assert worker.submit(ReleaseAbandoned(group_id)).value == 0
    assert worker.submit(ReleaseAbandoned(group_id, Category.API.value)).value >= 1
    charged = charged_once_on(platform, group_id, Category.API, found)
    for lease_id in held.leases():  # the holder's late return finds it settled
        worker.submit(ReturnLease(UUID(lease_id), group_id, list(charged), Category.API.value))
    assert platform.app.get(credit_account_id(group_id, Category.API), CreditAccount).used == found


def test_a_groups_unit_and_api_leases_never_mix(
    platform: Platform, worker: EmbeddedLedger, leasing: Callable[..., LeasingLedger]
) -> None:
    """Panel and public API lookups of one group, interleaved and both busy: each drawn from a lease of its own
    account and charged there; a return naming the other account settles nothing."""
    principal = api_tenant(platform, 10_000, unit_credits=10_000)
    group_id = principal.group_id
    client = leasing()
    documents = [KNOWN_CPF, *unknown_cpfs(platform.supplier, 3)]
    found: Counter[str] = Counter()
    leased: Counter[str] = Counter()
    deadline = time.monotonic() + 20
    for i in range(100_000):
        channel = ("panel", "api")[i % 2]
        outcome = platform.consultations.run_unit_query(principal, documents[(i // 2) % 4], channel=channel)
        found[channel] += outcome.status == ConsultationStatus.DONE
        leased[channel] += platform.app.get(outcome.consultation_id, Consultation).lease_id is not None
        if i % 50 == 49 and leased["panel"] >= 20 and leased["api"] >= 20:
            break
        assert time.monotonic() < deadline, f"both accounts were not leased: {leased}"
    # A lease of the API account returned as the unit account's settles nothing, on either.
    stray = LeaseUnits(uuid4(), group_id, principal.user_id, 10, "api-test", Category.API.value)
    assert worker.submit(stray).value == 10
    worker.submit(ReturnLease(stray.lease_id, group_id, [str(uuid4())]))
    assert platform.app.get(credit_account_id(group_id, Category.API), CreditAccount).holds(stray.lease_id) == 10
    worker.submit(ReturnLease(stray.lease_id, group_id, [], Category.API.value))
    client.close()
    unit = charged_once_on(platform, group_id, Category.UNIT, found["panel"])
    api = charged_once_on(platform, group_id, Category.API, found["api"])
    assert not set(unit) & set(api)
    for category, charged in ((Category.UNIT, unit), (Category.API, api)):
        leases = {
            e.reservation_id
            for e in platform.app.repository.event_store.get(credit_account_id(group_id, category))
            if isinstance(e, CreditAccount.LeaseSettled)  # type: ignore[attr-defined]
        }
        assert {c.lease_id for c in leased_consultations(platform, charged)} <= leases

"""Cluster mode's ledger: lookups through KafkaLedgerClient, decided by `bemtevi worker ledger` processes.

Against the real broker and PostgreSQL, with real worker processes killed with SIGKILL. What an
operator relies on: a worker killed mid-load loses no credit and charges nothing twice (every
consultation answered as charged has exactly one settlement, the credits used are the charged
consultations, nothing stays reserved once the abandoned reservations are released), its partitions
move to the surviving worker, and a request delivered twice has one effect.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import httpx
import orjson
import pytest
from aiokafka import AIOKafkaProducer
from api_client import ApiClient
from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.errors import CoordinatorLoadInProgressError, CoordinatorNotAvailableError, NotCoordinatorError
from support import (
    KNOWN_CPF,
    charged_in_store,
    customer_form,
    make_settings,
    new_tenant,
    registered_in_one_append,
    reserved_in_store,
    run_on_a_loop_of_its_own,
    server_process,
    settlements_by_consultation,
    super_admin,
    wait_until,
)

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform, build_platform
from bemtevi.commands.consultations import ConsultationCommands
from bemtevi.commands.customers import DUPLICATES
from bemtevi.commands.ledger import Grant, LeasingLedger, ReserveWork
from bemtevi.domain.api_tokens import TokenForm
from bemtevi.domain.audit import acting_as
from bemtevi.domain.brand import Brand
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.errors import DomainError, DuplicateValue
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.indexes import GROUP_NAME, UniqueIndex
from bemtevi.domain.principals import ROOT_GROUP_ID, Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.suppliers import Supplier
from bemtevi.domain.users import Role, User
from bemtevi.infra.kafka import ensure_topic
from bemtevi.infra.settings import Settings
from bemtevi.streams.ledger_client import KafkaLedgerClient
from bemtevi.streams.ledger_worker import LedgerWorker, consumer_group

PARTITIONS = 6
TENANTS = 8
THREADS = 16
CREDITS = 100_000


@pytest.fixture
def cluster_settings(postgres_database: str, kafka_broker: str, tmp_path: Path, dataset_path: Path) -> Settings:
    return make_settings(tmp_path / "var", dataset_path, postgres_database).model_copy(
        update={
            "ledger": "kafka",
            "kafka_bootstrap": kafka_broker,
            "kafka_ledger_topic": f"ledger-{uuid.uuid4().hex[:8]}",
            "kafka_ledger_partitions": PARTITIONS,
            "ledger_abandon_seconds": 6.0,  # at least twice the lease time plus 2 s (Settings checks it)
            "ledger_timeout_seconds": 40.0,
            "reservation_sweep_seconds": 1.0,
            # API processes lease busy accounts' units as shipped (make_settings turns leases off).
            "ledger_lease_seconds": Settings.model_fields["ledger_lease_seconds"].default,
        }
    )


def worker_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEMTEVI_")}
    env.update(
        {
            "BEMTEVI_DATABASE_URL": str(settings.database_url),
            "BEMTEVI_KAFKA_BOOTSTRAP": str(settings.kafka_bootstrap),
            "BEMTEVI_KAFKA_LEDGER_TOPIC": settings.kafka_ledger_topic,
            "BEMTEVI_KAFKA_LEDGER_PARTITIONS": str(settings.kafka_ledger_partitions),
            "BEMTEVI_LEDGER_ABANDON_SECONDS": str(settings.ledger_abandon_seconds),
        }
    )
    return env


@contextmanager
def ledger_workers(settings: Settings, logs: Path, count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` `bemtevi worker ledger` processes; any still running are stopped (SIGTERM, then SIGKILL)."""
    workers = []
    for n in range(count):
        with (logs / f"worker-{n}.log").open("w") as out:
            workers.append(
                subprocess.Popen(
                    [sys.executable, "-m", "bemtevi.cli", "worker", "ledger"],
                    env=worker_env(settings),
                    stdout=out,
                    stderr=out,
                )
            )
    try:
        yield workers
    except BaseException:
        for n in range(count):  # what the workers said, beside the failure
            print(f"--- worker-{n}.log\n{(logs / f'worker-{n}.log').read_text(errors='replace')[-20_000:]}")
        raise
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(15)
            except subprocess.TimeoutExpired:  # a faust worker may ignore SIGTERM: escalate
                worker.kill()
                worker.wait(5)


def assignments(settings: Settings) -> list[list[int]]:
    """The ledger topic's partitions each member of the workers' consumer group owns."""
    assert settings.kafka_bootstrap is not None
    admin = KafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap, client_id="bemtevi-test")
    try:
        group = admin.describe_groups([consumer_group(settings.kafka_ledger_topic)])
    except (CoordinatorNotAvailableError, NotCoordinatorError, CoordinatorLoadInProgressError):
        return []  # the group's coordinator is still being chosen (its first member is joining): none yet
    finally:
        admin.close()
    owned = []
    for member in next(iter(group.values())).get("members", []):
        assignment: dict[str, Any] = member.get("member_assignment") or {}
        partitions = [
            p
            for topic in assignment.get("assigned_partitions", [])
            if topic["topic"] == settings.kafka_ledger_topic
            for p in topic["partitions"]
        ]
        owned.append(sorted(partitions))
    return owned


def shared_by(settings: Settings, members: int) -> bool:
    owned = assignments(settings)
    return len(owned) == members and all(owned) and sorted(p for o in owned for p in o) == list(range(PARTITIONS))


class AskedOnceReserved:
    """The platform's supplier asked as a slow or paid one is: only once the lookup's credit is held."""

    answers_at_once = False

    def __init__(self, inner: Supplier) -> None:
        self.inner = inner
        self.name = inner.name

    def lookup(self, kind: Literal["cpf", "cnpj"], number: str) -> dict[str, Any] | None:
        return self.inner.lookup(kind, number)


def lookups(platform: Platform, tenants: list[Any], stop: threading.Event, charged: list[str]) -> None:
    """Lookups from THREADS threads over the tenants until ``stop``; the ids answered as charged go to
    ``charged`` (a lookup cut short by the kill fails uncharged, or is answered by the next owner). Half
    the threads ask as the local dataset is asked (one request: charged and recorded at once), half as a
    vendor is (reserve, ask, finish: the credit is held meanwhile)."""
    lock = threading.Lock()
    reserving_first = ConsultationCommands(
        platform.app, AskedOnceReserved(platform.supplier), platform.consultations.ledger, platform.query_types
    )

    def client(n: int) -> None:
        principal = tenants[n % len(tenants)]
        consultations = reserving_first if n % 2 else platform.consultations
        while not stop.is_set():
            try:
                outcome = consultations.run_unit_query(principal, KNOWN_CPF)
            except (DomainError, TimeoutError):
                continue
            with lock:
                if outcome.status == ConsultationStatus.DONE:
                    charged.append(str(outcome.consultation_id))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)


def each_charged_once(
    platform: Platform, tenants: list[Principal], answered: list[str], category: Category = Category.UNIT
) -> None:
    """Every consultation recorded as charged has exactly one settlement (on the account of ``category``), credits
    used are those consultations, nothing stays reserved, and every answer given as charged is among them."""
    total = 0
    for principal in tenants:
        charged = charged_in_store(platform.app, principal.group_id)
        assert settlements_by_consultation(platform.app, principal.group_id, category) == charged
        assert not charged or max(charged.values()) == 1
        account = platform.app.get(credit_account_id(principal.group_id, category), CreditAccount)
        assert (account.used, account.reserved, account.available) == (len(charged), 0, CREDITS - len(charged))
        total += len(charged)
    assert set(answered) <= {c for p in tenants for c in charged_in_store(platform.app, p.group_id)}
    assert total >= len(answered) > 0


def test_a_ledger_worker_killed_mid_load_loses_no_credit_and_its_partitions_move(
    cluster_settings: Settings, tmp_path: Path
) -> None:
    platform = build_platform(cluster_settings)
    try:
        with ledger_workers(cluster_settings, tmp_path, 2) as workers:
            wait_until(lambda: shared_by(cluster_settings, 2), 90, "both workers own partitions")
            tenants = [new_tenant(platform, f"Empresa {n}", CREDITS) for n in range(TENANTS)]
            stop = threading.Event()
            answered: list[str] = []
            load = threading.Thread(target=lookups, args=(platform, tenants, stop, answered))
            load.start()
            wait_until(lambda: platform.app.max_position() > 2_000, 120, "lookups under way")
            workers[0].kill()  # SIGKILL mid-load: its batches in flight, its offsets uncommitted
            workers[0].wait(10)
            # Reserve-first lookups whose finish was on its way to the dead worker hold their credit meanwhile.
            held = sum(reserved_in_store(platform.app, p.group_id) for p in tenants)
            assert held > 0, "the killed worker's lookups held reservations"
            killed_at = platform.app.max_position()
            wait_until(lambda: shared_by(cluster_settings, 1), 60, "the surviving worker owns every partition")
            wait_until(lambda: platform.app.max_position() > killed_at + 1_000, 120, "lookups go on")
            stop.set()
            load.join(150)
            assert not load.is_alive()
            assert assignments(cluster_settings) == [list(range(PARTITIONS))]
            # The sweeper hands the surviving worker what the dead one left; it releases it after the grace.
            for principal in tenants:
                wait_until(
                    lambda group_id=principal.group_id: reserved_in_store(platform.app, group_id) == 0,
                    60,
                    "what the dead worker held is released",
                )
        each_charged_once(platform, tenants, answered)
    finally:
        platform.close()


def test_a_request_delivered_twice_has_one_effect(cluster_settings: Settings, tmp_path: Path) -> None:
    platform = build_platform(cluster_settings.model_copy(update={"ledger": "embedded"}))
    assert cluster_settings.kafka_bootstrap is not None
    client = KafkaLedgerClient(
        cluster_settings.kafka_bootstrap, cluster_settings.kafka_ledger_topic, partitions=PARTITIONS, timeout=60
    )
    try:
        with ledger_workers(cluster_settings, tmp_path, 1) as [worker]:
            principal = new_tenant(platform, "Empresa", 10)
            reseller = principal.group_id
            child, _ = platform.identity.register_group(
                principal.actor, name="Filial", group_type=GroupType.COMPANY, parent_id=reseller
            )
            grant = Grant(uuid.uuid4(), principal.user_id, reseller, child, "unit", 4)
            reservation = uuid.uuid4()
            reserve = ReserveWork(uuid.uuid4(), None, reseller, child, "unit", reservation, 3)
            for request in (grant, reserve):
                first = client.submit(request)
                again = client.submit(request)  # the same request id: done already
                assert again.position >= first.position > 0
                # The API's path: a coroutine on its own event loop (not the client's) gets the same answer.
                from_a_loop = run_on_a_loop_of_its_own(client.submit_async(request))
                assert from_a_loop.position >= again.position
            parent = platform.app.get(credit_account_id(reseller, Category.UNIT), CreditAccount)
            account = platform.app.get(credit_account_id(child, Category.UNIT), CreditAccount)
            assert (parent.limit, parent.granted) == (10, 4)
            assert (account.limit, account.reserved, account.available) == (4, 3, 1)
            # An operator's `kill -USR1` writes every thread's stack to the log (mode's handler), and it goes on.
            worker.send_signal(signal.SIGUSR1)
            log = tmp_path / "worker-0.log"
            wait_until(lambda: "THREAD MainThread" in log.read_text(errors="replace"), timeout=10)
            assert worker.poll() is None
    finally:
        client.close()
        platform.close()


def test_a_lookup_is_answered_in_bounded_time_without_workers(cluster_settings: Settings) -> None:
    """No worker consumes the topic: the caller gets a clear error once its wait is over."""
    assert cluster_settings.kafka_bootstrap is not None
    client = KafkaLedgerClient(
        cluster_settings.kafka_bootstrap, cluster_settings.kafka_ledger_topic, partitions=PARTITIONS, timeout=1.0
    )
    try:
        began = time.monotonic()
        with pytest.raises(TimeoutError, match="no ledger worker answered"):
            client.submit(ReserveWork(uuid.uuid4(), None, uuid.uuid4(), uuid.uuid4(), "unit", uuid.uuid4(), 1))
        assert time.monotonic() - began < 5
        began = time.monotonic()
        request = ReserveWork(uuid.uuid4(), None, uuid.uuid4(), uuid.uuid4(), "unit", uuid.uuid4(), 1)
        with pytest.raises(TimeoutError, match="no ledger worker answered"):
            run_on_a_loop_of_its_own(client.submit_async(request))  # the API's path: a coroutine on its own loop
        assert time.monotonic() - began < 5
    finally:
        client.close()


def test_a_customer_registered_through_the_kafka_ledger_gets_its_accounts_in_one_append(
    cluster_settings: Settings, tmp_path: Path
) -> None:
    """The registration's group, owner and claims travel with its OpenAccounts request; the worker that owns
    the parent's partition appends them with the new accounts and the parent's grant, in one append."""
    platform = build_platform(cluster_settings)  # the root's accounts: opened on this process's group commit
    # The ledger workers behind Kafka, with this process's leases of busy accounts' units in front.
    assert isinstance(platform.ledger, LeasingLedger) and isinstance(platform.ledger.remote, KafkaLedgerClient)
    try:
        with ledger_workers(cluster_settings, tmp_path, 1):
            wait_until(lambda: shared_by(cluster_settings, 1), 90, "the worker owns every partition")
            root = Principal(uuid.uuid4(), ROOT_GROUP_ID, Role.SUPER_ADMIN, uuid.uuid4())
            reseller = platform.customers.register(
                root,
                customer_form("Revenda Kafka", "11.222.333/0001-81", "dono@revenda.com.br", 10, GroupType.RESELLER),
            )
            owner = Principal(uuid.uuid4(), reseller.group_id, Role.OWNER, uuid.uuid4())
            before = platform.app.max_position()
            company = platform.customers.register(
                owner, customer_form("Empresa Kafka", "11.444.777/0001-61", "dono@empresa.com.br", 4)
            )
            assert company.position == platform.app.max_position()
            registered_in_one_append(platform.app, before, company.group_id, reseller.group_id)
            parent = platform.app.get(credit_account_id(reseller.group_id, Category.UNIT), CreditAccount)
            child = platform.app.get(credit_account_id(company.group_id, Category.UNIT), CreditAccount)
            assert (parent.limit, parent.granted, child.limit, child.available) == (10, 4, 4, 4)
            # A company name taken is refused as the embedded ledger refuses it: by the registration's own
            # check, and by the worker's (a value taken between the two), the same message and field.
            again = customer_form("Empresa Kafka", "11.222.333/0002-62", "outro@empresa.com.br", 1)
            with pytest.raises(DuplicateValue) as first_check:
                platform.customers.register(owner, again)
            with acting_as(owner.actor):
                group = Group.register(
                    name="Empresa Kafka",
                    group_type=GroupType.COMPANY,
                    parent_id=reseller.group_id,
                    domain_url=None,
                    brand=Brand(),
                    enabled_query_types=["cpf-complete"],
                )
                claim = UniqueIndex(kind=GROUP_NAME, value="empresa kafka", ref=group.id)
            taken = platform.app.max_position()
            refusal = {(GROUP_NAME, "empresa kafka"): DUPLICATES[GROUP_NAME]}
            with pytest.raises(DuplicateValue) as worker_check:
                platform.identity.open_group(owner.actor, group, {Category.UNIT: 1}, [claim], refusal)
            for refused in (first_check.value, worker_check.value):
                assert (refused.message, refused.field) == ("Company name already registered", "companyName")
            assert platform.app.max_position() == taken  # nothing appended, the parent's credits untouched
            assert platform.app.find(group.id, Group) is None
    finally:
        platform.close()


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_an_idle_ledger_worker_spends_next_to_no_cpu(cluster_settings: Settings, tmp_path: Path) -> None:
    """A worker with no requests waits on its channel: no timer of its own. faust's ``take_events`` woke the agent
    every 5 ms, idle or not, about 7% of a core per worker, and every deployment runs two of them."""
    with ledger_workers(cluster_settings, tmp_path, 1) as (worker,):
        wait_until(lambda: shared_by(cluster_settings, 1), timeout=90, message="the worker did not own the topic")
        time.sleep(2.0)  # the group's start settles (first commits, metadata)
        before = _cpu_seconds(worker.pid)
        time.sleep(5.0)
        spent = _cpu_seconds(worker.pid) - before
    assert spent < 0.2, f"an idle ledger worker spent {spent:.2f} s of CPU in 5 s"


@pytest.mark.parametrize("channel", ["panel", "api"])
def test_an_api_process_killed_holding_leases_has_each_recorded_lookup_charged_once(
    cluster_settings: Settings, tmp_path: Path, channel: str
) -> None:
    """An API process records busy accounts' lookups under leases of their units (commands.ledger.leases); killed
    with SIGKILL, it returns none of them. The ledger settles each from the consultations recorded under it:
    every found consultation charged once, nothing left reserved, and every answer given as charged is. The
    public API's lookups (``api``: with API tokens) are leased from, and charged to, the API accounts."""
    category = Category.API if channel == "api" else Category.UNIT
    path = "/api/v1/lookups" if channel == "api" else "/api/consultations"
    platform = build_platform(cluster_settings)  # the tenants; and its sweeper finds what the dead process held
    try:
        with ledger_workers(cluster_settings, tmp_path, 1):
            wait_until(lambda: shared_by(cluster_settings, 1), 90, "the worker owns every partition")
            unit_credits = CREDITS if channel == "panel" else 0
            tenants = [new_tenant(platform, f"Empresa {n}", unit_credits) for n in range(4)]
            tokens = []
            for principal in tenants:
                if channel == "api":
                    platform.credits.grant(super_admin(platform), principal.group_id, Category.API, CREDITS)
                    owner = replace(principal, role=Role.OWNER)
                    form = TokenForm("ERP", ("cpf-complete", "cnpj-complete"))
                    tokens.append(platform.api_tokens.generate(owner, form).access_token)
                    continue
                user = platform.app.get(principal.user_id, User)
                tokens.append(platform.identity.sign_in(user.email, "Strong!pass1", None).token)
            env = {
                "BEMTEVI_API_MAX_PER_SECOND": "1000000",
                **{k: v for k, v in worker_env(cluster_settings).items() if k.startswith("BEMTEVI_")},
                "BEMTEVI_LEDGER": "kafka",
                "BEMTEVI_SECRET_KEY": cluster_settings.signing_key,
                "BEMTEVI_DATASET_PATH": str(cluster_settings.dataset_path),
                "BEMTEVI_ADMIN_PASSWORD": str(cluster_settings.admin_password),
                "BEMTEVI_VAR_DIR": str(tmp_path / "api"),
            }
            answered: list[str] = []
            stop = threading.Event()
            with server_process(env, tmp_path / "api.log") as (url, server):

                def client(token: str) -> None:
                    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as http:
                        while not stop.is_set():
                            try:
                                answer = http.post(path, json={"document": KNOWN_CPF}, timeout=10)
                            except httpx.HTTPError:
                                continue  # the process is gone
                            if answer.status_code == 200 and answer.json()["data"]["status"] == "done":
                                answered.append(answer.json()["data"]["id"])

                threads = [threading.Thread(target=client, args=(tokens[n % len(tokens)],)) for n in range(8)]
                for thread in threads:
                    thread.start()
                accounts = [credit_account_id(p.group_id, category) for p in tenants]
                wait_until(
                    lambda: len(answered) > 500 and any(platform.app.get(a, CreditAccount).leases() for a in accounts),
                    120,
                    "lookups recorded under leases",
                )
                server.kill()  # SIGKILL: its leases open, lookups in flight
                server.wait(10)
                stop.set()
                for thread in threads:
                    thread.join(30)
            held = [platform.app.get(a, CreditAccount) for a in accounts]
            assert any(account.leases() for account in held), "the killed process held leases"
            for principal in tenants:  # the sweep finds them; the worker settles them after the grace
                wait_until(
                    lambda group_id=principal.group_id: reserved_in_store(platform.app, group_id, category) == 0,
                    60,
                    "the dead process's leases are settled",
                )
        assert len(answered) > 500
        each_charged_once(platform, tenants, answered, category)
    finally:
        platform.close()


def test_a_lookup_the_ledger_does_not_answer_is_refused_503_credits_unavailable(cluster_settings: Settings) -> None:
    """No worker takes the request (cluster mode, the workers or the broker being started again): the client
    gets 503 with a code it can act on (try again), not an unexpected error."""
    embedded = build_platform(cluster_settings.model_copy(update={"ledger": "embedded"}))
    try:  # the tenant, made by a ledger that runs
        principal = new_tenant(embedded, "Empresa", 10)
        email = embedded.app.get(principal.user_id, User).email
        token = embedded.identity.sign_in(email, "Strong!pass1", None).token
    finally:
        embedded.close()
    settings = cluster_settings.model_copy(update={"ledger_timeout_seconds": 1.0, "ledger_lease_seconds": 0.0})
    platform = build_platform(settings)
    try:
        with ApiClient(create_app(platform)) as api:
            answer = api.post(
                "/api/consultations", json={"document": KNOWN_CPF}, headers={"Authorization": f"Bearer {token}"}
            )
        assert answer.status_code == 503, answer.text
        assert answer.json()["code"] == "credits_unavailable"
        assert reserved_in_store(platform.app, principal.group_id) == 0
    finally:
        platform.close()


def test_a_worker_answers_a_live_caller_however_slow_the_brokers_are_to_say_where_it_is(
    cluster_settings: Settings,
) -> None:
    """A worker's first answer to an API process asks the brokers where that process's reply topic is. A worker that
    gave the brokers one second for it dropped the answer on a busy machine: its caller waited 40 s and was told that
    no worker answered (a tenant not registered, a lookup refused, for a clock). An answer to a live reply topic is
    sent however long the brokers take; one to a topic that is gone is dropped at once."""
    bootstrap = str(cluster_settings.kafka_bootstrap)
    live = f"{cluster_settings.kafka_ledger_topic}.replies.live"
    ensure_topic(bootstrap, live, 1)
    worker = LedgerWorker(cluster_settings)

    async def answer() -> float:
        producer = worker.producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1)
        await producer.start()
        client: Any = producer.client
        update = client._metadata_update

        async def slowly(*args: Any) -> Any:  # brokers (or a machine) taking 1.5 s to answer for metadata
            await asyncio.sleep(1.5)
            return await update(*args)

        client._metadata_update = slowly
        began = time.monotonic()
        try:
            await worker._reply({live: [{"id": 1}], f"{live}.gone": [{"id": 2}]})
        finally:
            await producer.stop()
        return time.monotonic() - began

    try:
        took = run_on_a_loop_of_its_own(answer())
    finally:
        worker.close()
    reader = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    answers: list[Any] = []
    try:
        reader.assign([TopicPartition(live, 0)])
        deadline = time.monotonic() + 60
        while not answers and time.monotonic() < deadline:
            for records in reader.poll(timeout_ms=1_000).values():
                answers.extend(orjson.loads(record.value) for record in records)
    finally:
        reader.close()
    assert answers == [[{"id": 1}]]
    assert took < 15, f"answering took {took:.1f} s: the gone topic held the batch"

"""Take-backs during a burst of lookups, through the real HTTP server (ledger in its own process).

A reseller takes credits back from its company (negative grants, 20 ms apart) while the
company's user runs 200 lookups from 32 threads. Whatever the interleaving, on SQLite and on
PostgreSQL: no lookup fails because of a take-back, every lookup answered with ``credits: 1`` has
exactly one settlement in the store, a take-back only takes what is available (or is refused with
its own message), and once the burst is over nothing stays reserved.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID, uuid4

import httpx
import pytest
from support import (
    KNOWN_CPF,
    charged_in_store,
    make_settings,
    reserved_in_store,
    running_server,
    settlements_by_consultation,
    wait_until,
)

from bemtevi.bootstrap import build_platform
from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role
from bemtevi.infra.settings import Settings

# A real server in a subprocess: end to end, outside the fast inner loop.
pytestmark = pytest.mark.e2e

PASSWORD = "Strong!pass1"
COMPANY_EMAIL = "consultas@tomada.com.br"
RESELLER_EMAIL = "financeiro@revendatomada.com.br"
CREDITS = 50
LOOKUPS = 200
THREADS = 32
TAKE_BACKS = 20
TAKE_BACK = -3
UNKNOWN_CPF = "000.000.001-91"


@dataclass
class Tenant:
    settings: Settings
    url: str
    reseller: UUID
    company: UUID


def principal(group_id: UUID, role: Role) -> Principal:
    return Principal(user_id=uuid4(), group_id=group_id, role=role, session_id=uuid4())


@pytest.fixture
def tenant(backend: str, tmp_path: Path, dataset_path: Path, request: pytest.FixtureRequest) -> Iterator[Tenant]:
    """Root → a reseller (1,000 unit credits) → its company (50 of them); a user in each."""
    database_url = request.getfixturevalue("postgres_database") if backend == "postgres" else None
    settings = make_settings(tmp_path / "var", dataset_path, database_url)
    platform = build_platform(settings)
    try:
        reseller, _ = platform.identity.register_group(
            SYSTEM, name="Revenda Tomada", group_type=GroupType.RESELLER, parent_id=ROOT_GROUP_ID, unit_credit_limit=0
        )
        company, _ = platform.identity.register_group(
            SYSTEM, name="Tomada", group_type=GroupType.COMPANY, parent_id=reseller, unit_credit_limit=0
        )
        platform.credits.set_limit(principal(ROOT_GROUP_ID, Role.SUPER_ADMIN), reseller, Category.UNIT, 1000)
        platform.credits.grant(principal(reseller, Role.OWNER), company, Category.UNIT, CREDITS)
        platform.identity.register_user(
            SYSTEM, group_id=company, name="Rita Tomada", email=COMPANY_EMAIL, password=PASSWORD
        )
        platform.identity.register_user(
            SYSTEM, group_id=reseller, name="Rui Revenda", email=RESELLER_EMAIL, password=PASSWORD, role=Role.OWNER
        )
    finally:
        platform.close()
    env = {"BEMTEVI_VAR_DIR": str(settings.var_dir), "BEMTEVI_DATASET_PATH": str(dataset_path)}
    if database_url:
        env["BEMTEVI_DATABASE_URL"] = database_url
    with running_server(env, tmp_path / "server.log") as url:
        yield Tenant(settings, url, reseller, company)


def sign_in(url: str, email: str) -> dict[str, str]:
    login = httpx.post(f"{url}/api/auth/auth", json={"email": email, "password": PASSWORD, "domain_url": "localhost"})
    assert login.status_code == 200, login.text
    return {"Authorization": f"Bearer {login.json()['token']}"}


def test_take_backs_during_a_burst_of_lookups_never_fail_or_lose_a_charged_lookup(tenant: Tenant) -> None:
    url = tenant.url
    company = sign_in(url, COMPANY_EMAIL)
    reseller = sign_in(url, RESELLER_EMAIL)

    # The server starts its ledger process on the first lookup: one that costs nothing, before the burst.
    warm_up = httpx.post(f"{url}/api/consultations", headers=company, json={"document": UNKNOWN_CPF}, timeout=60)
    assert warm_up.status_code == 200 and warm_up.json()["data"]["credits"] == 0
    start = threading.Barrier(THREADS + 1)

    def lookups(share: int) -> list[httpx.Response]:
        with httpx.Client(base_url=url, headers=company, timeout=60) as client:
            client.get("/api/health")
            start.wait()
            return [client.post("/api/consultations", json={"document": KNOWN_CPF}) for _ in range(share)]

    def take_backs() -> list[httpx.Response]:
        answers = []
        with httpx.Client(base_url=url, headers=reseller, timeout=60) as client:
            client.get("/api/health")
            start.wait()
            for _ in range(TAKE_BACKS):
                body = {"groupId": str(tenant.company), "category": "unit", "amount": TAKE_BACK}
                answers.append(client.post("/api/credits/grants", json=body))
                time.sleep(0.02)
        return answers

    shares = [LOOKUPS // THREADS + (n < LOOKUPS % THREADS) for n in range(THREADS)]
    with ThreadPoolExecutor(THREADS + 1) as pool:
        taking = pool.submit(take_backs)
        answers = [a for share in pool.map(lookups, shares) for a in share]
        grants = taking.result()
    assert len(answers) == LOOKUPS

    statuses = Counter(r.status_code for r in answers)
    charged = [r.json()["data"]["id"] for r in answers if r.status_code == 200 and r.json()["data"]["credits"] == 1]
    taken = -TAKE_BACK * sum(r.status_code == 200 for r in grants)

    # The event store itself, read beside the running server (its read store is the server's own).
    app = BemteviApplication(env=tenant.settings.event_store_env())
    try:
        # Nothing stays reserved once the burst is over (a quiet account's lease goes back, settled).
        wait_until(lambda: reserved_in_store(app, tenant.company) == 0, 10, "reservations left open")
        # Every lookup answered as charged has exactly one settlement, and the store records
        # exactly those lookups as charged.
        assert settlements_by_consultation(app, tenant.company) == Counter(charged)
        assert charged_in_store(app, tenant.company) == Counter(charged)
        account = app.get(credit_account_id(tenant.company, Category.UNIT), CreditAccount)
        assert (account.limit, account.used, account.available) == (
            CREDITS - taken,
            len(charged),
            CREDITS - taken - len(charged),
        )
    finally:
        app.close()
    # A lookup is answered or refused for want of credits, never failed by a take-back; a
    # take-back is done or refused with its own message.
    assert set(statuses) <= {200, 402}, {r.status_code: r.text for r in answers if r.status_code not in (200, 402)}
    refusals = {(r.json()["code"], r.json()["message"]) for r in [*answers, *grants] if r.status_code == 402}
    assert refusals <= {("not_enough_credits", "Not enough manual query credits")}
    assert {r.status_code for r in grants} <= {200, 402}, [r.text for r in grants]

"""Snapshots of hot aggregates, taken from memory at save time, restore exactly the replayed state."""

from __future__ import annotations

import importlib
import io
import pkgutil
from collections.abc import Iterable, Iterator
from datetime import UTC
from typing import Any
from uuid import UUID, uuid4

import hypothesis
import pytest
from api_client import ApiClient
from hypothesis import strategies as st
from PIL import Image
from support import BASIC_QUERY_TYPE, KNOWN_CPF, contact_form, examples, sign_in

import bemtevi.domain
from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform, build_platform
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.ledger import LeaseUnits
from bemtevi.domain.audit import AuditedAggregate, acting_as
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.documents import cpf_check_digits
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.query_types import Category
from bemtevi.domain.users import Role, User, UserStatus
from bemtevi.infra.settings import Settings


def test_a_snapshot_loads_the_same_account_as_replaying_every_event(platform: Platform) -> None:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=1_000
    )
    account_id = credit_account_id(group_id, Category.UNIT)
    interval = platform.app.snapshotting_intervals[CreditAccount]
    # Movements in saves of uneven sizes, so that interval multiples fall inside a save.
    for size in (7, 1, 60, 3, 150, 19, 2, 240):
        account = platform.app.get(account_id, CreditAccount)
        with acting_as(SYSTEM):
            for n in range(size):
                reservation = uuid4()
                account.reserve(reservation, 1)
                if n % 3:
                    account.settle(reservation, 1)
                else:
                    account.release(reservation)
        platform.app.save_all(account)
    assert platform.app.snapshots is not None
    snapshots = list(platform.app.snapshots.get(account_id))
    assert snapshots, "a hot account gets snapshots"
    assert all(s.originator_version >= interval for s in snapshots)

    latest = _loaded_afresh(platform, account_id)  # from the newest snapshot, then later events
    replayed = None
    for event in platform.app.events.get(account_id):  # every stored event from the start
        replayed = event.mutate(replayed)
    assert replayed is not None
    assert vars(latest) == vars(replayed)
    assert latest.version == replayed.version == 1 + sum((7, 1, 60, 3, 150, 19, 2, 240)) * 2


def test_snapshots_taken_through_the_group_commit_restore_the_replayed_state(platform: Platform) -> None:
    """The writer keeps accounts in memory between saves; what it snapshots must be only their state."""
    import threading

    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=10_000
    )
    account_id = credit_account_id(group_id, Category.UNIT)

    def work(count: int) -> None:
        for _ in range(count):
            reservation = uuid4()
            platform.credits.reserve(SYSTEM, group_id, Category.UNIT, reservation, 2)
            platform.credits.settle(SYSTEM, group_id, Category.UNIT, reservation, 1)

    threads = [threading.Thread(target=work, args=(60,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert platform.app.snapshots is not None
    assert list(platform.app.snapshots.get(account_id)), "the writer's saves took snapshots"
    latest = _loaded_afresh(platform, account_id)
    replayed = None
    for event in platform.app.events.get(account_id):
        replayed = event.mutate(replayed)
    assert replayed is not None
    assert vars(latest) == vars(replayed)
    assert latest.used == 240


def _loaded_afresh(platform: Platform, account_id):  # type: ignore[no-untyped-def]
    """The account as another process would load it: newest snapshot, then the events after it."""
    from bemtevi.commands.application import BemteviApplication

    fresh = BemteviApplication(env=platform.settings.event_store_env())
    try:
        snapshot = next(iter(fresh.snapshots.get(account_id, desc=True, limit=1)))  # type: ignore[union-attr]
        assert snapshot.originator_version > 1
        return fresh.repository.get(account_id)
    finally:
        fresh.close()


# -- every aggregate class: a snapshot restores exactly what replaying its events gives ---------------------


def _png(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (20, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def _profile(n: int) -> dict[str, Any]:
    base = f"{4242:09d}"
    return {
        "name": f"Pessoa Editada {n}",
        "cpf": base + cpf_check_digits(base),
        "functions": "Gerente",
        "phone": "(11) 98765-4321" if n % 2 else "",
        "socialProfile": None,
        "biography": f"Edição {n}",
        "userName": f"pessoa{n}",
    }


def _ok(response: Any) -> dict[str, Any]:
    assert response.status_code in (200, 202), response.text
    return dict(response.json())


def _realistic_history(platform: Platform) -> dict[str, UUID]:
    """Every kind of aggregate, through the API as users make them; a user and a group past their
    snapshot interval. Answers the ids of the aggregates that passed it."""
    interval = max(platform.app.snapshotting_intervals[User], platform.app.snapshotting_intervals[Group])
    with ApiClient(create_app(platform)) as api:
        admin = sign_in(api)
        wl = _ok(api.post("/api/customers", headers=admin, json={**CUSTOMER, "whiteLabelUrl": "a.marca.com.br"}))
        group_id = wl["data"]["id"]
        edited = {k: v for k, v in CUSTOMER.items() if k != "quantities"}
        for domain in ("b.marca.com.br", "a.marca.com.br"):  # releases a claim, then claims it again
            _ok(api.put(f"/api/customers/{group_id}", headers=admin, json={**edited, "whiteLabelUrl": domain}))
        _ok(
            api.put(
                f"/api/group/{group_id}/brand/iconogram",
                headers={**admin, "Content-Type": "image/png"},
                content=_png((500, 500)),
            )
        )
        for n in range(interval + 3):  # the group passes its snapshot interval
            _ok(api.put(f"/api/group/{group_id}/brand", headers=admin, json={"primaryColor": f"#0000{n % 256:02x}"}))
        _ok(api.post(f"/api/customers/{group_id}/status", headers=admin, json={"active": False}))
        _ok(api.post(f"/api/customers/{group_id}/status", headers=admin, json={"active": True}))

        added = _ok(
            api.post(
                "/api/users", headers=admin, json={**_profile(0), "email": "pessoa@bemtevi.com.br", "role": "admin"}
            )
        )
        user_id = added["data"]["id"]
        person = sign_in(api, "pessoa@bemtevi.com.br", added["data"]["generatedPassword"])
        _ok(api.post("/api/auth/first-access", headers=person, json={"password": PASSWORD, "confirmation": PASSWORD}))
        person = sign_in(api, "pessoa@bemtevi.com.br", PASSWORD)
        for n in range(interval + 3):  # the user passes its snapshot interval
            _ok(api.put("/api/me/profile", headers=person, json=_profile(n + 1)))
        _ok(api.put("/api/me/preferences", headers=person, json={"preferences": {"newsletter": False}}))
        _ok(api.put("/api/me/photo", headers={**person, "Content-Type": "image/png"}, content=_png((300, 200))))
        _ok(api.post(f"/api/users/{user_id}/status", headers=admin, json={"active": False}))  # keeps what it resumes as
        _ok(api.post(f"/api/users/{user_id}/status", headers=admin, json={"active": True}))
        person = sign_in(api, "pessoa@bemtevi.com.br", PASSWORD)
        _ok(api.post("/api/consultations", headers=admin, json={"document": KNOWN_CPF}))
        # A busy account's units leased to an API process (the lease's tally; an in-process platform has no
        # leases of its own).
        busy, _ = platform.identity.register_group(
            SYSTEM, name="Empresa Ocupada", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=100
        )
        assert platform.consultations.ledger.submit(LeaseUnits(uuid4(), busy, uuid4(), 20, "api-elsewhere")).value
        _ok(api.get("/api/audit/data-subject", headers=admin, params={"document": KNOWN_CPF}))  # its run, audited
        # An API token's life, and a lookup on the public API with an Idempotency-Key.
        created = api.post("/api/api-tokens", headers=admin, json={"name": "ERP", "queryTypes": ["cpf-complete"]})
        assert created.status_code == 201, created.text
        token_id = created.json()["id"]
        form = {"name": "ERP 2", "queryTypes": ["cpf-complete"], "limits": {"perSecond": 5}}
        _ok(api.put(f"/api/api-tokens/{token_id}", headers=admin, json=form))
        token = _ok(api.post(f"/api/api-tokens/{token_id}/regenerate", headers=admin))["accessToken"]
        _ok(api.post(f"/api/api-tokens/{token_id}/inactivate", headers=admin))
        _ok(api.post(f"/api/api-tokens/{token_id}/activate", headers=admin))
        bearer = {"Authorization": f"Bearer {token}", "Idempotency-Key": "pedido-1"}
        _ok(api.post("/api/v1/lookups", headers=bearer, json={"document": KNOWN_CPF}))
        supplier = _ok(api.post("/api/suppliers", headers=admin, json=SUPPLIER))
        _ok(api.put(f"/api/suppliers/{supplier['id']}", headers=admin, json={**SUPPLIER, "token": None, "port": 8443}))
        _ok(api.post(f"/api/suppliers/{supplier['id']}/status", headers=admin, json={"active": False}))
        _ok(api.post("/api/auth/password-recovery", json={"email": "pessoa@bemtevi.com.br", "domain_url": "localhost"}))
        _ok(api.post("/api/contact", json=contact_form()))
        _ok(api.post("/api/auth/auth/logout", headers=person, json={}))
        # The catalogue: a query type made the default, a layout edited and inactivated.
        _ok(api.post("/api/query-types", headers=admin, json=QUERY_TYPE))
        layout = _ok(api.post("/api/layouts", headers=admin, json=LAYOUT))
        _ok(api.put(f"/api/layouts/{layout['id']}", headers=admin, json={**LAYOUT, "table": "empresas"}))
        _ok(api.post(f"/api/layouts/{layout['id']}/status", headers=admin, json={"active": False}))
        # A batch: uploaded, submitted (credits reserved), started, progressed and finished.
        exit_row = {**LAYOUT["rows"][0], "direction": "exit"}
        batch_layout = _ok(
            api.post("/api/layouts", headers=admin, json={**LAYOUT, "rows": [*LAYOUT["rows"], exit_row]})
        )
        shown = api.post(
            "/api/batches/uploads",
            headers={**admin, "Content-Type": "application/octet-stream"},
            params={"layoutId": batch_layout["id"], "fileName": "lista.csv"},
            content=f"cpf\n{KNOWN_CPF}\n".encode(),
        )
        assert shown.status_code == 201, shown.text
        made = api.post("/api/batches", headers=admin, json={"uploadId": shown.json()["uploadId"]})
        assert made.status_code == 201, made.text
        batch_id = UUID(made.json()["id"])
        platform.batches.steps.start(batch_id)
        platform.batches.steps.progress(batch_id, 1, 1, 0)
        platform.batches.steps.finish(batch_id, 1, 1, 0, "retorno.csv")
        # An advanced search (recorded, free until a result is opened).
        _ok(api.post("/api/advanced-queries", headers=admin, json={"state": "SP"}))
        # Two-factor sign-in switched on for the platform's group (last: its users then sign in with a code).
        _ok(api.put(f"/api/group/{ROOT_GROUP_ID}/two-factor", headers=admin, json={"enabled": True}))
        challenged = api.post(
            "/api/auth/auth", json={"email": "pessoa@bemtevi.com.br", "password": PASSWORD, "domain_url": "localhost"}
        )
        assert challenged.json()["code"] == "two_factor_required", challenged.text
        wrong = {"challengeId": challenged.json()["challengeId"], "code": "000000"}
        assert api.post("/api/auth/two-factor", json=wrong).status_code < 500  # a failed try, or (1 in 10^6) the code
    return {"group": UUID(group_id), "user": UUID(user_id)}


CUSTOMER: dict[str, Any] = {
    "type": "white-label",
    "cnpj": "11.222.333/0001-81",
    "companyName": "Marca Branca Ltda",
    "tradeName": "Marca",
    "personInCharge": "Responsável",
    "phone": "(11) 91234-5678",
    "email": "dono@marca.com.br",
    "seller": "Vendedor",
    "defaultQuery": True,
    "consultProtest": False,
    "quantities": {"unit": 10, "batch": 0, "advanced": 0, "api": 0},
    "enabledQueryTypes": ["cpf-complete", "cnpj-complete"],
    "panelAccess": True,
    "apiAccess": False,
}
PASSWORD = "S3nha!forte"
QUERY_TYPE: dict[str, Any] = {**BASIC_QUERY_TYPE, "default": True}
LAYOUT: dict[str, Any] = {
    "fileName": "clientes",
    "finalFileName": "retorno",
    "returnExtension": "csv",
    "acceptedExtension": "csv",
    "kind": "delimited",
    "delimiter": ";",
    "firstLine": True,
    "table": "pessoas",
    "rows": [{"name": "cpf", "type": "document", "order": 1, "format": "", "size": None, "direction": "entry"}],
}
SUPPLIER: dict[str, Any] = {
    "name": "Fornecedor Teste",
    "contact": "suporte@fornecedor.com.br",
    "url": "https://api.fornecedor.com.br",
    "server": "api.fornecedor.com.br",
    "port": 443,
    "route": "/v1/pessoas/{document}",
    "authMethod": "basic",
    "username": "bemtevi",
    "password": "s3nha",
    "allowedQueryTypes": ["cpf-complete"],
    "allowedLayouts": ["padrao"],
    "cacheDays": 30,
    "validityDays": 90,
}


def _aggregate_ids(platform: Platform) -> dict[UUID, str]:
    """Every aggregate in the log, with the topic of its first event."""
    found: dict[UUID, str] = {}
    for notification in platform.app.recorder.select_notifications(1, 1_000_000):
        found.setdefault(notification.originator_id, notification.topic)
    return found


def _replayed(app: BemteviApplication, aggregate_id: UUID) -> Any:
    aggregate = None
    for event in app.events.get(aggregate_id):
        aggregate = event.mutate(aggregate)
    return aggregate


def _assert_identical(loaded: Any, replayed: Any, where: str) -> None:
    """Equal values of exactly the same types, all the way down (a StrEnum equals its text, not enough)."""
    assert type(loaded) is type(replayed), f"{where}: {type(loaded).__name__} instead of {type(replayed).__name__}"
    if isinstance(replayed, dict):
        assert loaded.keys() == replayed.keys(), where
        for key in replayed:
            _assert_identical(loaded[key], replayed[key], f"{where}.{key}")
    elif isinstance(replayed, list | tuple):
        assert len(loaded) == len(replayed), where
        for n, (a, b) in enumerate(zip(loaded, replayed, strict=True)):
            _assert_identical(a, b, f"{where}[{n}]")
    elif isinstance(replayed, set | frozenset):
        assert loaded == replayed, where
        for a, b in zip(sorted(loaded, key=repr), sorted(replayed, key=repr), strict=True):
            _assert_identical(a, b, f"{where}{{{b!r}}}")
    else:
        assert loaded == replayed, where


def _every_aggregate_class() -> set[type[Any]]:
    for module in pkgutil.iter_modules(bemtevi.domain.__path__):
        importlib.import_module(f"bemtevi.domain.{module.name}")
    found: set[type[Any]] = set()
    todo = [AuditedAggregate]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.add(sub)
            todo.append(sub)
    return found


def _check_loads_equal_replays(platform: Platform, ids: Iterable[UUID]) -> set[type[Any]]:
    fresh = BemteviApplication(env=platform.settings.event_store_env())  # as after a restart
    try:
        classes = set()
        for aggregate_id in ids:
            # At the replay's version: the ledger may settle a lease (an event more) between the two reads.
            replayed = _replayed(fresh, aggregate_id)
            loaded = fresh.repository.get(aggregate_id, version=replayed.version)
            _assert_identical(vars(loaded), vars(replayed), type(replayed).__name__)
            classes.add(type(replayed))
        return classes
    finally:
        fresh.close()


def test_every_aggregate_loaded_from_a_snapshot_equals_its_full_replay(platform: Platform) -> None:
    hot = _realistic_history(platform)
    assert platform.app.snapshots is not None
    for name, aggregate_id in hot.items():
        assert list(platform.app.snapshots.get(aggregate_id)), f"the {name} passed its snapshot interval"
    # The snapshots the saves took from memory, then events after them.
    _check_loads_equal_replays(platform, hot.values())

    # Every aggregate of the log snapshotted at its latest version, then loaded from that snapshot.
    ids = _aggregate_ids(platform)
    for aggregate_id in ids:
        platform.app.take_snapshot(aggregate_id)
    covered = _check_loads_equal_replays(platform, ids)
    assert covered == _every_aggregate_class(), "a realistic history makes every kind of aggregate"


def test_sign_in_works_after_a_restart_past_the_users_snapshot_interval(settings: Settings) -> None:
    """Many profile edits, a new platform on the same stores, then sign-in (it answered 500)."""
    first = build_platform(settings)
    try:
        user_id, _ = first.identity.register_user(
            SYSTEM, group_id=ROOT_GROUP_ID, name="Ana", email="ana@bemtevi.com.br", password=PASSWORD, role=Role.OWNER
        )
        with ApiClient(create_app(first)) as api:
            headers = sign_in(api, "ana@bemtevi.com.br", PASSWORD)
            for n in range(first.app.snapshotting_intervals[User] + 1):
                _ok(api.put("/api/me/profile", headers=headers, json=_profile(n)))
    finally:
        first.close()

    restarted = build_platform(settings)
    try:
        with ApiClient(create_app(restarted)) as api:
            headers = sign_in(api, "ana@bemtevi.com.br", PASSWORD)
            me = _ok(api.get("/api/me", headers=headers))
            assert (me["data"]["id"], me["data"]["role"]) == (str(user_id), "owner")
        assert restarted.app.get(user_id, User).role is Role.OWNER
    finally:
        restarted.close()


def test_a_snapshot_written_before_types_were_kept_is_not_trusted(platform: Platform) -> None:
    """A store upgraded in place holds snapshots that lost their enums: loading replays instead."""
    from eventsourcing.domain import Snapshot

    user_id, _ = platform.identity.register_user(
        SYSTEM, group_id=ROOT_GROUP_ID, name="Ana", email="ana@bemtevi.com.br", password=PASSWORD, role=Role.OWNER
    )
    assert platform.app.snapshots is not None
    platform.app.snapshots.put([Snapshot.take(platform.app.get(user_id, User))])  # the library's own, as before
    fresh = BemteviApplication(env=platform.settings.event_store_env())
    try:
        user = fresh.get(user_id, User)
        assert user.role is Role.OWNER and user.status is UserStatus.ACTIVE
    finally:
        fresh.close()


# -- the rule underneath: any state a snapshot keeps comes back with the same types -------------------------

# Keys of which no two are equal unless they are the same value (a StrEnum equals its text, True equals 1).
_keys = st.one_of(
    st.text(max_size=5).map(lambda t: f"key {t}"), st.integers(), st.sampled_from([*Role, *Category]), st.uuids()
)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=10),
    st.sampled_from([*Role, *UserStatus, *GroupType, *Category]),
    st.uuids(),
    st.datetimes(timezones=st.just(UTC)),
    st.dates(),
    st.decimals(allow_nan=False),
)
_states = st.dictionaries(
    st.text(max_size=8),
    st.recursive(
        _scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.lists(children, max_size=4).map(tuple),
            st.frozensets(_keys, max_size=4),
            st.sets(_keys, max_size=4),
            st.dictionaries(st.text(max_size=5), children, max_size=4),
            st.dictionaries(_keys, children, max_size=4),
        ),
        max_leaves=12,
    ),
    max_size=6,
)


@pytest.fixture(
    scope="module",
    params=["bemtevi.infra.event_encoding:FastJSONTranscoder", "eventsourcing.persistence:JSONTranscoder"],
)
def in_memory_app(request: pytest.FixtureRequest) -> Iterator[BemteviApplication]:
    """The application's mapper with its own transcoder and with the library's (the same bytes)."""
    app = BemteviApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo", "TRANSCODER_TOPIC": request.param})
    yield app
    app.close()


@hypothesis.settings(max_examples=examples(300), deadline=None)
@hypothesis.given(state=_states)
def test_any_state_comes_back_from_a_stored_snapshot_with_its_types(
    in_memory_app: BemteviApplication, state: dict[str, Any]
) -> None:
    with acting_as(SYSTEM):
        user = User.register(
            group_id=ROOT_GROUP_ID,
            name="Ana",
            email="a@b.com.br",
            role=Role.USER,
            status=UserStatus.ACTIVE,
            password_hash="h",
        )
    user.collect_events()
    vars(user).update(state)
    mapper = in_memory_app.mapper
    snapshot = mapper.to_domain_event(mapper.to_stored_event(User.Snapshot.take(user)))
    _assert_identical(vars(snapshot.mutate(None)), vars(user), "state")

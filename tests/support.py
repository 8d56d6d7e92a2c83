"""Constants and helpers shared by the test modules."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from uuid import UUID, uuid4

import httpx
import hypothesis
from eventsourcing.utils import get_topic
from fastapi.testclient import TestClient

from bemtevi.api.app import openapi_document
from bemtevi.bootstrap import Platform
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.ledger import EmbeddedLedger, LeasingLedger, LedgerClient, ReserveLookup
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import CreditAccount, ReasonKind, credit_account_id
from bemtevi.domain.customers import CustomerForm
from bemtevi.domain.documents import cpf_check_digits
from bemtevi.domain.errors import DomainError
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.mail import Mail
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.query_types import Category
from bemtevi.domain.suppliers import Supplier
from bemtevi.domain.vendors import AuthMethod, HttpMethod, InputType, VendorForm
from bemtevi.infra.settings import Settings

ADMIN_EMAIL = "admin@bemtevi.local"
ADMIN_PASSWORD = "Adm1n!secret"

# Known valid documents the generator puts in the dataset.
KNOWN_CPF = "52998224725"
KNOWN_CNPJ = "11222333000181"


T = TypeVar("T")


def examples(full: int) -> int:
    """A hypothesis test's ``max_examples``: ``full`` under the full profile (``make test``), scaled down
    with the active profile's own count under ``dev`` (the inner loop's default: a tenth, at least 5)."""
    return max(5, full * hypothesis.settings.default.max_examples // 100)


def full_profile() -> bool:
    """Whether the run is under the full profile (``make test``), not the inner loop's ``dev``."""
    return examples(100) >= 100


@functools.cache
def _api_schema() -> dict[str, Any]:
    return openapi_document()


def api_schema() -> dict[str, Any]:
    """The API's OpenAPI schema (``openapi_document``), a copy of the one built once per run: building it builds
    the whole app, and the modules reading it would each build their own."""
    return copy.deepcopy(_api_schema())


def platform_of(client: TestClient) -> Platform:
    """The platform an in-process client's app serves."""
    platform: Platform = client.app.state.platform  # type: ignore[attr-defined]
    return platform


def sign_in(client: httpx.Client, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> dict[str, str]:
    response = client.post("/api/auth/auth", json={"email": email, "password": password, "domain_url": "localhost"})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


def invitation_link(client: httpx.Client, email: str) -> str:
    """The path of the first-access mail's link to ``email`` (``/verify-code/<code>/<key>/<id>``), read from the
    super-admin's outbox, newest first (a bound on the wait for the read side)."""
    admin = sign_in(client)
    params: dict[str, int] = {"perPage": 100}
    if isinstance(client, TestClient):
        # In process, the read waits for the log's head (the invitation was appended with its customer) as a
        # client's read-your-writes does, instead of polling the projector's gathering window away.
        params["position"] = platform_of(client).app.max_position()
    deadline = time.monotonic() + 30
    while True:
        answer = client.get("/api/mail/outbox", headers=admin, params=params)
        assert answer.status_code == 200, answer.text
        found = [m for m in answer.json()["data"] if m["to"] == email and m["reason"] == "first-access"]
        if found:
            break
        assert time.monotonic() < deadline, f"no invitation for {email}"
        time.sleep(0.1)
    link = re.search(r"/verify-code/\d{6}/\w+/[\w-]+", found[0]["text"])
    assert link, found[0]["text"]
    return link.group(0)


def accept_invitation(client: httpx.Client, email: str, password: str) -> None:
    """An invited owner's first access, as they make it: the invitation's link followed, ``password`` chosen."""
    code, key, invitation_id = invitation_link(client, email).split("/")[2:]
    chosen = client.post(
        "/api/auth/redefine-password",
        json={"code": code, "uniqueKey": key, "id": invitation_id, "password": password, "confirmation": password},
    )
    assert chosen.status_code == 200, chosen.text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(settings_env: dict[str, str], log: Path, *, ctrl_c: bool = False) -> Iterator[str]:
    """``bemtevi serve`` in a subprocess with these ``BEMTEVI_*`` settings; yields its URL once healthy.

    Stopped with SIGTERM; ``ctrl_c``: as Ctrl-C in a terminal stops it, SIGINT to its whole process
    group (the ledger process it started too)."""
    with server_process(settings_env, log, ctrl_c=ctrl_c) as (url, _):
        yield url


@contextmanager
def server_process(
    settings_env: dict[str, str], log: Path, *, ctrl_c: bool = False
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``running_server``, yielding the process too (to kill it); it is stopped on the way out if alive."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "BEMTEVI_DATABASE_URL"}
    env.update(
        {
            "BEMTEVI_ARGON2_TIME_COST": "1",
            "BEMTEVI_ARGON2_MEMORY_COST": "1024",
            # Reads with `position` wait on the projector, not on the machine's speed (see make_settings).
            "BEMTEVI_READ_WAIT_SECONDS": "30",
            **settings_env,
        }
    )
    env["PORT"] = str(port)
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "bemtevi.cli", "serve"], env=env, stdout=out, stderr=out, start_new_session=ctrl_c
        )
    url = f"http://127.0.0.1:{port}"
    try:
        # Waits on the server's own answer: a busy machine slows its start and its first answers (a 1 s
        # limit per ask timed every ask out there); a server that exits is noticed at once all the same.
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=10).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None:
                raise RuntimeError(f"the server did not start:\n{log.read_text()}")
            if time.monotonic() > deadline:
                server.send_signal(signal.SIGUSR1)  # its threads' stacks, into its log
                time.sleep(2)
                raise RuntimeError(f"the server did not answer /api/health:\n{log.read_text()}")
            time.sleep(0.1)
        yield url, server
    finally:
        if server.poll() is not None:
            pass
        elif ctrl_c:
            os.killpg(server.pid, signal.SIGINT)
        else:
            server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def reserved_in_store(app: BemteviApplication, group_id: UUID, category: Category = Category.UNIT) -> int:
    return app.get(credit_account_id(group_id, category), CreditAccount).reserved


def settlements_by_consultation(
    app: BemteviApplication, group_id: UUID, category: Category = Category.UNIT
) -> Counter[str]:
    """How many settlements of the group's account of ``category`` (unit unless told) name each consultation."""
    events = list(app.repository.event_store.get(credit_account_id(group_id, category)))
    settled = Counter(
        e.reservation_id
        for e in events
        if isinstance(e, CreditAccount.Settled | CreditAccount.SettledFromBlock | CreditAccount.Charged)
    )
    # A lease's settlement names each of its consultations.
    settled.update(c for e in events if isinstance(e, CreditAccount.LeaseSettled) for c in e.consultations)
    return settled


def charged_in_store(app: BemteviApplication, group_id: UUID, category: Category | None = None) -> Counter[str]:
    """The group's consultations (of ``category``, or any) the store records as charged one credit."""
    charged: Counter[str] = Counter()
    for notification in app.recorder.select_notifications(1, 10_000_000, topics=[get_topic(Consultation.Recorded)]):
        event = app.mapper.to_domain_event(notification)
        if category is not None and event.category != category.value:
            continue
        if event.group_id == group_id and event.credits == 1:
            charged[str(event.originator_id)] += 1
    return charged


@dataclass
class InFlight:
    """A lookup between its reservation and its finish, driven through a ledger client by a test."""

    request: ReserveLookup
    query_type: str | None = None
    block_id: str | None = None

    @property
    def consultation_id(self) -> UUID:
        return self.request.consultation_id

    def reserve(self, ledger: LedgerClient) -> None:
        self.query_type, self.block_id = ledger.submit(self.request).value

    def finish(self, ledger: LedgerClient, status: ConsultationStatus = ConsultationStatus.DONE) -> int:
        """Settle (found) or release; the append's position."""
        assert self.query_type is not None
        return ledger.submit(self.request.finished(self.query_type, self.block_id, status)).position


def lookup_record(group_id: UUID) -> InFlight:
    """A lookup of the known CPF by some user of the group, as the ledger receives it."""
    return InFlight(
        ReserveLookup(
            consultation_id=uuid4(),
            group_id=group_id,
            user_id=uuid4(),
            document=KNOWN_CPF,
            document_type="cpf",
            requested_type=None,
            channel="panel",
            supplier="local",
        )
    )


def left_by_a_dead_ledger(
    settings: Settings, group_id: UUID, own: int, block: int, category: Category = Category.UNIT
) -> str:
    """What a lookups' ledger killed with lookups in flight leaves in the store: ``own`` reservations
    of their own credit and, unless ``block`` is 0, an open block of that size, all naming it (a
    save by another process: the platform's writer is not told). The dead owner's name."""
    app = BemteviApplication(env=settings.event_store_env())
    try:
        account = app.get(credit_account_id(group_id, category), CreditAccount)
        owner = str(uuid4())
        with acting_as(Actor(user_id=uuid4(), tenant_id=group_id)):
            for _ in range(own):
                account.reserve(uuid4(), 1, ReasonKind.CONSULTATION, owner=owner)
            if block:
                account.reserve(uuid4(), block, ReasonKind.BLOCK, owner=owner)
        app.save(account)
        return owner
    finally:
        app.close()


# A query type as the super-admin registers it (POST /api/query-types): a basic person lookup, not the default.
BASIC_QUERY_TYPE: dict[str, Any] = {
    "name": "Pessoa física básica",
    "description": "Cadastro e telefones",
    "icon": "person",
    "badge": "PF",
    "toggles": {"phone": True, "cpf": True, "cnpj": False, "benefit": False, "status": True},
    "default": False,
    "component": "person",
    "cacheDays": 7,
    "validityDays": 30,
}


def make_settings(var_dir: Path, dataset_path: Path, database_url: str | None = None) -> Settings:
    """The tests' settings on ``var_dir``: copies of one validated per dataset and database (reading the
    environment for each of a run's hundreds of platforms was a quarter of building one)."""
    return _base_settings(dataset_path, database_url).model_copy(update={"var_dir": var_dir})


@functools.cache
def _base_settings(dataset_path: Path, database_url: str | None) -> Settings:
    return Settings(
        database_url=database_url,
        dataset_path=dataset_path,
        admin_email=ADMIN_EMAIL,
        admin_password=ADMIN_PASSWORD,
        # Cheap hashing keeps the suite fast; production parameters are the defaults.
        argon2_time_cost=1,
        argon2_memory_cost=1024,
        # No enrichment thread in an in-process platform: its tests take a batch's steps by hand; the
        # processor's own tests start it (tests/streams/test_enrichment_runner.py, tests/api/test_batch_crashes.py).
        enrichment="worker",
        # No leases in an in-process platform: its tests check each lookup's charge as it is decided, and a
        # lease's later return would move the store under them. Leases have their own tests
        # (tests/commands/test_embedded_leases.py, test_leases.py), and every test of a real `bemtevi serve`
        # (the kill -9 and shutdown tests, the browser tests) runs them as shipped.
        ledger_lease_seconds=0.0,
        # A read with `position` waits for the projector to reach it; on a loaded machine that can take longer
        # than the product's 2 s bound, and the test asserts what was written, not how fast the machine is.
        read_wait_seconds=30.0,
    )


class SmtpSink:
    """A real SMTP server (aiosmtpd) on a free loopback port that keeps what it receives."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[Any] = []
        self.port = free_port()
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        import email
        from email import policy

        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        return "250 Message accepted for delivery"

    def texts_to(self, address: str) -> list[str]:
        return [m.get_body(("plain",)).get_content() for m in self.messages if m["To"] == address]

    def wait_for_text(self, address: str, count: int = 1) -> str:
        """The ``count``-th plain text mailed to ``address``, once it has arrived (a bound generous for a busy
        machine on the wait for the delivery)."""
        wait_until(lambda: len(self.texts_to(address)) >= count, 60, f"no mail for {address}")
        return self.texts_to(address)[count - 1]

    def env(self) -> dict[str, str]:
        """The ``BEMTEVI_SMTP_*`` settings of a server that delivers here."""
        return {"BEMTEVI_SMTP_HOST": "127.0.0.1", "BEMTEVI_SMTP_PORT": str(self.port)}

    def __enter__(self) -> SmtpSink:
        self._controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._controller.stop()


def wait_until(check: Callable[[], Any], timeout: float = 30.0, message: str = "condition not reached in time") -> Any:
    """The first true value of ``check()``, asked every 50 ms; ``AssertionError(message)`` after ``timeout`` (a
    bound on a wait for an event, generous for a busy machine)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(message)
        time.sleep(0.05)


def embedded_ledger(platform: Platform) -> EmbeddedLedger:
    """The server's own ledger on its group commit (behind the leases its lookups draw from when busy)."""
    ledger = platform.consultations.ledger
    if isinstance(ledger, LeasingLedger):
        ledger = ledger.remote
    assert isinstance(ledger, EmbeddedLedger)
    return ledger


def new_tenant(platform: Platform, name: str, limit: int | None) -> Principal:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name=name, group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=limit
    )
    email = f"{group_id.hex[:10]}@empresa.com"
    platform.identity.register_user(SYSTEM, group_id=group_id, name="Teste", email=email, password="Strong!pass1")
    return platform.identity.authenticate(platform.identity.sign_in(email, "Strong!pass1", None).token)


def run_lookups(platform: Platform, principal: Principal, documents: list[str]) -> None:
    for document in documents:
        # Refusals (no credit left) are part of the history too.
        with contextlib.suppress(DomainError):
            platform.consultations.run_unit_query(principal, document)


def contact_form(**changes: Any) -> dict[str, Any]:
    """A valid body for the public contact form (POST /api/contact), with ``changes`` applied."""
    body: dict[str, Any] = {
        "name": "Mariana Costa",
        "document": "529.982.247-25",
        "email": "Mariana.Costa@Empresa.com.br",
        "phone": "(11) 98765-4321",
        "service": "trial",
        "message": "Gostaria de testar o enriquecimento em lote com a nossa base de clientes.",
        "domain_url": "localhost:8000",
    }
    body.update(changes)
    return body


def customer_form(
    company: str, cnpj: str, email: str, unit: int = 0, group_type: GroupType = GroupType.COMPANY
) -> CustomerForm:
    """A customer's form with ``unit`` credits granted by its parent."""
    return CustomerForm(
        group_type=group_type,
        cnpj=cnpj,
        company_name=company,
        trade_name=company,
        person_in_charge="Pessoa Responsável",
        phone=f"(11) 9{zlib.crc32(email.encode()) % 10**8:08d}",  # one per e-mail
        email=email,
        default_query=True,
        consult_protest=False,
        enabled_query_types=("cpf-complete",),
        panel_access=True,
        api_access=False,
        quantities={Category.UNIT: unit},
    )


def appended_after(app: BemteviApplication, position: int) -> list[tuple[int, UUID, str]]:
    """The log after ``position``: (notification id, aggregate, topic) of each event."""
    return [(n.id, n.originator_id, n.topic) for n in app.recorder.select_notifications(position + 1, 1_000)]


def saved_after(app: BemteviApplication, position: int) -> list[str]:
    """The topics appended after ``position`` but the mailer's: a mail queued earlier (a new customer's owner's
    invitation) is delivered at the mailer's own pace, and its events say nothing of what a request saved."""
    return [topic for _, _, topic in appended_after(app, position) if not topic.startswith(Mail.__module__ + ":")]


def registered_in_one_append(app: BemteviApplication, before: int, group_id: UUID, parent_id: UUID) -> None:
    """The registration appended after ``before`` is one run of the log: the group, its four accounts and
    the parent's grant, and nothing else between."""
    log = appended_after(app, before)
    ids = [n for n, _, _ in log]
    assert ids == list(range(ids[0], ids[0] + len(ids))), "one run of notification ids"
    originators = {originator for _, originator, _ in log}
    assert group_id in originators
    assert {credit_account_id(group_id, c) for c in Category} <= originators
    assert credit_account_id(parent_id, Category.UNIT) in originators
    topics = [topic for _, _, topic in log]
    assert topics.index(get_topic(Group.Registered)) < topics.index(get_topic(CreditAccount.Opened))  # type: ignore[attr-defined]


def run_on_a_loop_of_its_own(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` in a thread of its own: as an API server's event loop would call, and
    whatever loop this thread already runs (Playwright's sync API keeps one in the test session's thread)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as e:
            outcome["error"] = e

    thread = threading.Thread(target=run, name="test-event-loop")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


# -- an HTTP supplier on loopback (the vendor simulator) ---------------------------------------------


def unknown_cpfs(supplier: Supplier, count: int) -> list[str]:
    """Valid CPFs the local dataset knows nothing of (only an HTTP supplier can answer them)."""
    found: list[str] = []
    base = 123_456_000
    while len(found) < count:
        base += 1
        number = f"{base:09d}" + cpf_check_digits(f"{base:09d}")
        if supplier.lookup("cpf", number) is None:
            found.append(number)
    return found


def simulated_vendor(port: int, **changes: Any) -> VendorForm:
    """A supplier form for the simulator on ``port`` (bearer ``tok-123``), for both query types."""
    values: dict[str, Any] = {
        "name": "Simulado",
        "contact": "suporte@vendor.example",
        "url": "http://vendor.example",
        "server": "127.0.0.1",
        "port": port,
        "route": "/v1/pessoas/{document}",
        "http_method": HttpMethod.GET,
        "auth_method": AuthMethod.BEARER,
        "input_type": InputType.BOTH,
        "token": "tok-123",
        "allowed_query_types": ("cpf-complete", "cnpj-complete"),
        "cache_days": 30,
        "validity_days": 90,
    }
    values.update(changes)
    return VendorForm(**values)


def super_admin(platform: Platform) -> Principal:
    return platform.identity.authenticate(platform.identity.sign_in(ADMIN_EMAIL, ADMIN_PASSWORD, None).token)


def zip_bomb() -> bytes:
    """A workbook whose sheet inflates a thousandfold (16 MB of one byte): what the zip directory's ratio rule
    refuses before anything is inflated."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")
        archive.writestr("xl/worksheets/sheet1.xml", b"0" * (16 << 20))
    return out.getvalue()


def inflating_xlsx(rows: int, document: str = "52998224725") -> bytes:
    """A small XLSX whose first sheet inflates to ``rows`` records of one document each (a header row first):
    the rows differ only by an occasional row number, so the sheet compresses below the zip directory's ratio
    rule (as the issue's file did) yet inflates to far more than its bytes suggest."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
        )
        archive.writestr(
            "xl/workbook.xml",
            '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            '<sheets><sheet name="S" sheetId="1"/></sheets></workbook>',
        )
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
            sheet.write(
                b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                b'<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>CPF</t></is></c></row>'
            )
            step = 100_000
            for start in range(2, rows + 2, step):
                sheet.write(
                    "".join(
                        # Row numbers are optional: one row in 16 carries its own, enough to keep the ratio
                        # under the directory's rule.
                        (f'<row r="{r}">' if r % 16 == 0 else "<row>")
                        + f'<c t="inlineStr"><is><t>{document}</t></is></c></row>'
                        for r in range(start, min(start + step, rows + 2))
                    ).encode()
                )
            sheet.write(b"</sheetData></worksheet>")
    return out.getvalue()


def cpf_layout(file_name: str, *exits: str, final_file_name: str | None = None) -> dict[str, Any]:
    """The body of ``POST /api/layouts`` for a semicolon CSV of CPFs with a header line: the CPF in, the CPF out
    and each of ``exits`` (text fields such as ``NOME``) after it; the return file ``<file_name>_enriquecido``
    unless ``final_file_name`` names it."""
    field = {"type": "document", "order": 1, "format": "", "size": None}
    return {
        "fileName": file_name,
        "finalFileName": final_file_name or f"{file_name}_enriquecido",
        "returnExtension": "csv",
        "acceptedExtension": "csv",
        "kind": "delimited",
        "delimiter": ";",
        "firstLine": True,
        "table": "pessoas",
        "rows": [
            {"name": "CPF", **field, "direction": "entry"},
            {"name": "CPF", **field, "direction": "exit"},
            *(
                {"name": name, "type": "text", "order": order, "format": "", "size": None, "direction": "exit"}
                for order, name in enumerate(exits, start=2)
            ),
        ],
    }

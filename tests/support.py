"""Constants and helpers shared by the test modules."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from bemtevi.bootstrap import Platform
from bemtevi.commands.identity import ROOT_GROUP_ID, SYSTEM, Principal
from bemtevi.domain.errors import DomainError
from bemtevi.domain.groups import GroupType
from bemtevi.infra.settings import Settings

ADMIN_EMAIL = "admin@bemtevi.local"
ADMIN_PASSWORD = "Adm1n!secret"

# Known valid documents the generator puts in the dataset.
KNOWN_CPF = "52998224725"
KNOWN_CNPJ = "11222333000181"


def sign_in(client: TestClient, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> dict[str, str]:
    response = client.post("/api/auth/auth", json={"email": email, "password": password, "domain_url": "localhost"})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(settings_env: dict[str, str], log: Path, *, ctrl_c: bool = False) -> Iterator[str]:
    """``bemtevi serve`` in a subprocess with these ``BEMTEVI_*`` settings; yields its URL once healthy.

    Stopped with SIGTERM; ``ctrl_c``: as Ctrl-C in a terminal stops it, SIGINT to its whole process
    group (the ledger process it started too)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "BEMTEVI_DATABASE_URL"}
    env.update({"BEMTEVI_ARGON2_TIME_COST": "1", "BEMTEVI_ARGON2_MEMORY_COST": "1024", **settings_env})
    env["PORT"] = str(port)
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "bemtevi.cli", "serve"], env=env, stdout=out, stderr=out, start_new_session=ctrl_c
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield url
    finally:
        if ctrl_c:
            os.killpg(server.pid, signal.SIGINT)
        else:
            server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def make_settings(var_dir: Path, dataset_path: Path, database_url: str | None = None) -> Settings:
    return Settings(
        var_dir=var_dir,
        database_url=database_url,
        dataset_path=dataset_path,
        admin_email=ADMIN_EMAIL,
        admin_password=ADMIN_PASSWORD,
        # Cheap hashing keeps the suite fast; production parameters are the defaults.
        argon2_time_cost=1,
        argon2_memory_cost=1024,
        # In-process ledger: most tests build many platforms (tests/test_ledger_process.py and
        # the servers the end-to-end tests start run the ledger process).
        ledger_process=False,
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

    def env(self) -> dict[str, str]:
        """The ``BEMTEVI_SMTP_*`` settings of a server that delivers here."""
        return {"BEMTEVI_SMTP_HOST": "127.0.0.1", "BEMTEVI_SMTP_PORT": str(self.port)}

    def __enter__(self) -> SmtpSink:
        self._controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._controller.stop()


def wait_until(check: Callable[[], Any], timeout: float = 10.0, message: str = "condition not reached in time") -> Any:
    """The first true value of ``check()``, asked every 50 ms; ``AssertionError(message)`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(message)
        time.sleep(0.05)


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

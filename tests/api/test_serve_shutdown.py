"""`bemtevi serve` stopped by SIGTERM closes the platform: the writer's last chores run, so a busy
account's lookup blocks go back, and the stores are closed cleanly."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from uuid import UUID

import httpx
import pytest
from support import ADMIN_EMAIL, ADMIN_PASSWORD, KNOWN_CPF, make_settings, running_server

from bemtevi.bootstrap import build_platform
from bemtevi.commands.application import BemteviApplication
from bemtevi.commands.identity import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.credits import CreditAccount, credit_account_id
from bemtevi.domain.groups import GroupType
from bemtevi.domain.query_types import Category

# A real server in a subprocess: end to end, outside the fast inner loop.
pytestmark = pytest.mark.e2e

PASSWORD = "Strong!pass1"


def test_a_stopped_server_leaves_no_credit_reserved(tmp_path: Path, dataset_path: Path) -> None:
    var = tmp_path / "var"
    setup = build_platform(make_settings(var, dataset_path), start_projector=False)
    try:
        group_id, _ = setup.identity.register_group(
            SYSTEM, name="Empresa Ocupada", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=500
        )
        setup.identity.register_user(SYSTEM, group_id=group_id, name="Ana", email="ana@ocupada.com", password=PASSWORD)
    finally:
        setup.close()

    env = {
        "BEMTEVI_VAR_DIR": str(var),
        "BEMTEVI_DATASET_PATH": str(dataset_path),
        "BEMTEVI_ADMIN_EMAIL": ADMIN_EMAIL,
        "BEMTEVI_ADMIN_PASSWORD": ADMIN_PASSWORD,
    }
    with running_server(env, tmp_path / "server.log") as url:
        token = httpx.post(
            f"{url}/api/auth/auth", json={"email": "ana@ocupada.com", "password": PASSWORD, "domain_url": "localhost"}
        ).json()["token"]

        def lookup(_: int) -> int:
            return httpx.post(
                f"{url}/api/consultations",
                json={"document": KNOWN_CPF},
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            ).status_code

        # Concurrent lookups make the account busy: they draw from block reservations. Go on until
        # a block still holds credits (read from the store, as another process may).
        answered = 0
        for _ in range(10):
            with ThreadPoolExecutor(8) as pool:
                assert set(pool.map(lookup, range(16))) == {200}
            answered += 16
            if reserved(var, dataset_path, group_id) > 0:
                break
        assert reserved(var, dataset_path, group_id) > 0

    assert reserved(var, dataset_path, group_id) == 0
    after = build_platform(make_settings(var, dataset_path), start_projector=False, bootstrap=False)
    try:
        account = after.app.get(credit_account_id(group_id, Category.UNIT), CreditAccount)
        assert (account.used, account.reserved, account.available) == (answered, 0, 500 - answered)
        assert any(e.topic.endswith("CreditAccount.Released") for e in after.app.recorder.select_events(account.id))
    finally:
        after.close()


def reserved(var: Path, dataset_path: Path, group_id: UUID) -> int:
    app = BemteviApplication(make_settings(var, dataset_path).event_store_env())
    try:
        return app.get(credit_account_id(group_id, Category.UNIT), CreditAccount).reserved
    finally:
        app.close()

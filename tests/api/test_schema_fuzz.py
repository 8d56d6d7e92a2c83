"""Schemathesis over the whole OpenAPI, in process: no answer is a server error, and every answer is
one the schema documents (status, content type, body).

Every operation is called as the super-admin with schemathesis's coverage cases (each bound, each
format, each missing or wrong field, deterministic; under the full profile) and with generated data
that fits the schema and data that does not; and as an ordinary user (403 mostly, checked all the same) with
generated data. The generator is derandomized and the examples bounded, so a run is repeatable
and takes about a minute.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from api_client import ApiClient
from customers_support import customer
from hypothesis import HealthCheck, settings
from support import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    KNOWN_CPF,
    api_schema,
    contact_form,
    examples,
    full_profile,
    make_settings,
)

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform, build_platform
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role

# Generated examples per operation and caller (the inner loop's profile runs a third of them). By hand,
# BEMTEVI_FUZZ_EXAMPLES searches deeper and BEMTEVI_FUZZ_RANDOM=1 draws fresh data instead of the derandomized cases.
EXAMPLES = int(os.environ.get("BEMTEVI_FUZZ_EXAMPLES", "15"))
FUZZ_SETTINGS = settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=examples(EXAMPLES))
DERANDOMIZED = os.environ.get("BEMTEVI_FUZZ_RANDOM") is None
CHECKS = [
    schemathesis.checks.not_a_server_error,
    schemathesis.checks.status_code_conformance,
    schemathesis.checks.content_type_conformance,
    schemathesis.checks.response_schema_conformance,
]

# The report-signature check takes a PDF's bytes as they are: generated as octet-stream bodies are.
schemathesis.serializer.alias("application/pdf", "application/octet-stream")


def fuzz_config(*, coverage: bool) -> Any:
    """The fuzzing of a schema (this one's and the public API's, test_v1_schema_fuzz): positive and negative data,
    derandomized, the same cases on every run. The documented examples under the full profile only: schemathesis
    draws them while collecting, in every worker of a run, for the one worker that runs them."""
    return schemathesis.Config.from_dict(
        {
            "generation": {"max-examples": EXAMPLES, "deterministic": DERANDOMIZED},
            "phases": {
                "coverage": {"enabled": coverage},
                "examples": {"enabled": full_profile()},
                "stateful": {"enabled": False},
            },
        }
    )


# The coverage cases cost about a minute of CPU whatever the example count: `make test` (the full profile) runs
# them, the inner loop (`dev`) only the generated examples.
super_admin_schema = schemathesis.openapi.from_dict(api_schema(), config=fuzz_config(coverage=full_profile()))
user_schema = schemathesis.openapi.from_dict(api_schema(), config=fuzz_config(coverage=False))
# Logging out ends the session it is called with: each call gets a session of its own.
LOGOUT = "POST /api/auth/auth/logout"
USER_EMAIL = "fuzz.user@empresa.com.br"
USER_PASSWORD = "Fuzz!user1"


@dataclass
class Fuzzing:
    platform: Platform
    app: Any
    tokens: dict[str, str]
    logins: dict[str, tuple[str, str]]

    def headers(self, caller: str, label: str) -> dict[str, str]:
        token = self.tokens[caller]
        if label == LOGOUT:
            email, password = self.logins[caller]
            token = self.platform.identity.sign_in(email, password, None).token
        return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def fuzzing(tmp_path_factory: pytest.TempPathFactory, dataset_path: Path) -> Iterator[Fuzzing]:
    settings_ = make_settings(tmp_path_factory.mktemp("fuzz") / "var", dataset_path).model_copy(
        # A position far ahead of the log is valid input; waiting the default 2 s for it would
        # only slow the run down.
        update={"read_wait_seconds": 0.01}
    )
    platform = build_platform(settings_)
    try:
        company, _ = platform.identity.register_group(
            SYSTEM, name="Empresa Fuzz", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID
        )
        platform.identity.register_user(
            SYSTEM, group_id=company, name="Pessoa Fuzz", email=USER_EMAIL, password=USER_PASSWORD, role=Role.USER
        )
        logins = {"super-admin": (ADMIN_EMAIL, ADMIN_PASSWORD), "user": (USER_EMAIL, USER_PASSWORD)}
        tokens = {caller: platform.identity.sign_in(*login, None).token for caller, login in logins.items()}
        app = create_app(platform)
        _some_of_everything(app, platform, {"Authorization": f"Bearer {tokens['super-admin']}"})
        yield Fuzzing(platform, app, tokens, logins)
    finally:
        platform.close()


def _some_of_everything(app: Any, platform: Platform, admin: dict[str, str]) -> None:
    """Rows in every list the fuzzer reads (a customer, credit movements, a lookup, a mail), so
    answers with data are checked against the schema too, not only empty lists."""
    with ApiClient(app) as api:
        registered = api.post("/api/customers", headers=admin, json=customer(1))
        assert registered.status_code == 200, registered.text
        group_id = registered.json()["data"]["id"]
        granted = api.post(
            "/api/credits/grants", headers=admin, json={"groupId": group_id, "category": "unit", "amount": 5}
        )
        assert granted.status_code == 200, granted.text
        looked_up = api.post("/api/consultations", headers=admin, json={"document": KNOWN_CPF})
        assert looked_up.status_code == 200, looked_up.text
        contact = contact_form()
        assert api.post("/api/contact", json=contact).status_code == 202
        assert platform.projector.wait_for(platform.app.max_position(), 10)
        outbox = api.get("/api/mail/outbox", headers=admin)
        assert outbox.status_code == 200 and outbox.json()["data"], outbox.text


def _call(case: schemathesis.Case, fuzzing: Fuzzing, caller: str) -> None:
    case.call_and_validate(app=fuzzing.app, headers=fuzzing.headers(caller, case.operation.label), checks=CHECKS)
    # The caller's session outlives every call (a 401 is documented, and would hide the rest).
    fuzzing.platform.identity.authenticate(fuzzing.tokens[caller])


@super_admin_schema.parametrize()
@FUZZ_SETTINGS
def test_as_the_super_admin(case: schemathesis.Case, fuzzing: Fuzzing) -> None:
    _call(case, fuzzing, "super-admin")


@user_schema.parametrize()
@FUZZ_SETTINGS
def test_as_an_ordinary_user(case: schemathesis.Case, fuzzing: Fuzzing) -> None:
    _call(case, fuzzing, "user")

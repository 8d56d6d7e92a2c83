"""Schemathesis over the public API's own schema (/api/v1), in process, with an API token: no answer is a
server error, and every answer is one the schema documents (status, content type, body)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import schemathesis
from api_client import ApiClient
from support import ADMIN_EMAIL, ADMIN_PASSWORD, KNOWN_CPF, full_profile, make_settings
from test_schema_fuzz import CHECKS, FUZZ_SETTINGS, fuzz_config

from bemtevi.api.app import create_app
from bemtevi.api.v1.app import v1_openapi_document
from bemtevi.bootstrap import Platform, build_platform
from bemtevi.infra.settings import Settings

# The coverage cases under the full profile only, as the panel's super-admin's.
v1_schema = schemathesis.openapi.from_dict(
    v1_openapi_document(SimpleNamespace(settings=Settings())), config=fuzz_config(coverage=full_profile())
)


@pytest.fixture(scope="module")
def v1_fuzzing(tmp_path_factory: pytest.TempPathFactory, dataset_path: Path) -> Iterator[tuple[Any, str, Platform]]:
    settings_ = make_settings(tmp_path_factory.mktemp("fuzz-v1") / "var", dataset_path).model_copy(
        update={"read_wait_seconds": 0.01, "api_max_per_second": 1_000_000, "api_max_per_day": 100_000_000}
    )
    platform = build_platform(settings_)
    try:
        app = create_app(platform)
        with ApiClient(app) as api:
            login = api.post("/api/auth/auth", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
            panel = {"Authorization": f"Bearer {login.json()['token']}"}
            issued = api.post(
                "/api/api-tokens", headers=panel, json={"name": "fuzz", "queryTypes": ["cpf-complete", "cnpj-complete"]}
            ).json()
            token = issued["accessToken"]
            found = api.post(
                "/api/v1/lookups", headers={"Authorization": f"Bearer {token}"}, json={"document": KNOWN_CPF}
            )
            assert found.status_code == 200, found.text
        yield app, token, platform
    finally:
        platform.close()


@v1_schema.parametrize()
@FUZZ_SETTINGS
def test_the_public_api_with_a_token(case: schemathesis.Case, v1_fuzzing: tuple[Any, str, Platform]) -> None:
    app, token, _ = v1_fuzzing
    case.call_and_validate(app=app, headers={"Authorization": f"Bearer {token}"}, checks=CHECKS)

"""The API tests' client of the test's own platform (``platform``: SQLite and PostgreSQL, or the stores the
module's ``pytest.mark.backends`` names)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from api_client import ApiClient
from fastapi.testclient import TestClient

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform


@pytest.fixture
def api(platform: Platform) -> Iterator[TestClient]:
    with ApiClient(create_app(platform)) as client:
        yield client

"""`bemtevi openapi` prints the API's schema without a platform: the web client is generated from it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from bemtevi.cli import app

DOCUMENTED_CALLS = {
    ("/api/auth/auth", "post"),
    ("/api/auth/auth/logout", "post"),
    ("/api/user-roles/get-user-roles-by-id", "post"),
    ("/api/group/groups-get-public-data", "post"),
}


def test_openapi_prints_the_schema_with_the_documented_calls() -> None:
    result = CliRunner().invoke(app, ["openapi"])
    assert result.exit_code == 0, result.output
    schema = json.loads(result.output)
    # A white-label customer's users and API clients read these docs: no platform name in their titles.
    assert schema["info"]["title"] == "Consultation API"
    assert "bemtevi" not in json.dumps(schema["info"]).lower()
    operations = {(path, method) for path, item in schema["paths"].items() for method in item}
    assert operations >= DOCUMENTED_CALLS
    ids = [op["operationId"] for item in schema["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))
    assert "isMainDomain" in schema["components"]["schemas"]["GroupPublicData"]["properties"]


def test_openapi_writes_a_file(tmp_path: Path) -> None:
    target = tmp_path / "openapi.json"
    result = CliRunner().invoke(app, ["openapi", "--output", str(target)])
    assert result.exit_code == 0, result.output
    assert json.loads(target.read_text(encoding="utf-8"))["paths"]

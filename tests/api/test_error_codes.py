"""Every error the API answers carries a ``code`` from one catalogue, and the web app receives that
list (OpenAPI schema, then its generated client) so that it translates every one of them."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import api_schema, examples

import bemtevi
from bemtevi.api.error_codes import api_error_codes
from bemtevi.domain import advanced_errors, api_client_errors, batch_errors, two_factor_errors
from bemtevi.domain import errors as catalogue
from bemtevi.domain.errors import DomainError

ROOT = Path(__file__).resolve().parents[2]
GENERATED_CODES = ROOT / "webapp" / "src" / "store" / "generated" / "errorCodes.ts"


def _import_every_module() -> None:
    for module in pkgutil.walk_packages(bemtevi.__path__, "bemtevi."):
        importlib.import_module(module.name)


# At collection, not in the test: one of the workers' libraries (croniter, through faust) runs `file` once when
# first imported, and the test session refuses a subprocess from a test not marked `process`. Run alone, the test
# was the first to import it.
_import_every_module()


def every_refusal_class() -> set[type[DomainError]]:
    found: set[type[DomainError]] = set()
    todo: list[type[DomainError]] = [DomainError]
    while todo:
        cls = todo.pop()
        found.add(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_refusal_is_in_the_error_catalogue() -> None:
    codes = set(api_error_codes())
    for cls in every_refusal_class():
        assert cls.__module__ in (
            catalogue.__name__,
            batch_errors.__name__,
            advanced_errors.__name__,
            two_factor_errors.__name__,
            api_client_errors.__name__,
        ), f"{cls.__qualname__} belongs in the catalogue"
        assert cls in catalogue.catalogue(), cls
        assert cls.code in codes, cls
        assert 400 <= cls.status <= 599 and cls.message, cls


def test_the_openapi_schema_lists_every_code() -> None:
    schemas = api_schema()["components"]["schemas"]
    assert schemas["ErrorCode"]["enum"] == api_error_codes()
    assert schemas["ErrorResponse"]["properties"]["code"] == {"$ref": "#/components/schemas/ErrorCode"}


def test_the_web_app_translates_from_the_same_list() -> None:
    """The web app's generated list (``npm run codegen``) is the schema's: its vitest checks both
    languages translate each code."""
    text = GENERATED_CODES.read_text(encoding="utf-8")
    listed = re.search(r"ERROR_CODES = (\[.*?\]) as const", text, re.DOTALL)
    assert listed, text
    assert json.loads(listed.group(1)) == api_error_codes()


METHODS = st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"])
PATHS = st.builds(
    lambda first, rest: "/api/" + "/".join([first, *rest]),
    st.sampled_from(
        ["auth", "users", "customers", "credits", "consultations", "dashboard", "audit", "group", "mail", "contact"]
    ),
    st.lists(st.sampled_from(["auth", "logout", "1", "x", "status", "export", "history", "brand", "me"]), max_size=2),
)
BODIES = st.one_of(
    st.none(),
    st.binary(max_size=40),
    st.dictionaries(st.sampled_from(["email", "password", "document", "active"]), st.text(max_size=8), max_size=3).map(
        lambda d: json.dumps(d).encode()
    ),
)
TOKENS = st.sampled_from([None, "Bearer not-a-token", "Basic abc"])


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=METHODS, path=PATHS, body=BODIES, authorization=TOKENS)
def test_every_error_answer_carries_a_catalogued_code(
    client: TestClient, method: str, path: str, body: bytes | None, authorization: str | None
) -> None:
    headers = {"content-type": "application/json"}
    if authorization:
        headers["authorization"] = authorization
    answer = client.request(method, path, content=body, headers=headers)
    if answer.status_code >= 400:
        error = answer.json()
        assert error["code"] in api_error_codes(), (method, path, error)
        assert error["statusCode"] == answer.status_code and error["message"]

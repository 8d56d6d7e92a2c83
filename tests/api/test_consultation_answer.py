"""POST /api/consultations: what a client gets for a lookup, its refusals, and the answer's bytes."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import json
import uuid
from typing import Any

import pytest
from api_client import ApiClient
from fastapi.routing import APIRoute, serialize_response
from fastapi.testclient import TestClient
from hypothesis import example, given
from hypothesis import strategies as st
from support import KNOWN_CNPJ, KNOWN_CPF, run_on_a_loop_of_its_own, sign_in

from bemtevi.api.routers import consultations as consultations_route
from bemtevi.api.routers.consultations import consultation_json, consultation_response
from bemtevi.bootstrap import Platform
from bemtevi.commands.consultations import ConsultationOutcome
from bemtevi.commands.identity import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.documents import Document
from bemtevi.domain.groups import GroupType
from bemtevi.domain.query_types import COMPANY_COMPLETE, PERSON_COMPLETE

PASSWORD = "Strong!pass1"


def _company_user(platform: Platform, credits: int) -> tuple[str, str]:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa Hot", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=credits
    )
    email = "ana@empresahot.com.br"
    platform.identity.register_user(SYSTEM, group_id=group_id, name="Ana", email=email, password=PASSWORD)
    return email, PASSWORD


def test_a_lookup_answers_json_with_the_documents_kind(client: TestClient) -> None:
    headers = sign_in(client)
    for document, kind in ((KNOWN_CPF, "cpf"), ("11.222.333/0001-81", "cnpj"), ("000.000.001-91", "cpf")):
        answer = client.post("/api/consultations", json={"document": document}, headers=headers)
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/json"
        assert answer.json()["data"]["documentType"] == kind
    answer = client.post("/api/consultations", json={"document": KNOWN_CNPJ}, headers=headers)
    assert answer.json()["data"]["documentType"] == "cnpj"


@pytest.mark.parametrize(
    ("headers", "body", "status", "code"),
    [
        ({}, {"document": KNOWN_CPF}, 401, None),
        ({"Authorization": "Bearer not-a-token"}, {"document": KNOWN_CPF}, 401, None),
        ({"Authorization": "Basic abc"}, {"document": KNOWN_CPF}, 401, None),
        (None, {}, 400, "invalid_data"),
        (None, {"document": KNOWN_CPF, "unknown": 1}, 400, "invalid_data"),
        (None, {"document": "123"}, 422, None),
        (None, {"document": "529.982.247-24"}, 422, None),
        (None, {"document": KNOWN_CPF, "query_type": "no-such-type"}, None, None),
    ],
)
def test_a_refusal_has_its_status_and_the_error_shape(
    refusing_client: tuple[TestClient, Platform],
    headers: dict[str, str] | None,
    body: dict[str, Any],
    status: int | None,
    code: str | None,
) -> None:
    client, _ = refusing_client
    answer = client.post("/api/consultations", json=body, headers=sign_in(client) if headers is None else headers)
    assert answer.status_code >= 400
    if status is not None:
        assert answer.status_code == status
    refusal = answer.json()
    assert refusal["statusCode"] == answer.status_code and refusal["message"] and refusal["code"]
    if code is not None:
        assert refusal["code"] == code


def test_a_body_that_is_not_json_is_refused_400(client: TestClient) -> None:
    answer = client.post(
        "/api/consultations",
        content=b"{document:",
        headers={**sign_in(client), "Content-Type": "application/json"},
    )
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_data"


def test_no_credit_left_is_refused_402_and_charges_nothing(sqlite_platform: Platform, client: TestClient) -> None:
    email, password = _company_user(sqlite_platform, credits=1)
    headers = sign_in(client, email, password)
    assert client.post("/api/consultations", json={"document": KNOWN_CPF}, headers=headers).status_code == 200
    refusal = client.post("/api/consultations", json={"document": KNOWN_CPF}, headers=headers)
    assert refusal.status_code == 402
    assert "credits" in refusal.json()["message"].lower()


def test_an_unexpected_failure_gets_the_apps_own_answer(
    sqlite_platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bemtevi.api.app import create_app

    email, password = _company_user(sqlite_platform, credits=5)

    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("supplier exploded")

    with ApiClient(create_app(sqlite_platform), raise_server_exceptions=False) as client:
        headers = sign_in(client, email, password)
        monkeypatch.setattr(sqlite_platform.consultations, "run_unit_query_async", broken)
        answer = client.post("/api/consultations", json={"document": KNOWN_CPF}, headers=headers)
    assert answer.status_code == 500
    assert answer.json() == {
        "statusCode": 500,
        "message": "An unexpected error has occurred. Please try again later.",
        "code": "unexpected_error",
    }


# --- the answer's bytes ------------------------------------------------------------------------
# The route writes its answer with orjson straight from the lookup's outcome (``consultation_json``);
# its declared response model is what clients are generated from. For any outcome the bytes must be
# those FastAPI writes for the response model.


def _route_bytes(outcome: ConsultationOutcome) -> bytes:
    """The route's answer for ``outcome``, made by FastAPI's own serialisation of the route."""
    route = next(r for r in consultations_route.router.routes if isinstance(r, APIRoute))
    content = run_on_a_loop_of_its_own(
        serialize_response(
            field=route.response_field,
            response_content=consultation_response(outcome),
            include=route.response_model_include,
            exclude=route.response_model_exclude,
            by_alias=route.response_model_by_alias,
            exclude_unset=route.response_model_exclude_unset,
            exclude_defaults=route.response_model_exclude_defaults,
            exclude_none=route.response_model_exclude_none,
            dump_json=True,
        )
    )
    assert isinstance(content, bytes)
    return content


_CREATED = dt.datetime(2025, 3, 9, 23, 59, 58, 999_999, tzinfo=dt.UTC)
_ID = uuid.UUID("0b9a0a52-6f1e-4c4e-9a55-0b1c2d3e4f50")


def _outcome(
    result: Any,
    status: ConsultationStatus = ConsultationStatus.DONE,
    cpf: bool = True,
    created_at: dt.datetime = _CREATED,
    consultation_id: uuid.UUID = _ID,
) -> ConsultationOutcome:
    return ConsultationOutcome(
        consultation_id=consultation_id,
        document=Document.parse(KNOWN_CPF if cpf else KNOWN_CNPJ),
        query_type=PERSON_COMPLETE if cpf else COMPANY_COMPLETE,
        status=status,
        result=result,
        created_at=created_at,
        position=2**40 + 7,
    )


class _Colour(enum.Enum):
    RED = "vermelho"
    NUMBER = 7
    REAL = 0.5
    PAIR = (1, "a")


class _Level(enum.IntEnum):
    HIGH = 3


class _Kind(enum.StrEnum):
    PERSON = "person"


class _Text(str):
    pass


class _Mapping(dict):  # type: ignore[type-arg]
    pass


# What a supplier answers (JSON text read back) and values no supplier sends today, written the
# same way by the fallback: dates, UUIDs, decimals, enums, subclasses, tuples, sets, bytes,
# integers beyond 64 bits, keys that are not strings.
_EXOTIC = st.sampled_from(
    [
        dt.date(2024, 2, 29),
        dt.datetime(2024, 2, 29, 12, 0, tzinfo=dt.UTC),
        dt.datetime(2024, 2, 29, 12, 0),
        dt.time(8, 30),
        uuid.UUID(int=12345),
        decimal.Decimal("1234.50"),
        _Colour.RED,
        _Colour.NUMBER,
        _Colour.REAL,
        _Colour.PAIR,
        _Level.HIGH,
        _Kind.PERSON,
        _Text("texto"),
        _Mapping(a=1),
        (1, "dois", None),
        frozenset({3}),
        b"bytes",
        2**64,
        -(2**63) - 1,
        2**63,
        {1: "um"},
        float("nan"),
        float("-inf"),
        -0.0,
    ]
)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(), st.integers(-(2**63), 2**64 - 1))
json_values = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4), max_leaves=20
)
results = st.one_of(
    st.none(),
    st.dictionaries(st.text(), json_values, max_size=6),
    st.dictionaries(st.text(), st.one_of(json_values, _EXOTIC), max_size=6),
)


@given(results, st.sampled_from(ConsultationStatus), st.booleans())
@example(
    {"name": 'Zoë \u2028 "quoted" \\ / \x00\x1f\x7f 😀', "income": 12345.67, "age": 41}, ConsultationStatus.DONE, True
)
@example(
    {"tiny": 5e-324, "huge": 1.7976931348623157e308, "exp": 1e16, "small": 1e-7, "int": 2**64 - 1},
    ConsultationStatus.DONE,
    False,
)
@example({"deep": [[[[[[[[[[{"a": [1.5, None, True]}]]]]]]]]]]}, ConsultationStatus.NOT_FOUND, True)
def test_the_answer_is_written_byte_for_byte_as_the_route_writes_it(
    result: dict[str, Any] | None, status: ConsultationStatus, cpf: bool
) -> None:
    outcome = _outcome(result, status, cpf)
    assert consultation_json(outcome) == _route_bytes(outcome)


@given(st.datetimes(timezones=st.none() | st.timezones()), st.uuids())
@example(dt.datetime(999, 12, 31, 23, 59, 59), uuid.UUID(int=0))
@example(dt.datetime(1000, 1, 1, 0, 0, 0, tzinfo=dt.UTC), uuid.UUID(int=2**128 - 1))
@example(dt.datetime(9999, 12, 31, 23, 59, 59, 999_999), uuid.UUID(int=1))
def test_the_answers_time_and_id_are_written_as_the_route_writes_them(created_at: dt.datetime, id_: uuid.UUID) -> None:
    outcome = _outcome(None, created_at=created_at, consultation_id=id_)
    assert consultation_json(outcome) == _route_bytes(outcome)


def test_a_suppliers_answer_is_written_by_orjson_not_by_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain JSON values (what the local supplier's documents hold) do not need pydantic."""

    def unexpected(_: ConsultationOutcome) -> None:
        raise AssertionError("fell back to pydantic")

    monkeypatch.setattr(consultations_route, "consultation_response", unexpected)
    outcome = _outcome({"name": "Ana", "income": 1.5, "addresses": [{"city": "São Paulo", "number": None}]})
    assert json.loads(consultation_json(outcome))["data"]["result"]["addresses"][0]["city"] == "São Paulo"


@pytest.mark.parametrize(
    "result",
    [
        None,
        {"name": "José da Silva", "income": 1234.5, "protests": [], "birth_date": "1980-02-29", "age": 45},
        {"big": 2**70, "when": dt.date(2024, 1, 2), "kind": _Kind.PERSON, "nan": float("nan")},
    ],
)
def test_the_route_answers_the_response_models_bytes(
    sqlite_platform: Platform, client: TestClient, monkeypatch: pytest.MonkeyPatch, result: Any
) -> None:
    outcome = _outcome(result)

    async def lookup(*_: object, **__: object) -> ConsultationOutcome:
        return outcome

    headers = sign_in(client)
    monkeypatch.setattr(sqlite_platform.consultations, "run_unit_query_async", lookup)
    answer = client.post("/api/consultations", json={"document": KNOWN_CPF}, headers=headers)
    assert answer.status_code == 200
    assert answer.content == _route_bytes(outcome)
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["content-length"] == str(len(answer.content))

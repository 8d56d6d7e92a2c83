"""The lookup's hot path answers exactly what the FastAPI route answers, success and refusals alike."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute, serialize_response
from fastapi.testclient import TestClient
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import ValidationError
from support import KNOWN_CNPJ, KNOWN_CPF, run_on_a_loop_of_its_own, sign_in

from bemtevi.api.app import create_app
from bemtevi.api.hot_path import HotLookupMiddleware, read_request
from bemtevi.api.routers import consultations as consultations_route
from bemtevi.api.routers.consultations import consultation_json, consultation_response
from bemtevi.api.schemas import ConsultationRequest
from bemtevi.bootstrap import Platform
from bemtevi.commands.consultations import ConsultationOutcome
from bemtevi.domain.consultations import ConsultationStatus
from bemtevi.domain.documents import Document
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.query_types import COMPANY_COMPLETE, PERSON_COMPLETE

PASSWORD = "Strong!pass1"


@pytest.fixture
def clients(sqlite_platform: Platform) -> Iterator[tuple[TestClient, TestClient]]:
    """The same platform behind the hot path and behind the plain FastAPI route."""
    hot_app = create_app(sqlite_platform)
    sqlite_platform.settings.hot_lookup_path = False
    plain_app = create_app(sqlite_platform)
    # In front of the framework on one, absent on the other.
    assert any(isinstance(layer(plain_app), HotLookupMiddleware) for layer in hot_app.front_layers)
    assert not any(isinstance(layer(plain_app), HotLookupMiddleware) for layer in plain_app.front_layers)
    with TestClient(hot_app) as hot, TestClient(plain_app) as plain:
        yield hot, plain


def _company_user(platform: Platform, credits: int) -> tuple[str, str]:
    group_id, _ = platform.identity.register_group(
        SYSTEM, name="Empresa Hot", group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=credits
    )
    email = "ana@empresahot.com.br"
    platform.identity.register_user(SYSTEM, group_id=group_id, name="Ana", email=email, password=PASSWORD)
    return email, PASSWORD


def _without_identity(body: dict[str, Any]) -> dict[str, Any]:
    data = {k: v for k, v in body["data"].items() if k not in {"id", "createdAt"}}
    return {**body, "data": data, "position": "…"}


def test_a_lookup_answers_the_same_through_both(clients: tuple[TestClient, TestClient]) -> None:
    hot = clients[0]
    for document in (KNOWN_CPF, "11.222.333/0001-81", "000.000.001-91"):
        answers = [c.post("/api/consultations", json={"document": document}, headers=sign_in(c)) for c in clients]
        assert [a.status_code for a in answers] == [200, 200]
        assert answers[0].headers["content-type"] == answers[1].headers["content-type"] == "application/json"
        assert _without_identity(answers[0].json()) == _without_identity(answers[1].json())
    assert (
        hot.post("/api/consultations", json={"document": KNOWN_CNPJ}, headers=sign_in(hot)).json()["data"][
            "documentType"
        ]
        == "cnpj"
    )


@pytest.mark.parametrize(
    ("headers", "body", "status"),
    [
        ({}, {"document": KNOWN_CPF}, 401),
        ({"Authorization": "Bearer not-a-token"}, {"document": KNOWN_CPF}, 401),
        ({"Authorization": "Basic abc"}, {"document": KNOWN_CPF}, 401),
        (None, {}, 400),
        (None, {"document": KNOWN_CPF, "unknown": 1}, 400),
        (None, {"document": "123"}, 422),
        (None, {"document": "529.982.247-24"}, 422),
        (None, {"document": KNOWN_CPF, "query_type": "no-such-type"}, None),
    ],
)
def test_refusals_answer_the_same_through_both(
    clients: tuple[TestClient, TestClient], headers: dict[str, str] | None, body: dict[str, Any], status: int | None
) -> None:
    answers = [
        c.post("/api/consultations", json=body, headers=sign_in(c) if headers is None else headers) for c in clients
    ]
    assert answers[0].status_code == answers[1].status_code
    if status is not None:
        assert answers[0].status_code == status
    assert answers[0].status_code >= 400
    assert answers[0].json() == answers[1].json()


def test_a_body_that_is_not_json_is_refused_the_same(clients: tuple[TestClient, TestClient]) -> None:
    answers = [
        c.post(
            "/api/consultations",
            content=b"{document:",
            headers={**sign_in(c), "Content-Type": "application/json"},
        )
        for c in clients
    ]
    assert answers[0].status_code == answers[1].status_code >= 400
    assert answers[0].json() == answers[1].json()


def test_no_credit_left_is_refused_the_same_and_charges_nothing(
    sqlite_platform: Platform, clients: tuple[TestClient, TestClient]
) -> None:
    email, password = _company_user(sqlite_platform, credits=1)
    hot = clients[0]
    first = hot.post("/api/consultations", json={"document": KNOWN_CPF}, headers=sign_in(hot, email, password))
    assert first.status_code == 200
    refusals = [
        c.post("/api/consultations", json={"document": KNOWN_CPF}, headers=sign_in(c, email, password)) for c in clients
    ]
    assert refusals[0].status_code == refusals[1].status_code == 402
    assert refusals[0].json() == refusals[1].json()
    assert "credits" in refusals[0].json()["message"].lower()


def test_an_unexpected_failure_gets_the_apps_own_answer(
    sqlite_platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hot path sits outside the framework's error middleware, so it answers a crash itself,
    with the same body the app's handler gives."""
    hot_app = create_app(sqlite_platform)
    sqlite_platform.settings.hot_lookup_path = False
    plain_app = create_app(sqlite_platform)
    email, password = _company_user(sqlite_platform, credits=5)

    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("supplier exploded")

    answers = []
    for app in (hot_app, plain_app):
        with TestClient(app, raise_server_exceptions=False) as client:
            headers = sign_in(client, email, password)
            monkeypatch.setattr(sqlite_platform.consultations, "run_unit_query_async", broken)
            answers.append(client.post("/api/consultations", json={"document": KNOWN_CPF}, headers=headers))
            monkeypatch.undo()
    assert answers[0].status_code == answers[1].status_code == 500
    assert answers[0].json() == answers[1].json()
    assert answers[0].json()["message"] == "An unexpected error has occurred. Please try again later."


# --- the answer's bytes ------------------------------------------------------------------------
# The hot path writes the answer with orjson straight from the lookup's outcome; the route answers
# through pydantic and its response model. For the same outcome the bytes must be the same.


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
def test_the_hot_path_answers_the_same_bytes_as_the_route(
    sqlite_platform: Platform, clients: tuple[TestClient, TestClient], monkeypatch: pytest.MonkeyPatch, result: Any
) -> None:
    outcome = _outcome(result)

    async def lookup(*_: object, **__: object) -> ConsultationOutcome:
        return outcome

    headers = [sign_in(c) for c in clients]
    monkeypatch.setattr(sqlite_platform.consultations, "run_unit_query_async", lookup)
    answers = [
        c.post("/api/consultations", json={"document": KNOWN_CPF}, headers=h)
        for c, h in zip(clients, headers, strict=True)
    ]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].content == answers[1].content
    for name in ("content-type", "content-length"):
        assert answers[0].headers[name] == answers[1].headers[name]


# --- the request body ------------------------------------------------------------------------
# A plain body is read by orjson; it must read as the request model reads it, and anything the
# model refuses must still reach the model (whose refusal the route answers).

# Members as JSON text: keys (one spelled with an escape), and values of every JSON type, strings
# with escapes, raw non-ASCII text, a lone surrogate, and what orjson refuses (NaN, 1e999).
_KEYS = st.sampled_from(['"document"', '"query_type"', '"documento"', '"Document"', '"docum\\u0065nt"', '""'])
_VALUES = st.one_of(
    st.text(max_size=15).map(json.dumps),
    st.text(max_size=15).map(lambda t: json.dumps(t, ensure_ascii=False)),
    st.sampled_from(
        ['""', "null", "1", "1.5", "true", "[]", "{}", '"52998224725"', '"\\ud800"', '"a\\u0000b"', "NaN", "1e999"]
    ),
)


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    members = draw(st.lists(st.tuples(_KEYS, _VALUES), max_size=4))
    space = draw(st.sampled_from(["", " ", "\n\t", "\r\n "]))
    text = "{" + ",".join(f"{space}{key}:{space}{value}" for key, value in members) + "}"
    text = draw(
        st.sampled_from(
            ["{}", "[]", "", "null", '"x"', text, text, text, text + "x", " " + text + " \n", "\ufeff" + text]
        )
    )
    return text.encode()


def _model_reads(body: bytes) -> tuple[str, str | None] | str:
    try:
        request = ConsultationRequest.model_validate_json(body)
    except ValidationError as error:
        return f"refused: {error.error_count()}"
    return request.document, request.query_type


def _fast_reads(body: bytes) -> tuple[str, str | None] | str:
    try:
        return read_request(body)
    except ValidationError as error:
        return f"refused: {error.error_count()}"


@given(st.one_of(bodies(), st.binary(max_size=40)))
@example(b'{"document": 1, "document": "52998224725"}')
@example(b'{"document": "52998224725", "document": 1}')
@example(b'{"query_type": 1, "query_type": null, "document": "x"}')
@example(b'{"document": "x", "query_type": "a", "extra": null}')
@example(b'{"document": "\\ud800"}')
@example(b'{"document": ""}')
@example(b'{"document": "", "query_type": null}')
@example(b'{"query_type": null}')
@example(b'{"document": "\xff"}')
def test_a_body_is_read_as_the_request_model_reads_it(body: bytes) -> None:
    assert _fast_reads(body) == _model_reads(body)


@pytest.mark.parametrize(
    "body",
    [
        b'{"document":"52998224725"}',
        b'{"document": "529.982.247-25", "query_type": null}',
        b'{"query_type":"cpf-complete","document":"x"}',
    ],
)
def test_a_plain_body_is_read_without_the_model(body: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    def unexpected(*_: object) -> None:
        raise AssertionError("read by the model")

    expected = _model_reads(body)
    monkeypatch.setattr(ConsultationRequest, "model_validate_json", unexpected)
    assert read_request(body) == expected

"""POST /api/contact: the public site's contact form, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_client import ApiClient
from fastapi.testclient import TestClient
from support import KNOWN_CNPJ, KNOWN_CPF, contact_form, make_settings, sign_in

from bemtevi.api.app import create_app
from bemtevi.bootstrap import Platform, build_platform
from bemtevi.domain.contact_requests import ContactRequest
from bemtevi.domain.groups import GroupType
from bemtevi.domain.mail import Mail
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def refusing_api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, dataset_path: Path
) -> Iterator[tuple[TestClient, Platform]]:
    """One platform per backend for the module's refusals: a refused form saves nothing and is not counted
    by the rate limit, so each of them finds the state the first one did (17 builds per backend saved)."""
    pool = request.getfixturevalue("database_pool") if request.param == "postgres" else None
    database = pool.take() if pool is not None else None
    database_url = pool.url(database) if pool is not None and database is not None else None
    platform = build_platform(make_settings(tmp_path_factory.mktemp("var"), dataset_path, database_url))
    try:
        with ApiClient(create_app(platform)) as client:
            yield client, platform
    finally:
        platform.close()
        if pool is not None and database is not None:
            pool.give_back(database)


def saved_after(platform: Platform, position: int) -> list[Any]:
    """The domain events saved from ``position`` (exclusive) on."""
    notifications = platform.app.recorder.select_notifications(position, 100, inclusive_of_start=False)
    return [platform.app.mapper.to_domain_event(n) for n in notifications]


def created_after(platform: Platform, position: int) -> list[Any]:
    """The first events of the aggregates created from ``position`` on (what a request made: not the mailer's later
    events of an earlier mail, which it appends on its own time)."""
    return [e for e in saved_after(platform, position) if e.originator_version == 1]


def test_a_valid_request_saves_the_request_and_the_mail_in_one_append(api: TestClient, platform: Platform) -> None:
    before = platform.app.max_position()
    response = api.post("/api/contact", json=contact_form())
    assert response.status_code == 202, response.text
    position = response.json()["position"]
    assert position == platform.app.max_position()

    events = saved_after(platform, before)
    assert [type(e).__qualname__ for e in events] == ["ContactRequest.Received", "Mail.Queued"]
    # One append: the two events sit next to each other and end at the answered position.
    assert all(e.tenant_id == ROOT_GROUP_ID and e.actor_id is None for e in events)

    request = platform.app.get(events[0].originator_id, ContactRequest)
    assert request.name == "Mariana Costa"
    assert request.document == KNOWN_CPF
    assert request.email == "mariana.costa@empresa.com.br"
    assert request.phone == "11987654321"
    assert request.service == "trial"
    assert request.host == "localhost:8000"

    mail = platform.app.get(events[1].originator_id, Mail)
    assert mail.to == platform.settings.contact_email == "contato@bemtevi.local"
    assert mail.reason == "contact"
    assert mail.reply_to == "mariana.costa@empresa.com.br"
    assert mail.status == "queued"
    assert "Teste gratuito" in mail.subject and "Mariana Costa" in mail.subject
    assert "529.982.247-25" in mail.text
    assert "Gostaria de testar o enriquecimento em lote" in mail.text
    assert "(11) 98765-4321" not in mail.text and "11987654321" in mail.text


def test_phone_is_optional_and_a_cnpj_is_accepted(api: TestClient, platform: Platform) -> None:
    response = api.post("/api/contact", json=contact_form(phone=None, document=KNOWN_CNPJ, service="api"))
    assert response.status_code == 202, response.text
    del_phone = contact_form(document=KNOWN_CNPJ, service="sms")
    del del_phone["phone"]
    assert api.post("/api/contact", json=del_phone).status_code == 202
    assert api.post("/api/contact", json=contact_form(phone="  ")).status_code == 202


def test_no_session_is_needed_and_a_session_changes_nothing(api: TestClient) -> None:
    headers = sign_in(api)
    assert api.post("/api/contact", json=contact_form(), headers=headers).status_code == 202
    assert api.post("/api/contact", json=contact_form(), headers={"Authorization": "Bearer garbage"}).status_code == 202


def test_the_request_belongs_to_the_tenant_whose_domain_served_the_form(api: TestClient, platform: Platform) -> None:
    group_id, _ = platform.identity.register_group(
        SYSTEM,
        name="Revenda Aurora",
        group_type=GroupType.RESELLER,
        parent_id=ROOT_GROUP_ID,
        domain_url="aurora.example.com.br",
    )
    before = platform.app.max_position()
    response = api.post("/api/contact", json=contact_form(domain_url="https://Aurora.example.com.br/contact"))
    assert response.status_code == 202, response.text
    events = saved_after(platform, before)
    assert {e.tenant_id for e in events} == {group_id}
    request = platform.app.get(events[0].originator_id, ContactRequest)
    assert request.host == "aurora.example.com.br"
    mail = platform.app.get(events[1].originator_id, Mail)
    assert "Revenda Aurora" in mail.text

    # Without domain_url the Host header names the site; an unknown host is the root's.
    before = platform.app.max_position()
    body = contact_form()
    del body["domain_url"]
    assert api.post("/api/contact", json=body, headers={"host": "aurora.example.com.br"}).status_code == 202
    assert {e.tenant_id for e in created_after(platform, before)} == {group_id}
    before = platform.app.max_position()
    assert api.post("/api/contact", json=contact_form(domain_url="unknown.example.org")).status_code == 202
    assert {e.tenant_id for e in created_after(platform, before)} == {ROOT_GROUP_ID}


@pytest.mark.parametrize(
    ("changes", "prop", "kind"),
    [
        ({"name": ""}, "name", "isNotEmpty"),
        ({"name": "  "}, "name", "isNotEmpty"),
        ({"name": "Al"}, "name", "constraint"),
        ({"document": ""}, "document", "isNotEmpty"),
        ({"document": "529.982.247-24"}, "document", "constraint"),
        ({"document": "111.111.111-11"}, "document", "constraint"),
        ({"document": "11.222.333/0001-80"}, "document", "constraint"),
        ({"document": "1234567"}, "document", "constraint"),
        ({"email": ""}, "email", "isNotEmpty"),
        ({"email": "mariana@empresa"}, "email", "constraint"),
        ({"email": "mariana@empresa.abcde"}, "email", "constraint"),
        ({"phone": "11 9876-543"}, "phone", "constraint"),
        ({"service": ""}, "service", "isNotEmpty"),
        ({"service": "free-lunch"}, "service", "isEnum"),
        ({"message": ""}, "message", "isNotEmpty"),
        ({"message": "Olá, tudo"}, "message", "constraint"),
        ({"message": "x" * 5000}, "message", "constraint"),
    ],
)
def test_each_invalid_field_is_refused_with_its_property(
    refusing_api: tuple[TestClient, Platform], changes: dict[str, Any], prop: str, kind: str
) -> None:
    api, platform = refusing_api
    before = platform.app.max_position()
    response = api.post("/api/contact", json=contact_form(**changes))
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["statusCode"] == 400 and body["code"] == "invalid_data"
    assert [e["property"] for e in body["errors"]] == [prop]
    assert kind in body["errors"][0]
    assert body["message"] == body["errors"][0][kind]
    assert platform.app.max_position() == before  # nothing saved


def test_a_missing_field_is_not_empty_and_every_problem_is_listed(api: TestClient, platform: Platform) -> None:
    body = contact_form(name="A", email="nope", message="curta")
    del body["service"]
    response = api.post("/api/contact", json=body)
    assert response.status_code == 400
    assert response.json()["errors"] == [{"property": "service", "isNotEmpty": "service should not be empty"}]
    response = api.post("/api/contact", json=contact_form(name="A", email="nope", message="curta"))
    assert [e["property"] for e in response.json()["errors"]] == ["name", "email", "message"]


def test_a_client_address_is_limited_to_five_requests_per_window(platform: Platform) -> None:
    app = create_app(platform)
    with (
        ApiClient(app, client=("203.0.113.7", 40000)) as flooder,
        ApiClient(app, client=("198.51.100.2", 40000)) as other,
    ):
        for _ in range(5):
            assert flooder.post("/api/contact", json=contact_form()).status_code == 202
        before = platform.app.max_position()
        refused = flooder.post("/api/contact", json=contact_form())
        assert refused.status_code == 429
        assert refused.json()["code"] == "too_many_requests"
        assert int(refused.headers["retry-after"]) > 0
        # No request recorded for the refused one (the mailer may meanwhile record the earlier ones' mails).
        received = [
            n.id for n in platform.app.recorder.select_notifications(0, 10_000) if "ContactRequest.Received" in n.topic
        ]
        assert len(received) == 5 and max(received) <= before
        # Another visitor is not affected.
        assert other.post("/api/contact", json=contact_form()).status_code == 202
    # Invalid forms do not use up the allowance (they queue nothing).
    with ApiClient(create_app(platform), client=("192.0.2.9", 40000)) as client:
        for _ in range(6):
            assert client.post("/api/contact", json=contact_form(name="")).status_code == 400
        assert client.post("/api/contact", json=contact_form()).status_code == 202


def test_the_limit_forgets_old_hits(tmp_path: Path) -> None:
    from bemtevi.commands.throttle import Throttle
    from bemtevi.infra.attempts import SqliteAttemptLog

    now = [1000.0]
    throttle = Throttle(SqliteAttemptLog(tmp_path / "attempts.sqlite"), 600, clock=lambda: now[0])
    limit = [("a", 2)]
    throttle.record("a")
    throttle.record("a")
    assert throttle.wait_seconds(limit) == 600
    now[0] += 599
    assert throttle.wait_seconds(limit) == 1
    now[0] += 1.5
    assert throttle.wait_seconds(limit) == 0
    assert throttle.wait_seconds([("b", 2)]) == 0

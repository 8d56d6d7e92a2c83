"""A white-label's brand names the customer, never the platform: its contact data (checked, with clear
codes), its title falling back to its own name, and nothing of the platform's on its domain."""

from __future__ import annotations

from typing import Any

import pytest
from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from support import sign_in

from bemtevi.domain.brand import CONTACT_FIELDS, CONTACT_LIMITS, valid_contact
from bemtevi.domain.errors import DomainError
from bemtevi.domain.principals import ROOT_GROUP_ID

pytestmark = pytest.mark.backends("sqlite")

HOST = "consultas.marca.example.com"


def public(api: TestClient, host: str, position: int) -> dict[str, Any]:
    response = api.post(
        "/api/group/groups-get-public-data", headers={"Host": host}, params={"position": position}, json={}
    )
    assert response.status_code == 200, response.text
    return dict(response.json()["data"])


def put_brand(api: TestClient, headers: dict[str, str], group_id: str, body: dict[str, str]) -> Any:
    return api.put(f"/api/group/{group_id}/brand", headers=headers, json=body)


def test_contact_fields_are_refused_with_a_code_naming_the_field(api: TestClient) -> None:
    admin = sign_in(api)
    wl = register(api, admin, customer(1, "white-label", whiteLabelUrl=HOST))["data"]
    cases = [
        ({"contactEmail": "contato@marca"}, "invalid_email"),
        ({"contactPhone": "12345"}, "invalid_phone"),
        ({"contactAddress": "x" * 201}, "text_too_long"),
        ({"aboutText": "y" * 1001}, "text_too_long"),
    ]
    for body, code in cases:
        refused = put_brand(api, admin, wl["id"], body)
        assert refused.status_code == 422, refused.text
        assert (refused.json()["code"], refused.json()["field"]) == (code, next(iter(body)))
    too_long = put_brand(api, admin, wl["id"], {"aboutText": "y" * 1001}).json()
    assert too_long["limit"] == 1000


def test_a_white_label_domain_shows_the_customers_contact_and_name_never_the_platforms(api: TestClient) -> None:
    admin = sign_in(api)
    # The platform's own brand has its contact data: a white-label below it must not inherit them.
    platform_contact = {"contactEmail": "contato@plataforma.com.br", "contactPhone": "(11) 4000-2011"}
    assert put_brand(api, admin, str(ROOT_GROUP_ID), platform_contact).status_code == 200
    registered = register(api, admin, customer(1, "white-label", whiteLabelUrl=HOST))
    wl = registered["data"]

    # Nothing set yet: the title is the customer's trade name, the contact data empty (neutral texts).
    bare = public(api, HOST, registered["position"])
    assert bare["whiteLabel"] is True and bare["isMainDomain"] is False
    assert bare["appTitle"] == "Fantasia 1"
    assert all(bare[f] is None for f in CONTACT_FIELDS), bare
    main = public(api, "localhost", registered["position"])
    assert (main["whiteLabel"], main["appTitle"], main["contactEmail"]) == (
        False,
        "Bemtevi",
        "contato@plataforma.com.br",
    )

    saved = put_brand(
        api,
        admin,
        wl["id"],
        {
            "contactEmail": " Atendimento@Marca.com.br ",
            "contactPhone": "+55 (41) 3333-4444",
            "contactAddress": "Rua XV de Novembro, 100 — Curitiba/PR",
            "aboutText": "Consultas para o varejo do Sul.",
        },
    )
    assert saved.status_code == 200, saved.text
    shown = public(api, HOST, saved.json()["position"])
    assert (shown["contactEmail"], shown["contactPhone"]) == ("atendimento@marca.com.br", "+55 (41) 3333-4444")
    assert shown["contactAddress"] == "Rua XV de Novembro, 100 — Curitiba/PR"
    assert shown["aboutText"] == "Consultas para o varejo do Sul."

    # A company of the white-label shows the white-label's name and contact (its own group's brand).
    owner = owner_headers(api, wl["ownerEmail"])
    company = register(api, owner, customer(2))
    seen = api.get(f"/api/group/{company['data']['id']}/brand", headers=owner, params={"position": company["position"]})
    assert seen.status_code == 200, seen.text
    resolved = seen.json()["resolved"]
    assert (resolved["appTitle"], resolved["contactEmail"]) == ("Fantasia 1", "atendimento@marca.com.br")

    # Emptying a field brings the neutral default back, not the platform's value.
    cleared = put_brand(api, admin, wl["id"], {"contactEmail": "", "contactPhone": ""})
    again = public(api, HOST, cleared.json()["position"])
    assert (again["contactEmail"], again["contactPhone"]) == (None, None)
    assert "bemtevi" not in str(again).lower() and "4000-2011" not in str(again)


@given(field=st.sampled_from(CONTACT_FIELDS), text=st.text(max_size=1100))
def test_a_contact_field_is_stored_trimmed_within_its_limit_or_refused_naming_it(field: str, text: str) -> None:
    try:
        value = valid_contact(text, field)
    except DomainError as e:
        assert e.field == field and e.code in {"invalid_email", "invalid_phone", "text_too_long"}
        return
    if value is None:
        assert not text.strip()
    else:
        assert value == value.strip() and 0 < len(value) <= CONTACT_LIMITS[field]

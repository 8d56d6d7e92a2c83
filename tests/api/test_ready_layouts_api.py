"""Layouts without hidden knowledge: the exit fields a layout may use (what the form's picker offers), a
preview of one real record of the demo data (free), and the ready layouts the platform ships, which a
customer copies into its own layouts in one action."""

from __future__ import annotations

import re
from typing import Any

from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CNPJ, KNOWN_CPF, saved_after, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.enrichment_fields import FIELDS, exit_field
from bemtevi.domain.ready_layouts import READY_LAYOUTS


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    return dict(response.json())


def owner_of(client: TestClient, admin: dict[str, str], n: int) -> tuple[str, dict[str, str]]:
    registered = register(client, admin, customer(n))
    return registered["data"]["id"], owner_headers(client, registered["data"]["ownerEmail"])


def layout_of(fields: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """A layout as the form's picker builds it: the CPF read in, the picked fields written in order."""
    by_name = {f["name"]: f for f in fields}
    plain = {"type": "text", "format": ""}  # a name the catalogue lacks
    rows = [{"name": "CPF", "type": "document", "order": 1, "format": "", "size": None, "direction": "entry"}]
    rows += [
        {
            "name": name,
            "type": by_name.get(name, plain)["type"],
            "order": i,
            "format": by_name.get(name, plain)["format"],
            "size": None,
            "direction": "exit",
        }
        for i, name in enumerate(names, start=1)
    ]
    return {
        "fileName": "meu_layout",
        "finalFileName": "meu_layout_retorno",
        "returnExtension": "csv",
        "acceptedExtension": "csv",
        "kind": "delimited",
        "delimiter": ";",
        "firstLine": True,
        "table": "pessoas",
        "rows": rows,
    }


def test_the_exit_fields_list_every_catalogue_field_with_labels_types_and_formats(client: TestClient) -> None:
    admin = sign_in(client)
    fields = ok(client.get("/api/layouts/exit-fields", headers=admin))["data"]
    assert [f["key"] for f in fields] == [f.key for f in FIELDS]
    for field in fields:
        # The name the picker writes is the one the batch fills (no hidden spelling to know).
        found = exit_field(field["name"])
        assert found is not None and found.key == field["key"]
        assert field["label"]["pt-BR"] and field["label"]["en-US"]
        assert field["size"] >= 1
    by_key = {f["key"]: f for f in fields}
    assert (by_key["birth_date"]["type"], by_key["birth_date"]["format"]) == ("date", "dd/mm/aaaa")
    assert by_key["birth_date"]["label"] == {"pt-BR": "Data de nascimento", "en-US": "Birth date"}
    assert (by_key["phone1"]["type"], by_key["email1"]["type"], by_key["income"]["type"]) == (
        "phone",
        "email",
        "number",
    )
    assert by_key["trade_name"]["appliesTo"] == "company" and by_key["mother"]["appliesTo"] == "person"


def test_the_preview_shows_a_real_demo_record_through_the_layout_and_charges_nothing(
    sqlite_platform: Platform, client: TestClient
) -> None:
    admin = sign_in(client)
    _, owner = owner_of(client, admin, 41)
    fields = ok(client.get("/api/layouts/exit-fields", headers=owner))["data"]
    body = layout_of(fields, ["CPF", "NOME", "NASCIMENTO", "CIDADE", "NAO_EXISTE", "STATUS_REGISTRO"])
    before = sqlite_platform.app.max_position()
    shown = ok(client.post("/api/layouts/preview-record", headers=owner, json={"layout": body, "kind": "cpf"}))["data"]
    # A preview appends nothing: no consultation, no credit movement (the owner's invitation may go meanwhile).
    assert saved_after(sqlite_platform.app, before) == []
    record = sqlite_platform.supplier.lookup("cpf", KNOWN_CPF)
    assert record is not None
    values = dict((v["name"], v["value"]) for v in shown["values"])
    year, month, day = record["birth_date"][:10].split("-")
    assert values == {
        "CPF": KNOWN_CPF,
        "NOME": record["name"],
        "NASCIMENTO": f"{day}/{month}/{year}",
        "CIDADE": record["addresses"][0]["city"],
        "NAO_EXISTE": "",
        "STATUS_REGISTRO": "ENCONTRADO",
    }
    assert (shown["document"], shown["found"], shown["charged"]) == (KNOWN_CPF, True, False)
    assert shown["unknown"] == ["NAO_EXISTE"]
    assert shown["header"] == "CPF;NOME;NASCIMENTO;CIDADE;NAO_EXISTE;STATUS_REGISTRO"
    assert shown["exitLine"].split(";")[:3] == [KNOWN_CPF, record["name"], f"{day}/{month}/{year}"]
    company = ok(
        client.post(
            "/api/layouts/preview-record",
            headers=owner,
            json={"layout": layout_of(fields, ["RAZAO_SOCIAL", "ABERTURA"]), "kind": "cnpj"},
        )
    )["data"]
    assert company["document"] == KNOWN_CNPJ and company["found"]
    assert re.fullmatch(r"\d\d/\d\d/\d{4}", company["values"][1]["value"])


def test_the_ready_layouts_are_there_after_the_first_start_once(sqlite_platform: Platform, client: TestClient) -> None:
    admin = sign_in(client)
    position = sqlite_platform.app.max_position()
    listed = ok(
        client.get("/api/layouts", headers=admin, params={"scope": "ready", "perPage": 100, "position": position})
    )
    keys = sorted(row["ready"] for row in listed["data"])
    expected = sorted(
        f"{kind}-{s}-{ext}"
        for kind in ("cpf", "cnpj")
        for s in ("basic", "contact", "address", "full")
        for ext in ("csv", "txt", "xlsx")
    )
    assert keys == expected == sorted(r.key for r in READY_LAYOUTS)
    for row in listed["data"]:
        assert row["readyTitle"]["pt-BR"] and row["readyTitle"]["en-US"]
        assert row["returnExtension"] == row["ready"].rsplit("-", 1)[1]
        for exit_row in row["rows"]:
            if exit_row["direction"] == "exit" and exit_row["name"] not in ("CPF", "CNPJ"):
                assert exit_field(exit_row["name"]) is not None, exit_row
    # Seeding again (every start does) appends nothing.
    sqlite_platform.catalogue.seed_layouts()
    assert sqlite_platform.app.max_position() == position
    # The root enables them: a customer may be given one as it is.
    enabled = ok(client.get("/api/layouts/enabled", headers=admin, params={"position": position}))["data"]
    assert len([row for row in enabled if row["ready"]]) == len(READY_LAYOUTS)


def test_a_customer_copies_a_ready_layout_into_an_independent_layout_of_its_group(
    sqlite_platform: Platform, client: TestClient
) -> None:
    admin = sign_in(client)
    group_id, owner = owner_of(client, admin, 42)
    other_group, other = owner_of(client, admin, 43)
    position = sqlite_platform.app.max_position()
    ready = ok(client.get("/api/layouts", headers=owner, params={"scope": "ready", "position": position}))["data"]
    original = next(row for row in ready if row["ready"] == "cpf-basic-csv")
    copy = ok(client.post(f"/api/layouts/{original['id']}/copy", headers=owner))
    mine = ok(client.get("/api/layouts", headers=owner, params={"scope": "mine", "position": copy["position"]}))["data"]
    assert [(row["id"], row["groupId"], row["copiedFrom"], row["ready"]) for row in mine] == [
        (copy["id"], group_id, original["id"], None)
    ]
    assert mine[0]["rows"] == original["rows"]
    # The copy is the group's to use in a batch at once.
    enabled = ok(client.get("/api/layouts/enabled", headers=owner, params={"position": copy["position"]}))["data"]
    assert [row["id"] for row in enabled] == [copy["id"]]
    # Editing the copy leaves the ready layout as it was.
    form = {k: mine[0][k] for k in LAYOUT_KEYS}
    form["rows"] = [r for r in form["rows"] if r["name"] != "SEXO"]
    edited = ok(client.put(f"/api/layouts/{copy['id']}", headers=owner, json=form))
    again = ok(client.get(f"/api/layouts/{original['id']}", headers=owner, params={"position": edited["position"]}))
    assert again["data"]["rows"] == original["rows"]
    changed = ok(client.get(f"/api/layouts/{copy['id']}", headers=owner, params={"position": edited["position"]}))
    assert "SEXO" not in [r["name"] for r in changed["data"]["rows"]]
    # Another customer neither sees nor edits it, and does not get it for its batches.
    for method, path, body in [
        ("get", f"/api/layouts/{copy['id']}", None),
        ("put", f"/api/layouts/{copy['id']}", form),
        ("post", f"/api/layouts/{copy['id']}/status", {"active": False}),
        ("post", f"/api/layouts/{copy['id']}/copy", None),
    ]:
        response = client.request(method, path, headers=other, json=body)
        assert response.status_code == 404 and response.json()["code"] == "layout_not_found", response.text
    theirs = ok(client.get("/api/layouts", headers=other, params={"scope": "mine", "position": edited["position"]}))
    assert theirs["data"] == [] and other_group != group_id
    assert ok(client.get("/api/layouts/enabled", headers=other, params={"position": edited["position"]}))["data"] == []


LAYOUT_KEYS = (
    "fileName",
    "finalFileName",
    "returnExtension",
    "acceptedExtension",
    "kind",
    "delimiter",
    "firstLine",
    "table",
    "rows",
)

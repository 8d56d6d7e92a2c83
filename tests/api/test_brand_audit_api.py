"""Brands (checked images, colours, the parent-then-default fallback, public data by host) and the audit log."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from customers_support import NEW_PASSWORD, customer, edit_body, owner_headers, register
from fastapi.testclient import TestClient
from PIL import Image
from support import BASIC_QUERY_TYPE, KNOWN_CPF, sign_in

from bemtevi.domain.brand import DEFAULT_PRIMARY
from bemtevi.domain.ready_layouts import READY_LAYOUTS

pytestmark = pytest.mark.backends("sqlite")


def image(width: int, height: int, fmt: str = "PNG", colour: str = "#123456") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format=fmt)
    return buffer.getvalue()


def upload(
    api: TestClient, headers: dict[str, str], group_id: str, kind: str, data: bytes, ctype: str = "image/png"
) -> Any:
    return api.put(f"/api/group/{group_id}/brand/{kind}", headers={**headers, "Content-Type": ctype}, content=data)


def public(api: TestClient, host: str | None = None, domain_url: str | None = None) -> dict[str, Any]:
    headers = {"Host": host} if host else {}
    body = {"domain_url": domain_url} if domain_url else {}
    response = api.post("/api/group/groups-get-public-data", headers=headers, json=body)
    assert response.status_code == 200, response.text
    return dict(response.json()["data"])


@pytest.mark.parametrize(
    ("kind", "size"),
    [
        ("horizontalLogo", (208, 68)),
        ("iconogram", (500, 500)),
        ("loginBanner", (708, 896)),
        ("advancedQueryBanner", (200, 1134)),
    ],
)
def test_each_image_must_have_its_exact_size(api: TestClient, kind: str, size: tuple[int, int]) -> None:
    admin = sign_in(api)
    group = register(api, admin, customer(1, "white-label", whiteLabelUrl="marca.example.com"))["data"]["id"]
    wrong = upload(api, admin, group, kind, image(size[0] + 1, size[1]))
    assert wrong.status_code == 422
    expected = f"The image must be {size[0]}x{size[1]} pixels (it is {size[0] + 1}x{size[1]})"
    assert wrong.json()["message"] == expected and wrong.json()["field"] == kind
    # An API client reads the refusal's own code and the size it must send.
    assert wrong.json()["code"] == "image_wrong_size"
    assert (wrong.json()["expectedWidth"], wrong.json()["expectedHeight"]) == size
    done = upload(api, admin, group, kind, image(*size, fmt="JPEG"), "image/jpeg")
    assert done.status_code == 200, done.text
    served = api.get(done.json()["url"])
    assert served.status_code == 200 and served.headers["content-type"] == "image/jpeg"
    assert Image.open(io.BytesIO(served.content)).size == size
    assert "immutable" in served.headers["cache-control"]


def test_files_that_are_not_images_or_of_other_types_are_refused(api: TestClient) -> None:
    admin = sign_in(api)
    group = register(api, admin, customer(1, "white-label", whiteLabelUrl="marca.example.com"))["data"]["id"]
    fake = upload(api, admin, group, "horizontalLogo", b"\x89PNG\r\n\x1a\nnot really")
    assert fake.status_code == 422 and "not a readable image" in fake.json()["message"]
    gif = upload(api, admin, group, "horizontalLogo", image(208, 68, "GIF"), "image/gif")
    assert gif.status_code == 422 and gif.json()["message"] == "The image must be PNG, JPEG or WebP"
    unknown = upload(api, admin, group, "wallpaper", image(208, 68))
    assert unknown.status_code == 404


def test_colours_are_validated_and_the_brand_falls_back_to_the_parent_then_the_defaults(api: TestClient) -> None:
    admin = sign_in(api)
    wl = register(api, admin, customer(1, "white-label", whiteLabelUrl="marca.example.com"))["data"]
    bad = api.put(f"/api/group/{wl['id']}/brand", headers=admin, json={"primaryColor": "blue"})
    assert bad.status_code == 422 and bad.json()["field"] == "primaryColor"
    set_ = api.put(
        f"/api/group/{wl['id']}/brand", headers=admin, json={"appTitle": "consultas marca", "primaryColor": "#a1b"}
    )
    assert set_.status_code == 200, set_.text
    logo = upload(api, admin, wl["id"], "horizontalLogo", image(208, 68))
    assert logo.status_code == 200
    # A company below the white-label has no brand of its own: it shows its parent's.
    owner = owner_headers(api, wl["ownerEmail"])
    registered = register(api, owner, customer(2))
    company = registered["data"]["id"]
    # Read after the company's registration (the logo's position came before it).
    shown = api.get(f"/api/group/{company}/brand", headers=owner, params={"position": registered["position"]})
    assert shown.status_code == 200, shown.text
    resolved = shown.json()["resolved"]
    assert (resolved["appTitle"], resolved["primaryColor"]) == ("consultas marca", "#AA11BB")
    assert resolved["secondaryColor"] == "#2BB32A"  # nobody set it: the default
    assert resolved["horizontalLogo"] == logo.json()["url"]
    assert shown.json()["own"]["primaryColor"] is None
    # The image address of the company answers the parent's image; an image nobody has is 404.
    inherited = api.get(f"/api/group/{company}/brand/horizontalLogo")
    assert inherited.status_code == 200 and Image.open(io.BytesIO(inherited.content)).size == (208, 68)
    assert api.get(f"/api/group/{company}/brand/loginBanner").status_code == 404
    # Removing the parent's logo brings the default (none) back; emptying a colour too.
    api.delete(f"/api/group/{wl['id']}/brand/horizontalLogo", headers=admin)
    cleared = api.put(f"/api/group/{wl['id']}/brand", headers=admin, json={"primaryColor": ""})
    again = api.get(f"/api/group/{company}/brand", headers=owner, params={"position": cleared.json()["position"]})
    assert again.json()["resolved"]["horizontalLogo"] is None
    assert again.json()["resolved"]["primaryColor"] == DEFAULT_PRIMARY


def test_public_data_follows_the_host_header_when_no_domain_is_given(api: TestClient) -> None:
    admin = sign_in(api)
    wl = register(api, admin, customer(1, "white-label", whiteLabelUrl="marca.example.com:8443"))["data"]
    done = api.put(
        f"/api/group/{wl['id']}/brand", headers=admin, json={"appTitle": "marca forte", "primaryColor": "#112233"}
    )
    api.get("/api/customers", headers=admin, params={"position": done.json()["position"]})
    on_host = public(api, host="marca.example.com:8443")
    assert (on_host["id"], on_host["appTitle"], on_host["primaryColor"], on_host["isMainDomain"]) == (
        wl["id"],
        "marca forte",
        "#112233",
        False,
    )
    assert public(api, domain_url="https://marca.example.com:8443/login")["id"] == wl["id"]
    main = public(api, host="localhost")
    assert main["primaryColor"] == DEFAULT_PRIMARY and main["isMainDomain"] is True
    # After the customer moves to another domain, the old host no longer shows its brand.
    moved = api.put(
        f"/api/customers/{wl['id']}",
        headers=admin,
        json=edit_body(customer(1, "white-label"), whiteLabelUrl="nova.example.com"),
    )
    assert moved.status_code == 200, moved.text
    api.get("/api/customers", headers=admin, params={"position": moved.json()["position"]})
    assert public(api, host="marca.example.com:8443")["id"] != wl["id"]
    assert public(api, host="nova.example.com")["id"] == wl["id"]


def test_public_data_named_with_a_saves_position_shows_the_saved_brand(api: TestClient) -> None:
    """The web app applies a saved brand at once: its next public-data call names the save's position."""
    admin = sign_in(api)
    wl = register(api, admin, customer(1, "white-label", whiteLabelUrl="marca.example.com"))["data"]
    owner = owner_headers(api, wl["ownerEmail"])
    me = api.post("/api/auth/auth", json={"email": wl["ownerEmail"], "password": NEW_PASSWORD}).json()["data"]
    saved = api.put(f"/api/group/{wl['id']}/brand", headers=owner, json={"appTitle": "nova marca"})
    assert saved.status_code == 200, saved.text
    banner = upload(api, owner, wl["id"], "loginBanner", image(708, 896))
    assert banner.status_code == 200, banner.text
    response = api.post(
        "/api/group/groups-get-public-data",
        headers=owner,
        params={"position": banner.json()["position"]},
        json={"group_id": wl["id"], "group_unique_key": me["groupUniqueKey"]},
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert (data["appTitle"], data["loginBanner"]) == ("nova marca", banner.json()["url"])


def test_only_white_labels_edit_their_own_brand_and_nobody_edits_another_tree(api: TestClient) -> None:
    admin = sign_in(api)
    company = register(api, admin, customer(1))["data"]
    owner = owner_headers(api, company["ownerEmail"])
    own = api.put(f"/api/group/{company['id']}/brand", headers=owner, json={"primaryColor": "#000000"})
    assert own.status_code == 403
    other = register(api, admin, customer(2, "white-label", whiteLabelUrl="b.example.com"))["data"]
    beside = api.put(f"/api/group/{other['id']}/brand", headers=owner, json={"primaryColor": "#000000"})
    assert beside.status_code == 404
    assert api.get(f"/api/group/{other['id']}/brand", headers=owner).status_code == 404


def test_the_audit_log_lists_who_did_what_with_filters_and_exports_csv(api: TestClient) -> None:
    admin = sign_in(api)
    wl = register(
        api,
        admin,
        customer(
            1,
            "white-label",
            whiteLabelUrl="marca.example.com",
            quantities={"unit": 3, "batch": 0, "advanced": 0, "api": 0},
        ),
    )["data"]
    owner = owner_headers(api, wl["ownerEmail"])
    api.put(f"/api/group/{wl['id']}/brand", headers=owner, json={"appTitle": "Marca"})
    looked = api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF})
    assert looked.status_code == 200, looked.text
    position = looked.json().get("position")
    # The white-label's owner sees what was done for the white-label (its sign-ins, its brand,
    # its lookup), never the root's other business.
    mine = api.get("/api/audit", headers=owner, params={"position": position, "perPage": 200})
    assert mine.status_code == 200, mine.text
    rows = mine.json()["data"]
    kinds = {(r["aggregateType"], r["eventType"]) for r in rows}
    assert {("Group", "BrandChanged"), ("Consultation", "Recorded"), ("Session", "Opened")} <= kinds
    # Who by name, the target by name, what changed as before -> after; never a secret.
    brand_row = next(r for r in rows if r["eventType"] == "BrandChanged")
    assert brand_row["actorEmail"] == wl["ownerEmail"] and brand_row["actorName"]
    assert (brand_row["targetType"], brand_row["targetName"]) == ("group", "Empresa Número 1 Ltda")
    assert {"field": "appTitle", "before": None, "after": "Marca", "kind": "value"} in brand_row["changes"]
    lookup = next(r for r in rows if r["aggregateType"] == "Consultation")
    assert lookup["targetType"] == "document" and lookup["targetName"] == KNOWN_CPF
    shown = [str(c) + str(r["targetName"]) for r in rows for c in r["changes"]]
    assert shown and not [t for t in shown if "password" in t.lower() or "hash" in t.lower() or "$argon" in t]
    assert any(r["eventType"] == "PasswordChanged" and r["changes"] == [] for r in rows)
    assert all(r["tenantId"] == wl["id"] or r["aggregateId"] == wl["id"] for r in rows)
    # A second brand save shows the old title as "before", and only what changed.
    again = api.put(f"/api/group/{wl['id']}/brand", headers=owner, json={"appTitle": "Marca Nova"})
    newest = api.get(
        "/api/audit", headers=owner, params={"position": again.json()["position"], "type": "Group.BrandChanged"}
    ).json()["data"][0]
    assert newest["changes"] == [{"field": "appTitle", "before": "Marca", "after": "Marca Nova", "kind": "value"}]
    # The "who" filter offers names; the target filter finds by part of a name.
    actors = mine.json()["actors"]
    assert {"id": brand_row["actorId"], "name": brand_row["actorName"]} in actors
    by_target = api.get("/api/audit", headers=owner, params={"target": KNOWN_CPF[3:8]}).json()["data"]
    assert by_target and {r["targetName"] for r in by_target} == {KNOWN_CPF}
    # Filters: type, user, period.
    only_brand = api.get("/api/audit", headers=owner, params={"type": "Group"}).json()["data"]
    assert only_brand and {r["aggregateType"] for r in only_brand} == {"Group"}
    by_type = api.get("/api/audit", headers=owner, params={"type": "Session.Opened"}).json()["data"]
    assert by_type and {r["eventType"] for r in by_type} == {"Opened"}
    nobody = api.get("/api/audit", headers=owner, params={"user_id": "00000000-0000-0000-0000-000000000000"})
    assert nobody.json()["total"] == 0
    past = api.get("/api/audit", headers=owner, params={"from": "2020-01-01", "to": "2020-01-31"})
    assert past.json()["total"] == 0
    # Above or beside: not found. The root's admin reads the white-label's log and its own.
    root_id = api.get("/api/customers", headers=admin).json()["data"][0]["parentId"]
    assert api.get("/api/audit", headers=owner, params={"group_id": root_id}).status_code == 404
    assert (
        api.get("/api/audit", headers=admin, params={"group_id": wl["id"]}).json()["total"] == mine.json()["total"] + 1
    )
    everything = api.get("/api/audit", headers=admin, params={"children": "true", "perPage": 200}).json()
    assert everything["total"] > mine.json()["total"]
    # CSV: ';', UTF-8, the dated file name.
    exported = api.get("/api/audit/export", headers=owner, params={"type": "Group", "lang": "pt-BR"})
    assert exported.status_code == 200
    name = re.search(r'filename="([^"]+)"', exported.headers["content-disposition"])
    assert name and re.fullmatch(r"audit_\d{2}-\d{2}-\d{4}_\d{2}-\d{2}-\d{2}\.csv", name.group(1))
    table = list(csv.reader(io.StringIO(exported.content.decode("utf-8")), delimiter=";"))
    assert table[0][:3] == ["Data e hora (Brasília)", "Empresa", "Quem"] and len(table) == len(only_brand) + 1
    # A plain user has no audit screen.
    assert api.get("/api/audit", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_an_uploaded_image_shows_in_the_audit_log_by_format_and_size_never_by_id(api: TestClient) -> None:
    admin = sign_in(api)
    wl = register(api, admin, customer(1, "white-label", whiteLabelUrl="marca.example.com"))["data"]
    banner = upload(api, admin, wl["id"], "loginBanner", image(708, 896, fmt="JPEG"), "image/jpeg")
    assert banner.status_code == 200, banner.text
    rows = api.get(
        "/api/audit",
        headers=admin,
        params={"position": banner.json()["position"], "type": "BrandImage", "children": "true"},
    ).json()["data"]
    assert [(r["targetType"], r["targetName"]) for r in rows] == [("image", "JPEG, 708 × 896 px")]
    exported = api.get("/api/audit/export", headers=admin, params={"type": "BrandImage", "children": "true"})
    assert "JPEG, 708 × 896 px" in exported.content.decode("utf-8")
    assert rows[0]["targetId"] not in exported.content.decode("utf-8")


def test_the_audit_log_shows_a_role_change_by_name_sorts_across_pages_and_keeps_tenants_apart(
    api: TestClient,
) -> None:
    admin = sign_in(api)
    first = register(api, admin, customer(11, "white-label", whiteLabelUrl="a.example.com"))["data"]
    second = register(api, admin, customer(12, "white-label", whiteLabelUrl="b.example.com"))["data"]
    owner_a = owner_headers(api, first["ownerEmail"])
    owner_b = owner_headers(api, second["ownerEmail"])
    person = {
        "name": "Pessoa Auditada",
        "email": "auditada@empresa.com.br",
        "cpf": "52998224725",
        "phone": "(11) 98765-4321",
        "functions": "Analista",
        "role": "user",
    }
    added = api.post("/api/users", headers=owner_a, json=person)
    assert added.status_code == 200, added.text
    user_id = added.json()["data"]["id"]
    edited = api.put(
        f"/api/users/{user_id}",
        headers=owner_a,
        json={**{k: v for k, v in person.items() if k != "email"}, "role": "admin"},
    )
    assert edited.status_code == 200, edited.text
    log = api.get("/api/audit", headers=owner_a, params={"position": edited.json()["position"], "perPage": 200})
    rows = log.json()["data"]
    role = next(r for r in rows if r["eventType"] == "RoleChanged")
    assert role["changes"] == [{"field": "role", "before": "user", "after": "admin", "kind": "value"}]
    assert (role["targetType"], role["targetId"], role["targetName"]) == ("user", user_id, "Pessoa Auditada")
    assert role["actorName"] == "Responsável 11"
    # The details edit re-sent the whole form: nothing of it changed but the role, so no details row
    # lists unchanged fields.
    assert all(c["before"] != c["after"] for r in rows for c in r["changes"])
    # Sorting is the server's, across pages: the first row of page 2 follows the last of page 1.
    by_target = [
        api.get("/api/audit", headers=owner_a, params={"order": "targetName", "perPage": 3, "page": p}).json()["data"]
        for p in (1, 2)
    ]
    names = [r["targetName"] for page in by_target for r in page]
    present = [n.lower() for n in names if n is not None]
    assert present == sorted(present) and names[: len(present)] == [n for n in names if n is not None]
    newest_first = api.get("/api/audit", headers=owner_a, params={"order": "-createdAt"}).json()["data"]
    assert [r["position"] for r in newest_first] == sorted((r["position"] for r in newest_first), reverse=True)
    refused = api.get("/api/audit", headers=owner_a, params={"order": "position; DROP TABLE users"})
    assert refused.status_code == 400
    # The other tenant's owner sees nothing of it: no row, no actor, no name.
    other = api.get("/api/audit", headers=owner_b, params={"perPage": 200, "children": True}).json()
    assert other["data"] and all(second["id"] in (r["tenantId"], r["aggregateId"]) for r in other["data"])
    assert "Pessoa Auditada" not in str(other) and "Responsável 11" not in str(other)
    assert api.get("/api/audit", headers=owner_b, params={"group_id": first["id"]}).status_code == 404


def test_the_catalogue_and_suppliers_show_in_the_audit_log_by_name_and_readable_fields(api: TestClient) -> None:
    admin = sign_in(api)

    def ok(response: Any) -> dict[str, Any]:
        assert response.status_code == 200, response.text
        return dict(response.json())

    query_type = BASIC_QUERY_TYPE
    key = ok(api.post("/api/query-types", headers=admin, json=query_type))["id"]
    toggles = {**query_type["toggles"], "benefit": True}
    ok(api.put(f"/api/query-types/{key}", headers=admin, json={**query_type, "cacheDays": 3, "toggles": toggles}))
    ok(api.post(f"/api/query-types/{key}/status", headers=admin, json={"active": False}))
    layout = {
        "fileName": "clientes",
        "finalFileName": "clientes_enriquecidos",
        "returnExtension": "csv",
        "acceptedExtension": "txt",
        "kind": "fixed",
        "delimiter": "",
        "firstLine": False,
        "table": "pessoas",
        "rows": [
            {"name": "nome", "type": "text", "order": 2, "format": "", "size": 10, "direction": "entry"},
            {"name": "cpf", "type": "document", "order": 1, "format": "", "size": 11, "direction": "entry"},
            {"name": "cpf", "type": "document", "order": 1, "format": "", "size": 11, "direction": "exit"},
        ],
    }
    first = ok(api.post("/api/layouts", headers=admin, json=layout))["id"]
    second = ok(api.post("/api/layouts", headers=admin, json={**layout, "fileName": "empresas"}))["id"]
    ok(api.put(f"/api/layouts/{first}", headers=admin, json={**layout, "fileName": "clientes_v2", "table": "cadastro"}))
    supplier = {
        "name": "Vendor Brasil",
        "contact": "suporte@vendor.example",
        "url": "http://vendor.example",
        "server": "127.0.0.1",
        "port": 8900,
        "route": "/v1/consulta/{document}",
        "httpMethod": "GET",
        "authMethod": "bearer",
        "inputType": "both",
        "token": "tok-Segredo-auditado",
        "allowedQueryTypes": ["cpf-complete"],
        "allowedLayouts": [first],
        "cacheDays": 30,
        "validityDays": 90,
    }
    supplier_id = ok(api.post("/api/suppliers", headers=admin, json=supplier))["id"]
    edited = {**supplier, "name": "Vendor Sul", "token": "tok-Outro-segredo", "allowedLayouts": [first, second]}
    ok(api.put(f"/api/suppliers/{supplier_id}", headers=admin, json=edited))
    last = ok(api.post(f"/api/suppliers/{supplier_id}/status", headers=admin, json={"active": False}))

    log = api.get("/api/audit", headers=admin, params={"position": last["position"], "perPage": 200})
    assert log.status_code == 200, log.text
    rows = log.json()["data"]
    # Bookkeeping aggregates are not the log's; secrets (sealed or not) never show.
    assert not {r["aggregateType"] for r in rows} & {"QueryTypeDefaults", "VendorList"}
    assert "Segredo" not in log.text and "secret" not in log.text and "gAAAA" not in log.text

    def row(aggregate: str, event: str, target: str | None = None) -> dict[str, Any]:
        found = [
            r
            for r in rows
            if (r["aggregateType"], r["eventType"]) == (aggregate, event)
            and target in (None, r["targetId"], r["targetName"])
        ]
        assert len(found) == 1, (aggregate, event, found)
        return found[0]

    def changes(r: dict[str, Any]) -> dict[str, tuple[str | None, str | None]]:
        return {c["field"]: (c["before"], c["after"]) for c in r["changes"]}

    # A query type: named, its toggles and days field by field, its status.
    created = row("QueryTypeDefinition", "Created", "Pessoa física básica")
    assert (created["targetType"], created["targetName"]) == ("query_type", "Pessoa física básica")
    assert changes(created)["cache_days"] == (None, "7") and changes(created)["toggle_phone"] == (None, "true")
    qt_edit = row("QueryTypeDefinition", "Edited")
    assert changes(qt_edit) == {"toggle_benefit": ("false", "true"), "cache_days": ("7", "3")}
    off = row("QueryTypeDefinition", "Inactivated")
    assert off["targetName"] == "Pessoa física básica" and changes(off) == {"status": ("active", "inactive")}
    # A layout: its current file name, its spec as fields (rows in order), only what changed on an edit.
    made = row("Layout", "Created", first)
    assert (made["targetType"], made["targetName"]) == ("layout", "clientes_v2")
    spec = changes(made)
    assert spec["kind"] == (None, "fixed") and spec["accepted_extension"] == (None, "txt")
    assert spec["entry_fields"] == (None, "cpf (document, 11), nome (text, 10)")
    assert spec["exit_fields"] == (None, "cpf (document, 11)")
    assert not any((c["after"] or "").startswith("{") for r in rows for c in r["changes"])
    assert changes(row("Layout", "Edited")) == {
        "file_name": ("clientes", "clientes_v2"),
        "table": ("pessoas", "cadastro"),
    }
    # The root's layouts and a supplier's allowed layouts by file name, not by id.
    grown = next(r for r in rows if r["eventType"] == "LayoutsChanged")  # newest first
    # (after the ready layouts the first start enabled for the root)
    ready = ", ".join(r.spec.file_name for r in READY_LAYOUTS)
    assert changes(grown)["enabled_layouts"] == (f"{ready}, clientes_v2", f"{ready}, clientes_v2, empresas")
    # A supplier: its current name, its settings, its layouts by name, its status.
    registered = row("Vendor", "Registered")
    assert (registered["targetType"], registered["targetName"]) == ("supplier", "Vendor Sul")
    assert changes(registered)["auth_method"] == (None, "bearer")
    assert changes(row("Vendor", "Edited")) == {
        "name": ("Vendor Brasil", "Vendor Sul"),
        "allowed_layouts": ("clientes_v2", "clientes_v2, empresas"),
    }
    assert changes(row("Vendor", "StatusChanged")) == {"status": ("active", "inactive")}
    exported = api.get("/api/audit/export", headers=admin, params={"type": "Vendor", "lang": "en-US"})
    # The export says what the list gained (as the screen does), not both lists whole.
    assert "Allowed layouts: + empresas" in exported.text and "Segredo" not in exported.text

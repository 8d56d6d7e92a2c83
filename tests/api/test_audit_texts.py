"""The audit log reads as sentences: each row carries the event's details (every readable field, changed or not)
with names instead of ids (a batch's file and layout, a token's creator, a grant's other company, query types),
batches and API tokens are named targets, the filter offers every kind of event, and the web app gets that list
(OpenAPI schema, then its generated client) so that its test checks both languages have a sentence for each.

The rows come from the read model on SQLite and on PostgreSQL (the ``platform`` fixture)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from uuid import UUID

from audit_history import LAYOUT, cpf, customer_day, ok
from customers_support import customer, owner_headers, register
from fastapi.testclient import TestClient
from support import KNOWN_CPF, api_schema, sign_in

from bemtevi.bootstrap import Platform
from bemtevi.domain.audit import AuditedAggregate
from bemtevi.projections.audit import IN_PLACE_KINDS, audit_event_kinds, audited_event_types

ROOT = Path(__file__).resolve().parents[2]
GENERATED_KINDS = ROOT / "webapp" / "src" / "store" / "generated" / "auditEventKinds.ts"
UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-")


# -- the list of kinds: the read model's, published, and the web app's --


def test_every_kind_the_read_model_records_is_listed_and_nothing_that_never_happens() -> None:
    kinds = audit_event_kinds()
    folded = {t.__qualname__ for t in audited_event_types()}
    # Each aggregate's own events, the library's base classes left out.
    assert {"Batch.Submitted", "Batch.Finished", "ApiToken.Generated", "DataSubjectReport.Requested"} <= set(kinds)
    assert {"Layout.Created", "QueryTypeDefinition.Created"} <= set(kinds)  # a creation named "Created" stays
    assert not {"Batch.Created", "Batch.Event", "User.Created", "Group.Event"} & set(kinds)
    assert set(IN_PLACE_KINDS) <= set(kinds)
    assert set(kinds) - set(IN_PLACE_KINDS) <= folded
    # Every event class the fold takes is a kind, unless it is a base class that is never appended.
    for event_type in audited_event_types():
        name = event_type.__qualname__
        if name not in kinds:
            assert name.endswith((".Event", ".Created")), name
            assert not issubclass(event_type, AuditedAggregate.Created) or name.endswith(".Created"), name


def test_the_schema_and_the_web_apps_generated_list_are_the_read_models() -> None:
    """The web app's generated list (``npm run codegen``) is the schema's: its vitest checks that both languages
    name each kind and say it as a sentence, so a new event cannot ship unreadable."""
    schemas = api_schema()["components"]["schemas"]
    assert schemas["AuditEventKind"]["enum"] == audit_event_kinds()
    text = GENERATED_KINDS.read_text(encoding="utf-8")
    listed = re.search(r"AUDIT_EVENT_KINDS = (\[.*?\]) as const", text, re.DOTALL)
    assert listed, text
    assert json.loads(listed.group(1)) == audit_event_kinds()


# -- rows with details and names --


def test_batches_tokens_grants_and_lookups_read_with_names_and_details(platform: Platform, api: TestClient) -> None:
    day = customer_day(platform, api, 41)
    admin, body, owner = day.admin, day.body, day.owner
    group_id = day.registered["id"]
    looked = ok(api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF}))

    log = ok(api.get("/api/audit", headers=owner, params={"position": looked["position"], "perPage": 200}))
    rows = log["data"]
    owner_name = next(r["actorName"] for r in rows if r["actorEmail"] == day.registered["ownerEmail"])

    def row(kind: str) -> dict[str, Any]:
        found = [r for r in rows if f"{r['aggregateType']}.{r['eventType']}" == kind]
        assert len(found) == 1, (kind, [f"{r['aggregateType']}.{r['eventType']}" for r in rows])
        return found[0]

    submitted = row("Batch.Submitted")
    target = (submitted["targetType"], submitted["targetId"], submitted["targetName"])
    assert target == ("batch", day.batch_id, "clientes.csv")
    assert submitted["actorName"] == owner_name
    details = submitted["details"]
    # The layout and the query type by name; the ledger's reservation is no detail of a person's.
    assert (details["records"], details["layout_id"], details["kind"]) == ("3", "CPF básico", "batch")
    # A seeded type under its seeded name stays a key: the words file names it in the reader's language.
    assert details["query_type"] in (None, "cpf-complete")
    assert "reservation_id" not in details and not UUID_TEXT.search(json.dumps(details))
    changes = {c["field"]: c["after"] for c in submitted["changes"]}
    assert changes["layout_id"] == "CPF básico"
    # The system's steps name the batch too (its file from the first event), with their own details.
    finished = row("Batch.Finished")
    assert finished["targetName"] == "clientes.csv" and finished["actorId"] is None
    assert [finished["details"][f] for f in ("records", "found", "charged")] == ["3", "2", "2"]
    assert row("Batch.Progressed")["details"]["records_done"] == "2"
    assert row("Batch.Started")["targetName"] == "clientes.csv"

    generated = row("ApiToken.Generated")
    assert (generated["targetType"], generated["targetId"], generated["targetName"]) == (
        "token",
        day.token["id"],
        "ERP",
    )
    assert generated["details"]["created_by"] == owner_name
    assert generated["details"]["query_types"] == "cpf-complete"

    lookup = row("Consultation.Recorded")
    assert lookup["details"]["channel"] == "panel" and lookup["details"]["queryType"] == "cpf-complete"
    assert lookup["details"]["credits"] == "1"

    # The customer's owner sees what the customer received, and from whom, by name.
    received = [r for r in rows if r["eventType"] == "GrantReceived" and r["details"]["category"] == "batch"]
    assert len(received) == 1 and received[0]["details"]["amount"] == "7"
    assert received[0]["targetName"] == body["companyName"]
    assert not UUID_TEXT.search(received[0]["details"]["counterparty"])
    # Nowhere in the page an id in place of a name, in the details or the changes.
    for r in rows:
        for field in ("layout_id", "created_by", "counterparty", "query_type", "queryType"):
            assert not UUID_TEXT.search(str(r["details"].get(field) or "")), (r["eventType"], field)
    # Every kind the log can show is offered to the filter.
    assert log["kinds"] == audit_event_kinds()

    # The root's admin sees the grant as given to the customer, by name.
    everything = ok(api.get("/api/audit", headers=admin, params={"type": "CreditAccount.Granted", "perPage": 200}))
    granted = [r for r in everything["data"] if r["targetId"] == group_id and r["details"]["category"] == "batch"]
    assert len(granted) == 1 and granted[0]["targetName"] == body["companyName"]
    assert granted[0]["details"]["counterparty"] == body["companyName"]

    # Filters: by kind (a whole aggregate, or one event) and by user.
    batches = ok(api.get("/api/audit", headers=owner, params={"type": "Batch", "perPage": 200}))["data"]
    assert {r["eventType"] for r in batches} == {"Submitted", "Started", "Progressed", "Finished"}
    only_tokens = ok(api.get("/api/audit", headers=owner, params={"type": "ApiToken.Generated"}))["data"]
    assert [r["targetName"] for r in only_tokens] == ["ERP"]
    mine = ok(
        api.get("/api/audit", headers=owner, params={"type": "Batch", "user_id": submitted["actorId"], "perPage": 200})
    )["data"]
    assert [r["eventType"] for r in mine] == ["Submitted"]  # the steps were the system's
    # The target filter finds a batch by its file's name.
    by_file = ok(api.get("/api/audit", headers=owner, params={"target": "clientes.c", "perPage": 200}))["data"]
    assert by_file and {r["targetName"] for r in by_file} == {"clientes.csv"}


# -- the dashboard counts batches and manual enrichments too --


def test_the_dashboard_counts_the_groups_batches_and_manual_enrichments(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    layout_id = ok(api.post("/api/layouts", headers=admin, json=LAYOUT))["id"]
    body = customer(42, "white-label", whiteLabelUrl="marca42.com.br", enabledLayouts=[layout_id])
    body["quantities"] = {"unit": 0, "batch": 20, "advanced": 0, "api": 0}
    registered = register(api, admin, body)["data"]
    owner = owner_headers(api, registered["ownerEmail"])
    before = ok(api.get("/api/dashboard", headers=owner))["data"]
    assert before["batches"] == [
        {"kind": "batch", "batches": 0, "records": 0, "done": 0, "credits": 0},
        {"kind": "manual", "batches": 0, "records": 0, "done": 0, "credits": 0},
    ]
    # The white-label's customer, whose file the white-label enriches by hand (charged to the customer).
    child_body = customer(43, "company", enabledLayouts=[layout_id])
    child_body["quantities"] = {**child_body["quantities"], "batch": 5}
    child = register(api, owner, child_body)["data"]

    def send(documents: tuple[str, ...], **extra: str) -> str:
        shown = ok(
            api.post(
                "/api/batches/uploads",
                headers={**owner, "Content-Type": "application/octet-stream"},
                params={"layoutId": layout_id, "fileName": "lista.csv"},
                content=("CPF\n" + "".join(f"{d}\n" for d in documents)).encode(),
            ),
            201,
        )
        made = ok(api.post("/api/batches", headers=owner, json={"uploadId": shown["uploadId"], **extra}), 201)
        return str(made["id"])

    ran = send((KNOWN_CPF, cpf(3), cpf(4)))
    send((cpf(5),))
    send((cpf(6), cpf(7)), groupId=child["id"])
    steps = platform.batches.steps
    steps.start(UUID(ran))
    position = steps.finish(UUID(ran), 3, 2, 0, "retorno.csv")

    mine = ok(api.get("/api/dashboard", headers=owner, params={"position": position}))["data"]
    assert mine["batches"] == [
        {"kind": "batch", "batches": 2, "records": 4, "done": 3, "credits": 2},
        {"kind": "manual", "batches": 0, "records": 0, "done": 0, "credits": 0},
    ]
    child_owner = owner_headers(api, child["ownerEmail"])
    theirs = ok(api.get("/api/dashboard", headers=child_owner, params={"position": position}))["data"]
    assert theirs["batches"][1] == {"kind": "manual", "batches": 1, "records": 2, "done": 0, "credits": 0}
    assert theirs["batches"][0]["batches"] == 0

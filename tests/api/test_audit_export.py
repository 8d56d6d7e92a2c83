"""The audit log's export reads as the screen does (issue 37): each row as its sentence in the exporting person's
language (pt-BR by default, en-US by the language the web app sends or the browser's Accept-Language), names
instead of ids, channels and fields translated, and the machine columns an auditor cross-checks; CSV and XLSX."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from audit_history import customer_day, ok
from fastapi.testclient import TestClient
from python_calamine import CalamineWorkbook
from support import KNOWN_CPF

from bemtevi.bootstrap import Platform
from bemtevi.projections.audit import audit_event_kinds

pytestmark = pytest.mark.backends("sqlite")

UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
PERSON = {
    "name": "Pessoa Auditada",
    "email": "auditada@empresa51.com.br",
    "cpf": "52998224725",
    "phone": "(11) 98765-4321",
    "functions": "Analista",
    "role": "user",
}


def read(response: Any) -> list[list[str]]:
    """The file as a spreadsheet reads it, every cell as text (a number without a decimal point)."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("text/csv"):
        return list(csv.reader(io.StringIO(response.content.decode("utf-8"), newline=""), delimiter=";"))
    sheet = CalamineWorkbook.from_filelike(io.BytesIO(response.content)).get_sheet_by_index(0).to_python()
    return [[str(int(c)) if isinstance(c, float) and c.is_integer() else str(c) for c in row] for row in sheet]


@pytest.fixture
def history(platform: Platform, api: TestClient) -> dict[str, Any]:
    """A customer's realistic day: a batch sent and run, credits granted, an API token, a user added and made an
    admin, a lookup on the panel."""
    day = customer_day(platform, api, 51)
    body, owner = day.body, day.owner
    user_id = ok(api.post("/api/users", headers=owner, json=PERSON))["data"]["id"]
    edited = {**{k: v for k, v in PERSON.items() if k != "email"}, "role": "admin"}
    ok(api.put(f"/api/users/{user_id}", headers=owner, json=edited))
    looked = ok(api.post("/api/consultations", headers=owner, json={"document": KNOWN_CPF}))
    assert platform.projector.wait_for(looked["position"], timeout=10)
    return {"owner": owner, "company": body["companyName"], "owner_name": body["personInCharge"]}


SAID = {
    "pt-BR": [
        "{owner} enviou o lote clientes.csv (3 registros) com o layout CPF básico",
        "Lote clientes.csv: processamento iniciado",
        "Lote clientes.csv: 2 registros processados, 1 encontrado",
        "Lote clientes.csv concluído: 3 registros, 2 encontrados, 2 créditos cobrados",
        "{company} recebeu 7 créditos de Enriquecimento de ",
        "{owner} criou o token de API ERP",
        "{owner} cadastrou o usuário Pessoa Auditada",
        "{owner} alterou o perfil de Pessoa Auditada para Administrador",
        "{owner} consultou 529.982.247-25 (Pessoa física completa, Painel)",
    ],
    "en-US": [
        "{owner} uploaded batch clientes.csv (3 records) with layout CPF básico",
        "Batch clientes.csv: processing started",
        "Batch clientes.csv: 2 records processed, 1 found",
        "Batch clientes.csv finished: 3 records, 2 found, 2 credits charged",
        "{company} received 7 credits of Enrichment from ",
        "{owner} created the API token ERP",
        "{owner} registered the user Pessoa Auditada",
        "{owner} changed the role of Pessoa Auditada to Administrator",
        "{owner} looked up 529.982.247-25 (Complete person (CPF), Panel)",
    ],
}
CHANGED = {
    "pt-BR": ["Perfil: Usuário → Administrador", "Registros: 3", "Layout: CPF básico", "Canal: Painel"],
    "en-US": ["Role: User → Administrator", "Records: 3", "Layout: CPF básico", "Channel: Panel"],
}
HEADER = {
    "pt-BR": ["Data e hora (Brasília)", "Empresa", "Quem", "E-mail", "Tipo de evento", "Evento", "O que aconteceu"],
    "en-US": ["Date and time (Brasília)", "Company", "Who", "E-mail", "Kind of event", "Event", "What happened"],
}
# How the person's language reaches the export: the web app sends its own; else the browser's Accept-Language.
ASKED = [
    ("pt-BR", {"lang": "pt-BR"}, {}),
    ("pt-BR", {}, {}),
    ("pt-BR", {}, {"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.8"}),
    ("en-US", {"lang": "en-US"}, {"Accept-Language": "pt-BR"}),
    ("en-US", {}, {"Accept-Language": "en-US,en;q=0.9"}),
    ("en-US", {}, {"Accept-Language": "fr-FR, pt;q=0.4, en;q=0.6"}),
]


@pytest.mark.parametrize("format", ["csv", "xlsx"])
def test_the_export_says_each_event_as_the_screen_does_in_the_persons_language(
    api: TestClient, history: dict[str, Any], format: str
) -> None:
    for lang, params, headers in ASKED:
        exported = api.get(
            "/api/audit/export", headers={**history["owner"], **headers}, params={**params, "format": format}
        )
        assert re.search(rf'filename="audit_[\d_-]+\.{format}"', exported.headers["content-disposition"])
        table = read(exported)
        header, rows = table[0], table[1:]
        assert header[:7] == HEADER[lang], (lang, params, headers)
        said = [row[header.index(HEADER[lang][6])] for row in rows]
        for sentence in SAID[lang]:
            expected = sentence.format(owner=history["owner_name"], company=history["company"])
            assert any(s.startswith(expected) for s in said), (lang, expected, said)
        changes = " | ".join(row[9] for row in rows)
        assert all(change in changes for change in CHANGED[lang]), (lang, changes)
        text = "\n".join(";".join(row) for row in table)
        # No event's internal name, field name, raw channel, or id of anything named.
        assert not [kind for kind in audit_event_kinds() if kind in text]
        assert not {row[5] for row in rows} & {kind.partition(".")[2] for kind in audit_event_kinds()}
        fields = "records_done|records|found|charged|layout_id|queryType|channel|created_by|counterparty|role"
        raw_field = rf"(^|;) ?({fields}): "
        assert not re.search(raw_field, text, re.MULTILINE) and not re.search(r"\bpanel\b", text)
        assert not UUID_TEXT.search(text), UUID_TEXT.findall(text)
        # The machine columns: the event's number in the log, its UTC moment (ISO 8601), for every row.
        assert all(re.fullmatch(r"\d+", row[10]) for row in rows)
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row[11]) for row in rows)

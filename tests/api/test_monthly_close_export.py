"""The monthly close's files (`;` CSV and XLSX): one line per customer and category with the screen's figures, then
the totals over the customers, named as the specification names exports; every figure is what a fold of the
customer's ledger events says for the month."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime
from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient
from ledger_folds import folded_statement
from python_calamine import CalamineWorkbook
from support import KNOWN_CPF, sign_in
from test_monthly_close import owner_of

from bemtevi.api.routers.credits import EXPORT_LABELS, _utc_bounds
from bemtevi.api.routers.statements import CLOSE_LABELS, STATEMENT_LABELS
from bemtevi.bootstrap import Platform
from bemtevi.domain.credits import credit_account_id
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID
from bemtevi.domain.query_types import Category
from bemtevi.projections.base import SAO_PAULO

FIGURES = list(STATEMENT_LABELS["en-US"]["columns"])[1:]  # after the category


def _table(response: Any, format: str) -> list[list[Any]]:
    assert response.status_code == 200, response.text
    if format == "csv":
        return list(csv.reader(io.StringIO(response.content.decode("utf-8"), newline=""), delimiter=";"))
    return CalamineWorkbook.from_filelike(io.BytesIO(response.content)).get_sheet_by_index(0).to_python()


def _expected(figures: dict[str, Any], lang: str, format: str) -> list[Any]:
    """The figures as the file writes them: text in the CSV, numbers (which a spreadsheet sums) in the XLSX."""
    unlimited = EXPORT_LABELS[lang]["unlimited"]
    typed = str if format == "csv" else float
    return [unlimited if figures[name] is None else typed(figures[name]) for name in FIGURES]


def test_the_monthly_close_files_carry_the_ledgers_figures(platform: Platform, api: TestClient) -> None:
    admin = sign_in(api)
    reseller, reseller_headers = owner_of(platform, api, "Revenda Sul", ROOT_GROUP_ID, GroupType.RESELLER)
    limited = api.put("/api/credits/limits", headers=admin, json={"groupId": reseller, "category": "unit", "limit": 30})
    assert limited.status_code == 200, limited.text
    shop, shop_headers = owner_of(platform, api, "Loja Beta", UUID(reseller), GroupType.COMPANY)
    office, office_headers = owner_of(platform, api, "Escritório Gama", UUID(reseller), GroupType.COMPANY)
    for child, amount in ((shop, 8), (office, 5), (office, -2)):  # the last one taken back
        moved = api.post(
            "/api/credits/grants",
            headers=reseller_headers,
            json={"groupId": child, "category": "unit", "amount": amount},
        )
        assert moved.status_code == 200, moved.text
    for headers, document in ((shop_headers, KNOWN_CPF), (shop_headers, "11144477735"), (office_headers, KNOWN_CPF)):
        looked = api.post("/api/consultations", headers=headers, json={"document": document})
        assert looked.status_code == 200, looked.text
    month = datetime.now(SAO_PAULO).strftime("%Y-%m")
    shown = api.get(
        f"/api/credits/monthly-close?month={month}&position={platform.app.max_position()}", headers=reseller_headers
    ).json()["data"]

    first = datetime.fromisoformat(shown["periodStart"]).date()
    last = datetime.fromisoformat(shown["periodEnd"]).date()
    start, end = _utc_bounds(first, last)
    assert start is not None and end is not None
    for format in ("csv", "xlsx"):
        for lang in ("pt-BR", "en-US"):
            response = api.get(
                f"/api/credits/monthly-close/export?month={month}&format={format}&lang={lang}", headers=reseller_headers
            )
            name = re.search(r'filename="([^"]+)"', response.headers["content-disposition"])
            base = CLOSE_LABELS[lang]["base"]
            assert name and re.fullmatch(
                rf"{base}_{month}_\d{{2}}-\d{{2}}-\d{{4}}_\d{{2}}-\d{{2}}-\d{{2}}\.{format}", name[1]
            )
            table = _table(response, format)
            labels = CLOSE_LABELS[lang]
            header = [labels["customer"], *STATEMENT_LABELS[lang]["columns"].values()]
            assert table[0] == header
            lines = {(row[0], row[1]): row[2:] for row in table[1:]}
            assert len(lines) == len(table) - 1 == 3 * len(Category)  # two customers and the totals
            names = EXPORT_LABELS[lang]["categories"]
            for child in shown["children"]:
                for figures in child["categories"]:
                    category = figures["category"]
                    # The screen's figures, and the ledger's own: a fold of the customer's account events.
                    folded = folded_statement(
                        platform, credit_account_id(UUID(child["groupId"]), Category(category)), start, end, category
                    )
                    assert figures == folded, (child["groupName"], category)
                    assert lines[(child["groupName"], names[category])] == _expected(folded, lang, format)
            for figures in shown["totals"]:
                total = lines[(labels["total"], names[figures["category"]])]
                assert total == _expected(figures, lang, format)
                if format == "xlsx":  # finance sums the customers' lines and finds the total line
                    customers = [row[2:] for row in table[1 : -len(Category)] if row[1] == names[figures["category"]]]
                    summed = [(column, cell) for column, cell in enumerate(total) if isinstance(cell, float)]
                    assert summed, "a total finance can check"
                    for column, cell in summed:
                        assert sum(line[column] for line in customers) == cell, FIGURES[column]

    shop_unit = lines[("Loja Beta", "Unit query")]  # the last file's, an XLSX
    assert dict(zip(FIGURES, shop_unit, strict=True))["received"] == 8
    assert dict(zip(FIGURES, lines[("Escritório Gama", "Unit query")], strict=True))["returned"] == 2

    # A company beside the reseller cannot export its close; a month is YYYY-MM.
    _, stranger = owner_of(platform, api, "Empresa Vizinha", ROOT_GROUP_ID, GroupType.COMPANY)
    refused = api.get(f"/api/credits/monthly-close/export?groupId={reseller}", headers=stranger)
    assert (refused.status_code, refused.json()["code"]) == (404, "group_not_found")
    assert api.get("/api/credits/monthly-close/export?month=2026-13", headers=reseller_headers).status_code == 400

"""Every CSV and XLSX export: a cell a spreadsheet would run as a formula is written as text; every export
route's file is named by the specification's rule, in its format.

A company or user name like ``=HYPERLINK("http://evil.example","x")`` is data a tenant typed; the
finance user who opens the export must see it, not have it run. Each file is read back as a
spreadsheet reads it (csv, python-calamine) and its sheet XML is checked for formula cells.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from python_calamine import CalamineWorkbook
from support import KNOWN_CPF, examples, sign_in

from bemtevi.api import exports
from bemtevi.api.exports import EXPORT_ROWS_PER_SHEET, Cell, csv_bytes, file_response, xlsx_bytes
from bemtevi.bootstrap import Platform
from bemtevi.domain.errors import ExportFailed
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
from bemtevi.domain.users import Role
from bemtevi.projections.base import SAO_PAULO

pytestmark = pytest.mark.backends("sqlite")

EVIL_COMPANY = '=HYPERLINK("http://evil.example","x")'
EVIL_PERSON = "@SUM(1+1)*cmd|' /C calc'!A0"
PASSWORD = "Strong!pass1"
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
# What no spreadsheet runs: a sign alone or a signed number (the placeholder "-", a negative amount).
NUMBER = re.compile(r"[+-]?(\d+([.,]\d+)?)?")


def read_csv(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8"), newline=""), delimiter=";"))


def read_xlsx(content: bytes) -> list[list[Any]]:
    return list(CalamineWorkbook.from_filelike(io.BytesIO(content)).get_sheet_by_index(0).to_python())


def read_sheets(content: bytes) -> list[list[list[Any]]]:
    book = CalamineWorkbook.from_filelike(io.BytesIO(content))
    return [book.get_sheet_by_index(i).to_python() for i in range(len(book.sheet_names))]


def _within(pattern: str, text: str) -> str:
    found = re.search(pattern, text, re.S)
    assert found, pattern
    return found[1]


def bold_headers(content: bytes) -> list[bool]:
    """Per sheet: whether every cell of its first row has a bold font."""
    with zipfile.ZipFile(io.BytesIO(content)) as book:
        styles = book.read("xl/styles.xml").decode("utf-8")
        fonts = re.findall(r"<font>(.*?)</font>", _within(r"<fonts[^>]*>(.*?)</fonts>", styles), re.S)
        xfs = re.findall(r"<xf [^>]*>", _within(r"<cellXfs[^>]*>(.*?)</cellXfs>", styles))
        bold = [("<b/>" in fonts[int(_within(r'fontId="(\d+)"', xf))]) for xf in xfs]
        found = []
        for name in sorted(n for n in book.namelist() if n.startswith("xl/worksheets/sheet")):
            first = _within(r'<row r="1"[^>]*>(.*?)</row>', book.read(name).decode("utf-8"))
            cells = re.findall(r"<c [^>]*>", first)
            styled = [re.search(r' s="(\d+)"', c) for c in cells]
            found.append(bool(cells) and all(bold[int(s[1]) if s else 0] for s in styled))
        return found


def assert_no_formula_cells(content: bytes) -> None:
    with zipfile.ZipFile(io.BytesIO(content)) as book:
        for name in book.namelist():
            if name.startswith("xl/worksheets/"):
                xml = book.read(name).decode("utf-8")
                assert "<f>" not in xml and "<f " not in xml, f"a formula cell in {name}"
                assert "<hyperlink" not in xml, f"a hyperlink in {name}"


def assert_inert(table: list[list[Any]]) -> None:
    """No text cell begins as a formula would, unless it is only a (signed) number."""
    for row in table:
        for cell in row:
            if isinstance(cell, str) and cell.startswith(TRIGGERS):
                assert NUMBER.fullmatch(cell), f"{cell!r} would run as a formula"


@pytest.fixture
def tainted(platform: Platform, api: TestClient) -> dict[str, str]:
    """A company and its owner named to run as formulas, with a grant and a limit change in their history."""
    group_id, _ = platform.identity.register_group(
        SYSTEM, name=EVIL_COMPANY, group_type=GroupType.COMPANY, parent_id=ROOT_GROUP_ID, unit_credit_limit=5
    )
    platform.identity.register_user(
        SYSTEM, group_id=group_id, name=EVIL_PERSON, email="dono@perigo.com.br", password=PASSWORD, role=Role.OWNER
    )
    admin = sign_in(api)
    changed = api.put(
        "/api/credits/limits", headers=admin, json={"groupId": str(group_id), "category": "unit", "limit": 8}
    )
    assert changed.status_code == 200, changed.text
    assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
    return {"group": str(group_id), **admin}


def test_the_balance_history_exports_names_as_text_in_csv_and_xlsx(api: TestClient, tainted: dict[str, str]) -> None:
    admin = {"Authorization": tainted["Authorization"]}
    exported = api.get(
        "/api/credits/history/export", headers=admin, params={"format": "csv", "groupId": tainted["group"]}
    )
    assert exported.status_code == 200, exported.text
    table = read_csv(exported.content)
    assert len(table) > 1 and {row[1] for row in table[1:]} == {"'" + EVIL_COMPANY}
    assert_inert(table)

    exported = api.get(
        "/api/credits/history/export", headers=admin, params={"format": "xlsx", "groupId": tainted["group"]}
    )
    assert exported.status_code == 200, exported.text
    assert_no_formula_cells(exported.content)
    sheet = read_xlsx(exported.content)
    assert len(sheet) > 1 and {row[1] for row in sheet[1:]} == {"'" + EVIL_COMPANY}
    assert_inert(sheet)
    assert all(isinstance(row[4], int | float) for row in sheet[1:]), "amounts stay numbers"


def test_the_audit_export_writes_names_as_text(api: TestClient, platform: Platform, tainted: dict[str, str]) -> None:
    owner = sign_in(api, "dono@perigo.com.br", PASSWORD)
    changed = api.put("/api/me/preferences", headers=owner, json={"preferences": {"newsletter": True}})  # their act
    assert changed.status_code == 200, changed.text
    assert platform.projector.wait_for(changed.json()["position"], timeout=10)
    admin = {"Authorization": tainted["Authorization"]}
    exported = api.get("/api/audit/export", headers=admin, params={"groupId": tainted["group"], "children": True})
    assert exported.status_code == 200, exported.text
    table = read_csv(exported.content)
    assert "'" + EVIL_COMPANY in {row[1] for row in table[1:]}
    assert "'" + EVIL_PERSON in {row[2] for row in table[1:]}
    assert_inert(table)


MONTH = datetime.now(SAO_PAULO).strftime("%Y-%m")
# Each export route and format: its query, the file's name before the São Paulo time stamp, and its header's
# first cell in the language asked for (a ';' CSV in UTF-8 reads back as such only with that separator).
EXPORTS = [
    ("/api/credits/history/export", {"format": "csv"}, "historico_saldos", "Data/hora"),
    ("/api/credits/history/export", {"format": "xlsx", "lang": "en-US"}, "balance_history", "Date/time"),
    ("/api/credits/statement/export", {"lang": "en-US"}, "finance_statement", "Category"),
    ("/api/credits/monthly-close/export", {"month": MONTH}, f"fechamento_mensal_{MONTH}", "Cliente"),
    (
        "/api/credits/monthly-close/export",
        {"month": MONTH, "format": "xlsx", "lang": "en-US"},
        f"monthly_close_{MONTH}",
        "Customer",
    ),
    ("/api/reports/export", {"format": "csv"}, "relatorio", "Período"),
    ("/api/reports/export", {"format": "xlsx", "lang": "en-US"}, "report", "Period"),
    ("/api/audit/export", {"lang": "en-US"}, "audit", "Date and time (Brasília)"),
    ("/api/audit/data-subject/export", {"document": KNOWN_CPF}, f"relatorio_titular_{KNOWN_CPF}", "Data/hora"),
    (
        "/api/audit/data-subject/export",
        {"document": KNOWN_CPF, "format": "pdf", "lang": "en-US"},
        f"data_subject_report_{KNOWN_CPF}",
        None,
    ),
]
MEDIA_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pdf": "application/pdf",
}
FILE_NAME = re.compile(r'attachment; filename="(.+)_(\d{2}-\d{2}-\d{4}_\d{2}-\d{2}-\d{2})\.(\w+)"')


def test_every_export_is_named_by_the_specs_rule_in_its_format(
    api: TestClient, platform: Platform, tainted: dict[str, str]
) -> None:
    admin = {"Authorization": tainted["Authorization"]}
    looked = api.post("/api/consultations", headers=admin, json={"document": KNOWN_CPF})
    assert looked.status_code == 200, looked.text
    assert platform.projector.wait_for(looked.json()["position"], timeout=10)
    for path, params, base, first in EXPORTS:
        answered = api.get(path, headers=admin, params=params)
        assert answered.status_code == 200, (path, answered.text)
        format = params.get("format", "csv")
        assert answered.headers["content-type"] == MEDIA_TYPES[format], path
        name = FILE_NAME.fullmatch(answered.headers["content-disposition"])
        assert name and (name[1], name[3]) == (base, format), (path, answered.headers["content-disposition"])
        stamped = datetime.strptime(name[2], "%d-%m-%Y_%H-%M-%S").replace(tzinfo=SAO_PAULO)
        assert abs(datetime.now(SAO_PAULO) - stamped) < timedelta(minutes=1), (path, "not São Paulo's time")
        if format == "csv":
            assert read_csv(answered.content)[0][0] == first, path
        elif format == "xlsx":
            assert read_xlsx(answered.content)[0][0] == first, path
        else:
            assert answered.content.startswith(b"%PDF-")


def test_a_file_that_cannot_be_written_answers_the_specifications_message() -> None:
    def rows() -> Iterator[list[Any]]:
        yield ["ok"]
        raise KeyError("a row the export could not make")

    for format in ("csv", "xlsx"):
        with pytest.raises(ExportFailed) as refused:
            file_response(["A"], rows(), format, "base")
        assert (refused.value.code, refused.value.message) == ("export_failed", "Error exporting CSV")


# -- the helper every export uses ----------------------------------------------------------------------------

texts = st.one_of(
    st.text(max_size=20),
    st.tuples(st.sampled_from(TRIGGERS), st.text(max_size=20)).map("".join),
    st.sampled_from(["-", "-12", "+3,5", "-", "=1+1", "@x", "\t=1", "\r=1", "'=already quoted"]),
)
cells = st.one_of(texts, st.integers(min_value=-(10**9), max_value=10**9), st.none())


@settings(max_examples=examples(150), deadline=None)
@given(rows=st.lists(st.lists(cells, min_size=3, max_size=3), max_size=5))
def test_any_cell_is_written_inert_and_reads_back_as_written(rows: list[list[Any]]) -> None:
    header = ["A", "B", "C"]
    for table in (read_csv(csv_bytes(header, rows)), read_xlsx(xlsx_bytes(header, rows))):
        assert table[0] == header
        assert_inert(table)
        # A sheet ends at its last cell: rows left empty at the end are not read back.
        read_rows = table[1:] + [["", "", ""]] * (len(rows) - len(table) + 1)
        for written, read in zip(rows, read_rows, strict=True):
            for value, cell in zip(written, read, strict=True):
                text = "" if value is None else value
                # The text, or the text after the one quote that makes it inert; numbers as numbers.
                assert cell == text or cell == str(text) or cell == "'" + str(text), (value, cell)
    assert_no_formula_cells(xlsx_bytes(header, rows))


def test_an_xlsx_holds_65535_records_a_sheet_then_another_with_the_header_in_bold() -> None:
    header = ["Período", "=Consultas"]
    rows: list[list[Cell]] = [[f"=linha {i}", i] for i in range(EXPORT_ROWS_PER_SHEET + 2)]
    content = xlsx_bytes(header, rows, "relatorio")
    first, second = read_sheets(content)
    assert len(first) == EXPORT_ROWS_PER_SHEET + 1  # the header, then 65,535 records
    assert first[0] == second[0] == ["Período", "'=Consultas"]
    assert first[1] == ["'=linha 0", 0] and first[-1] == [f"'=linha {EXPORT_ROWS_PER_SHEET - 1}", 65_534]
    assert second[1:] == [[f"'=linha {i}", i] for i in (65_535, 65_536)]
    assert all(isinstance(row[1], float) for row in (first[1:] + second[1:])), "counts stay numbers"
    assert bold_headers(content) == [True, True]
    assert CalamineWorkbook.from_filelike(io.BytesIO(content)).sheet_names == ["relatorio", "relatorio (2)"]
    assert_no_formula_cells(content)


# Each XLSX export, its query (besides the format) and the text of the tainted fixture it shows.
XLSX_EXPORTS = [
    ("/api/credits/history/export", {"groupId": "{group}"}, EVIL_COMPANY),
    ("/api/credits/monthly-close/export", {"month": MONTH}, EVIL_COMPANY),
    ("/api/reports/export", {"groupBy": "user", "includeChildren": True, "interval": "month"}, EVIL_PERSON),
]


@pytest.mark.parametrize(("path", "query", "evil"), XLSX_EXPORTS, ids=["history", "monthly-close", "report"])
def test_every_xlsx_export_splits_its_sheets_and_writes_no_formula(
    api: TestClient,
    platform: Platform,
    tainted: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    path: str,
    query: dict[str, Any],
    evil: str,
) -> None:
    owner = sign_in(api, "dono@perigo.com.br", PASSWORD)
    admin = {"Authorization": tainted["Authorization"]}
    for headers in (owner, admin):  # two users in the report
        looked = api.post("/api/consultations", headers=headers, json={"document": KNOWN_CPF})
        assert looked.status_code == 200, looked.text
    assert platform.projector.wait_for(platform.app.max_position(), timeout=10)
    params = {**{k: v.format(**tainted) if isinstance(v, str) else v for k, v in query.items()}, "format": "xlsx"}
    answered = api.get(path, headers=admin, params=params)
    assert answered.status_code == 200, answered.text
    (whole,) = read_sheets(answered.content)
    header, *records = whole
    assert len(records) >= 2
    # The same file at one record a sheet (the specification's 65,535, made small here).
    monkeypatch.setattr(exports, "xlsx_bytes", partial(xlsx_bytes, rows_per_sheet=1))
    answered = api.get(path, headers=admin, params=params)
    assert answered.status_code == 200, answered.text
    assert_no_formula_cells(answered.content)
    sheets = read_sheets(answered.content)
    assert [sheet[0] for sheet in sheets] == [header] * len(records)
    assert [row for sheet in sheets for row in sheet[1:]] == records
    assert all(bold_headers(answered.content))
    cells = {cell for sheet in sheets for row in sheet for cell in row}
    assert "'" + evil in cells and evil not in cells
    for sheet in sheets:
        assert_inert(sheet)

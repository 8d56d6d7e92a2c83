"""The files every export answers: ``;`` CSV (UTF-8) and XLSX, with no cell a spreadsheet would run, and the
one way a route answers such a file (``file_response``): written, named, or refused with ``ExportFailed``.

Exports carry what tenants typed (company names, user names, summaries of their changes). A
text beginning with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return before one) is
read by spreadsheets as a formula: ``=HYPERLINK(...)`` becomes a link, ``=cmd|...`` worse. Every
text cell therefore goes through ``inert``, which prefixes such a text with a single quote, as
OWASP recommends for CSV injection; only a sign alone or a signed number is left as it is (the
placeholder ``-``, an amount), since no spreadsheet runs those. XLSX cells are written as what
they are: text as string cells (never formulas, links or numbers read from text), numbers as
numbers; at most 65,535 records a sheet, each sheet with the header.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import partial
from typing import Annotated, Literal

import xlsxwriter
from fastapi import Query, Response
from xlsxwriter.worksheet import Worksheet

from bemtevi.domain.errors import ExportFailed
from bemtevi.projections.base import SAO_PAULO

Cell = str | int | float | None
Writer = Callable[[Sequence[str], Iterable[Sequence[Cell]]], bytes]
FileFormat = Literal["csv", "xlsx", "pdf"]

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MEDIA_TYPES: dict[str, str] = {"csv": "text/csv; charset=utf-8", "xlsx": XLSX, "pdf": "application/pdf"}
# The query parameters of an export route: the file's format (a spreadsheet's) and the language of its texts.
SpreadsheetFormat = Annotated[Literal["csv", "xlsx"], Query()]
ExportLanguage = Annotated[Literal["pt-BR", "en-US"], Query()]

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_SIGNED_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d+)?)?")


def inert(text: str) -> str:
    """``text``, or ``'text`` when a spreadsheet would read it as a formula."""
    if text.startswith(_FORMULA_STARTS) and not _SIGNED_NUMBER.fullmatch(text):
        return "'" + text
    return text


def _csv_cell(value: Cell) -> str | int | float:
    if value is None:
        return ""
    return inert(value) if isinstance(value, str) else value


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> bytes:
    """``;``-separated, CRLF lines, UTF-8."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    writer.writerow([_csv_cell(v) for v in header])
    writer.writerows([_csv_cell(v) for v in row] for row in rows)
    return buffer.getvalue().encode("utf-8")


# The specification's sheet limit, counted as the batch return files count it: records after the header (a
# sheet then holds 65,536 rows, the old XLS maximum).
EXPORT_ROWS_PER_SHEET = 65_535
_SHEET_NAME_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")


def _typed_cell(sheet: Worksheet, row: int, column: int, value: Cell) -> None:
    if isinstance(value, str):
        sheet.write_string(row, column, inert(value))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        sheet.write_number(row, column, value)
    elif value is not None:
        sheet.write_string(row, column, inert(str(value)))


# Not the return files' writer (infra.batches.xlsx_writer): that one writes every value as text, by column with
# Arrow, for a million records' speed (issue 32); an export's cells are typed and its header bold.
def xlsx_bytes(
    header: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    sheet_name: str = "Planilha",
    *,
    rows_per_sheet: int = EXPORT_ROWS_PER_SHEET,
) -> bytes:
    """Every export's XLSX: numbers as numbers (a spreadsheet sums them), texts inert; at most ``rows_per_sheet``
    rows a sheet after the header, each sheet with the header in bold and
    frozen. The sheets are named ``sheet_name``, then ``sheet_name (2)``, and so on."""
    name = _SHEET_NAME_FORBIDDEN.sub("_", sheet_name)[:31] or "Planilha"
    binary = io.BytesIO()
    # Nothing is guessed from a text: no formulas, links or numbers (each cell is written by type anyway). Each row
    # goes to a temporary file as it is written (constant_memory), so a long history is not held cell by cell.
    options = {
        "constant_memory": True,
        "strings_to_formulas": False,
        "strings_to_urls": False,
        "strings_to_numbers": False,
    }
    with xlsxwriter.Workbook(binary, options) as book:
        bold = book.add_format({"bold": True})

        def new_sheet(number: int) -> Worksheet:
            suffix = "" if number == 1 else f" ({number})"
            sheet = book.add_worksheet(name[: 31 - len(suffix)] + suffix)
            for column, label in enumerate(header):
                sheet.write_string(0, column, inert(label), bold)
            sheet.freeze_panes(1, 0)
            return sheet

        sheets, at = 1, 0
        sheet = new_sheet(sheets)
        for values in rows:
            if at == rows_per_sheet:
                sheets, at = sheets + 1, 0
                sheet = new_sheet(sheets)
            at += 1
            for column, value in enumerate(values):
                _typed_cell(sheet, at, column, value)
    return binary.getvalue()


def _latin1(text: str) -> str:
    # The PDF's built-in Helvetica covers Latin-1 (every Portuguese letter); a character beyond it (an emoji in
    # a company name) becomes '?' rather than failing the whole file.
    return text.encode("latin-1", "replace").decode("latin-1")


def pdf_bytes(
    title: str,
    facts: Sequence[tuple[str, str]],
    header: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    col_widths: Sequence[int],
    footer: str = "",
) -> bytes:
    """A landscape A4 report: a title, a few 'label: value' lines, then one table (headings on every page)."""
    # Imported here, by the one function using it: fpdf's import (its font and Unicode tables) is costly, and every
    # API process, worker and CLI command paid it at start for a report most never export.
    from fpdf import FPDF
    from fpdf.enums import WrapMode

    pdf = FPDF(orientation="L", unit="mm", format="A4")
    pdf.set_auto_page_break(auto=True, margin=12)
    pdf.set_title(_latin1(title))
    pdf.set_creator("Bemtevi")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 8, _latin1(title), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 9)
    for label, value in facts:
        pdf.cell(0, 5, _latin1(f"{label}: {value}"), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.set_font("Helvetica", "", 7.5)
    with pdf.table(
        col_widths=tuple(col_widths), line_height=4, text_align="LEFT", wrapmode=WrapMode.CHAR, padding=1
    ) as table:
        heading = table.row()
        for label in header:
            heading.cell(_latin1(label))
        for values in rows:
            row = table.row()
            for cell in values:
                row.cell(_latin1("" if cell is None else str(cell)))
    if footer:
        pdf.ln(3)
        pdf.set_font("Helvetica", "I", 7.5)
        pdf.multi_cell(0, 4, _latin1(footer))
    return bytes(pdf.output())


def file_name(base: str, extension: str) -> str:
    """The specification's name for an exported file: ``<base>_dd-mm-yyyy_hh-mm-ss.<extension>``, São Paulo time."""
    return f"{base}_{datetime.now(SAO_PAULO).strftime('%d-%m-%Y_%H-%M-%S')}.{extension}"


def file_response(
    header: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    format: FileFormat,
    base_name: str,
    *,
    pdf: Writer | None = None,
) -> Response:
    """The table as an attachment in ``format`` named by ``file_name(base_name, format)``. ``rows`` may be lazy:
    they are made while the file is written, so that any failure on the way answers the specification's
    message (``ExportFailed``) rather than an unexpected error. Every XLSX is ``xlsx_bytes``'s (its sheets named
    ``base_name``); ``pdf`` writes a PDF."""
    writers: dict[str, Writer | None] = {
        "csv": csv_bytes,
        "xlsx": partial(xlsx_bytes, sheet_name=base_name),
        "pdf": pdf,
    }
    write = writers[format]
    if write is None:
        raise ValueError(f"no writer for {format}")
    try:
        content = write(header, rows)
    except Exception as e:  # a file the user asked for must fail with the specification's message
        raise ExportFailed() from e
    disposition = f'attachment; filename="{file_name(base_name, format)}"'
    return Response(content, media_type=MEDIA_TYPES[format], headers={"Content-Disposition": disposition})

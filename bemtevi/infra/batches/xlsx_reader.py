"""An upload's XLSX, streamed: the first sheet's rows as its XML inflates.

The first sheet is read as its XML inflates (a block at a time, parsed incrementally, each row dropped once
read), so what a workbook costs is bounded by the records it holds, not by what its sheet inflates to. Cells
come out as python-calamine reads them: shared, inline and formula strings as text, booleans, numbers as
floats, numbers styled as dates as dates, date-times or times. (python-calamine loads a whole sheet before
its first row, so a small file inflating to millions of rows would cost its memory first.)
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
import zipfile
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, cast
from xml.parsers import expat

from bemtevi.domain.batch_errors import TooManyRecords, XlsxUnreadable

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_XML_BLOCK = 1 << 20
# Rows read (empty ones too: formatting can fill a sheet with them) per record the batch may hold.
_XLSX_ROWS_PER_RECORD = 2
_XLSX_MIN_ROWS = 1 << 16
# The shared strings kept while a sheet is read: a workbook of 10 MB holds far fewer distinct texts.
_XLSX_MAX_SHARED_BYTES = 64 << 20
_XLSX_MAX_SHARED_STRINGS = 4 << 20
_DATE_FORMATS = frozenset([*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59)])
_EXCEL_EPOCH = dt.datetime(1899, 12, 30)


def _xml_events(
    archive: zipfile.ZipFile, name: str, events: tuple[Literal["start", "end"], ...] = ("end",)
) -> Iterator[tuple[str, ET.Element]]:
    """A small part's parse events (the workbook, its relationships, the styles), parsed as it inflates."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events)
    with archive.open(name) as part:
        while block := part.read(_XML_BLOCK):
            parser.feed(block)
            yield from cast(Iterator[tuple[str, ET.Element]], parser.read_events())
    parser.close()
    yield from cast(Iterator[tuple[str, ET.Element]], parser.read_events())


def _first_sheet(archive: zipfile.ZipFile) -> str:
    names = set(archive.namelist())
    first = next((e for _, e in _xml_events(archive, "xl/workbook.xml") if e.tag == f"{_MAIN}sheet"), None)
    rel = first.get(f"{_REL}id") if first is not None else None
    if rel and "xl/_rels/workbook.xml.rels" in names:
        for _, e in _xml_events(archive, "xl/_rels/workbook.xml.rels"):
            if e.tag == f"{_PKG_REL}Relationship" and e.get("Id") == rel:
                target = e.get("Target", "")
                name = target.lstrip("/") if target.startswith("/") else "xl/" + target
                if name in names:
                    return name
    sheets = sorted(n for n in names if n.startswith("xl/worksheets/") and n.endswith(".xml"))
    if not sheets:
        raise XlsxUnreadable()
    return sheets[0]


class _SharedStrings:
    """The shared strings as UTF-8 in one buffer with their offsets (no Python object per string), bounded."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.offsets = array("Q", [0])
        self._parts: list[str] | None = None
        self._depth_rph = 0

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index: int) -> str:
        return self.data[self.offsets[index] : self.offsets[index + 1]].decode("utf-8")

    def start(self, name: str, _attrs: dict[str, str]) -> None:
        local = name[name.find(":") + 1 :]
        if local == "si":
            self._parts = []
        elif local == "rPh":  # a phonetic run: not part of the text
            self._depth_rph += 1

    def end(self, name: str) -> None:
        local = name[name.find(":") + 1 :]
        if local == "si" and self._parts is not None:
            self.data += "".join(self._parts).encode("utf-8")
            self.offsets.append(len(self.data))
            self._parts = None
            if len(self) > _XLSX_MAX_SHARED_STRINGS or len(self.data) > _XLSX_MAX_SHARED_BYTES:
                raise XlsxUnreadable()
        elif local == "rPh":
            self._depth_rph -= 1

    def text(self, data: str) -> None:
        if self._parts is not None and not self._depth_rph:
            self._parts.append(data)


def _expat_parse(archive: zipfile.ZipFile, name: str, handler: Any) -> Iterator[None]:
    """Feed the part to an expat parser calling ``handler`` (start, end, text) as it inflates; yields after
    each block so a caller can take what the block gave."""
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.StartElementHandler = handler.start
    parser.EndElementHandler = handler.end
    parser.CharacterDataHandler = handler.text
    with archive.open(name) as part:
        while block := part.read(_XML_BLOCK):
            parser.Parse(block, False)
            yield
    parser.Parse(b"", True)
    yield


def _shared_strings(archive: zipfile.ZipFile) -> _SharedStrings:
    shared = _SharedStrings()
    if "xl/sharedStrings.xml" in archive.namelist():
        for _ in _expat_parse(archive, "xl/sharedStrings.xml", shared):
            pass
    return shared


def _date_styles(archive: zipfile.ZipFile) -> list[str]:
    """Per cell style (``s``): "" for a number, "date" or "time" for a number shown as one."""
    if "xl/styles.xml" not in archive.namelist():
        return []
    custom: dict[int, str] = {}
    styles: list[str] = []
    in_cell_xfs = False
    for event, e in _xml_events(archive, "xl/styles.xml", ("start", "end")):
        tag = e.tag
        if tag == f"{_MAIN}numFmt" and event == "end":
            custom[int(e.get("numFmtId", "0"))] = e.get("formatCode", "")
        elif tag == f"{_MAIN}cellXfs":
            in_cell_xfs = event == "start"
        elif tag == f"{_MAIN}xf" and event == "end" and in_cell_xfs:
            styles.append(_date_kind(int(e.get("numFmtId", "0")), custom))
    return styles


def _date_kind(number_format: int, custom: dict[int, str]) -> str:
    if number_format in custom:
        code = custom[number_format]
        plain = "".join(part for i, part in enumerate(code.split('"')) if i % 2 == 0)
        plain = "".join(c for c in plain.split(";")[0] if c not in "\\_*")
        while "[" in plain and "]" in plain[plain.index("[") :]:
            plain = plain[: plain.index("[")] + plain[plain.index("]", plain.index("[")) + 1 :]
        lowered = plain.lower()
        if any(c in lowered for c in "dy"):
            return "date"
        return "time" if any(c in lowered for c in "hs") else ""
    if number_format in _DATE_FORMATS:
        return "time" if number_format in (*range(18, 22), *range(45, 48)) else "date"
    return ""


def _excel_date(value: float, kind: str) -> dt.datetime | dt.date | dt.time:
    moment = _EXCEL_EPOCH + dt.timedelta(days=value)
    if kind == "time" or value < 1:
        return moment.time()
    return moment.date() if value.is_integer() else moment


_COLUMNS: dict[str, int] = {}


def _column(reference: str) -> int:
    """The 0-based column of a cell reference ("AB12" is 27)."""
    letters = reference.rstrip("0123456789")
    index = _COLUMNS.get(letters)
    if index is None:
        index = 0
        for ch in letters.upper():
            index = index * 26 + ord(ch) - 64
        index -= 1
        if len(_COLUMNS) < 20_000:  # a sheet has at most 16,384 columns; anything else is not kept
            _COLUMNS[letters] = index
    return index


class _SheetRows:
    """Collects a sheet's rows as expat reads them: each its cell values by (absolute) column, the first
    the sheet's row 1 (the header; empty if the sheet skips it). Rows the sheet skips are not made up (empty
    rows are no records), and cells are kept by column (a far column costs nothing).

    The handlers run once per element of the sheet (the reader's cost): names are compared as written, a
    namespace prefix ("x:c") stripped only when the sheet uses one."""

    def __init__(self, shared: _SharedStrings, styles: list[str], max_rows: int | None, max_records: int) -> None:
        self.shared = shared
        self.styles = styles
        self.max_rows = max_rows
        self.max_records = max_records
        self.rows: list[dict[int, Any]] = []  # the rows read since the caller last took them
        self.rows_read = 0
        self._cells: dict[int, Any] | None = None
        self._last_column = -1
        self._kind = "n"
        self._style = ""
        self._column = 0
        self._text: list[str] = []
        self._capture = False
        self._in_cell = False
        self._in_rph = 0
        self._prefixed = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if self._prefixed:
            name = name[name.find(":") + 1 :]
        if name == "c":
            cells = self._cells
            if cells is None:
                return
            self._in_cell = True
            self._kind = attrs.get("t", "n")
            style = attrs.get("s")
            self._style = self.styles[int(style)] if style is not None and int(style) < len(self.styles) else ""
            ref = attrs.get("r")
            self._column = _column(ref) if ref else self._last_column + 1
            self._last_column = self._column
            self._text = []
        elif name == "v" or name == "t":
            self._capture = self._in_cell and not self._in_rph
        elif name == "row":
            self.rows_read += 1
            if self.max_rows is not None and self.rows_read > self.max_rows:
                raise TooManyRecords(self.max_records)
            if self.rows_read == 1 and attrs.get("r", "1") != "1":
                self.rows.append({})  # the sheet has no row 1: no header
            self._cells = {}
            self._last_column = -1
        elif name == "rPh":
            self._in_rph += 1
        elif ":" in name and self._cells is None and not self.rows_read:
            self._prefixed = True  # the worksheet's own element, prefixed: the sheet's names are

    def end(self, name: str) -> None:
        if self._prefixed:
            name = name[name.find(":") + 1 :]
        self._capture = False
        if name == "c":
            cells = self._cells
            if cells is None or not self._in_cell:
                return
            self._in_cell = False
            if self._column not in cells:
                cells[self._column] = self._value("".join(self._text))
        elif name == "row":
            if self._cells is not None:
                self.rows.append(self._cells)
                self._cells = None
        elif name == "rPh":
            self._in_rph -= 1

    def text(self, data: str) -> None:
        if self._capture:
            self._text.append(data)

    def _value(self, text: str) -> Any:
        kind = self._kind
        if kind == "s":
            return self.shared[int(text)] if text else ""
        if kind == "n":
            if not text:
                return ""
            number = float(text)
            return _excel_date(number, self._style) if self._style else number
        if kind == "b":
            return text.strip() == "1"
        return text  # inlineStr, str (a formula's text), e (an error), d (an ISO date)


def xlsx_rows(path: Path, max_records: int | None) -> Iterator[dict[int, Any]]:
    """The first sheet's rows, its row 1 first (see ``_SheetRows``)."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise XlsxUnreadable() from error
    with archive:
        try:
            sheet = _first_sheet(archive)
            shared = _shared_strings(archive)
            styles = _date_styles(archive)
            max_rows = None if max_records is None else max(_XLSX_MIN_ROWS, _XLSX_ROWS_PER_RECORD * (max_records + 1))
            rows = _SheetRows(shared, styles, max_rows, max_records or 0)
            for _ in _expat_parse(archive, sheet, rows):
                taken, rows.rows = rows.rows, []
                yield from taken
        except (XlsxUnreadable, TooManyRecords):
            raise
        except Exception as error:  # not the XML of a workbook, a shared string's index out of range...
            raise XlsxUnreadable() from error

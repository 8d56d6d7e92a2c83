"""A return file's XLSX, written by column.

Each sheet's XML is made by Arrow's string kernels, a chunk of rows at a time, and deflated into the workbook as
it is made (written cell by cell, a million records took seven times the CSV's time). Every value is an inline
string: text as sent (leading zeros kept, "=..." never a formula); an empty value is a blank cell. The parts are
the least a workbook needs, with fixed times: the same records, the same bytes. At most ``XLSX_ROWS_PER_SHEET``
records a sheet (the specification's rule), then another sheet with the header again.
"""

from __future__ import annotations

import struct
import zlib
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

XLSX_ROWS_PER_SHEET = 65_535

_SHEET_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_DOC_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
_SHEET_START = (f'{_XML_HEAD}<worksheet xmlns="{_SHEET_NS}" xmlns:r="{_DOC_RELS}"><sheetData>\n').encode()
_SHEET_END = b"</sheetData></worksheet>"
_STYLES = (
    f'{_XML_HEAD}<styleSheet xmlns="{_SHEET_NS}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font>'
    '</fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/>'
    '</fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="1">'
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs><cellStyles count="1">'
    '<cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'
)
# What XML 1.0 cannot hold, written as Excel writes it (_xHHHH_); tab and line breaks are text.
_XML_INVALID = "[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x{fffe}\\x{ffff}]"
# The bytes that make a column need escaping: what XML escapes and the controls it cannot hold (U+FFFE and
# U+FFFF, EF BF BE and EF BF BF in UTF-8, are looked for apart).
_XML_SPECIAL_BYTES = b"&<>" + bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])
_CELL_START = '<c t="inlineStr"><is><t>'
_CELL_START_SPACED = '<c t="inlineStr"><is><t xml:space="preserve">'
_CELL_END = "</t></is></c>"


def _excel_escaped(text: str) -> str:
    return "".join(f"_x{ord(c):04X}_" if (c < " " and c not in "\t\n\r") or c in "\ufffe\uffff" else c for c in text)


def _value_bytes(text: pa.Array) -> memoryview:
    """The UTF-8 bytes of a string array's values, end to end (Arrow's own buffer, not copied)."""
    offsets, data = text.buffers()[1], text.buffers()[2]
    if offsets is None or data is None or len(text) == 0:
        return memoryview(b"")
    bounds = pa.Array.from_buffers(pa.int32(), text.offset + len(text) + 1, [None, offsets])
    return memoryview(data)[bounds[text.offset].as_py() : bounds[text.offset + len(text)].as_py()]


def _xml_cell_parts(column: pa.Array) -> list[Any]:
    """The pieces of each value's cell XML, to be joined with the row's others: an inline string, or a blank
    cell for an empty value. The escaping passes run only on a column that needs them (most need none), found
    by one scan of its bytes."""
    text = pc.fill_null(column, "")
    if isinstance(text, pa.ChunkedArray):
        text = text.combine_chunks()
    data = _value_bytes(text).tobytes()
    if len(data.translate(None, _XML_SPECIAL_BYTES)) != len(data) or b"\xef\xbf\xbe" in data or b"\xef\xbf\xbf" in data:
        if pc.any(pc.match_substring_regex(text, _XML_INVALID)).as_py():
            text = pa.array([_excel_escaped(v) for v in text.to_pylist()], pa.string())
        text = pc.replace_substring(pc.replace_substring(text, "&", "&amp;"), "<", "&lt;")
        text = pc.replace_substring(text, ">", "&gt;")
    # Spaces at either end are kept only where the cell says so; a column with none spares the bytes.
    trimmed = pc.utf8_trim(text, " \t\n\r")
    spaced = pc.any(pc.not_equal(pc.binary_length(trimmed), pc.binary_length(text))).as_py()
    start = _CELL_START_SPACED if spaced else _CELL_START
    empty = pc.equal(text, "")
    if not pc.any(empty).as_py():
        return [start, text, _CELL_END]
    # An empty value: a blank cell ("<c/>" and nothing after the value, which is empty).
    return [pc.if_else(empty, "<c/>", start), text, pc.if_else(empty, "", _CELL_END)]


class _DeflatedZip:
    """A zip file written part by part, each part deflated as it comes (ISA-L's deflate: the return file's
    time is mostly this) with its sizes in a data descriptor after it. No ZIP64: a part stays under 4 GiB."""

    _DOS_DATE = ((2000 - 1980) << 9) | (1 << 5) | 1  # 2000-01-01, fixed: the same records give the same bytes

    def __init__(self, target: Path) -> None:
        self._file = target.open("wb")
        self._entries: list[tuple[bytes, int, int, int, int]] = []  # name, crc, compressed, size, offset
        self._name = b""
        self._offset = 0
        self._crc = self._size = self._compressed = 0
        self._deflate: Any = None

    def start(self, name: str) -> None:
        from isal import isal_zlib

        self._name = name.encode("ascii")
        self._offset = self._file.tell()
        self._crc = self._size = self._compressed = 0
        self._deflate = isal_zlib.compressobj(1, isal_zlib.DEFLATED, -15)
        self._file.write(
            struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0x08, 8, 0, self._DOS_DATE, 0, 0, 0, len(self._name), 0)
        )
        self._file.write(self._name)

    def write(self, data: bytes | pa.Buffer) -> None:
        self._crc = zlib.crc32(data, self._crc)
        self._size += memoryview(data).nbytes
        out = self._deflate.compress(data)
        self._compressed += len(out)
        self._file.write(out)

    def end(self) -> None:
        out = self._deflate.flush()
        self._compressed += len(out)
        self._file.write(out)
        if max(self._size, self._compressed, self._file.tell()) >= 1 << 32:
            raise ValueError("an XLSX part over 4 GiB")
        self._file.write(struct.pack("<4sIII", b"PK\x07\x08", self._crc, self._compressed, self._size))
        self._entries.append((self._name, self._crc, self._compressed, self._size, self._offset))

    def part(self, name: str, data: str) -> None:
        self.start(name)
        self.write(data.encode("utf-8"))
        self.end()

    def close(self) -> None:
        directory = self._file.tell()
        for name, crc, compressed, size, offset in self._entries:
            # version made by / needed, flags (data descriptor), deflate, time, date, crc, sizes, name length,
            # extra, comment, disk, attributes (internal, external), the part's offset
            fields = (20, 20, 0x08, 8, 0, self._DOS_DATE, crc, compressed, size, len(name), 0, 0, 0, 0, 0, offset)
            self._file.write(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", *fields))
            self._file.write(name)
        end = self._file.tell()
        count = len(self._entries)
        self._file.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, end - directory, directory, 0))
        self._file.close()


class XlsxWorkbook:
    """A return workbook written by column: at most ``rows_per_sheet`` records a sheet (after the header row).
    As the CSV's lines are, rows' XML is made two chunks at a time on threads (Arrow releases the GIL), and
    deflated and written in order on one more; at most a few chunks are held."""

    AHEAD = 2

    def __init__(self, target: Path, header: list[str] | None, rows_per_sheet: int = XLSX_ROWS_PER_SHEET) -> None:
        self.rows_per_sheet = rows_per_sheet
        self._zip = _DeflatedZip(target)
        self._header = header
        self._sheets = 0
        self._sheet_rows = 0
        self._format = ThreadPoolExecutor(max_workers=2, thread_name_prefix="xlsx-rows")
        self._deflate = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xlsx-deflate")
        self._formatted: deque[Future[Callable[[], None]]] = deque()  # the next steps of the writing thread
        self._written: deque[Future[None]] = deque()

    def _step(self, step: Callable[[], None]) -> None:
        done: Future[Callable[[], None]] = Future()
        done.set_result(step)
        self._queue(done)

    def _queue(self, step: Future[Callable[[], None]]) -> None:
        self._formatted.append(step)
        while len(self._formatted) > self.AHEAD:
            self._write_next()

    def _write_next(self) -> None:
        self._written.append(self._deflate.submit(self._formatted.popleft().result()))
        while len(self._written) > 1:
            self._written.popleft().result()

    def _new_sheet(self) -> None:
        if self._sheets:
            self._step(self._end_sheet)
        self._sheets += 1
        self._step(partial(self._start_sheet, self._sheets))
        self._sheet_rows = 0
        if self._header is not None:
            self._queue(self._format.submit(self._rows, [pa.array([n], pa.string()) for n in self._header]))

    def _start_sheet(self, number: int) -> None:
        self._zip.start(f"xl/worksheets/sheet{number}.xml")
        self._zip.write(_SHEET_START)

    def _end_sheet(self) -> None:
        self._zip.write(_SHEET_END)
        self._zip.end()

    def _rows(self, columns: list[pa.Array]) -> Callable[[], None]:
        """Writing the rows' XML (made here, on a formatting thread)."""
        # Rows (and their cells) follow one another with none skipped: their numbers are left out, as a
        # sheet may (they are its bytes' largest share after the values and the cells' tags).
        parts = [part for c in columns for part in _xml_cell_parts(c)]
        rows = pc.binary_join_element_wise("<row>", *parts, "</row>\n", "")
        return partial(self._zip.write, _value_bytes(rows))

    def write(self, columns: list[pa.Array]) -> None:
        n = len(columns[0]) if columns else 0
        at = 0
        while at < n:
            if not self._sheets or self._sheet_rows == self.rows_per_sheet:
                self._new_sheet()
            take = min(n - at, self.rows_per_sheet - self._sheet_rows)
            self._queue(self._format.submit(self._rows, [c.slice(at, take) for c in columns]))
            self._sheet_rows += take
            at += take

    def close(self) -> None:
        try:
            if not self._sheets:
                self._new_sheet()
            self._step(self._end_sheet)
            while self._formatted:
                self._write_next()
            while self._written:
                self._written.popleft().result()
        finally:
            self._format.shutdown(wait=True)
            self._deflate.shutdown(wait=True)
        self._parts()

    def _parts(self) -> None:
        sheets = range(1, self._sheets + 1)
        self._zip.part(
            "[Content_Types].xml",
            f'{_XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/styles.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
            + "".join(
                f'<Override PartName="/xl/worksheets/sheet{i}.xml" '
                'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
                for i in sheets
            )
            + "</Types>",
        )
        self._zip.part(
            "_rels/.rels",
            f'{_XML_HEAD}<Relationships xmlns="{_PKG_RELS}"><Relationship Id="rId1" '
            f'Type="{_DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        )
        self._zip.part(
            "xl/workbook.xml",
            f'{_XML_HEAD}<workbook xmlns="{_SHEET_NS}" xmlns:r="{_DOC_RELS}"><sheets>'
            + "".join(f'<sheet name="Sheet{i}" sheetId="{i}" r:id="rId{i}"/>' for i in sheets)
            + "</sheets></workbook>",
        )
        self._zip.part(
            "xl/_rels/workbook.xml.rels",
            f'{_XML_HEAD}<Relationships xmlns="{_PKG_RELS}">'
            + "".join(
                f'<Relationship Id="rId{i}" Type="{_DOC_RELS}/worksheet" Target="worksheets/sheet{i}.xml"/>'
                for i in sheets
            )
            + f'<Relationship Id="rId{self._sheets + 1}" Type="{_DOC_RELS}/styles" Target="styles.xml"/>'
            + "</Relationships>",
        )
        self._zip.part("xl/styles.xml", _STYLES)
        self._zip.close()

"""A batch's files: the upload's checks, the readers by a layout's entry rows, the return file's writers.

``check_upload`` refuses, before anything is charged, what cannot be a customer's TXT / CSV / XLSX
file: an empty file, an image or any other binary (by its first bytes, whatever its name says), a
password-protected XLSX (Office encrypts into an OLE2 container, bytes ``D0 CF 11 E0``), an XLSX
that cannot be read, a zip bomb included (sizes and ratios read from the zip directory, before
anything is inflated), and text that is neither UTF-8 nor Latin-1.

The readers stream the file as ``pyarrow.RecordBatch``es: ``__row`` (the record's number, from 1,
empty lines skipped) and one text column per entry row (by the row's name), stopping with ``TooManyRecords`` once
past ``max_records`` (an XLSX is parsed as it inflates, never loaded whole). The domain codec
(``bemtevi.domain.layouts.parse_line``) is the definition; the vectorised readers are tested
against it for any line. The writers take chunks of exit columns (text, in the exit rows' order)
and write the layout's return extension: CSV quoted as ``format_line`` quotes, TXT fixed-width
padded as ``format_line`` pads, XLSX at most 65,535 records per sheet (more sheets after), every
cell written as text (a value starting with ``=`` stays text, never a formula), by column as well.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import struct
import xml.etree.ElementTree as ET
import zipfile
import zlib
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any, Literal, cast
from xml.parsers import expat

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from bemtevi.domain.errors import (
    FileEmpty,
    FileEncoding,
    FilePasswordProtected,
    FileTypeNotAllowed,
    TooManyRecords,
    XlsxUnreadable,
)
from bemtevi.domain.layouts import RIGHT_ALIGNED, LayoutRow, LayoutSpec

Encoding = Literal["utf-8", "latin-1"]
EXTENSIONS = ("TXT", "CSV", "XLSX")
ROW = "__row"
XLSX_ROWS_PER_SHEET = 65_535
READ_BATCH_ROWS = 100_000

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP = b"PK\x03\x04"
_IMAGES = (b"\x89PNG", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"II*\x00", b"MM\x00*", b"\x00\x00\x01\x00")
_OTHER_BINARIES = (b"%PDF", b"\x1f\x8b", b"7z\xbc\xaf", b"Rar!", b"\x7fELF", b"MZ", _ZIP, _OLE2)
# The zip directory's figures a real workbook of a 10 MB upload stays far below; a zip bomb does not.
_XLSX_MAX_UNCOMPRESSED = 1 << 30
_XLSX_MAX_RATIO = 200
_XLSX_RATIO_FROM = 1 << 20  # small parts (styles, themes) may compress better; they are small
_SCAN_BLOCK = 1 << 20
# Latin-1 text holds no C0 control but tab/LF/CR/FF and no C1 control (0x80-0x9F).
_NOT_LATIN1_TEXT = bytes([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x20), *range(0x7F, 0xA0)])


@dataclass(frozen=True, slots=True)
class UploadCheck:
    encoding: Encoding
    extension: str
    size: int


def check_upload(path: Path, extension: str) -> UploadCheck:
    """What the upload is (extension, encoding, size), or the refusal of what it cannot be."""
    ext = extension.upper().lstrip(".")
    size = path.stat().st_size
    if size == 0:
        raise FileEmpty()
    with path.open("rb") as f:
        head = f.read(4096)
    if ext not in EXTENSIONS or _is_image(head):
        raise FileTypeNotAllowed()
    if ext == "XLSX":
        if head.startswith(_OLE2):
            raise FilePasswordProtected()
        if not head.startswith(_ZIP):
            # Someone who sent an .xlsx is told the workbook could not be read (the specification's words), not
            # that XLSX is not accepted; images and other binaries were refused above by their bytes.
            raise XlsxUnreadable()
        _check_xlsx_directory(path)
        return UploadCheck("utf-8", ext, size)
    if head.startswith(_OTHER_BINARIES):
        raise FileTypeNotAllowed()
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise FileEncoding()
    return UploadCheck(_text_encoding(path), ext, size)


def _is_image(head: bytes) -> bool:
    """PNG, JPEG, GIF, TIFF, ICO, WebP, or BMP ("BM" then four reserved zero bytes at 6: a CSV whose
    first column starts with "BM" is not one)."""
    return (
        head.startswith(_IMAGES)
        or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")
        or (head[:2] == b"BM" and head[6:10] == b"\x00\x00\x00\x00")
    )


def _check_xlsx_directory(path: Path) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise XlsxUnreadable() from error
    names = {info.filename for info in infos}
    if "xl/workbook.xml" not in names or not any(n.startswith("xl/worksheets/") for n in names):
        raise XlsxUnreadable()
    if sum(info.file_size for info in infos) > _XLSX_MAX_UNCOMPRESSED:
        raise XlsxUnreadable()
    for info in infos:
        if info.flag_bits & 0x1:  # an encrypted zip entry
            raise FilePasswordProtected()
        if info.file_size > _XLSX_RATIO_FROM and info.file_size > _XLSX_MAX_RATIO * max(info.compress_size, 1):
            raise XlsxUnreadable()


def _text_encoding(path: Path) -> Encoding:
    """UTF-8 if the whole file decodes as UTF-8 (a BOM allowed), else Latin-1 if its bytes are
    Latin-1 text; a NUL byte makes it a binary file, anything else a wrong encoding."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    utf8 = True
    latin1_text = True
    with path.open("rb") as f:
        while block := f.read(_SCAN_BLOCK):
            if b"\x00" in block:
                raise FileTypeNotAllowed()
            if utf8:
                try:
                    decoder.decode(block)
                except UnicodeDecodeError:
                    utf8 = False
            if latin1_text and block.translate(None, _NOT_LATIN1_TEXT) != block:
                latin1_text = False
    if utf8:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            utf8 = False
    if utf8:
        return "utf-8"
    if latin1_text:
        return "latin-1"
    raise FileEncoding()


# -- reading ----------------------------------------------------------------------------------


def entry_rows(spec: LayoutSpec) -> list[LayoutRow]:
    return spec.rows_of("entry")


def entry_schema(spec: LayoutSpec) -> pa.Schema:
    return pa.schema([(ROW, pa.int64()), *((r.name, pa.string()) for r in entry_rows(spec))])


def read_records(
    path: Path,
    check: UploadCheck,
    spec: LayoutSpec,
    batch_rows: int = READ_BATCH_ROWS,
    max_records: int | None = None,
) -> pa.RecordBatchReader:
    """The file's records by the layout's entry rows, streamed (see the module's docstring).

    With ``max_records``, reading stops with ``TooManyRecords`` as soon as a batch takes the count past it:
    at most ``batch_rows`` records are held past the limit, whatever the file."""
    schema = entry_schema(spec)
    batch_rows = min(batch_rows, max_records + 1) if max_records is not None else batch_rows
    if check.extension == "XLSX":
        batches: Iterable[pa.RecordBatch] = _xlsx_batches(path, spec, batch_rows, max_records)
    elif check.extension == "TXT" and spec.kind == "fixed":
        batches = _txt_batches(path, check, spec, batch_rows)
    else:  # CSV, or a TXT file of a delimited layout
        batches = _csv_batches(path, check, spec, batch_rows)
    if max_records is not None:
        batches = _bounded(batches, max_records)
    return pa.RecordBatchReader.from_batches(schema, batches)


def _bounded(batches: Iterable[pa.RecordBatch], max_records: int) -> Iterator[pa.RecordBatch]:
    count = 0
    for batch in batches:
        count += batch.num_rows
        if count > max_records:
            raise TooManyRecords(max_records)
        yield batch


def _numbered(spec: LayoutSpec, first_row: int, columns: list[pa.Array]) -> pa.RecordBatch:
    n = len(columns[0]) if columns else 0
    rows = pa.array(range(first_row, first_row + n), pa.int64())
    return pa.RecordBatch.from_arrays([rows, *columns], schema=entry_schema(spec))


def _delimiter(spec: LayoutSpec) -> str:
    return spec.delimiter if spec.kind == "delimited" and spec.delimiter else ";"


def _header_positions(spec: LayoutSpec, header: list[str]) -> list[int | None]:
    """Each entry row's column: by its name (upper-cased); when no name matches, by the row's order."""
    names = [h.strip().upper() for h in header]
    rows = entry_rows(spec)
    positions = [names.index(r.name.upper()) if r.name.upper() in names else None for r in rows]
    if all(p is None for p in positions):
        positions = [i if i < len(names) else None for i in range(len(rows))]
    return positions


def _csv_batches(path: Path, check: UploadCheck, spec: LayoutSpec, batch_rows: int) -> Iterator[pa.RecordBatch]:
    """pyarrow's streaming CSV reader; a file whose lines do not all have the header's number of
    fields (which the codec allows: missing ones empty, extra ones ignored) is read by ``csv``."""
    done = [0]
    try:
        for batch in _csv_batches_arrow(path, check, spec, batch_rows):
            done[0] += batch.num_rows
            yield batch
    except pa.ArrowInvalid as error:
        if "CSV parse error: Expected" not in str(error):
            raise
        yield from _csv_batches_python(path, check, spec, batch_rows, skip=done[0])


def _ragged(_row: Any) -> str:
    return "error"


def _csv_batches_arrow(path: Path, check: UploadCheck, spec: LayoutSpec, batch_rows: int) -> Iterator[pa.RecordBatch]:
    delimiter = _delimiter(spec)
    with path.open("rb") as f:
        first = f.readline().decode(check.encoding).lstrip("\ufeff").rstrip("\r\n")
    header = next(csv.reader([first], delimiter=delimiter, quotechar='"', strict=False), [])
    positions = _header_positions(spec, header)
    columns = [f"c{i}" for i in range(len(header))]
    reader = pacsv.open_csv(
        str(path),
        read_options=pacsv.ReadOptions(
            encoding=check.encoding, column_names=columns, skip_rows=1, block_size=4 << 20, use_threads=True
        ),
        parse_options=pacsv.ParseOptions(
            delimiter=delimiter,
            quote_char='"',
            double_quote=True,
            newlines_in_values=True,
            ignore_empty_lines=True,
            invalid_row_handler=_ragged,
        ),
        convert_options=pacsv.ConvertOptions(
            column_types={c: pa.string() for c in columns}, strings_can_be_null=False, quoted_strings_can_be_null=False
        ),
    )
    first_row = 1
    pending: list[pa.RecordBatch] = []
    pending_rows = 0
    for batch in reader:
        pending.append(batch)
        pending_rows += batch.num_rows
        while pending_rows >= batch_rows:
            table = pa.Table.from_batches(pending)
            head, rest = table.slice(0, batch_rows), table.slice(batch_rows)
            yield _picked(spec, head, positions, first_row)
            first_row += batch_rows
            pending, pending_rows = rest.to_batches(), rest.num_rows
    if pending_rows:
        yield _picked(spec, pa.Table.from_batches(pending), positions, first_row)


def _picked(spec: LayoutSpec, table: pa.Table, positions: list[int | None], first_row: int) -> pa.RecordBatch:
    empty = pa.array([""] * table.num_rows, pa.string())
    columns = [table.column(p).combine_chunks() if p is not None else empty for p in positions]
    return _numbered(spec, first_row, columns)


def _csv_batches_python(
    path: Path, check: UploadCheck, spec: LayoutSpec, batch_rows: int, skip: int = 0
) -> Iterator[pa.RecordBatch]:
    delimiter = _delimiter(spec)
    n = len(entry_rows(spec))
    with path.open("r", encoding="utf-8-sig" if check.encoding == "utf-8" else "latin-1", newline="") as f:
        reader = csv.reader(f, delimiter=delimiter, quotechar='"', strict=False)
        header = next(reader, [])
        positions = _header_positions(spec, header)
        first_row = 1
        buffer: list[list[str]] = []
        for fields in reader:
            if not fields:
                continue
            if skip:
                skip -= 1
                first_row += 1
                continue
            buffer.append([fields[p] if p is not None and p < len(fields) else "" for p in positions])
            if len(buffer) == batch_rows:
                yield _from_rows(spec, buffer, n, first_row)
                first_row += len(buffer)
                buffer = []
        if buffer:
            yield _from_rows(spec, buffer, n, first_row)


def _from_rows(spec: LayoutSpec, rows: list[list[str]], n: int, first_row: int) -> pa.RecordBatch:
    columns = [pa.array([r[i] for r in rows], pa.string()) for i in range(n)]
    return _numbered(spec, first_row, columns)


def _lines(f: IO[bytes], encoding: Encoding, block: int = 4 << 20) -> Iterator[list[str]]:
    """The file's lines (without their line break, ``\\r\\n`` or ``\\n``), block by block."""
    carry = b""
    first = True
    while True:
        data = f.read(block)
        if not data:
            break
        data = carry + data
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
            continue
        carry = data[cut + 1 :]
        text = data[: cut + 1].decode(encoding)
        if first and text.startswith("\ufeff"):
            text = text[1:]
        first = False
        yield [line[:-1] if line.endswith("\r") else line for line in text.split("\n")[:-1]]
    if carry:
        text = carry.decode(encoding)
        if first and text.startswith("\ufeff"):
            text = text[1:]
        yield [text[:-1] if text.endswith("\r") else text]


def _txt_batches(path: Path, check: UploadCheck, spec: LayoutSpec, batch_rows: int) -> Iterator[pa.RecordBatch]:
    first_row = 1
    skip_header = spec.first_line
    with path.open("rb") as f:
        for lines in _lines(f, check.encoding):
            if skip_header and lines:
                lines = lines[1:]
                skip_header = False
            lines = [line for line in lines if line]
            for at in range(0, len(lines), batch_rows):
                piece = lines[at : at + batch_rows]
                yield fixed_width_columns(spec, pa.array(piece, pa.string()), first_row)
                first_row += len(piece)


def fixed_width_columns(spec: LayoutSpec, lines: pa.Array, first_row: int = 1) -> pa.RecordBatch:
    """Lines cut by the entry rows' sizes, as ``parse_line`` cuts one (vectorised)."""
    columns = []
    at = 0
    for row in entry_rows(spec):
        size = row.size or 0
        piece = pc.utf8_slice_codeunits(lines, at, at + size)
        at += size
        columns.append(piece if row.type in RIGHT_ALIGNED else pc.utf8_rtrim(piece, characters=" "))
    return _numbered(spec, first_row, columns)


def _cell_text(value: Any, document: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if value.is_integer():
            text = str(int(value))
            # A document typed as a number lost its leading zeros.
            if document and len(text) <= 14:
                return text.zfill(11 if len(text) <= 11 else 14)
            return text
        return repr(value)
    if isinstance(value, int):
        text = str(value)
        return text.zfill(11 if len(text) <= 11 else 14) if document and len(text) <= 14 else text
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _xlsx_batches(path: Path, spec: LayoutSpec, batch_rows: int, max_records: int | None) -> Iterator[pa.RecordBatch]:
    rows = _xlsx_rows(path, max_records)
    try:
        first = next(rows, {})
        header = [_cell_text(first.get(c), False) for c in range(max(first, default=-1) + 1)]
    except (XlsxUnreadable, TooManyRecords):
        raise
    except Exception as error:  # a part that is not the XML of a workbook
        raise XlsxUnreadable() from error
    positions = _header_positions(spec, header)
    documents = [r.type == "document" for r in entry_rows(spec)]
    n = len(positions)
    first_row = 1
    buffer: list[list[str]] = []
    try:
        for cells in rows:
            values = [_cell_text(cells.get(p), documents[i]) if p is not None else "" for i, p in enumerate(positions)]
            if not any(values):
                continue
            buffer.append(values)
            if len(buffer) == batch_rows:
                yield _from_rows(spec, buffer, n, first_row)
                first_row += len(buffer)
                buffer = []
    except (XlsxUnreadable, TooManyRecords):
        raise
    except Exception as error:
        raise XlsxUnreadable() from error
    if buffer:
        yield _from_rows(spec, buffer, n, first_row)


# -- XLSX, streamed ---------------------------------------------------------------------------
# The first sheet is read as its XML inflates (a block at a time, parsed incrementally, each row dropped once
# read), so what a workbook costs is bounded by the records it holds, not by what its sheet inflates to. Cells
# come out as python-calamine reads them: shared, inline and formula strings as text, booleans, numbers as
# floats, numbers styled as dates as dates, date-times or times.

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


def _xlsx_rows(path: Path, max_records: int | None) -> Iterator[dict[int, Any]]:
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


# -- writing ----------------------------------------------------------------------------------


def _exit_rows(spec: LayoutSpec) -> list[LayoutRow]:
    return spec.rows_of("exit")


def delimited_lines(spec: LayoutSpec, columns: list[pa.Array]) -> pa.Array:
    """Each record as ``format_line`` writes it (a field with the delimiter, a quote or a line
    break is quoted, quotes doubled)."""
    delimiter = _delimiter(spec)
    quoted = []
    needs = "[" + "".join("\\" + c if c in "\\^]-[" else c for c in delimiter + '"') + "\r\n]"
    for column in columns:
        text = pc.fill_null(column, "")
        needed = pc.match_substring_regex(text, needs)
        if not pc.any(needed).as_py():
            # Most columns need no quoting at all: skip the quoting work (about half the write's time).
            quoted.append(text)
            continue
        wrapped = pc.binary_join_element_wise('"', pc.replace_substring(text, '"', '""'), '"', "")
        quoted.append(pc.if_else(needed, wrapped, text))
    if len(quoted) == 1:
        # csv writes a lone empty field as "" (an empty line would be no record)
        return pc.if_else(pc.equal(quoted[0], ""), '""', quoted[0])
    return pc.binary_join_element_wise(*quoted, delimiter)


def fixed_width_lines(spec: LayoutSpec, columns: list[pa.Array]) -> pa.Array:
    """Each record as ``format_line`` writes it fixed-width (cut to size, padded)."""
    parts = []
    for row, column in zip(_exit_rows(spec), columns, strict=True):
        size = row.size or 0
        text = pc.utf8_slice_codeunits(pc.fill_null(column, ""), 0, size)
        parts.append(
            pc.utf8_lpad(text, size, padding="0")
            if row.type in RIGHT_ALIGNED
            else pc.utf8_rpad(text, size, padding=" ")
        )
    if len(parts) == 1:
        return parts[0]
    return pc.binary_join_element_wise(*parts, "")


def _terminated_bytes(lines: pa.Array) -> bytes | pa.Buffer:
    """The lines, each followed by a line break, as one buffer (Arrow's own, no Python string per line)."""
    ended = pc.binary_join_element_wise(pc.fill_null(lines, ""), "", "\n")
    if isinstance(ended, pa.ChunkedArray):
        ended = ended.combine_chunks()
    offsets = ended.buffers()[1]
    data = ended.buffers()[2]
    if offsets is None or data is None:
        return b""
    first, last = ended.offset, ended.offset + len(ended)
    bounds = pa.Array.from_buffers(pa.int32(), last + 1, [None, offsets])
    start, end = bounds[first].as_py(), bounds[last].as_py()
    return data[start:end]


# An XLSX return is written by column: each sheet's XML made by Arrow's string kernels, a chunk of rows at a time,
# and deflated into the workbook as it is made (cell by cell, a million records took seven times the CSV's time).
# Every value is an inline string: text as sent (leading zeros kept, "=..." never a formula); an empty value is
# a blank cell. The parts are the least a workbook needs, with fixed times: the same records, the same bytes.
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


class ReturnWriter:
    """Writes the return file chunk by chunk: ``write(columns)`` with the exit columns in order.

    A CSV or TXT return comes back in the upload's encoding (``UploadCheck.encoding``): Latin-1 for a Latin-1
    upload (a character Latin-1 cannot hold becomes '?'), UTF-8 otherwise; an XLSX is what XLSX is."""

    def __init__(self, spec: LayoutSpec, target: Path, encoding: Encoding = "utf-8") -> None:
        self.spec = spec
        self.encoding = encoding
        self.extension = spec.return_extension.upper()
        self.target = target
        self.names = [r.name for r in _exit_rows(spec)]
        self._file: IO[bytes] | None = None
        self._workbook: XlsxWorkbook | None = None
        if self.extension == "XLSX":
            self._workbook = XlsxWorkbook(target, self.names if spec.first_line else None)
        else:
            self._file = target.open("wb")
            if spec.first_line:
                names = [pa.array([n], pa.string()) for n in self.names]
                line = self._lines(names)
                self._file.write(self._encoded(line[0].as_py() + "\n"))

    def write(self, columns: list[pa.Array]) -> None:
        if self._workbook is not None:
            self._workbook.write(columns)
            return
        assert self._file is not None
        self._file.write(self._text(columns))

    def write_all(self, chunks: Iterable[list[pa.Array]]) -> None:
        """``write`` each chunk in order. Text lines are formatted two chunks at a time on threads
        (Arrow's compute functions release the GIL), which takes the return file's share of a 1M-record
        run from about 0.9 s to half that on two cores; at most ``AHEAD`` chunks are held."""
        if self._workbook is not None:
            for columns in chunks:
                self._workbook.write(columns)
            return
        assert self._file is not None
        pending: deque[Future[bytes | pa.Buffer]] = deque()
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="return-lines") as pool:
            for columns in chunks:
                pending.append(pool.submit(self._text, columns))
                if len(pending) >= self.AHEAD:
                    self._file.write(pending.popleft().result())
            while pending:
                self._file.write(pending.popleft().result())

    AHEAD = 3

    def _text(self, columns: list[pa.Array]) -> bytes | pa.Buffer:
        if not columns or len(columns[0]) == 0:
            return b""
        text = _terminated_bytes(self._lines(columns))
        if self.encoding == "utf-8":
            return text
        # Arrow's strings are UTF-8: a Latin-1 return is the chunk's text encoded again, in C, on the thread
        # that formatted it (0.13 s for 23 MB of lines, measured at a load average of 10).
        return self._encoded(memoryview(text).tobytes().decode("utf-8"))

    def _encoded(self, text: str) -> bytes:
        return text.encode(self.encoding, errors="replace")  # '?' for what Latin-1 cannot hold

    def _lines(self, columns: list[pa.Array]) -> pa.Array:
        """Fixed-width for a TXT return of a fixed-width layout, else delimited."""
        if self.extension == "TXT" and self.spec.kind == "fixed":
            return fixed_width_lines(self.spec, columns)
        return delimited_lines(self.spec, columns)

    def close(self) -> None:
        if self._workbook is not None:
            self._workbook.close()
        elif self._file is not None:
            self._file.flush()
            self._file.close()


def write_return_file(
    spec: LayoutSpec, target: Path, chunks: Iterable[list[pa.Array]], encoding: Encoding = "utf-8"
) -> Path:
    writer = ReturnWriter(spec, target, encoding)
    try:
        writer.write_all(chunks)
    finally:
        writer.close()
    return target

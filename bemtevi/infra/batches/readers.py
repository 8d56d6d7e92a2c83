"""A batch file read by a layout's entry rows.

The readers stream the file as ``pyarrow.RecordBatch``es: ``__row`` (the record's number, from 1,
empty lines skipped) and one text column per entry row (by the row's name), stopping with ``TooManyRecords`` once
past ``max_records`` (an XLSX is parsed as it inflates, never loaded whole). The domain codec
(``bemtevi.domain.layouts.parse_line``) is the definition; the vectorised readers are tested
against it for any line. The upload is checked first (``upload_checks``); the XLSX reader is ``xlsx_reader``; the
return file's writers are in ``returns`` (and ``xlsx_writer``).
"""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from bemtevi.domain.batch_errors import (
    TooManyRecords,
    XlsxUnreadable,
)
from bemtevi.domain.layouts import RIGHT_ALIGNED, LayoutRow, LayoutSpec
from bemtevi.infra.batches.upload_checks import Encoding, UploadCheck
from bemtevi.infra.batches.xlsx_reader import xlsx_rows

ROW = "__row"
READ_BATCH_ROWS = 100_000


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


def delimiter_of(spec: LayoutSpec) -> str:
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
    delimiter = delimiter_of(spec)
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
    delimiter = delimiter_of(spec)
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
    rows = xlsx_rows(path, max_records)
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

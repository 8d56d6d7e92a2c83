"""A batch's return file: the exit columns, chunk by chunk, in the layout's return extension.

CSV quoted as ``bemtevi.domain.layouts.format_line`` quotes, TXT fixed-width padded as ``format_line`` pads (the
domain codec is the definition; these vectorised writers are tested against it for any line), XLSX through
``xlsx_writer.XlsxWorkbook``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO

import pyarrow as pa
import pyarrow.compute as pc

from bemtevi.domain.layouts import RIGHT_ALIGNED, LayoutRow, LayoutSpec
from bemtevi.infra.batches.readers import delimiter_of
from bemtevi.infra.batches.upload_checks import Encoding
from bemtevi.infra.batches.xlsx_writer import XlsxWorkbook


def _exit_rows(spec: LayoutSpec) -> list[LayoutRow]:
    return spec.rows_of("exit")


def delimited_lines(spec: LayoutSpec, columns: list[pa.Array]) -> pa.Array:
    """Each record as ``format_line`` writes it (a field with the delimiter, a quote or a line
    break is quoted, quotes doubled)."""
    delimiter = delimiter_of(spec)
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

"""XLSX files the API answers beside its CSVs, written by the batch return files' writer (``infra/batches``):
inline strings (a ``=...`` text never a formula), 65,535 rows a sheet, then another sheet with the header."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa

from bemtevi.infra.batches.xlsx_writer import XLSX_ROWS_PER_SHEET, XlsxWorkbook


def xlsx_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], rows_per_sheet: int = XLSX_ROWS_PER_SHEET
) -> bytes:
    """The workbook's bytes; every value written as its text (None as a blank cell)."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "table.xlsx"
        book = XlsxWorkbook(target, list(header), rows_per_sheet)
        try:
            if rows:
                book.write(
                    [
                        pa.array([None if row[i] is None else str(row[i]) for row in rows], pa.string())
                        for i in range(len(header))
                    ]
                )
        finally:
            book.close()
        return target.read_bytes()

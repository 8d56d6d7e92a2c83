"""The return file comes back in the upload's encoding: a Latin-1 upload gets a Latin-1 CSV or TXT (a character
Latin-1 cannot hold becomes '?'), a UTF-8 upload a UTF-8 one; an XLSX return is the same either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from python_calamine import CalamineWorkbook

from bemtevi.domain.documents import cpf_check_digits
from bemtevi.domain.layouts import LayoutKind, LayoutRow, LayoutSpec
from bemtevi.infra.batches.pipeline import run_batch
from bemtevi.infra.batches.upload_checks import check_upload

NAME = "José Conceição Łukasz"  # 'Ł' is not in Latin-1


def layout(extension: str, kind: LayoutKind) -> LayoutSpec:
    rows = (
        LayoutRow("CPF", "document", 1, "", 14, "entry"),
        LayoutRow("CPF", "document", 1, "", 11, "exit"),
        LayoutRow("NOME", "text", 2, "", 30, "exit"),
    )
    delimiter = ";" if kind == "delimited" else ""
    return LayoutSpec("f", "r", extension, "csv", kind, delimiter, True, "people", rows)


def absent_cpf(dataset: Path) -> str:
    con = duckdb.connect(str(dataset), read_only=True)
    try:
        known = {r[0] for r in con.execute("SELECT cpf FROM people").fetchall()}
    finally:
        con.close()
    return next(d for i in range(1, 10**6) if (d := f"{i:09d}{cpf_check_digits(f'{i:09d}')}") not in known)


def run(tmp_path: Path, dataset: Path, encoding: str, extension: str, kind: LayoutKind = "delimited") -> Path:
    document = absent_cpf(dataset)
    source = tmp_path / "in.csv"
    source.write_bytes(f"CPF;OBSERVAÇÃO\n{document};ação\n".encode(encoding))
    check = check_upload(source, "CSV")
    assert check.encoding == encoding

    def resolve(documents: list[str]) -> dict[str, dict[str, Any]]:
        return {document: {"cpf": document, "name": NAME}}

    outcome = run_batch(
        source, check, layout(extension, kind), dataset, tmp_path / "work",
        on_progress=lambda p: None, should_stop=lambda: False, resolve_missing=resolve,
    )  # fmt: skip
    assert outcome.found == 1
    return Path(outcome.return_file)


@pytest.mark.parametrize("extension", ["csv", "txt"])
def test_a_latin1_upload_gets_a_latin1_return_with_a_question_mark_for_what_latin1_cannot_hold(
    dataset_path: Path, tmp_path: Path, extension: str
) -> None:
    returned = run(tmp_path, dataset_path, "latin-1", extension, "delimited" if extension == "csv" else "fixed")
    data = returned.read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    text = data.decode("latin-1")
    assert "José Conceição ?ukasz" in text
    if extension == "txt":  # fixed width: 11 + 30 characters, one byte each
        assert [len(line) for line in data.split(b"\n")[:2]] == [41, 41]


def test_a_utf8_upload_gets_a_utf8_return(dataset_path: Path, tmp_path: Path) -> None:
    returned = run(tmp_path, dataset_path, "utf-8", "csv")
    assert NAME in returned.read_bytes().decode("utf-8")


def test_an_xlsx_return_of_a_latin1_upload_holds_the_names_as_they_are(dataset_path: Path, tmp_path: Path) -> None:
    returned = run(tmp_path, dataset_path, "latin-1", "xlsx")
    rows = CalamineWorkbook.from_path(str(returned)).get_sheet_by_index(0).to_python()
    assert rows[1][1] == NAME

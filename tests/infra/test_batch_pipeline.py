"""The set-wise enrichment: validation in SQL as the domain says, one field mapping for the dataset and
for suppliers' records, the preview's counts, and a run resumed after a stop giving the same file."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.domain.batch_errors import BatchStopped
from bemtevi.domain.documents import cnpj_check_digits, cpf_check_digits, is_valid_cnpj, is_valid_cpf
from bemtevi.domain.enrichment_fields import FIELDS, exit_field, exit_value
from bemtevi.domain.layouts import LayoutKind, LayoutRow, LayoutSpec
from bemtevi.infra.batches.join_sql import normalised_sql
from bemtevi.infra.batches.pipeline import BatchProgress, preview, run_batch, staged_path
from bemtevi.infra.batches.upload_checks import check_upload
from bemtevi.infra.suppliers.local import company_document, company_row_sql

TODAY = dt.date(2026, 1, 15)


def layout(exits: list[str], extension: str = "csv", kind: LayoutKind = "delimited") -> LayoutSpec:
    rows = [LayoutRow("CPF", "document", 1, "", 14, "entry")]
    rows += [LayoutRow(name, "text", i + 1, "", 40, "exit") for i, name in enumerate(exits)]
    return LayoutSpec("f", "r", extension, "csv", kind, ";" if kind == "delimited" else "", True, "people", tuple(rows))


def documents(dataset: Path) -> tuple[list[str], list[str]]:
    con = duckdb.connect(str(dataset), read_only=True)
    try:
        cpfs = [r[0] for r in con.execute("SELECT cpf FROM people ORDER BY cpf").fetchall()]
        cnpjs = [r[0] for r in con.execute("SELECT cnpj FROM companies ORDER BY cnpj").fetchall()]
    finally:
        con.close()
    return cpfs, cnpjs


def docs_by_document(dataset: Path) -> dict[str, dict[str, Any]]:
    con = duckdb.connect(str(dataset), read_only=True)
    try:
        people = con.execute("SELECT cpf, doc FROM people_docs").fetchall()
        companies = con.execute(company_row_sql()).fetchall()
    finally:
        con.close()
    return {cpf: orjson.loads(doc) for cpf, doc in people} | {cnpj: company_document(cnpj, v) for cnpj, v in companies}


# -- validation in SQL ---------------------------------------------------------------------------

DIGITS = st.text(st.sampled_from("0123456789"), min_size=9, max_size=9)


def sql_validity(values: list[str]) -> list[tuple[str, bool]]:
    con = duckdb.connect()
    try:
        con.register("src", pa.table({"__row": list(range(len(values))), "D": values}))
        return [
            (d, v)
            for d, v in con.execute(
                f"SELECT __doc, __valid FROM ({normalised_sql('src', 'D')}) ORDER BY __row"
            ).fetchall()
        ]
    finally:
        con.close()


@settings(max_examples=examples(30), deadline=None)
@given(
    noise=st.lists(st.text(st.sampled_from("0123456789.-/ x"), max_size=18), max_size=40),
    cpf_bases=st.lists(DIGITS, max_size=20),
    cnpj_bases=st.lists(st.text(st.sampled_from("0123456789"), min_size=12, max_size=12), max_size=20),
    tamper=st.booleans(),
)
def test_documents_are_validated_in_sql_as_the_domain_validates_them(
    noise: list[str], cpf_bases: list[str], cnpj_bases: list[str], tamper: bool
) -> None:
    cpfs = [b + cpf_check_digits(b) for b in cpf_bases]
    cnpjs = [b + cnpj_check_digits(b) for b in cnpj_bases]
    if tamper:
        cpfs = [d[:-1] + str((int(d[-1]) + 1) % 10) for d in cpfs]
    values = noise + cpfs + [f"{d[:2]}.{d[2:5]}.{d[5:8]}/{d[8:12]}-{d[12:]}" for d in cnpjs] + ["00000000000"]
    for value, (digits, valid) in zip(values, sql_validity(values), strict=True):
        expected = is_valid_cpf(value) if len(digits) == 11 else is_valid_cnpj(value) if len(digits) == 14 else False
        assert valid == expected, value
        assert digits == "".join(c for c in value if c.isdigit())


# -- one mapping -----------------------------------------------------------------------------------


def test_the_dataset_join_fills_every_exit_field_as_the_unified_record_mapping_does(
    dataset_path: Path, tmp_path: Path
) -> None:
    """Each catalogue field, filled by SQL from the dataset's tables, equals ``exit_value`` applied to
    the same document's unified record (the shape a supplier answers)."""
    cpfs, cnpjs = documents(dataset_path)
    names = [f.names[0] for f in FIELDS]
    spec = layout(names)
    source = tmp_path / "in.csv"
    source.write_text("CPF\n" + "\n".join(cpfs[:300] + cnpjs[:100] + ["12345678900"]) + "\n")
    outcome = run_batch(
        source, check_upload(source, "CSV"), spec, dataset_path, tmp_path / "work",
        on_progress=lambda p: None, should_stop=lambda: False, today=TODAY,
    )  # fmt: skip
    records = docs_by_document(dataset_path)
    lines = outcome.return_file.read_text().splitlines()
    assert lines[0] == ";".join(names)
    for line, document in zip(lines[1:], cpfs[:300] + cnpjs[:100] + ["12345678900"], strict=True):
        record = records.get(document)
        fields = [exit_field(n) for n in names]
        expected = [exit_value(f, record, document, TODAY) for f in fields if f is not None]
        got = line.split(";")
        assert [g.strip('"') for g in got] == [e for e in expected], document
    assert (outcome.records, outcome.valid, outcome.found, outcome.invalid) == (401, 400, 400, 1)


def test_a_suppliers_record_fills_the_exit_fields_through_the_same_mapping(dataset_path: Path, tmp_path: Path) -> None:
    cpfs, _ = documents(dataset_path)
    records = docs_by_document(dataset_path)
    vendor = dict(records[cpfs[0]], cpf="52998224725")
    absent = "52998224725" if "52998224725" not in records else None
    if absent is None:  # the dataset knows it: use a valid CPF it lacks
        base = next(f"{i:09d}" for i in range(1, 10**6) if f"{i:09d}{cpf_check_digits(f'{i:09d}')}" not in records)
        absent = base + cpf_check_digits(base)
    asked: list[list[str]] = []

    def resolve(documents: list[str]) -> dict[str, dict[str, Any]]:
        asked.append(documents)
        return {absent: vendor}

    spec = layout(["CPF", "NOME", "IDADE", "CIDADE", "RENDA", "ENCONTRADO"])
    source = tmp_path / "in.csv"
    source.write_text(f"CPF\n{cpfs[0]}\n{absent}\n000\n")
    outcome = run_batch(
        source, check_upload(source, "CSV"), spec, dataset_path, tmp_path / "work",
        on_progress=lambda p: None, should_stop=lambda: False, resolve_missing=resolve, today=TODAY,
    )  # fmt: skip
    first, second, third = outcome.return_file.read_text().splitlines()[1:]
    assert asked == [[absent]]
    assert second == absent + first[len(cpfs[0]) :]  # the same values as the dataset's row
    assert third == "000;;;;;N"
    assert (outcome.found, outcome.valid, outcome.invalid) == (2, 2, 1)


def test_the_preview_counts_records_valid_found_and_names_the_exit_fields_left_empty(
    dataset_path: Path, tmp_path: Path
) -> None:
    cpfs, cnpjs = documents(dataset_path)
    source = tmp_path / "in.csv"
    source.write_text("CPF\n" + "\n".join([*cpfs[:5], cnpjs[0], "52998224725", "11111111111", "abc", ""]) + "\n")
    spec = layout(["CPF", "NOME", "Cor Favorita", "ENCONTRADO"])
    got = preview(source, check_upload(source, "CSV"), spec, dataset_path)
    in_dataset = 7 if "52998224725" in cpfs else 6
    assert (got.records, got.valid_documents, got.invalid_documents) == (9, 7, 2)
    assert (got.found_in_dataset, got.credits_needed, got.unknown_exit_fields) == (in_dataset, 7, ("Cor Favorita",))


# -- resuming --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("extension", "kind"), [("csv", "delimited"), ("txt", "fixed"), ("xlsx", "delimited")])
def test_a_run_stopped_between_chunks_resumes_to_a_byte_identical_return_file(
    dataset_path: Path, tmp_path: Path, extension: str, kind: LayoutKind
) -> None:
    cpfs, cnpjs = documents(dataset_path)
    spec = layout(["CPF", "NOME", "NASCIMENTO", "TELEFONE1", "ENCONTRADO"], extension, kind)
    source = tmp_path / "in.csv"
    source.write_text("CPF\n" + "\n".join([*cpfs[:40], "1", *cnpjs[:9]]) + "\n")
    check = check_upload(source, "CSV")

    whole = run_batch(
        source, check, spec, dataset_path, tmp_path / "whole",
        on_progress=lambda p: None, should_stop=lambda: False, chunk_rows=7, today=TODAY,
    )  # fmt: skip

    seen: list[BatchProgress] = []
    asked = 0

    def stop_after_three() -> bool:
        nonlocal asked
        asked += 1
        return asked > 3

    work = tmp_path / "resumed"
    with pytest.raises(BatchStopped):
        run_batch(
            source, check, spec, dataset_path, work,
            on_progress=seen.append, should_stop=stop_after_three, chunk_rows=7, today=TODAY,
        )  # fmt: skip
    assert sorted(p.name for p in work.glob("chunk-*")) == [
        "chunk-000000.arrow",
        "chunk-000001.arrow",
        "chunk-000002.arrow",
    ]
    assert not list(work.glob("return.*"))
    assert seen[-1] == BatchProgress(21, 21, 0)
    (work / "chunk-000003.arrow.partial").write_bytes(b"half a chunk, as a kill -9 leaves it")

    resumed = run_batch(
        source, check, spec, dataset_path, work,
        on_progress=seen.append, should_stop=lambda: False, chunk_rows=7, today=TODAY,
    )  # fmt: skip
    assert resumed.return_file.read_bytes() == whole.return_file.read_bytes()
    assert (
        (resumed.records, resumed.found, resumed.invalid) == (whole.records, whole.found, whole.invalid) == (50, 49, 1)
    )
    assert seen[-1] == BatchProgress(50, 49, 1)
    assert sorted(p.name for p in work.glob("return.*")) == [f"return.{extension}"]

    # Run once more after it finished (a crash before the runner recorded it): the same file, untouched.
    shutil.copy(resumed.return_file, tmp_path / "copy")
    again = run_batch(
        source, check, spec, dataset_path, work,
        on_progress=seen.append, should_stop=lambda: False, chunk_rows=7, today=TODAY,
    )  # fmt: skip
    assert again == resumed
    assert again.return_file.read_bytes() == (tmp_path / "copy").read_bytes()


# -- the preview's staged join ------------------------------------------------------------------------


def test_a_run_after_the_preview_takes_its_staged_join_and_gives_the_same_file(
    dataset_path: Path, tmp_path: Path
) -> None:
    cpfs, cnpjs = documents(dataset_path)
    spec = layout(["CPF", "NOME", "NASCIMENTO", "IDADE", "ENCONTRADO"])
    sent = tmp_path / "sent"
    sent.mkdir()
    source = sent / "in.csv"
    source.write_text("CPF\n" + "\n".join([*cpfs[:30], "123.456.789-00", "x", *cnpjs[:5]]) + "\n")
    check = check_upload(source, "CSV")

    def run(work: str, chosen: LayoutSpec = spec, stop: Any = lambda: False, today: dt.date = TODAY) -> Any:
        return run_batch(
            source, check, chosen, dataset_path, tmp_path / work,
            on_progress=lambda p: None, should_stop=stop, chunk_rows=8, today=today,
        )  # fmt: skip

    plain = run("plain")  # no preview yet: the file itself is read and joined
    assert not staged_path(source).exists()
    shown = preview(source, check, spec, dataset_path, today=TODAY)
    assert staged_path(source).exists()
    assert (shown.records, shown.valid_documents, shown.found_in_dataset) == (plain.records, plain.valid, plain.found)

    # The file now says something else: a run under the preview's layout and day takes the staged join,
    # stopped and resumed too, and gives the bytes the file gave before.
    source.write_text("CPF\n" + cpfs[40] + "\n")
    asked = 0

    def stop_after_two() -> bool:
        nonlocal asked
        asked += 1
        return asked > 2

    with pytest.raises(BatchStopped):
        run("staged", stop=stop_after_two)
    assert run("staged").return_file.read_bytes() == plain.return_file.read_bytes()

    # A layout edited since the preview, or another day (ages), does not take the staged join: the file is read.
    other = LayoutSpec(
        spec.file_name, spec.final_file_name, spec.return_extension, spec.accepted_extension, spec.kind,
        spec.delimiter, spec.first_line, spec.table, (*spec.rows, LayoutRow("CODIGO", "text", 2, "", 10, "entry")),
    )  # fmt: skip
    assert run("other", other).records == 1
    assert run("next-day", today=TODAY + dt.timedelta(days=1)).records == 1


# -- the record's status ---------------------------------------------------------------------------------


@pytest.mark.parametrize("staged", [False, True])
def test_the_return_file_says_whether_each_record_was_found_not_found_or_had_an_invalid_document(
    dataset_path: Path, tmp_path: Path, staged: bool
) -> None:
    # ENCONTRADO says N both for a document no source holds and for one that is not a CPF/CNPJ at all;
    # STATUS_REGISTRO tells them apart, in any layout, whether the run joins the file or takes the preview's join.
    cpfs, cnpjs = documents(dataset_path)
    known = set(cpfs) | set(cnpjs)
    absent = next(
        b + cpf_check_digits(b) for b in (f"{i:09d}" for i in range(1, 10**6)) if b + cpf_check_digits(b) not in known
    )
    by_vendor = next(
        b + cnpj_check_digits(b)
        for b in (f"{i:012d}" for i in range(1, 10**6))
        if b + cnpj_check_digits(b) not in known
    )
    vendor = dict(docs_by_document(dataset_path)[cnpjs[0]], cnpj=by_vendor)
    spec = layout(["NOME", "STATUS_REGISTRO", "ENCONTRADO", "CPF"])
    sent = tmp_path / "sent"
    sent.mkdir()
    source = sent / "in.csv"
    source.write_text(f"CPF\n{cpfs[0]}\n{absent}\n123.456.789-00\nabc\n{cnpjs[1]}\n{by_vendor}\n")
    check = check_upload(source, "CSV")
    if staged:
        preview(source, check, spec, dataset_path, today=TODAY)
        assert staged_path(source).exists()
    outcome = run_batch(
        source, check, spec, dataset_path, tmp_path / "work", on_progress=lambda p: None, should_stop=lambda: False,
        resolve_missing=lambda docs: {by_vendor: vendor} if by_vendor in docs else {}, today=TODAY,
    )  # fmt: skip
    lines = outcome.return_file.read_text().splitlines()
    assert lines[0] == "NOME;STATUS_REGISTRO;ENCONTRADO;CPF"
    statuses = [line.split(";")[1:] for line in lines[1:]]
    assert statuses == [
        ["ENCONTRADO", "S", cpfs[0]],
        ["NAO_ENCONTRADO", "N", absent],
        ["DOCUMENTO_INVALIDO", "N", "123.456.789-00"],
        ["DOCUMENTO_INVALIDO", "N", "abc"],
        ["ENCONTRADO", "S", cnpjs[1]],
        ["ENCONTRADO", "S", by_vendor],  # a supplier's answer for a document the dataset lacks
    ]
    assert (outcome.records, outcome.found, outcome.invalid) == (6, 3, 2)
    assert exit_field("record status") == exit_field("STATUS_REGISTRO") == exit_field("Situação registro")


@pytest.mark.parametrize(
    ("date_format", "pattern"), [("dd/mm/aaaa", "%d/%m/%Y"), ("aaaa-mm-dd", "%Y-%m-%d"), ("ddmmyyyy", "%d%m%Y")]
)
def test_a_date_row_is_written_in_its_format_by_the_join_and_by_the_record_mapping(
    dataset_path: Path, tmp_path: Path, date_format: str, pattern: str
) -> None:
    """The picker's ``dd/mm/aaaa`` is what a return file holds (the dataset's join and a supplier's
    record alike); before, every date came out ``YYYY-MM-DD`` whatever the row said."""
    cpfs, _ = documents(dataset_path)
    rows = (
        LayoutRow("CPF", "document", 1, "", None, "entry"),
        LayoutRow("NASCIMENTO", "date", 1, date_format, None, "exit"),
    )
    spec = LayoutSpec("f", "r", "csv", "csv", "delimited", ";", True, "people", rows)
    source = tmp_path / "in.csv"
    source.write_text("CPF\n" + "\n".join(cpfs[:50]) + "\n")
    outcome = run_batch(
        source, check_upload(source, "CSV"), spec, dataset_path, tmp_path / "work",
        on_progress=lambda p: None, should_stop=lambda: False, today=TODAY,
    )  # fmt: skip
    records = docs_by_document(dataset_path)
    field = exit_field("NASCIMENTO")
    assert field is not None
    for line, cpf in zip(outcome.return_file.read_text().splitlines()[1:], cpfs[:50], strict=True):
        born = dt.date.fromisoformat(records[cpf]["birth_date"][:10])
        assert line == born.strftime(pattern) == exit_value(field, records[cpf], cpf, TODAY, date_format)

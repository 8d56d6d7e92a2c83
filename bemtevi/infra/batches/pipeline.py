"""The set-wise enrichment of a batch: the records read by the layout, their documents normalised and
validated in SQL, joined against the local dataset in DuckDB in one pass, the exit columns filled.

``preview`` counts what a run would do (nothing is written, nothing charged). ``run_batch`` runs it:
the input is streamed from the file into one DuckDB query (``LEFT JOIN`` on the document, ordered by
the record's number), whose result is taken chunk by chunk; each chunk (after the optional
``resolve_missing`` has answered, through the same field mapping, for valid documents the dataset
lacks) is written atomically as ``work_dir/chunk-NNNNNN.arrow``, then the return file is assembled
from the chunks atomically as ``work_dir/return.<ext>``. A run after a kill -9 keeps the chunks on
disk, feeds the query only the records after the last one written, and writes the same return file:
the outcome (and the bytes of the file) do not depend on where a run stopped.

The free preview runs the run's own join (it needs the join anyway, to count the records found) and
stages its result beside the file as ``joined.arrow`` (``staged_path``), tagged with what the result
depends on: the layout's rows and reading rules, the day (ages), the dataset file. A run whose tag still
matches takes its chunks from the staged result instead of reading, normalising and joining the file
again (the user waits for the preview before confirming; the run after it should not pay for the same
work twice: through the API that was ~1.6x the one-shot pipeline, upload to return file). Without it
(a layout edited since, another day, an older upload) the run joins the file itself, by the same SQL.

The plan and the SQL of the join are ``join_sql``'s.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from bemtevi.domain.batch_errors import BatchStopped
from bemtevi.domain.enrichment_fields import (
    exit_value,
)
from bemtevi.domain.errors import DomainError
from bemtevi.domain.layouts import LayoutSpec
from bemtevi.infra.batches.join_sql import ExitPlan, exit_plan, joined_sql
from bemtevi.infra.batches.readers import ROW, read_records
from bemtevi.infra.batches.returns import write_return_file
from bemtevi.infra.batches.upload_checks import UploadCheck
from bemtevi.infra.duckdb_files import path_literal

CHUNK_ROWS = 100_000
MEMORY_LIMIT = "512MB"

ResolveMissing = Callable[[list[str]], dict[str, dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class BatchPreview:
    records: int
    valid_documents: int
    invalid_documents: int
    found_in_dataset: int
    credits_needed: int
    unknown_exit_fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BatchProgress:
    records_done: int
    found: int
    invalid: int


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    records: int
    valid: int
    invalid: int
    found: int
    return_file: Path


def _connect(dataset: Path, temp_dir: Path | None = None) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT})
    if temp_dir is not None:
        con.execute(f"SET temp_directory = {path_literal(temp_dir)}")
    con.execute(f"ATTACH {path_literal(dataset)} AS ds (READ_ONLY)")
    return con


# -- preview -------------------------------------------------------------------------------------


STAGED_NAME = "joined.arrow"
_STAGED_KEY = b"bemtevi.joined"


def staged_path(path: Path) -> Path:
    """Where the preview stages a file's joined records: beside it (no upload is an ``.arrow``)."""
    return path.with_name(STAGED_NAME)


def _stage_tag(spec: LayoutSpec, dataset: Path, today: dt.date) -> bytes:
    """What a joined result depends on: how the file is read and every row of the layout, the day (ages
    are counted on it), the dataset file (its size and modification time) and the joining statement."""
    layout = [spec.kind, spec.delimiter, spec.first_line, [r.as_dict() for r in spec.rows]]
    # The statement too: a result staged by a release that filled the exit fields otherwise is not taken.
    statement = hashlib.sha256(joined_sql(spec, exit_plan(spec), "src", today).encode()).hexdigest()
    stat = dataset.stat()
    return json.dumps([layout, today.isoformat(), str(dataset), stat.st_size, stat.st_mtime_ns, statement]).encode()


def _staged(path: Path, spec: LayoutSpec, dataset: Path, today: dt.date) -> pa.Table | None:
    """The joined records the preview staged for ``path``, memory-mapped, if the tag still matches."""
    staged = staged_path(path)
    if not staged.exists():
        return None
    with pa.memory_map(str(staged)) as source:
        table = pa.ipc.open_file(source).read_all()
    if (table.schema.metadata or {}).get(_STAGED_KEY) != _stage_tag(spec, dataset, today):
        return None
    return table


def preview(
    path: Path,
    check: UploadCheck,
    spec: LayoutSpec,
    dataset: Path,
    today: dt.date | None = None,
    max_records: int | None = None,
) -> BatchPreview:
    """What a run would do: records, valid and invalid documents, found in the dataset, credits
    needed (one per valid document), the exit rows that will stay empty. Free: nothing charged; the
    joined records are staged beside the file (``staged_path``) for the run. A file past ``max_records``
    is refused (``TooManyRecords``) as soon as reading it passes them."""
    plan = exit_plan(spec)
    today = today or dt.date.today()
    staged = staged_path(path)
    partial = staged.with_name(staged.name + ".partial")
    records = valid = found = 0
    con = _connect(dataset, path.parent / "duckdb.tmp")
    try:
        refusal: list[DomainError] = []
        con.register("src", _refusals_kept(read_records(path, check, spec, max_records=max_records), refusal))
        try:
            reader = con.execute(joined_sql(spec, plan, "src", today)).fetch_record_batch(CHUNK_ROWS)
            schema = reader.schema.with_metadata({_STAGED_KEY: _stage_tag(spec, dataset, today)})
            with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
                for batch in reader:
                    n, v, f = _counts(pa.Table.from_batches([batch]))
                    records, valid, found = records + n, valid + v, found + f
                    writer.write_batch(pa.RecordBatch.from_arrays(batch.columns, schema=schema))
        except (duckdb.Error, pa.ArrowException) as error:
            if refusal:  # DuckDB answers the reader's refusal as an error of its own: the refusal is what happened
                raise refusal[0] from error
            raise
        os.replace(partial, staged)
    finally:
        con.close()
        partial.unlink(missing_ok=True)
        shutil.rmtree(path.parent / "duckdb.tmp", ignore_errors=True)
    return BatchPreview(records, valid, records - valid, found, valid, plan.unknown)


def _refusals_kept(reader: pa.RecordBatchReader, refusal: list[DomainError]) -> pa.RecordBatchReader:
    """The reader, keeping in ``refusal`` the refusal it raises (DuckDB, reading it, loses the error's type)."""

    def batches() -> Iterator[pa.RecordBatch]:
        try:
            yield from reader
        except DomainError as error:
            refusal.append(error)
            raise

    return pa.RecordBatchReader.from_batches(reader.schema, batches())


# -- the run -------------------------------------------------------------------------------------


def _chunk_path(work_dir: Path, index: int) -> Path:
    return work_dir / f"chunk-{index:06d}.arrow"


def _chunks_on_disk(work_dir: Path) -> list[Path]:
    chunks: list[Path] = []
    while (path := _chunk_path(work_dir, len(chunks))).exists():
        chunks.append(path)
    return chunks


def _read_chunk(path: Path) -> pa.Table:
    with pa.memory_map(str(path)) as source:
        return pa.ipc.open_file(source).read_all()


def _write_chunk(path: Path, table: pa.Table) -> None:
    partial = path.with_name(path.name + ".partial")
    with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    os.replace(partial, path)


def _counts(table: pa.Table) -> tuple[int, int, int]:
    """(records, valid, found) of a chunk."""
    valid = pc.sum(table.column("__valid")).as_py() or 0
    found = pc.sum(table.column("__found")).as_py() or 0
    return table.num_rows, int(valid), int(found)


def _resolved(table: pa.Table, plan: ExitPlan, resolve_missing: ResolveMissing | None, today: dt.date) -> pa.Table:
    """The chunk with the records ``resolve_missing`` answered for valid documents the dataset lacks,
    their exit fields filled through the same mapping (``exit_value``) as the dataset's."""
    if resolve_missing is None:
        return table
    missing = pc.and_(table.column("__valid"), pc.invert(table.column("__found")))
    indices = pc.indices_nonzero(missing).to_pylist()
    if not indices:
        return table
    documents = table.column("__doc").to_pylist()
    answers = resolve_missing(sorted({documents[i] for i in indices}))
    hits = [i for i in indices if answers.get(documents[i]) is not None]
    if not hits:
        return table
    found = table.column("__found").to_pylist()
    columns = {name: table.column(name).to_pylist() for name in table.column_names if name.startswith("x")}
    for i in hits:
        record = answers[documents[i]]
        found[i] = True
        for x, field in enumerate(plan.fields):
            if field is not None:
                columns[f"x{x}"][i] = exit_value(field, record, documents[i], today, plan.rows[x].format)
    table = table.set_column(table.schema.get_field_index("__found"), "__found", pa.array(found, pa.bool_()))
    for name, values in columns.items():
        table = table.set_column(table.schema.get_field_index(name), name, pa.array(values, pa.string()))
    return table


def _exit_columns(table: pa.Table, plan: ExitPlan) -> list[pa.Array]:
    return [table.column(f"x{i}").combine_chunks() for i in range(len(plan.rows))]


def run_batch(
    path: Path,
    check: UploadCheck,
    spec: LayoutSpec,
    dataset: Path,
    work_dir: Path,
    *,
    on_progress: Callable[[BatchProgress], None],
    should_stop: Callable[[], bool],
    resolve_missing: ResolveMissing | None = None,
    chunk_rows: int = CHUNK_ROWS,
    today: dt.date | None = None,
) -> BatchOutcome:
    """Enrich the file into ``work_dir/return.<ext>`` (see the module's docstring); resumable."""
    work_dir.mkdir(parents=True, exist_ok=True)
    plan = exit_plan(spec)
    today = today or dt.date.today()
    target = work_dir / f"return.{spec.return_extension.lower()}"
    chunks = _chunks_on_disk(work_dir)
    records = valid = found = 0
    last_row = 0
    for chunk in chunks:
        table = _read_chunk(chunk)
        n, v, f = _counts(table)
        records, valid, found = records + n, valid + v, found + f
        if n:
            last_row = int(table.column(ROW)[n - 1].as_py())
    if not target.exists():
        if chunks:
            on_progress(BatchProgress(records, found, records - valid))
        for table in _new_chunks(path, check, spec, dataset, work_dir, plan, today, last_row, chunk_rows):
            if should_stop():
                raise BatchStopped()
            table = _resolved(table, plan, resolve_missing, today)
            _write_chunk(_chunk_path(work_dir, len(chunks)), table)
            chunks.append(_chunk_path(work_dir, len(chunks)))
            n, v, f = _counts(table)
            records, valid, found = records + n, valid + v, found + f
            on_progress(BatchProgress(records, found, records - valid))
        if should_stop():
            raise BatchStopped()
        partial = target.with_name(target.name + ".partial")
        columns = (_exit_columns(_read_chunk(c), plan) for c in chunks)
        write_return_file(spec, partial, columns, check.encoding)
        os.replace(partial, target)
    return BatchOutcome(records, valid, records - valid, found, target)


def _new_chunks(
    path: Path,
    check: UploadCheck,
    spec: LayoutSpec,
    dataset: Path,
    work_dir: Path,
    plan: ExitPlan,
    today: dt.date,
    after_row: int,
    chunk_rows: int,
) -> Iterator[pa.Table]:
    """The joined records after ``after_row``, ``chunk_rows`` at a time, in the records' order."""
    staged = _staged(path, spec, dataset, today)
    if staged is not None:
        # The preview's join: the records after ``after_row`` (the staged result is in the records' order).
        done = int(pc.sum(pc.less_equal(staged.column(ROW), after_row)).as_py() or 0) if after_row else 0
        for start in range(done, staged.num_rows, chunk_rows):
            yield staged.slice(start, chunk_rows).combine_chunks().replace_schema_metadata(None)
        return
    temp = work_dir / "duckdb.tmp"
    con = _connect(dataset, temp)
    try:
        con.register("src", read_records(path, check, spec))
        reader = con.execute(joined_sql(spec, plan, "src", today, after_row)).fetch_record_batch(chunk_rows)
        pending: list[pa.RecordBatch] = []
        pending_rows = 0
        for batch in reader:
            pending.append(batch)
            pending_rows += batch.num_rows
            while pending_rows >= chunk_rows:
                table = pa.Table.from_batches(pending)
                yield table.slice(0, chunk_rows).combine_chunks()
                rest = table.slice(chunk_rows)
                pending, pending_rows = rest.to_batches(), rest.num_rows
        if pending_rows:
            yield pa.Table.from_batches(pending).combine_chunks()
    finally:
        con.close()

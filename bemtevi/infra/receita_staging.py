"""A Receita Federal release's members staged beside the dataset (``bemtevi.infra.receita``): each member read by
DuckDB's CSV reader, a piece at a time (``receita_layout.extract``), into Parquet parts of the columns the build reads
(``receita_build.STAGED``), the code tables into ``rf_codes``; a malformed line skipped and reported; the views the
build reads them through."""

from __future__ import annotations

import os
import shutil
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from bemtevi.infra.duckdb_files import transaction
from bemtevi.infra.receita_build import STAGED
from bemtevi.infra.receita_layout import CODE_LAYOUT, CODE_TABLES, LAYOUTS, kind_of


def staging_dir(dataset: Path) -> Path:
    """Where a release's files are staged, beside the dataset (removed once the release is imported)."""
    return dataset.with_name(dataset.name + ".cnpj-staging")


def staged_file(staging: Path, zip_name: str, member: str) -> Path:
    """A member's staged rows: a directory of Parquet files, one per part (``part=N/``)."""
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in f"{Path(zip_name).stem}.{member}")
    return staging / f"{safe}.parquet"


@dataclass(frozen=True)
class Rejected:
    zip: str
    member: str
    line: int
    error: str


def _read_csv(path: Path, columns: tuple[str, ...], *, rejects: bool) -> str:
    spec = ", ".join(f"'{c}': 'VARCHAR'" for c in columns)
    # Keeping the rejects costs about as much as parsing the file: a clean member is read without them
    # (a malformed line then fails the statement) and only a failed one is read again, keeping them.
    errors = (
        "ignore_errors = true, store_rejects = true, rejects_table = 'rf_rejected_now', "
        "rejects_scan = 'rf_rejected_scan'"
        if rejects
        else "ignore_errors = false"
    )
    return (
        f"read_csv('{path.as_posix()}', columns = {{{spec}}}, delim = ';', quote = '\"', escape = '\"', "
        f"header = false, encoding = 'utf-8', auto_detect = false, strict_mode = true, {errors})"
    )


def _stage(
    con: duckdb.DuckDBPyConnection,
    kind: str,
    pieces: list[Path],
    target: Path,
    position: int,
    parts: int,
    *,
    rejects: bool,
) -> tuple[int, list[tuple[int, str]]]:
    """The member's rows staged (``target``'s parts, or ``rf_codes``), a piece at a time: their count, and with
    ``rejects`` each malformed line's number in the member (as DuckDB numbers a file's: by record) and error."""
    shutil.rmtree(target, ignore_errors=True)  # what a failed first read wrote before it failed
    count = 0
    rejected: list[tuple[int, str]] = []
    records_before = 0  # the member's lines in the pieces before this one: those staged and those rejected
    for index, piece in enumerate(pieces):
        if rejects:
            con.execute("DROP TABLE IF EXISTS rf_rejected_now; DROP TABLE IF EXISTS rf_rejected_scan")
        if kind in CODE_TABLES:
            source = _read_csv(piece, CODE_LAYOUT, rejects=rejects)
            row = con.execute(f"INSERT INTO rf_codes SELECT '{kind}', codigo, descricao FROM {source}").fetchone()
        else:
            # Parquet beside the dataset, not a table in it: about a third of the CPU (a table's rows are
            # compressed again at each checkpoint) and the dataset file does not keep the staging's size.
            # ``member`` (the file's position in the release) and ``piece`` order duplicates: the first read is kept.
            source = _read_csv(piece, LAYOUTS[kind], rejects=rejects)
            row = con.execute(
                f"COPY (SELECT {position}::INTEGER AS member, {index}::INTEGER AS piece, {', '.join(STAGED[kind])}, "
                f"hash(cnpj_basico) % {parts} AS part FROM {source}) "
                f"TO '{target.as_posix()}' (FORMAT parquet, COMPRESSION snappy, PARTITION_BY (part), "
                f"FILENAME_PATTERN 'piece{index}_{{i}}', OVERWRITE_OR_IGNORE)"
            ).fetchone()
        staged = int(row[0]) if row else 0
        count += staged
        if rejects:
            lines = [
                (records_before + int(line), str(error))
                for line, error in con.execute(
                    # one row per wrong field: a line is reported once, with its first error
                    "SELECT line, arg_min(error_message, column_idx) FROM rf_rejected_now GROUP BY line ORDER BY line"
                ).fetchall()
            ]
            rejected += lines
            records_before += staged + len(lines)
    return count, rejected


def load_member(
    con: duckdb.DuckDBPyConnection,
    release: str,
    zip_path: Path,
    info: zipfile.ZipInfo,
    kind: str,
    position: int,
    parts: int,
    staging: Path,
    pieces: list[Path],
    before_commit: Callable[[str], None] | None,
) -> tuple[int, list[Rejected]]:
    target = staged_file(staging, zip_path.name, info.filename)
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        rejected: list[Rejected] = []
        with transaction(con):
            try:
                rows, _ = _stage(con, kind, pieces, partial, position, parts, rejects=False)
            except duckdb.InvalidInputException:
                con.execute("ROLLBACK")
                con.execute("BEGIN")
                rows, lines = _stage(con, kind, pieces, partial, position, parts, rejects=True)
                rejected = [Rejected(zip_path.name, info.filename, line, error) for line, error in lines]
            for r in rejected:
                con.execute(
                    "INSERT INTO rf_rejects VALUES (?, ?, ?, ?, ?)", [release, r.zip, r.member, r.line, r.error]
                )
            con.execute("DELETE FROM rf_slices")  # records built before this file are built again
            con.execute(
                "INSERT INTO rf_members VALUES (?, ?, ?, ?, ?, ?)",
                [zip_path.name, info.filename, info.CRC, info.file_size, rows, len(rejected)],
            )
            if kind not in CODE_TABLES:
                # in place before the commit that names it done; a file without its line is staged again
                partial.mkdir(exist_ok=True)  # a member of no lines writes no part
                shutil.rmtree(target, ignore_errors=True)
                os.replace(partial, target)
            if before_commit is not None:
                before_commit(f"{zip_path.name}/{info.filename}")
    finally:
        for piece in pieces:
            piece.unlink(missing_ok=True)
        shutil.rmtree(partial, ignore_errors=True)
    return rows, rejected


def staging_views(con: duckdb.DuckDBPyConnection, staging: Path) -> str:
    """The script making ``rf_empresas`` ... (temporary: each connection reading them runs it) over the staged files
    of the members loaded, each row with ``seq``: unique, and in the order the lines of one key were read."""
    views: list[str] = []
    files: dict[str, list[str]] = {kind: [] for kind in LAYOUTS}
    for zip_name, member in con.execute("SELECT zip, member FROM rf_members ORDER BY zip, member").fetchall():
        kind = kind_of(zip_name)
        staged = staged_file(staging, zip_name, member)
        if kind in files and any(staged.glob("part=*")):
            files[kind].append(f"{staged.as_posix()}/*/*.parquet")
    for kind, columns in STAGED.items():
        if files[kind]:
            listed = ", ".join(f"'{f}'" for f in files[kind])
            body = (
                f"SELECT {', '.join(columns)}, "
                "(member::BIGINT << 48) | (piece::BIGINT << 38) | (part::BIGINT << 32) | file_row_number AS seq, "
                "part "
                f"FROM read_parquet([{listed}], file_row_number = true, hive_partitioning = true)"
            )
        else:
            nulls = ", ".join(f"NULL::VARCHAR AS {c}" for c in columns)
            body = f"SELECT {nulls}, 0::BIGINT AS seq, 0::UBIGINT AS part WHERE false"
        views.append(f"CREATE OR REPLACE TEMP VIEW rf_{kind} AS {body}")
    return ";\n".join(views)

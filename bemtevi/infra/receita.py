"""Import of the Receita Federal's open CNPJ data into the local dataset (``bemtevi import-cnpj DIR``).

The published layout (the "Dicionário de Dados do Cadastro Nacional da Pessoa Jurídica"): zip files,
each holding one member of ``;``-separated lines, every field double-quoted, Latin-1, no header.
Files are told apart by name: ``Empresas*``, ``Estabelecimentos*``, ``Socios*``, ``Simples*`` and the
code tables ``Cnaes``, ``Municipios``, ``Naturezas``, ``Qualificacoes``, ``Paises``, ``Motivos``.

How it runs:

* each zip member is copied, streamed and re-encoded as UTF-8, to temporary files of whole lines beside the dataset
  (``receita_layout.extracted``: the next one while this one is read) and read by DuckDB's CSV reader with explicit
  columns into a Parquet file of the columns the build reads (``receita_build.STAGED``), all as text, in a staging
  directory beside the dataset (``staging_dir``; the code tables go to ``rf_codes``);
* a member is done once its file is in place and its line in ``rf_members`` committed: a stop mid-member leaves nothing
  of it, and the next run skips the members already there (resume);
* once every member is staged, the staging tables become the company records (``companies``, the shape
  ``bemtevi.infra.demo_data`` writes, plus ``secondary_activities`` and ``simples``; their lookup documents are made
  from these rows by the lookup copy), replacing the records of the CNPJs it has, in slices of the companies (two at a
  time), each committed with its line in ``rf_slices`` (a stop mid-build goes on from the next slice); a last
  transaction marks the release imported and empties the staging; the same release again changes nothing;
* a malformed line (wrong number of fields, an unclosed quote) is skipped and reported with its zip, member and line:
  the published files are large and a stray line must not cost the month's import, and the report (also kept in
  ``rf_rejects``) says exactly what was left out.
"""

from __future__ import annotations

import os
import shutil
import time
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from bemtevi.infra.demo_data import COMPANIES_DDL, DOCS_DDL, INFO_DDL, PEOPLE_DDL, drop_company_key
from bemtevi.infra.duckdb_files import transaction
from bemtevi.infra.receita_build import SIMPLES_TYPE, STAGED, build_slice
from bemtevi.infra.receita_layout import CODE_LAYOUT, CODE_TABLES, LAYOUTS, extracted, kind_of, members_of

# Establishments turned into records per statement at most (see receita_build.BUILD_SQL).
_SLICE_ROWS = 200_000
# Each member's staged rows are split into parts by a hash of the CNPJ root (a power of two, from the
# establishments' size, at most _PARTS): a slice of the records then reads only its parts' files (see
# receita_build.in_slice); a small release keeps one part (many tiny files cost more). The line size is taken
# on the short side: more parts than slices keep a slice to whole parts, fewer would have slices share one.
_PARTS = 64
_LINE_BYTES = 200  # an establishment's line in the published files is some 200 to 300 bytes

STATE_DDL = """
CREATE TABLE IF NOT EXISTS rf_state (release VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS rf_releases (release VARCHAR PRIMARY KEY, companies BIGINT, imported_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS rf_members (
    zip VARCHAR, member VARCHAR, crc BIGINT, size BIGINT, rows BIGINT, rejected BIGINT,
    PRIMARY KEY (zip, member)
);
CREATE TABLE IF NOT EXISTS rf_rejects (release VARCHAR, zip VARCHAR, member VARCHAR, line BIGINT, error VARCHAR);
CREATE TABLE IF NOT EXISTS rf_codes (kind VARCHAR, codigo VARCHAR, descricao VARCHAR);
CREATE TABLE IF NOT EXISTS rf_slices (slices INTEGER, slice INTEGER, companies BIGINT, PRIMARY KEY (slices, slice));
"""


def staging_dir(dataset: Path) -> Path:
    """Where a release's files are staged, beside the dataset (removed once the release is imported)."""
    return dataset.with_name(dataset.name + ".cnpj-staging")


def _staged_file(staging: Path, zip_name: str, member: str) -> Path:
    """A member's staged rows: a directory of Parquet files, one per part (``part=N/``)."""
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in f"{Path(zip_name).stem}.{member}")
    return staging / f"{safe}.parquet"


def _parts_for(members: list[tuple[Path, zipfile.ZipInfo, str]]) -> int:
    size = sum(info.file_size for _, info, kind in members if kind == "estabelecimentos")
    needed = max(1, -(-size // (_SLICE_ROWS * _LINE_BYTES)))
    return min(_PARTS, 1 << (needed - 1).bit_length())


@dataclass(frozen=True)
class Rejected:
    zip: str
    member: str
    line: int
    error: str


@dataclass
class ImportSummary:
    release: str
    already_imported: bool = False
    members_loaded: int = 0
    members_skipped: int = 0
    rows: int = 0
    companies: int = 0
    rejected: list[Rejected] = field(default_factory=list)
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # seconds spent reading, building, copying

    def report(self) -> str:
        if self.already_imported:
            return f"Release {self.release} is already imported; nothing changed."
        return (
            f"Release {self.release}: {self.rows:,} rows from {self.members_loaded} files "
            f"({self.members_skipped} loaded before), {self.companies:,} companies, "
            f"{len(self.rejected)} lines skipped, in {self.seconds:.1f} s "
            f"({', '.join(f'{k} {v:.1f} s' for k, v in self.phases.items())})."
        )


def _ensure_dataset(con: duckdb.DuckDBPyConnection) -> None:
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    if "companies" not in tables:
        # A dataset made by the import alone: the local supplier's tables, with no people in them.
        con.execute(PEOPLE_DDL)
        con.execute(COMPANIES_DDL)
        con.execute(DOCS_DDL)
        con.execute(INFO_DDL)
    columns = {r[0] for r in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = 'companies'")
               .fetchall()}  # fmt: skip
    # Datasets generated before the import existed lack the two columns only the import fills.
    if "secondary_activities" not in columns:
        con.execute("ALTER TABLE companies ADD COLUMN secondary_activities STRUCT(code VARCHAR, description VARCHAR)[]")
    if "simples" not in columns:
        con.execute(f"ALTER TABLE companies ADD COLUMN simples {SIMPLES_TYPE}")
    drop_company_key(con)
    con.execute(STATE_DDL)
    # Company documents are made by the lookup copy from ``companies``: a stored copy would go stale.
    con.execute("DROP TABLE IF EXISTS company_docs")
    for kind in LAYOUTS:  # the staging moved to Parquet files beside the dataset
        con.execute(f"DROP TABLE IF EXISTS rf_{kind}")


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


def _load_member(
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
    target = _staged_file(staging, zip_path.name, info.filename)
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


def _clear_staging(con: duckdb.DuckDBPyConnection) -> None:
    for table in ("rf_codes", "rf_members", "rf_slices", "rf_state"):
        con.execute(f"DELETE FROM {table}")


def _staging_views(con: duckdb.DuckDBPyConnection, staging: Path) -> str:
    """The script making ``rf_empresas`` ... (temporary: each connection reading them runs it) over the staged files
    of the members loaded, each row with ``seq``: unique, and in the order the lines of one key were read."""
    views: list[str] = []
    files: dict[str, list[str]] = {kind: [] for kind in LAYOUTS}
    for zip_name, member in con.execute("SELECT zip, member FROM rf_members ORDER BY zip, member").fetchall():
        kind = kind_of(zip_name)
        staged = _staged_file(staging, zip_name, member)
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


def _build(
    con: duckdb.DuckDBPyConnection,
    release: str,
    staging: Path,
    parts: int,
    before_commit: Callable[[str], None] | None,
    progress: Callable[[str], None] | None,
) -> int:
    # Each slice commits with its line in rf_slices: a transaction's own inserts (and their key
    # indexes) stay in memory until it commits, so one transaction for the release grew with it; and a
    # stop mid-build goes on from the next slice. The slice count is kept so a resumed build cuts alike.
    views = _staging_views(con, staging)
    con.execute(views)
    kept = con.execute("SELECT max(slices) FROM rf_slices").fetchone()
    if kept is not None and kept[0] is not None:
        slices = int(kept[0])
    else:
        staged = con.execute("SELECT count(*) FROM rf_estabelecimentos").fetchone()
        needed = max(1, -(-(staged[0] if staged else 0) // _SLICE_ROWS))
        slices = 1 << (needed - 1).bit_length()  # a power of two, see receita_build.in_slice
    done = {int(r[0]) for r in con.execute("SELECT slice FROM rf_slices WHERE slices = ?", [slices]).fetchall()}
    # Records of the release's CNPJs already in the dataset are replaced: none to look for in a dataset
    # with no companies yet (each slice's own, disjoint, are not there before it commits).
    replacing = bool((con.execute("SELECT count(*) FROM companies").fetchone() or (0,))[0])
    if not replacing:
        # Each slice's insert ends in a partial row group a thread; the checkpoint's vacuum would merge each
        # with the next, rewriting about half the records (and leaving their first copy as free space in the
        # file). Into an empty table nothing is deleted that a vacuum would reclaim.
        con.execute("SET max_vacuum_tasks = 0")
    # Two slices at a time (a third runs out of the memory limit), each on one thread and a connection of its own:
    # one slice's statement kept both cores busy only part of its time; two side by side take two thirds of it.
    stopped: list[BaseException] = []

    def one_slice(part: int) -> None:
        if stopped:  # a slice failed: the rest stop as a killed import would (the next run goes on)
            return
        with con.cursor() as cur:
            cur.execute(f"SET enable_progress_bar = false; {views}")  # the import prints its own progress
            try:
                build_slice(cur, slices, part, parts, replacing, before_commit)
            except BaseException as e:
                stopped.append(e)
                raise
        if progress is not None:
            progress(f"records {part + 1}/{slices}")

    con.execute("SET threads = 1")
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="cnpj-records") as pool:
        for built in [pool.submit(one_slice, part) for part in range(slices) if part not in done]:
            built.result()
    con.execute("RESET threads")  # (a failed import closes its connection)
    row = con.execute("SELECT sum(companies) FROM rf_slices WHERE slices = ?", [slices]).fetchone()
    companies = int(row[0]) if row and row[0] is not None else 0
    with transaction(con):
        con.execute("INSERT INTO rf_releases VALUES (?, ?, now()::TIMESTAMP)", [release, companies])
        # The staging rows served their release; the next one is a full snapshot of its own.
        _clear_staging(con)
    return companies


def import_cnpj(
    directory: Path,
    dataset: Path,
    release: str | None = None,
    *,
    memory_limit: str = "500MB",
    before_commit: Callable[[str], None] | None = None,
    progress: Callable[[str], None] | None = None,
) -> ImportSummary:
    """Import the release in ``directory`` (named after it unless ``release`` is given) into ``dataset``.

    ``before_commit`` is called with each member's name once its rows are read and before they are
    committed (an exception there leaves the member out, as a stopped process would)."""
    started = time.perf_counter()
    directory = Path(directory)
    dataset = Path(dataset)
    release = release or directory.resolve().name
    root = staging_dir(dataset)
    summary = ImportSummary(release)
    members = members_of(directory)
    if not members:
        raise FileNotFoundError(f"no Receita Federal zip files in {directory}")
    dataset.parent.mkdir(parents=True, exist_ok=True)
    # One checkpoint, at the end: by DuckDB's default each slice's commit checkpointed, at a cost that grew
    # with the table (quadratic over a release); a commit's records are safe in the log until then.
    con = duckdb.connect(str(dataset), config={"memory_limit": memory_limit, "preserve_insertion_order": False,
                                               "checkpoint_threshold": "1TB"})  # fmt: skip
    try:
        con.execute("SET enable_progress_bar = false")
        _ensure_dataset(con)
        if con.execute("SELECT 1 FROM rf_releases WHERE release = ?", [release]).fetchone():
            summary.already_imported = True
            shutil.rmtree(root, ignore_errors=True)  # left by a stop just after the release's commit
            return summary
        current = con.execute("SELECT release FROM rf_state").fetchone()
        if current is None or current[0] != release:
            # A different release was left half-staged: it is dropped, this one starts afresh.
            with transaction(con):
                _clear_staging(con)
                con.execute("INSERT INTO rf_state VALUES (?)", [release])
            shutil.rmtree(root, ignore_errors=True)
        parts = _parts_for(members)
        staging = root / f"{parts}-parts-in-pieces"  # a member staged in other parts (or whole) is staged again
        staging.mkdir(parents=True, exist_ok=True)
        # Members whose line is committed and whose staged rows are in place (a code table's are in rf_codes).
        done = {(z, m): (crc, size) for z, m, crc, size in
                con.execute("SELECT zip, member, crc, size FROM rf_members").fetchall()
                if kind_of(z) in CODE_TABLES or _staged_file(staging, z, m).exists()}  # fmt: skip
        todo = [(position, member) for position, member in enumerate(members)
                if done.get((member[0].name, member[1].filename)) != (member[1].CRC, member[1].file_size)]  # fmt: skip
        summary.members_skipped = len(members) - len(todo)
        with closing(extracted([(zip_path, info) for _, (zip_path, info, _) in todo], staging)) as files:
            for (position, (zip_path, info, kind)), pieces in zip(todo, files, strict=True):
                rows, rejected = _load_member(con, release, zip_path, info, kind, position, parts, staging, pieces,
                                              before_commit)  # fmt: skip
                summary.members_loaded += 1
                summary.rows += rows
                summary.rejected.extend(rejected)
                if progress is not None:
                    progress(f"{zip_path.name}/{info.filename}: {rows:,} rows")
                    for r in rejected:
                        progress(f"skipped {r.zip}/{r.member} line {r.line}: {r.error}")
        summary.phases["files"] = time.perf_counter() - started
        summary.companies = _build(con, release, staging, parts, before_commit, progress)
        summary.phases["records"] = time.perf_counter() - started - summary.phases["files"]
        con.execute("CHECKPOINT")
    finally:
        con.close()
    shutil.rmtree(root, ignore_errors=True)
    # The dataset changed: refresh the lookup copy now rather than on the first lookup.
    from bemtevi.infra.suppliers.local import build_lookup_file

    copying = time.perf_counter()
    build_lookup_file(dataset)
    summary.phases["lookup copy"] = time.perf_counter() - copying
    summary.seconds = time.perf_counter() - started
    return summary

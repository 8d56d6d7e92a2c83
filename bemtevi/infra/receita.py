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
from bemtevi.infra.receita_build import SIMPLES_TYPE, build_slice
from bemtevi.infra.receita_layout import CODE_TABLES, LAYOUTS, extracted, kind_of, members_of
from bemtevi.infra.receita_staging import Rejected, load_member, staged_file, staging_dir, staging_views

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


def _parts_for(members: list[tuple[Path, zipfile.ZipInfo, str]]) -> int:
    size = sum(info.file_size for _, info, kind in members if kind == "estabelecimentos")
    needed = max(1, -(-size // (_SLICE_ROWS * _LINE_BYTES)))
    return min(_PARTS, 1 << (needed - 1).bit_length())


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


def _clear_staging(con: duckdb.DuckDBPyConnection) -> None:
    for table in ("rf_codes", "rf_members", "rf_slices", "rf_state"):
        con.execute(f"DELETE FROM {table}")


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
    views = staging_views(con, staging)
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
    # DuckDB's own memory: two slices' joins and aggregates and the staging's writers. 500 MB ran out at 5M with
    # the published code tables (longer names in every record); 600 MB peaks at some 900 MB for the process.
    memory_limit: str = "600MB",
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
                if kind_of(z) in CODE_TABLES or staged_file(staging, z, m).exists()}  # fmt: skip
        todo = [(position, member) for position, member in enumerate(members)
                if done.get((member[0].name, member[1].filename)) != (member[1].CRC, member[1].file_size)]  # fmt: skip
        summary.members_skipped = len(members) - len(todo)
        with closing(extracted([(zip_path, info) for _, (zip_path, info, _) in todo], staging)) as files:
            for (position, (zip_path, info, kind)), pieces in zip(todo, files, strict=True):
                rows, rejected = load_member(con, release, zip_path, info, kind, position, parts, staging, pieces,
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

"""``bemtevi import-cnpj`` over N synthetic establishments in the Receita Federal's published layout.

Writes (once, cached under ``--cache``, default var/bench-cache) a release of N establishments, N
companies, about 1.5 N partners and N / 2 Simples lines (zipped, ``;``-separated, quoted, Latin-1, no
header, with accents, split into several zips as published; the code tables at their published sizes),
then imports it into an empty dataset in a child process and prints rows/s (all lines of all files over
the whole import, lookup copy included) and the child's peak RSS (``wait4``). Target in issue 36:
≥ 300,000 rows/s, ≤ 1 GB.

``--readers`` also times, in the same run, reading the Estabelecimentos members only, by the two ways
considered: DuckDB's CSV reader on each member copied out of its zip to a temporary file (what the
import does) and pyarrow's streaming CSV reader on the zip member itself.

    PYTHONPATH=$PWD .venv/bin/python bench/cnpj_import.py --rows 1000000 --readers

``--against OTHER_CHECKOUT --rounds N`` alternates this checkout's import with another's in one run (the
figures of a loaded machine only compare within a run).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import code_env, compared_codes, print_ratios

from bemtevi.infra.receita_layout import LAYOUTS

_PARTS = 4  # zips per kind, as the Receita splits its large files

# The code tables at their published sizes, with synthetic codes and names: naming a code costs what it costs on a
# real release (a DuckDB MAP, for one, searches its keys one by one), and the records draw on all of them.
CNAE_CODES, MUNICIPALITIES, LEGAL_NATURES, ROLES = 1358, 5570, 90, 70


def _cnae(k: str) -> str:
    """The SQL of the ``k``-th CNAE code (7 digits)."""
    return f"lpad((1000000 + ({k}) % {CNAE_CODES} * 6007)::VARCHAR, 7, '0')"


GENERATE = {
    "empresas": f"""SELECT lpad(i::VARCHAR, 8, '0'), 'EMPRESA ' || i || ' COMÉRCIO E SERVIÇOS LTDA',
        (1015 + i % {LEGAL_NATURES} * 89)::VARCHAR, '49', (i % 100000)::VARCHAR || ',00', ['01', '03', '05'][i % 3 + 1],
        '' FROM range({{n}}) t(i)""",
    "estabelecimentos": f"""SELECT lpad(i::VARCHAR, 8, '0'), '0001', lpad((i % 100)::VARCHAR, 2, '0'), '1',
        'LOJA ' || i, '02', '20100101', '00', '', '', '20100101', {_cnae("i")},
        {_cnae("i * 7")} || ',' || {_cnae("i * 13 + 5")}, 'RUA', 'DAS ACÁCIAS ' || (i % 500), (i % 2000)::VARCHAR, '',
        'CENTRO', lpad((i % 99999999)::VARCHAR, 8, '0'), 'SP', lpad((i % {MUNICIPALITIES} + 1)::VARCHAR, 4, '0'), '11',
        (30000000 + i % 9999999)::VARCHAR, '', '', '', '', 'contato' || i || '@exemplo.com.br', '', ''
        FROM range({{n}}) t(i)""",
    "socios": f"""SELECT lpad((i * 2 // 3)::VARCHAR, 8, '0'), '2', 'SÓCIO ' || i || ' CONCEIÇÃO', '***'
        || lpad((i % 999999)::VARCHAR, 6, '0') || '**', lpad((i % {ROLES} + 5)::VARCHAR, 2, '0'), '20100101', '',
        '***000000**', '', '00', '4' FROM range({{n}} * 3 // 2) t(i)""",
    "simples": """SELECT lpad((i * 2)::VARCHAR, 8, '0'), 'S', '20100101', '00000000', ['N', 'S'][i % 2 + 1],
        '00000000', '00000000' FROM range({n} // 2) t(i)""",
}
CODES = {
    "cnaes": [(f"{1000000 + k * 6007:07d}", f"Atividade econômica {k}: comércio e serviços de padaria e similares")
              for k in range(CNAE_CODES)],
    "municipios": [(f"{k + 1:04d}", f"MUNICÍPIO {k + 1}") for k in range(MUNICIPALITIES)],
    "naturezas": [(f"{1015 + k * 89}", f"Natureza jurídica {k}: sociedade empresária") for k in range(LEGAL_NATURES)],
    "qualificacoes": [(f"{k + 5:02d}", f"Qualificação {k}: sócio-administrador") for k in range(ROLES)],
    "paises": [("105", "BRASIL")],
    "motivos": [("00", "SEM MOTIVO")],
}  # fmt: skip


def _zip_utf8_as_latin1(csv_utf8: Path, target: Path, member: str) -> None:
    with (
        open(csv_utf8, encoding="utf-8", newline="") as source,
        zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive,
        archive.open(member, "w", force_zip64=True) as sink,
    ):
        while chunk := source.read(1 << 22):
            sink.write(chunk.encode("latin-1"))


def generate(directory: Path, n: int) -> int:
    """The release's files (once per N); the number of lines in them."""
    done = directory / ".complete"
    if done.exists():
        return int(done.read_text())
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    con = duckdb.connect()
    lines = 0
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        for kind, sql in GENERATE.items():
            con.execute(f"CREATE OR REPLACE TABLE t AS {sql.format(n=n)}")
            total = con.execute("SELECT count(*) FROM t").fetchone()[0]  # type: ignore[index]
            lines += total
            parts = _PARTS if kind != "simples" else 1
            for part in range(parts):
                csv = Path(scratch) / "part.csv"
                con.execute(
                    f"COPY (SELECT * FROM t LIMIT {total // parts + parts} OFFSET {part * (total // parts + parts)}) "
                    f"TO '{csv.as_posix()}' (FORMAT csv, DELIMITER ';', HEADER false, FORCE_QUOTE *, QUOTE '\"')"
                )
                name = "Simples.zip" if kind == "simples" else f"{kind.capitalize()}{part}.zip"
                _zip_utf8_as_latin1(csv, directory / name, f"K3241.K03200Y{part}.D41109.{kind.upper()[:8]}")
        for kind, rows in CODES.items():
            lines += len(rows)
            with zipfile.ZipFile(directory / f"{kind.capitalize()}.zip", "w", zipfile.ZIP_DEFLATED) as archive:
                body = "".join(f'"{c}";"{d}"\n' for c, d in rows)
                archive.writestr(f"F.K03200$Z.D41109.{kind.upper()}", body.encode("latin-1"))
    con.close()
    done.write_text(str(lines))
    return lines


def generated(directory: Path, n: int) -> int:
    """``generate`` in a process of its own: its memory (gigabytes at 5M) stays out of this one, whose import
    child would start with it and report it as its peak RSS (a child's counts its parent's pages until exec)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(generate, directory, n).result()


def time_readers(directory: Path) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    members = sorted(directory.glob("Estabelecimentos*.zip"))
    columns = LAYOUTS["estabelecimentos"]

    started = time.perf_counter()
    rows = 0
    con = duckdb.connect()
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        for path in members:
            with zipfile.ZipFile(path) as archive:
                info = archive.infolist()[0]
                staged = Path(scratch) / "m.csv"
                with archive.open(info) as source, open(staged, "wb") as sink:
                    shutil.copyfileobj(source, sink, 1 << 20)
                spec = ", ".join(f"'{c}': 'VARCHAR'" for c in columns)
                rows += con.execute(
                    f"SELECT count(*) FROM read_csv('{staged.as_posix()}', columns = {{{spec}}}, delim = ';', "
                    "quote = '\"', header = false, encoding = 'latin-1', auto_detect = false)"
                ).fetchone()[0]  # type: ignore[index]
    duck = time.perf_counter() - started

    started = time.perf_counter()
    arrow_rows = 0
    for path in members:
        with zipfile.ZipFile(path) as archive, archive.open(archive.infolist()[0]) as source:
            reader = pacsv.open_csv(
                source,
                read_options=pacsv.ReadOptions(column_names=list(columns), encoding="latin-1", block_size=1 << 22),
                parse_options=pacsv.ParseOptions(delimiter=";", quote_char='"'),
                convert_options=pacsv.ConvertOptions(column_types={c: pa.string() for c in columns}),
            )
            for batch in reader:
                arrow_rows += batch.num_rows
    arrow = time.perf_counter() - started
    print(f"read Estabelecimentos ({rows:,} rows): duckdb, member extracted to a file {rows / duck:,.0f} rows/s; "
          f"pyarrow streaming from the zip {arrow_rows / arrow:,.0f} rows/s")  # fmt: skip


def import_once(release: Path, cache: Path, checkout: Path | None) -> tuple[float, float, float, float, str]:
    """One import into an empty dataset in a child process (``checkout``'s code, this one's if None):
    seconds, CPU seconds, peak RSS in MB, the dataset file's MB, the command's report."""
    env = code_env(checkout)
    with tempfile.TemporaryDirectory(dir=cache) as work:
        env["BEMTEVI_DATASET_PATH"] = str((Path(work) / "dataset.duckdb").resolve())
        started = time.perf_counter()
        # run from the checkout: ``python -m`` puts the working directory ahead of PYTHONPATH
        child = subprocess.Popen([sys.executable, "-m", "bemtevi.cli", "import-cnpj", str(release.resolve())],
                                 stdout=subprocess.PIPE, text=True, env=env, cwd=checkout)  # fmt: skip
        assert child.stdout is not None
        report = child.stdout.read().splitlines()[-1:]
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise SystemExit(f"the import failed ({child.returncode})")
        size = os.path.getsize(env["BEMTEVI_DATASET_PATH"]) / 1e6
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, size, " ".join(report)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=500_000, help="establishments (other files scale with it)")
    parser.add_argument("--cache", type=Path, default=Path("var/bench-cache"))
    parser.add_argument("--readers", action="store_true", help="also time the two CSV readers on the same files")
    parser.add_argument("--against", type=Path, help="another checkout's import, alternated with this one's")
    parser.add_argument("--rounds", type=int, default=1, help="imports of each code")
    args = parser.parse_args()

    release = args.cache / f"cnpj-{args.rows}-published-codes"
    started = time.perf_counter()
    lines = generated(release, args.rows)
    print(f"{lines:,} lines in {release} (ready in {time.perf_counter() - started:.1f} s)")
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.readers:
        time_readers(release)

    rates: dict[str, list[float]] = {}
    for name, checkout in compared_codes(args.against, args.rounds):
        seconds, cpu, rss, size, report = import_once(release, args.cache, checkout)
        rates.setdefault(name, []).append(lines / seconds)
        load = os.getloadavg()[0]
        print(f"{name}: {lines:,} lines in {seconds:.1f} s = {lines / seconds:,.0f} rows/s "
              f"({lines / cpu:,.0f} per CPU second); peak RSS {rss:,.0f} MB; dataset {size:,.0f} MB; "
              f"load {load:.1f}")  # fmt: skip
        print(f"  {report}")
    print_ratios("rows/s", rates)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

"""What DuckDB is handed by path: files named in its SQL, and its signed extensions, shipped in the pinned
``duckdb-ext-*`` wheels and loaded from their path (nothing is downloaded at run time: ``INSTALL`` reaches no
network here); and the transaction the adapters' DuckDB writes run in."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``con`` in a transaction, committed when the block ends and rolled back when it raises (the read store,
    which may not use the adapters, keeps its own under its write lock)."""
    con.execute("BEGIN")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def extension_path(name: str) -> Path:
    """The signed extension a pinned ``duckdb-ext-*`` wheel carries, for this DuckDB and platform."""
    import duckdb_ext  # the namespace the duckdb-ext-* wheels install into

    platform = duckdb.execute("PRAGMA platform").fetchall()[0][0]
    for root in duckdb_ext.__path__:
        path = Path(root) / "extensions" / f"v{duckdb.__version__}" / platform / f"{name}.duckdb_extension"
        if path.exists():
            return path
    raise RuntimeError(f"the DuckDB extension {name} is not installed (its duckdb-ext-* wheel is in pyproject.toml)")


def load_extension(con: duckdb.DuckDBPyConnection, name: str) -> None:
    con.execute(f"LOAD {path_literal(extension_path(name))}")


def path_literal(path: Path) -> str:
    """``path`` as an SQL string literal, for the statements that take no parameters (ATTACH, LOAD, SET)."""
    return "'" + str(path).replace("'", "''") + "'"

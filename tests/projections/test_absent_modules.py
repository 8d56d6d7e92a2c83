"""A long-running process marks the optional modules that are not installed as absent, so that DuckDB's
bound parameters stop searching the import path for pandas on every query."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest

# Counts how often the import system searched for pandas (its last finder asked) while DuckDB ran
# parameterised queries, in a fresh interpreter.
SCRIPT = """
import sys

import duckdb

from bemtevi.infra.process_tuning import mark_absent_modules

searched = []


class LastFinder:
    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            searched.append(name)
        return None


marked = mark_absent_modules() if sys.argv[1] == "marked" else []
sys.meta_path.append(LastFinder())
con = duckdb.connect()
con.execute("CREATE TABLE t (name VARCHAR, n BIGINT)")
for i in range(50):
    con.execute("INSERT INTO t VALUES (?, ?)", ["row", i])
    assert con.execute("SELECT sum(n) FROM t WHERE name = ?", ["row"]).fetchone() == (sum(range(i + 1)),)
# pyarrow's own look for pandas (Cython's import) copes too.
import pyarrow as pa

assert pa.array([1, 2], type=pa.int64()).to_pylist() == [1, 2]
print(",".join(marked) + "|" + str(len(searched)))
"""

pytestmark = pytest.mark.process

# Asked of the installed distributions, not the import system: the test process has marked pandas absent itself
# (conftest), and a marked module's find_spec fails as its import does.
pandas_installed = "pandas" in {dist.metadata["Name"].lower() for dist in importlib.metadata.distributions()}


def _run(mode: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, check=True).stdout
    marked, searched = out.strip().split("|")
    return marked, int(searched)


@pytest.mark.skipif(pandas_installed, reason="pandas is installed here: nothing to mark")
def test_duckdb_queries_stop_searching_for_an_absent_pandas() -> None:
    unmarked, searched_before = _run("unmarked")
    assert unmarked == "" and searched_before >= 100  # at least once per query with parameters

    marked, searched_after = _run("marked")
    assert marked == "pandas"
    assert searched_after == 0


def test_an_installed_module_is_left_importable() -> None:
    code = (
        "import sys; from bemtevi.infra.process_tuning import mark_absent_modules; "
        "print(mark_absent_modules(('wave', 'no_such_module_here'))); import wave\n"
        "try:\n    import no_such_module_here.inner\nexcept ModuleNotFoundError as e:\n    print(e.name)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["['no_such_module_here']", "no_such_module_here"]

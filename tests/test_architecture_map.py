"""docs/architecture.md stays a map of the code as it is: short, every module on it, nothing gone named; and
every module of the code is short enough to read whole.

The next engineer reads the map before the code; a module missing from it is a room nobody finds, and a file
it names that no longer exists (the old map kept naming a removed ``ledger_process.py``) sends them looking
for nothing. bench/README.md's commands must name scripts that exist.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "bemtevi"
LAYERS = ("domain", "infra", "projections", "commands", "streams", "api")
# The map is read in ten minutes: at most this many lines.
MOST_LINES = 400
# A module is read whole before it is changed: at most this many lines, split along its seams past that.
MODULE_MOST_LINES = 400
# Longer modules allowed, each for a reason; the list only shrinks.
LONG_MODULES = {
    # A data table (the demo dataset's word lists), not code.
    "infra/demo_names.py": "data table",
}


def _sections(text: str) -> dict[str, str]:
    """The text under each ``### <layer>`` heading, up to the next heading."""
    parts = re.split(r"^(#{2,3} .*)$", text, flags=re.MULTILINE)
    sections: dict[str, str] = {}
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        words = heading.lstrip("#").split()
        if words:
            sections[words[0]] = body
    return sections


def _modules(layer: str) -> list[str]:
    """Each module of a layer as the map names it: its path under the layer's folder, without ``.py``."""
    folder = PACKAGE / layer
    return sorted(
        str(path.relative_to(folder).with_suffix("")) for path in folder.rglob("*.py") if path.name != "__init__.py"
    )


def test_the_map_is_read_in_ten_minutes() -> None:
    assert len(MAP.read_text().splitlines()) <= MOST_LINES


def test_every_module_is_on_the_map_under_its_layer() -> None:
    sections = _sections(MAP.read_text())
    missing = []
    for layer in LAYERS:
        body = sections.get(layer, "")
        for module in _modules(layer):
            # `name`, `folder/name`, `name.py` or a dotted `name.Thing` all name the module; so does `name`
            # in a list introduced by its folder (`routers/`: `auth`, ...).
            folder, _, stem = module.rpartition("/")
            named = rf"`(?:[\w/]*/)?{re.escape(module)}(?:\.py)?[`.(/ ]"
            listed = rf"`{re.escape(folder)}/`[^#]*`{re.escape(stem)}`" if folder else named
            if not (re.search(named, body) or re.search(listed, body)):
                missing.append(f"{layer}/{module}")
    assert not missing, f"modules the map does not name under their layer: {missing}"


def test_every_python_file_the_map_names_exists() -> None:
    text = MAP.read_text()
    named = set(re.findall(r"`((?:bemtevi/)?(?:[\w]+/)*\w+\.py)`", text))
    gone = []
    for name in named:
        candidates = [ROOT / name, PACKAGE / name, ROOT / "bench" / name]
        candidates += [ROOT / "tests" / name, ROOT / "tests" / "e2e" / name]
        candidates += [PACKAGE / layer / name for layer in LAYERS]
        candidates += [ROOT / "tests" / layer / name for layer in LAYERS]
        if not any(path.exists() for path in candidates):
            gone.append(name)
    assert not gone, f"files the map names that do not exist: {sorted(gone)}"


def test_every_bench_command_names_a_script_that_exists() -> None:
    text = (ROOT / "bench" / "README.md").read_text()
    scripts = set(re.findall(r"python bench/([a-z_]+\.py)", text)) | set(re.findall(r"`([a-z_]+\.py)`", text))
    assert scripts
    assert not [s for s in scripts if not (ROOT / "bench" / s).exists()]


def test_no_module_is_past_the_line_limit() -> None:
    sizes = {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    too_long = {name: n for name, n in sizes.items() if n > MODULE_MOST_LINES and name not in LONG_MODULES}
    assert not too_long, f"modules past {MODULE_MOST_LINES} lines, to split along their seams: {too_long}"
    # An allowed module that is gone or back within the limit leaves the list, so that it cannot grow again.
    stale = [name for name in LONG_MODULES if sizes.get(name, 0) <= MODULE_MOST_LINES]
    assert not stale, f"no longer past {MODULE_MOST_LINES} lines, to take off LONG_MODULES: {stale}"


def test_the_read_side_never_leaves_a_result_open() -> None:
    """A DuckDB result read with ``fetchone``/``fetchmany`` keeps its cursor's transaction open until the thread's
    next query, and the projector's rewrites then fail on every retry: read models and the API read through
    ``fetchall`` or ``projections.base.first_row``."""
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("projections", "api")
        for path in sorted((ROOT / "bemtevi" / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\.fetch(one|many)\(", line)
    ]
    assert offenders == []

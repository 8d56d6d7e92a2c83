"""docs/architecture.md stays a map of the code as it is: short, every module on it, nothing gone named.

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
        str(path.relative_to(folder).with_suffix(""))
        for path in folder.rglob("*.py")
        if path.name != "__init__.py"
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

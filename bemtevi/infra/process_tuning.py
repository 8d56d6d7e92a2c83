"""A long-running process settled once built: the collector tuned for what start-up made, and optional modules
that are not installed marked absent so that a dependency's repeated imports of them fail at once."""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys


def settle_process() -> None:
    """For a long-running process, once built: the collector's settings, and absent optional modules marked
    absent."""
    settle_heap()
    mark_absent_modules()


def settle_heap() -> None:
    """What start-up made (modules, the app, its caches) lives as long as the process, so it is frozen out of
    the collector's sight, and young collections come every 10,000 allocations instead of 700. Under lookups
    the collector had cost about 9% of the server's CPU, mostly full collections walking start-up's objects
    (docs/architecture.md, "API")."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


# Optional modules a dependency keeps trying to import: DuckDB's Python binding (1.4) tries ``pandas`` for every
# bound parameter of every query, and Python does not remember a failed import, so each try searched sys.path
# again (stat calls on every entry) under the interpreter lock.
OPTIONAL_MODULES = ("pandas",)


class _AbsentModules(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path``: an import of one of ``names`` (or of a module inside it) fails at once with
    the error a missing module gives, instead of searching the path. (Not ``None`` in ``sys.modules``: Cython's
    import, pyarrow's among them, takes that ``None`` for the module.)"""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def mark_absent_modules(names: tuple[str, ...] = OPTIONAL_MODULES) -> list[str]:
    """Make imports of the modules of ``names`` that are not installed fail at once; an installed one is left
    alone. Answers the names marked."""
    absent = [name for name in names if name not in sys.modules and importlib.util.find_spec(name) is None]
    if absent:
        sys.meta_path.insert(0, _AbsentModules(frozenset(absent)))
    return absent

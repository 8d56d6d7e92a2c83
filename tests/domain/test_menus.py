"""The side menu the server gives each role: every entry's icon is one the web app draws."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from bemtevi.domain.menus import MenuEntry, menu_for
from bemtevi.domain.users import Role

ICONS_FILE = Path(__file__).parents[2] / "webapp" / "src" / "components" / "menuIcons.tsx"


def _entries(entries: list[MenuEntry]) -> Iterator[MenuEntry]:
    for entry in entries:
        yield entry
        yield from _entries(list(entry.children))


def test_every_menu_entry_of_every_role_has_an_icon_the_web_app_draws() -> None:
    drawn = set(re.findall(r"^  ([a-z_]+):", ICONS_FILE.read_text(encoding="utf-8"), re.MULTILINE))
    missing = {(e.name, e.icon) for role in Role for e in _entries(menu_for(role)) if e.icon not in drawn}
    assert not missing, missing

"""docs/ARCHITECTURE.md is the map of the package: every module it names exists, and
every module of the package appears in it (by its path, or its file name in the table of
its package)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sokoban"
MAP = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
#: Every `name.py` or `path/name.py` in backticks, and dotted `_module.name` references.
NAMED = set(re.findall(r"`([\w/]+\.py)`", MAP))


def modules() -> list[Path]:
    """The package's modules, packages' ``__init__.py`` left out (a package is named by
    its folder)."""
    return sorted(
        path
        for path in PACKAGE.rglob("*.py")
        if "__pycache__" not in path.parts and path.name != "__init__.py"
    )


def test_every_module_named_in_the_map_exists() -> None:
    tests = {path.name for path in (ROOT / "tests").rglob("*.py")}
    names = {path.name for path in modules()} | tests | {"__init__.py", "__main__.py"}
    paths = {path.relative_to(ROOT).as_posix() for path in modules()}
    missing = [
        named
        for named in sorted(NAMED)
        if (named not in paths if "/" in named else named not in names)
        and not (ROOT / named).exists()
    ]
    assert missing == [], f"docs/ARCHITECTURE.md names modules that do not exist: {missing}"


def test_every_module_of_the_package_is_in_the_map() -> None:
    absent = []
    for path in modules():
        relative = path.relative_to(ROOT).as_posix()
        if relative not in NAMED and path.name not in NAMED:
            absent.append(relative)
    assert absent == [], f"modules missing from docs/ARCHITECTURE.md: {absent}"

"""The storage and web layers import downwards only: the store knows nothing of the records
or the migrations, the records nothing of the migrations; in ``sokoban/web/`` the models
import no service or router, the services no router, and only ``app.py`` wires them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[1] / "sokoban" / "web"


def _loaded(module: str) -> set[str]:
    """The ``sokoban`` modules that importing ``module`` loads (in a fresh interpreter)."""
    code = (
        f"import sys, {module}; print(' '.join(m for m in sys.modules if m.startswith('sokoban')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


@pytest.mark.parametrize(
    ("module", "above"),
    [
        ("sokoban.store", {"sokoban.records", "sokoban.migrations", "sokoban.web"}),
        ("sokoban.records", {"sokoban.migrations", "sokoban.store_tools", "sokoban.web"}),
        ("sokoban.migrations", {"sokoban.web"}),
    ],
)
def test_storage_does_not_import_the_layers_above(module: str, above: set[str]) -> None:
    loaded = _loaded(module)
    wrong = sorted(m for m in loaded if any(m == a or m.startswith(a + ".") for a in above))
    assert wrong == [], f"{module} imports {wrong}"


def _runtime_imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it runs (``if TYPE_CHECKING:`` blocks left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize(
    ("folder", "above"),
    [
        ("models", ("sokoban.web.services", "sokoban.web.routers", "sokoban.web.app")),
        ("services", ("sokoban.web.routers", "sokoban.web.app")),
        ("routers", ("sokoban.web.app",)),
    ],
)
def test_web_layers_import_downwards(folder: str, above: tuple[str, ...]) -> None:
    wrong = sorted(
        f"{path.name}: {name}"
        for path in (WEB / folder).glob("*.py")
        for name in _runtime_imports(path)
        if any(name == a or name.startswith(a + ".") for a in above)
    )
    assert wrong == []

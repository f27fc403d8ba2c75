"""The kernels' disk cache is named by a hash of the kernel sources, so that an edit to a
module a kernel calls (which numba's own check misses) cannot leave stale code running."""

from __future__ import annotations

from pathlib import Path

import pytest

from sokoban import _jit


def _tree(root: Path, text: str) -> None:
    (root / "solve").mkdir(parents=True, exist_ok=True)
    (root / "solve" / "_best_first.py").write_text("@njit\ndef kernel(): pass\n")
    (root / "solve" / "_fast.py").write_text("print('plain Python')\n")
    (root / "solve" / "_deadlock.py").write_text(text)
    (root / "cli").mkdir(exist_ok=True)
    (root / "cli" / "main.py").write_text("print('not a kernel')\n")


def test_a_change_to_any_kernel_module_gives_a_new_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_jit, "_PACKAGE", tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    _tree(tmp_path, "@njit\ndef frozen(): return 0\n")
    first = _jit._cache_dir()
    assert first is not None and Path(first).is_dir()
    assert _jit._cache_dir() == first  # same sources, same cache
    (tmp_path / "cli" / "main.py").write_text("print('still not a kernel')\n")
    assert _jit._cache_dir() == first
    (tmp_path / "solve" / "_fast.py").write_text("print('other plain Python')\n")
    assert _jit._cache_dir() == first
    _tree(tmp_path, "@njit\ndef frozen(): return 1\n")
    second = _jit._cache_dir()
    assert second is not None and second != first
    assert not Path(first).exists()  # the stale cache is removed


def test_numba_uses_the_directory_named_by_the_sources() -> None:
    import os

    import numba

    if os.environ.get("NUMBA_CACHE_DIR"):
        pytest.skip("NUMBA_CACHE_DIR chooses the cache here")

    assert numba.config.CACHE_DIR == _jit._cache_dir()


def test_an_edit_to_an_analysis_or_generator_kernel_gives_a_new_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_jit, "_PACKAGE", tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    _tree(tmp_path, "@njit\ndef frozen(): return 0\n")
    for package in ("analysis", "generate"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "_kernels.py").write_text("@njit\ndef walk(): return 0\n")
    first = _jit._cache_dir()
    for package in ("analysis", "generate"):
        (tmp_path / package / "_kernels.py").write_text(f"@njit\ndef walk(): return {package!r}\n")
        again = _jit._cache_dir()
        assert again != first
        first = again


def test_every_kernel_uses_the_one_wrapper() -> None:
    # A kernel decorated by numba directly would miss the cache directory's hash.
    package = Path(_jit.__file__).parent
    for path in package.rglob("*.py"):
        if path.name == "_jit.py":
            continue
        text = path.read_text()
        assert "from numba import njit" not in text and "numba.njit" not in text, path
        if "@njit" in text:
            assert "from sokoban._jit import njit" in text, path

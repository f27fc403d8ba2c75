"""Optional dependencies: Pillow for raster pictures (``[image]``), matplotlib for plots
(``[plot]``). :func:`require` imports one or says in one line which extra to install.

>>> require("json", "image", "a test").__name__
'json'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from sokoban.errors import ExtraMissingError

#: The distribution each optional module comes from, as pip names it.
_DISTRIBUTIONS = {"PIL": "Pillow", "matplotlib": "matplotlib"}


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`ExtraMissingError` saying that ``purpose`` needs
    it and which extra of the package brings it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        package = _DISTRIBUTIONS.get(module, module)
        raise ExtraMissingError(
            f"{purpose} needs {package}, which is not installed: "
            f"pip install 'sokoban[{extra}]' (or pip install {package})"
        ) from None


def require_pillow(purpose: str) -> ModuleType:
    """Pillow's ``PIL`` package, or the one-line error naming the ``image`` extra."""
    return require("PIL", "image", purpose)


def require_matplotlib(purpose: str) -> ModuleType:
    """matplotlib, or the one-line error naming the ``plot`` extra."""
    return require("matplotlib", "plot", purpose)

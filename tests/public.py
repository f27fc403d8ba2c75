"""The public level collections for tests: the full files beside the repository, or the
sample in ``tests/data/public`` when they are absent (a fresh clone, CI without them).

Levels are named by their number in the full collection either way: the sample keeps it as
a ``Number:`` line. A test loops over :meth:`PublicLevels.numbers` (the numbers at hand, so
fewer with the sample) or names one level, which the sample holds.

>>> microban = PUBLIC.level("microban.xsb", 1)
>>> microban.width, PUBLIC.pushes("microban.xsb", 1)
(6, 8)
"""

from __future__ import annotations

import csv
import functools
import os
from collections.abc import Iterable
from pathlib import Path

from sokoban import Level, xsb
from sokoban.xsb import Collection

HERE = Path(__file__).resolve().parent
#: The full collections: /work/shared/levels here, ``<clone>/../shared/levels`` in CI;
#: SOKOBAN_SHARED_LEVELS names another folder (an empty one tries the sample).
SHARED_LEVELS = Path(
    os.environ.get("SOKOBAN_SHARED_LEVELS") or HERE.parents[1] / "shared" / "levels"
)
#: The sample of them that ships with the tests.
SAMPLE_LEVELS = HERE / "data" / "public"


class PublicLevels:
    """The collections in ``folder``; ``is_sample`` when it is the sample."""

    def __init__(self, folder: Path, is_sample: bool) -> None:
        self.folder = folder
        self.is_sample = is_sample

    def __repr__(self) -> str:
        return f"PublicLevels({str(self.folder)!r}, is_sample={self.is_sample})"

    def path(self, name: str) -> Path:
        return self.folder / name

    @functools.cache  # noqa: B019 - one instance per process, the collections never change
    def collection(self, name: str) -> Collection:
        return xsb.load(self.path(name))

    @functools.cache  # noqa: B019
    def _by_number(self, name: str) -> dict[int, Level]:
        collection = self.collection(name)
        if not self.is_sample:
            return {collection.number(level): level for level in collection}
        return {int(dict(level.metadata)["Number"]): level for level in collection}

    def level(self, name: str, number: int) -> Level:
        """The level numbered ``number`` (1-based) in the full collection."""
        try:
            return self._by_number(name)[number]
        except KeyError:
            raise LookupError(f"{name} {number} is not in {self.folder}") from None

    def numbers(self, name: str, among: Iterable[int] | None = None) -> list[int]:
        """The level numbers at hand, or those of ``among`` that are."""
        have = self._by_number(name)
        return sorted(have) if among is None else [n for n in among if n in have]

    def levels(self, name: str, among: Iterable[int] | None = None) -> list[tuple[int, Level]]:
        """``(number, level)`` of the levels at hand (of ``among``), by number."""
        return [(n, self.level(name, n)) for n in self.numbers(name, among)]

    def by_index(self, name: str) -> _ByIndex:
        """A list-like view of a collection as the full file numbers it: ``view[i]`` is
        level ``i + 1`` (for tests written as ``microban[number - 1]``)."""
        return _ByIndex(self, name)

    @functools.cache  # noqa: B019
    def optima(self) -> tuple[dict[str, str], ...]:
        """The rows of optimal.csv: file, level, pushes, moves, solution."""
        with open(self.path("optimal.csv"), encoding="utf-8") as handle:
            lines = [line for line in handle if not line.startswith("#")]
        return tuple(csv.DictReader(lines))

    def pushes(self, name: str, number: int) -> int:
        """The known push optimum of a level, from optimal.csv."""
        for row in self.optima():
            if row["file"] == name and int(row["level"]) == number:
                return int(row["pushes"])
        raise LookupError(f"{name} {number} has no row in optimal.csv")


class _ByIndex:
    def __init__(self, levels: PublicLevels, name: str) -> None:
        self._levels, self._name = levels, name

    def __getitem__(self, index: int) -> Level:
        return self._levels.level(self._name, index + 1)


def public_levels() -> PublicLevels:
    if (SHARED_LEVELS / "microban.xsb").is_file():
        return PublicLevels(SHARED_LEVELS, is_sample=False)
    return PublicLevels(SAMPLE_LEVELS, is_sample=True)


#: The collections this run uses.
PUBLIC = public_levels()

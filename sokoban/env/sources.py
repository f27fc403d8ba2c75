"""Where the environment's levels come from: files (Boxoban or any XSB/SOK collection), a
list of levels, or the generator; each draws a level from a random generator it is given.

>>> import numpy as np
>>> from sokoban import Level
>>> source = LevelList([Level.from_xsb("#####\\n#@$.#\\n#####")])
>>> entry = source.draw(np.random.default_rng(0))
>>> entry.id, source.shape
('0', (3, 5))
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from sokoban import xsb
from sokoban.env.encoding import check_playable
from sokoban.errors import SokobanError
from sokoban.level import Level

#: File name endings read from a directory.
SUFFIXES = (".txt", ".xsb", ".sok")


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """A level drawn from a source, with an id that names it within the source."""

    level: Level
    id: str


class LevelSource(Protocol):
    """What the environment needs of a source."""

    #: The largest ``(height, width)`` of its levels: the observation's frame.
    shape: tuple[int, int]

    def draw(self, rng: np.random.Generator) -> Entry: ...


class LevelList:
    """A fixed list of playable levels, drawn uniformly; ids are their 0-based positions."""

    def __init__(
        self,
        levels: Sequence[Level],
        ids: Sequence[str] | None = None,
        shape: tuple[int, int] | None = None,
    ) -> None:
        if not levels:
            raise SokobanError("a level source needs at least one level")
        for level in levels:
            check_playable(level)
        self.levels = list(levels)
        self.ids = list(ids) if ids is not None else [str(i) for i in range(len(levels))]
        self.shape = shape or (max(v.height for v in levels), max(v.width for v in levels))

    def __len__(self) -> int:
        return len(self.levels)

    def draw(self, rng: np.random.Generator) -> Entry:
        i = int(rng.integers(len(self.levels)))
        return Entry(self.levels[i], self.ids[i])


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
        if not files:
            raise SokobanError(f"{path}: no level files ({', '.join(SUFFIXES)}) in this directory")
        return files
    if not path.exists():
        raise SokobanError(f"{path}: no such file or directory")
    return [path]


def playable(path: str) -> tuple[list[Level], list[str]]:
    """The playable levels of a file and their ids (``file:number``)."""
    collection = xsb.load(path)
    stem = Path(path).name
    levels, ids = [], []
    for level, number in zip(collection.levels, collection.positions, strict=True):
        if level.is_valid():
            levels.append(level)
            ids.append(f"{stem}:{number}")
    if not levels:
        raise SokobanError(f"{path}: no playable level in this file")
    return levels, ids


#: The files whose levels are kept for the next draw (a level object takes about 16 KB, so a
#: Boxoban file of 1,000 about 16 MB).
cached_playable = functools.lru_cache(maxsize=8)(playable)


class LevelFiles:
    """The levels of a file, or of every level file under a directory (a Boxoban split is a
    directory of files of 1,000 levels). A draw picks a file, then a level of it, both
    uniformly; files are read when first drawn from. Ids are ``file:number``, the level's
    1-based number in its file. Levels that cannot be played are left out.

    :param shape: the frame, ``(height, width)``; by default the largest level of the first
        file (Boxoban's are all 10 x 10), and of every file with ``scan=True``.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        shape: tuple[int, int] | None = None,
        scan: bool = False,
    ) -> None:
        self.path = Path(path)
        self.files = _files(self.path)
        if shape is None:
            looked = self.files if scan else self.files[:1]
            heights, widths = zip(
                *((v.height, v.width) for f in looked for v in cached_playable(str(f))[0]),
                strict=True,
            )
            shape = (max(heights), max(widths))
        self.shape = shape

    def __len__(self) -> int:
        """Playable levels in all the files (reads every file)."""
        return sum(len(cached_playable(str(f))[0]) for f in self.files)

    def levels(self) -> LevelList:
        """Every level of every file as a list (reads every file)."""
        levels: list[Level] = []
        ids: list[str] = []
        for f in self.files:
            more, more_ids = cached_playable(str(f))
            levels += more
            ids += more_ids
        return LevelList(levels, ids)

    def draw(self, rng: np.random.Generator) -> Entry:
        f = self.files[int(rng.integers(len(self.files)))] if len(self.files) > 1 else self.files[0]
        levels, ids = cached_playable(str(f))
        i = int(rng.integers(len(levels)))
        return Entry(levels[i], ids[i])


def parse_source(text: str) -> LevelSource:
    """A source from its one-line spelling: ``boxoban:PATH``, ``collection:PATH`` or
    ``generated:WxH[:BOXES[:BAND]]`` (10x10, 4 boxes, any band by default).

    >>> parse_source("generated:8x8:3:easy").boxes
    3
    """
    kind, _, rest = text.partition(":")
    if kind in ("boxoban", "collection"):
        if not rest:
            raise SokobanError(f"source {text!r} names no file: write {kind}:PATH")
        return LevelFiles(rest, scan=kind == "collection")
    if kind == "generated":
        parts = rest.split(":") if rest else []
        try:
            size = (10, 10)
            if parts and parts[0]:
                w, h = parts[0].lower().split("x")
                size = (int(w), int(h))
            boxes = int(parts[1]) if len(parts) > 1 and parts[1] else 4
        except ValueError:
            raise SokobanError(
                f"source {text!r} is not generated:WxH[:BOXES[:BAND]], e.g. generated:7x7:2:easy"
            ) from None
        band = parts[2] if len(parts) > 2 and parts[2] else None
        if len(parts) > 3:
            raise SokobanError(f"source {text!r} has more than size, boxes and band")
        return Generated(size, boxes, band)
    raise SokobanError(
        f"source {text!r} is not boxoban:PATH, collection:PATH or generated:WxH[:BOXES[:BAND]]"
    )


class Generated:
    """Levels made by :func:`sokoban.generate.generate`, one a draw, each seeded by the
    draw's random generator (so a seeded environment replays the same levels). The
    defaults are Boxoban's: 10 x 10 with 4 boxes (small boards reach the easy bands only).

    :param band: a difficulty band of :data:`sokoban.generate.BANDS`, or ``None`` for any;
        :attr:`band` may be changed between draws (a curriculum does).
    """

    def __init__(
        self,
        size: tuple[int, int] = (10, 10),
        boxes: int = 4,
        band: str | None = None,
        nodes: int = 200_000,
    ) -> None:
        from sokoban.generate import check_request

        check_request(size, boxes, difficulty=band)
        self.size = size
        self.boxes = boxes
        self.band = band
        self.nodes = nodes
        self.shape = (size[1], size[0])

    def draw(self, rng: np.random.Generator) -> Entry:
        from sokoban.generate import check_request, generate

        check_request(self.size, self.boxes, difficulty=self.band)
        seed = int(rng.integers(2**31))
        report = generate(
            self.size, self.boxes, count=1, difficulty=self.band, seed=seed, nodes=self.nodes
        )
        if not report.levels:
            raise SokobanError(
                f"the generator made no {self.band or ''} level of {self.size[0]}x{self.size[1]} "
                f"with {self.boxes} boxes ({report.summary()}): try a larger board or more boxes"
            )
        return Entry(report.levels[0].level, f"generated:{seed}")

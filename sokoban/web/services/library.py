"""The collections the game offers: the built-in one, the files given to ``sokoban serve``,
and ``mine``, the levels a player saved (in the store).

Levels of a file are numbered from 1 within it; a level's JSON is made once and kept.
``mine`` is each player's own: it lists the levels the player asking saved, but a saved
level's number is the store's (its row's id), the same for everyone, so ``mine/12`` opens
level 12 for anyone who has its link.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from importlib import resources
from pathlib import Path

from sokoban import slc
from sokoban.errors import LevelNotFoundError, SokobanError
from sokoban.level import Level
from sokoban.store import Store
from sokoban.web.models.convert import level_out
from sokoban.web.models.game import CollectionSummary, LevelOut

BUILTIN = "builtin"
MINE = "mine"


def builtin_path() -> Path:
    """The built-in collection's file in the package (made by benchmarks/make_builtin.py)."""
    return Path(str(resources.files("sokoban.web") / "levels" / "builtin.sok"))


@dataclasses.dataclass(frozen=True)
class FileCollection:
    """A collection read from a file when the server starts."""

    id: str
    title: str
    description: str
    levels: tuple[Level, ...]
    #: The stored solutions are push-optimal (true of the built-in collection).
    optimal: bool = False


def read_collection(
    path: str | os.PathLike[str], cid: str, optimal: bool = False
) -> FileCollection:
    """Read a collection file; a file with no readable level raises :class:`SokobanError`
    naming it. Broken levels are skipped (their count is in the description)."""
    name = os.fspath(path)
    try:
        collection = slc.load_file(path)
    except OSError as error:
        raise SokobanError(f"{name}: {error.strerror or error}") from None
    except SokobanError as error:
        raise SokobanError(f"{name}: {error}") from None
    if not collection.levels:
        if len(collection.errors) == 1:
            raise SokobanError(f"{name}: {collection.errors[0]}")
        raise SokobanError(f"{name}: no readable levels in the file")
    description = collection.header.strip()
    if collection.title and description.startswith(collection.title):
        description = description[len(collection.title) :].strip()
    if collection.errors:
        skipped = f"{len(collection.errors)} broken levels skipped"
        description = f"{description}\n{skipped}" if description else skipped
    return FileCollection(
        cid, collection.title or Path(name).stem, description, tuple(collection.levels), optimal
    )


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:40] or "levels"


class Library:
    """Every collection by id, in the order the API lists them."""

    def __init__(self, files: list[FileCollection], store: Store) -> None:
        self.files = {c.id: c for c in files}
        self.store = store

    @classmethod
    def load(cls, paths: list[Path], store: Store) -> Library:
        """The built-in collection, then ``paths`` (ids made from their names), then mine."""
        taken = {BUILTIN, MINE, "import"}
        files = [read_collection(builtin_path(), BUILTIN, optimal=True)]
        for path in paths:
            base = _slug(Path(path).stem)
            cid, n = base, 1
            while cid in taken:
                n += 1
                cid = f"{base}-{n}"
            taken.add(cid)
            files.append(read_collection(path, cid))
        return cls(files, store)

    def summaries(self, owner: int | None = None) -> list[CollectionSummary]:
        """Every collection; ``mine`` counts the levels of ``owner`` (a player's id; none
        signed out, and its description says to sign in)."""
        out = [
            CollectionSummary(
                id=c.id,
                title=c.title,
                count=len(c.levels),
                description=c.description,
                editable=False,
            )
            for c in self.files.values()
        ]
        out.append(
            CollectionSummary(
                id=MINE,
                title="My levels",
                count=self.count(MINE, owner),
                description=(
                    "Levels you made in the editor and saved."
                    if owner is not None
                    else "Sign in to save the levels you make in the editor."
                ),
                editable=True,
            )
        )
        return out

    def title(self, cid: str) -> str:
        if cid == MINE:
            return "My levels"
        return self._file(cid).title

    def _file(self, cid: str) -> FileCollection:
        found = self.files.get(cid)
        if found is None:
            known = ", ".join([*self.files, MINE])
            raise LevelNotFoundError(f"no collection {cid!r}; there are {known}")
        return found

    def count(self, cid: str, owner: int | None = None) -> int:
        """How many levels a collection holds (``mine``: ``owner``'s, none without one)."""
        if cid == MINE:
            return 0 if owner is None else self.store.count_levels(owner)
        return len(self._file(cid).levels)

    def page(self, cid: str, offset: int, limit: int, owner: int | None = None) -> list[LevelOut]:
        """Levels ``offset + 1`` to ``offset + limit`` of a collection, as JSON (``mine``:
        of ``owner``'s, each with its own number as its index)."""
        if cid == MINE:
            if owner is None:
                return []
            saved = self.store.levels(offset, limit, owner)
            return [level_out(s.level, MINE, s.number) for s in saved]
        count = len(self._file(cid).levels)
        return [self._out(cid, i) for i in range(offset + 1, min(count, offset + limit) + 1)]

    def level(self, cid: str, index: int) -> LevelOut:
        """Level ``index`` (1-based) of a collection, or the saved level numbered ``index``
        (whoever saved it); :class:`LevelNotFoundError` if none."""
        if cid == MINE:
            level = self.store.level(index)
            if level is None:
                raise LevelNotFoundError(f"no saved level numbered {index} in {MINE!r}")
            return level_out(level, MINE, index)
        collection = self._file(cid)
        if not 1 <= index <= len(collection.levels):
            raise LevelNotFoundError(self._missing(cid, index, len(collection.levels)))
        return self._out(cid, index)

    @staticmethod
    def _missing(cid: str, index: int, count: int) -> str:
        return f"no level {index} in collection {cid!r} of {count} levels (numbers start at 1)"

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one Library per app, it lives as long
    def _out(self, cid: str, index: int) -> LevelOut:
        collection = self.files[cid]
        return level_out(collection.levels[index - 1], cid, index, optimal=collection.optimal)

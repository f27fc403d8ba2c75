"""Collections of levels in XSB/SOK text: reading files lazily and tolerantly, writing them.

The grammar of the text (boards, RLE rows, titles, notes, snapshots, the file notes) is
:mod:`sokoban.grammar`, below :class:`~sokoban.Level`; this module makes levels and
collections of it. Reading (:func:`iter_levels`, :func:`load` from a path or a file,
:func:`loads` from text) reports a broken level with its position and line, and skips it.
Writing (:func:`dumps`, :func:`dump`, :func:`format_collection`) gives SOK text that reads
back to an equal collection; what it cannot hold is listed in ``losses`` when asked.

>>> text = format_level(Level.from_xsb("#####\\n#@$.#\\n#####").with_metadata(title="One"))
>>> print(text)
One
#####
#@$.#
#####
>>> parse_level(text).title
'One'
"""

from __future__ import annotations

import dataclasses
import io
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO, overload

from sokoban import files, grammar
from sokoban.errors import LevelNotFoundError, XsbError
from sokoban.grammar import (
    BOARD_CHARS,
    MAX_SIDE,
    board_rows,
    decode_rle,
    encode_rle,
    is_board_line,
)
from sokoban.level import Level
from sokoban.snapshot import Snapshot

__all__ = [
    "BOARD_CHARS",
    "MAX_LINE",
    "MAX_SIDE",
    "Collection",
    "Snapshot",
    "board_rows",
    "decode_rle",
    "dump",
    "dumps",
    "encode_rle",
    "format_board",
    "format_collection",
    "format_level",
    "is_board_line",
    "iter_levels",
    "level_from_rows",
    "load",
    "loads",
    "parse_level",
]

#: What :func:`load` and :func:`iter_levels` read: a path (a ``str`` is always a path), or a
#: text handle or any iterable of lines. XSB text itself goes to :func:`loads`.
Source = str | os.PathLike[str] | Iterable[str]

#: Longest line read from a file or handle: XSB lines are short (a whole RLE board is some
#: thousands of characters), so a longer one is a binary file or a device such as /dev/zero,
#: refused before it fills memory.
MAX_LINE = 1_000_000


def level_from_rows(rows: list[str], **fields: Any) -> Level:
    """A :class:`Level` of decoded rows of canonical characters and its fields
    (``solutions=`` LURD texts become solution snapshots)."""
    solutions = fields.pop("solutions", ())
    level = Level(*grammar.cells_from_rows(rows), **fields)
    return level.with_metadata(solutions=solutions) if solutions else level


def format_board(level: Level, rle: bool = False) -> str:
    """Canonical XSB rows of a level (see :meth:`Level.xsb`)."""
    return level.xsb(rle=rle)


# --- reading --------------------------------------------------------------------------------


def _bounded_lines(handle: Any) -> Iterator[str]:
    """The lines of a handle, each read at most :data:`MAX_LINE` characters at a time."""
    number = 0
    while line := handle.readline(MAX_LINE + 1):
        number += 1
        if len(line) > MAX_LINE and line[-1:] not in ("\n", b"\n"):
            raise XsbError(f"line longer than {MAX_LINE:,} characters: not a level file", number)
        yield line


def _lines(source: Source) -> Iterator[str]:
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        # Text taken for a path would fail with a baffling "no such file" of the whole text.
        raise ValueError("load() and iter_levels() take a path or a file; use loads() for text")
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8-sig", errors="replace") as handle:
            yield from _bounded_lines(handle)
    elif callable(getattr(source, "readline", None)):
        yield from _bounded_lines(source)
    else:
        yield from source


def _read(source: Source, reader: grammar.Reader) -> Iterator[tuple[int, Level | XsbError]]:
    for position, parts in grammar.read(_lines(source), reader):
        if isinstance(parts, XsbError):
            yield position, parts
            continue
        try:
            yield position, Level.from_parts(parts)
        except XsbError as error:  # a board over the floor limit
            yield position, error.at(position, parts.line, parts.text)
        except ValueError as error:
            yield position, XsbError(str(error), parts.line, parts.text, level=position)


def iter_levels(source: Source, errors: list[XsbError] | None = None) -> Iterator[Level]:
    """The levels of a file, one at a time, read lazily line by line.

    ``source`` is a path (``str`` or path-like) or a text handle (any iterable of lines);
    for XSB text in a string, pass ``io.StringIO(text)``. A broken level is skipped; its
    :class:`XsbError` names its 1-based position (``error.level``) and line, and is appended
    to ``errors`` when given.

    >>> import io
    >>> errors = []
    >>> text = "; 1\\n#####\\n#@$.#\\n#####\\n\\n; 2\\n#2(#\\n\\n; 3\\n###\\n#@#\\n###\\n"
    >>> [level.title for level in iter_levels(io.StringIO(text), errors)]
    ['1', '3']
    >>> print(errors[0])
    level 2: unclosed '(' in a board row at line 7: '#2(#'
    """
    for _, result in _read(source, grammar.Reader()):
        if isinstance(result, Level):
            yield result
        elif errors is not None:
            errors.append(result)


def parse_level(text: str) -> Level:
    """One level from XSB text: the board rows with, optionally, a title, notes and
    snapshots around them; raises :class:`XsbError` when the text is not exactly one level.

    >>> parse_level("Tiny\\n#####\\n#@$.#\\n#####\\nAuthor: Me\\n\\nSolution\\nR").solutions
    ('R',)
    """
    return Level.from_xsb(text)


# --- collections ----------------------------------------------------------------------------


@dataclasses.dataclass(repr=False)
class Collection:
    """The levels of a file, the broken ones it skipped, and its notes: header text, title
    and metadata. Two collections are equal when their levels, header, title and metadata
    are (errors compare by their messages).

    Indexing is 0-based like a list; :meth:`find` and :meth:`number` speak the 1-based
    numbers people use.
    """

    levels: list[Level] = dataclasses.field(default_factory=list)
    errors: list[XsbError] = dataclasses.field(default_factory=list, compare=False)
    #: Free text of the file notes, before the first level.
    header: str = ""
    #: The file's ``Collection:`` (or ``Title:``, ``Set:``) line, else its header's first
    #: line; a file with neither is titled by its name.
    title: str = dataclasses.field(default="", compare=False)
    #: The 1-based position in the file of each level; empty means 1, 2, 3, ...
    #: A broken level keeps its number, so level 3 is the file's third level even when
    #: level 2 could not be read.
    positions: list[int] = dataclasses.field(default_factory=list, compare=False)
    #: The ``Key: value`` lines of the file notes (``Collection:``, ``Author:``,
    #: ``Date Created:``, ...), in order.
    metadata: tuple[tuple[str, str], ...] = ()
    #: Whether :attr:`title` is the file's name, for want of one in its notes (then
    #: writing the collection does not add it).
    title_from_name: bool = dataclasses.field(default=False, compare=False)

    def __post_init__(self) -> None:
        if not self.positions:
            self.positions = list(range(1, len(self.levels) + 1))
        if len(self.positions) != len(self.levels):
            raise ValueError("a collection needs one position per level")

    def __len__(self) -> int:
        return len(self.levels)

    def __repr__(self) -> str:
        broken = f", {len(self.errors)} broken" if self.errors else ""
        return f"<Collection {self.title!r}: {len(self.levels)} levels{broken}>"

    def __iter__(self) -> Iterator[Level]:
        return iter(self.levels)

    def _repr_html_(self) -> str:
        """A grid of thumbnails, as a notebook shows the collection."""
        from sokoban import render  # render draws levels: imported when first shown

        return render.collection_html(self.levels, self.title)

    @overload
    def __getitem__(self, index: int) -> Level: ...

    @overload
    def __getitem__(self, index: slice) -> list[Level]: ...

    def __getitem__(self, index: int | slice) -> Level | list[Level]:
        return self.levels[index]

    def find(self, key: int | str) -> Level:
        """The level numbered ``key`` (1-based; a string of digits counts as a number), else
        the level titled ``key``, exactly, then ignoring case.

        Raises :class:`LevelNotFoundError` quoting the key and the number of levels.
        """
        n = len(self.levels) + len(self.errors)
        number: int | None = key if isinstance(key, int) else None
        if isinstance(key, str):
            wanted = key.strip()
            if wanted.isascii() and wanted.isdigit():
                number = int(wanted)
        if number is not None and 1 <= number <= max(self.positions, default=0):
            by_position = dict(zip(self.positions, self.levels, strict=True))
            if number in by_position:
                return by_position[number]
            for error in self.errors:
                if getattr(error, "level", None) == number:
                    raise LevelNotFoundError(f"level {number} could not be read: {error}")
        if isinstance(key, str):
            for level in self.levels:
                if level.title == wanted:
                    return level
            folded = wanted.casefold()
            for level in self.levels:
                if level.title.casefold() == folded:
                    return level
        raise LevelNotFoundError(
            f"no level {key!r} in this collection of {n} level{'s' if n != 1 else ''}"
            + (" (numbers start at 1)" if key in (0, "0") else "")
        )

    def number(self, level: Level) -> int:
        """The 1-based number of a level of this collection."""
        for i, candidate in enumerate(self.levels):
            if candidate is level:
                return self.positions[i]
        try:
            return self.positions[self.levels.index(level)]
        except ValueError:
            raise LevelNotFoundError(
                f"level {level.title!r} is not in this collection of {len(self.levels)} levels"
            ) from None


def load(source: Source) -> Collection:
    """Read a whole collection from a path or a text handle; broken levels are skipped and
    kept in ``errors``. A file without a title line of its own is titled by its name.

    >>> import io
    >>> collection = load(io.StringIO("; Tiny set\\n\\n; 1\\n#####\\n#@$.#\\n#####\\n"))
    >>> len(collection), collection.header, collection.find("1").title
    (1, 'Tiny set', '1')
    """
    reader = grammar.Reader()
    collection = _collect(_read(source, reader), reader)
    if not collection.title and isinstance(source, (str, os.PathLike)):
        collection.title = Path(source).stem
        collection.title_from_name = True
    return collection


def loads(text: str) -> Collection:
    """Read a whole collection from XSB text, as :func:`load` reads a file.

    >>> collection = loads("; 1\\n#####\\n#@$.#\\n#####\\n\\n; 2\\n#2(#\\n")
    >>> [level.title for level in collection], len(collection.errors)
    (['1'], 1)
    """
    reader = grammar.Reader()
    return _collect(_read(io.StringIO(text, newline=None), reader), reader)


#: File-notes keys that name the collection, first found first.
TITLE_KEYS = ("collection", "title", "set")


def collection_title(metadata: Iterable[tuple[str, str]], header: str) -> str:
    """The title a collection's notes give it: a naming key, else the header's first line."""
    named = {key.lower(): value for key, value in reversed(list(metadata))}
    for key in TITLE_KEYS:
        if named.get(key):
            return named[key]
    return header.split("\n", 1)[0].strip()


def _collect(results: Iterable[tuple[int, Level | XsbError]], reader: grammar.Reader) -> Collection:
    """The collection of what :func:`_read` gave, once it is exhausted."""
    levels: list[Level] = []
    positions: list[int] = []
    errors: list[XsbError] = []
    for position, result in results:
        if isinstance(result, Level):
            levels.append(result)
            positions.append(position)
        else:
            errors.append(result)
    title = collection_title(reader.metadata, reader.header)
    return Collection(levels, errors, reader.header, title, positions, reader.metadata)


# --- writing --------------------------------------------------------------------------------


def format_level(level: Level, rle: bool = False, losses: list[str] | None = None) -> str:
    """One level as SOK text: its title line, the board, its notes (``Author:``,
    ``Comment:``, other ``Key: value`` lines), then its snapshots (a title line, the moves,
    their notes), a blank line before each.
    """
    board = "\n".join(grammar.board_lines(level.cells(), rle))
    return "\n".join(grammar.level_lines(level.parts(), board, False, losses))


def format_collection(
    levels: Iterable[Level],
    rle: bool = False,
    header: str = "",
    metadata: Iterable[tuple[str, str]] = (),
    losses: list[str] | None = None,
) -> str:
    """SOK text of a collection: the file notes (``Key: value`` lines, the header as ``;``
    lines), then each level, with a blank line between.

    ``losses``, when given, receives a line for each thing the text cannot hold (it is
    left out); :func:`dumps` of what was read from SOK text never has any.

    >>> level = Level.from_xsb("#####\\n#@$.#\\n#####")
    >>> print(format_collection([level.with_metadata(title="1")], header="My set"))
    ; My set
    <BLANKLINE>
    1
    #####
    #@$.#
    #####
    <BLANKLINE>
    """
    parts = []
    notes = []
    for key, value in metadata:
        line = f"{key}: {value}".rstrip()
        if grammar.KEY_LINE.fullmatch(line) and grammar._reads_as(line, grammar.KEY):
            notes.append(line)
        elif losses is not None:
            losses.append(f"the file's metadata line {line!r}")
    if notes:
        parts.append("\n".join(notes))
    header = "\n".join(line.rstrip() for line in header.split("\n")).strip("\n")
    if header:
        parts.append("\n".join(f"; {line}" if line else ";" for line in header.split("\n")))
    for i, level in enumerate(levels):
        board = "\n".join(grammar.board_lines(level.cells(), rle))
        title_line = i == 0 and bool(parts)
        parts.append("\n".join(grammar.level_lines(level.parts(), board, title_line, losses)))
    return "\n\n".join(parts) + "\n" if parts else ""


def dumps(collection: Collection, rle: bool = False, losses: list[str] | None = None) -> str:
    """SOK text of a whole collection: its metadata, header and levels (its broken levels
    are not part of it, and count as losses). A title that neither the metadata nor the
    header gives is written as ``Collection:``, unless it is the name of the file it was
    read from.

    >>> print(dumps(loads("Collection: Mine\\n\\n1\\n#####\\n#@$.#\\n#####\\n")), end="")
    Collection: Mine
    <BLANKLINE>
    1
    #####
    #@$.#
    #####
    """
    if losses is not None:
        losses += [f"a level that could not be read ({error})" for error in collection.errors]
    metadata = tuple(collection.metadata)
    given = collection_title(metadata, collection.header)
    if collection.title and collection.title != given and not collection.title_from_name:
        metadata = (("Collection", collection.title), *metadata)
    return format_collection(collection.levels, rle, collection.header, metadata, losses)


def dump(
    levels: Iterable[Level] | Collection,
    dest: str | os.PathLike[str] | TextIO,
    rle: bool = False,
    header: str = "",
) -> None:
    """Write a collection (see :func:`dumps`), or levels with a header (see
    :func:`format_collection`), to a path or a text handle.

    A path is written whole or not at all (:func:`sokoban.files.write_atomically`).
    """
    if isinstance(levels, Collection):
        text = dumps(levels, rle=rle)
    else:
        text = format_collection(levels, rle=rle, header=header)
    if isinstance(dest, (str, os.PathLike)):
        files.write_atomically(dest, text)
    else:
        dest.write(text)

"""SLC: the XML collection format of Sokoban YASC and letslogic.com, read and written.

A file is ``<SokobanLevels>`` with ``<Title>``, ``<Description>``, ``<Email>``, ``<Url>``
and one ``<LevelCollection Copyright=...>`` of ``<Level Id=... Width=... Height=...>``
elements, each a board as ``<L>`` rows (spaces for floor). They map onto a
:class:`~sokoban.xsb.Collection` so:

- ``Title`` is the ``Collection:`` metadata line, ``Description`` the header, ``Email``,
  ``Url`` and the collection's ``Copyright`` metadata lines of their own names (an
  ``Author:`` line of a SOK file is written as the ``Copyright``);
- a level's ``Id`` is its title, its ``Copyright`` its author; read leniently, a
  ``<Comment>`` element is its comment and its other attributes and elements (with their
  text) are its metadata.

Writing keeps to the elements and attributes above: a level's comment, metadata and
snapshots, and the file's other metadata, have no place in SLC, and :func:`dumps` lists
them in ``losses`` when asked. Reading refuses document types and entities (no entity expansion,
nothing fetched) and files over :data:`MAX_BYTES`.

>>> text = dumps(xsb.loads("Collection: Tiny\\n\\n1\\n#####\\n#@$.#\\n#####\\n"))
>>> again = loads(text)
>>> again.title, [level.title for level in again], again[0].height
('Tiny', ['1'], 3)
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from sokoban import grammar, xsb
from sokoban.errors import XsbError
from sokoban.level import Level

#: Largest SLC file read.
MAX_BYTES = 64_000_000
_NAMED = {"title": "Collection", "email": "Email", "url": "Url"}
_DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_LEVEL_TAG = re.compile(rb"<Level[\s>/]")


def is_slc(head: bytes | str) -> bool:
    """Whether the start of a file is an SLC document (XML with ``<SokobanLevels``)."""
    if isinstance(head, str):
        head = head.encode("utf-8", "replace")
    head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"<?xml") or head.startswith(b"<SokobanLevels")


def is_slc_file(path: str | os.PathLike[str]) -> bool:
    """Whether a level file is SLC: by its ``.slc`` name, or by the start of a regular file
    (anything else, a pipe say, is read as XSB: peeking would consume it)."""
    if os.fspath(path).lower().endswith(".slc"):
        return True
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        return is_slc(handle.read(256))


def load_file(path: str | os.PathLike[str]) -> xsb.Collection:
    """A collection file of either format: SLC (see :func:`is_slc_file`) or XSB/SOK."""
    return load(path) if is_slc_file(path) else xsb.load(Path(path))


def load(path: str | os.PathLike[str]) -> xsb.Collection:
    """Read an SLC file (see :func:`loads`)."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise XsbError(f"{os.fspath(path)}: SLC file over {MAX_BYTES:,} bytes")
    collection = loads(data)
    if not collection.title:
        collection.title = Path(path).stem
        collection.title_from_name = True
    return collection


def _text(element: ET.Element | None) -> str:
    return "" if element is None else "".join(element.itertext()).strip()


def loads(data: str | bytes) -> xsb.Collection:
    """A collection of SLC text; a level whose board cannot be read is kept in ``errors``
    with its position, as XSB reading does. Raises :class:`XsbError` for text that is not
    SLC."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if _DOCTYPE.search(raw):
        raise XsbError("SLC with a document type or entities: refused")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as error:
        line = error.position[0] if error.position else None
        raise XsbError(f"not SLC: {error}", line) from None
    if _local(root.tag) != "SokobanLevels":
        raise XsbError(f"not SLC: the document is <{_local(root.tag)}>, not <SokobanLevels>")
    metadata: list[tuple[str, str]] = []
    header = ""
    # Where each <Level> begins, for errors (ElementTree keeps no line numbers).
    starts = [raw.count(b"\n", 0, m.start()) + 1 for m in _LEVEL_TAG.finditer(raw)]
    levels: list[Level] = []
    errors: list[XsbError] = []
    positions: list[int] = []
    position = 0
    for child in root:
        name = _local(child.tag)
        if name == "LevelCollection":
            for key, value in child.attrib.items():
                if _local(key) not in ("MaxWidth", "MaxHeight"):
                    metadata.append((_local(key), value))
            for level in child:
                if _local(level.tag) != "Level":
                    metadata.append((_local(level.tag), _text(level)))
                    continue
                position += 1
                where = starts[position - 1] if position <= len(starts) else None
                try:
                    levels.append(_level(level, where))
                    positions.append(position)
                except XsbError as error:
                    errors.append(error.at(position, where))
                except ValueError as error:
                    errors.append(XsbError(str(error), where, level=position))
        elif name == "Description":
            header = "\n".join(line.rstrip() for line in _text(child).split("\n"))
        else:
            metadata.append((_NAMED.get(name.lower(), name), _text(child)))
    title = xsb.collection_title(metadata, header)
    return xsb.Collection(levels, errors, header, title, positions, tuple(metadata))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _level(element: ET.Element, line: int | None) -> Level:
    rows = []
    metadata: list[tuple[str, str]] = []
    title = author = comment = ""
    for child in element:
        tag = _local(child.tag)
        if tag == "L":
            rows.append(child.text or "")
        elif tag.lower() in ("comment", "description"):
            comment = "\n".join(line.rstrip() for line in _text(child).split("\n"))
        else:
            metadata.append((tag, _text(child)))
    for key, value in element.attrib.items():
        key = _local(key)
        if key == "Id":
            title = value
        elif key == "Copyright":
            author = value
        elif key not in ("Width", "Height"):
            metadata.append((key, value))
    # A row's line is right when rows are one a line after the <Level> tag, as usual.
    decoded = grammar.board_rows(rows, (line or 0) + 1) if rows else []
    return Level(
        *grammar.cells_from_rows(decoded),
        title=title,
        author=author,
        comment=comment,
        metadata=tuple(metadata),
    )


def dumps(collection: xsb.Collection, losses: list[str] | None = None) -> str:
    """SLC text of a collection; what SLC cannot hold is left out and, when ``losses`` is
    given, a line for each is added to it."""

    def lost(what: str) -> None:
        if losses is not None:
            losses.append(what)

    for error in collection.errors:
        lost(f"a level that could not be read ({error})")
    root = ET.Element("SokobanLevels")
    title = xsb.collection_title(collection.metadata, collection.header) or collection.title
    if title:
        ET.SubElement(root, "Title").text = title
    if collection.header:
        ET.SubElement(root, "Description").text = collection.header
    copyright_ = ""
    for key, value in collection.metadata:
        if key in ("Collection", "Title", "Set") and value == title:
            continue
        if key in ("Email", "Url"):
            ET.SubElement(root, key).text = value
        elif key in ("Copyright", "Author") and not copyright_:
            copyright_ = value
        else:
            lost(f"the file's metadata line '{key}: {value}'")
    levels = list(collection)
    group = ET.SubElement(root, "LevelCollection")
    if copyright_:
        group.set("Copyright", copyright_)
    group.set("MaxWidth", str(max((lv.width for lv in levels), default=0)))
    group.set("MaxHeight", str(max((lv.height for lv in levels), default=0)))
    for number, level in enumerate(levels, 1):
        name = level.title or str(number)
        element = ET.SubElement(group, "Level", Id=name, Width=str(level.width))
        element.set("Height", str(level.height))
        if level.author:
            element.set("Copyright", level.author)
        for key, value in level.metadata:
            lost(f"level {name!r}: the metadata line '{key}: {value}'")
        if level.comment:
            lost(f"level {name!r}: its comment")
        for snapshot in level.snapshots:
            lost(f"level {name!r}: the snapshot {snapshot.title or 'untitled'!r}")
        if not level.title:
            lost(f"level {number}: no title (written as Id {name!r})")
        for row in level.xsb().split("\n"):
            ET.SubElement(element, "L").text = row
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"

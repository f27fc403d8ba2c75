"""Helpers the command modules share: the FILE argument, ``--level`` selections, loading a
collection with a warning per broken level, rich output for people, JSON for scripts, and
files written whole or not at all.

A selection names levels by 1-based number, title, range or list::

    --level 3        --level "Hot Spot"      --level 1-10      --level 1,3,7-9      --level all

A command module uses them like this (and is listed in ``sokoban.cli.COMMAND_MODULES``)::

    @main.command()
    @file_argument
    @level_option(default="all")
    @json_option
    def solve(file: Path, level: Selection | None, as_json: bool) -> None:
        collection = load_collection(file)
        for lv in select_levels(collection, level):
            number = collection.number(lv)
            ...

Raise :class:`~sokoban.errors.SokobanError` (or let ``OSError`` through) for bad input,
``click.UsageError``/``click.BadParameter`` for bad options, and :class:`NotDone` when the
input was good but the work did not get there (a level not solved): the group prints one
``error:`` line and exits 1 for :class:`NotDone` and 2 for the rest.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from sokoban import files
from sokoban.errors import SokobanError, XsbError
from sokoban.level import Level

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from sokoban.xsb import Collection

F = TypeVar("F", bound=Callable[..., Any])

_NUMBER = re.compile(r"\d+")
_RANGE = re.compile(r"(\d+)\s*-\s*(\d+)")
_LIST = re.compile(r"[\d\s,-]+")


# --- exit status --------------------------------------------------------------------------

#: The exit statuses of every command (``docs/cli/index.md`` lists them): done; not done
#: (a level not solved, a solution that does not solve its level); bad input or usage;
#: stopped by Ctrl-C or SIGTERM.
EXIT_DONE = 0
EXIT_NOT_DONE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class NotDone(click.ClickException):
    """The input was good but the work did not get there: a level not solved within its
    limits, a solution that does not solve its level, fewer levels generated than asked.
    The command prints its results first; the group then prints the message as one
    ``error:`` line and exits 1 (:data:`EXIT_NOT_DONE`)."""

    exit_code = EXIT_NOT_DONE


class Interrupted(click.ClickException):
    """Ctrl-C or SIGTERM stopped the command after it kept what it had done (a checkpoint,
    the rows finished): one ``error:`` line that says where, and exit 130."""

    exit_code = EXIT_INTERRUPTED


# --- messages and output ------------------------------------------------------------------


def warn(message: str) -> None:
    """One warning line on stderr."""
    click.echo(f"warning: {message}", err=True)


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """Text from a file, safe to print on a terminal: control characters (an escape
    sequence in a title could recolour or retitle the terminal) become ``?``.

    >>> printable("Evil\x1b[31m")
    'Evil?[31m'
    """
    return _CONTROL.sub("?", text)


def console(stderr: bool = False) -> Console:
    """A rich console on the current stdout (or stderr); colours only on a terminal.

    A new console each call, so that click's test runner, which swaps the streams, sees
    the output.
    """
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


#: The widest a table grows in a pipe or a file, where no window sets a width.
MAX_TABLE_WIDTH = 1000


def print_table(out: Console, table: Table) -> None:
    """Print a rich table whole. On a terminal it fits the window, as rich does; in a pipe,
    a file or a CI log there is no window, and rich's default of 80 columns would cut every
    cell of a wide table to a few characters, so the table takes the width its data need.
    """
    if out.is_terminal:
        out.print(table)
        return
    options = out.options.update_width(MAX_TABLE_WIDTH)
    saved = out.width
    out.width = max(1, out.measure(table, options=options).maximum)
    try:
        out.print(table)
    finally:
        out.width = saved


def json_option(function: F) -> F:
    """The ``--json`` flag: the command passes ``as_json`` and prints with :func:`echo_json`."""
    return click.option(
        "--json", "as_json", is_flag=True, help="Print JSON for scripts instead of text."
    )(function)


def echo_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def workers_option(
    help: str = "Local worker processes [all cores]; 0 works in this process.",
) -> Callable[[F], F]:
    """The ``--workers/-w`` option of the batch commands (see :mod:`sokoban.batch`)."""
    return click.option("--workers", "-w", type=click.IntRange(min=0), default=None, help=help)


def scheduler_option(function: F) -> F:
    """The ``--scheduler`` option of the batch commands: a Dask scheduler to run on."""
    return click.option(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="Run on this Dask scheduler (tcp://host:port) instead of local processes.",
    )(function)


def time_limit_option(
    help: str, default: float | None = None, minimum: FiniteFloatRange | None = None
) -> Callable[[F], F]:
    """The ``--time-limit/-t`` option: every command spells seconds this one way."""
    return click.option(
        "--time-limit",
        "-t",
        "time_limit",
        type=minimum if minimum is not None else NON_NEGATIVE,
        default=default,
        show_default=default is not None,
        metavar="SECONDS",
        help=help,
    )


def file_argument(function: F) -> F:
    """The ``FILE`` argument: an existing level file (XSB, SOK or SLC), passed as a Path."""
    return click.argument(
        "file",
        type=click.Path(exists=True, dir_okay=False, readable=True, path_type=Path),
    )(function)


# --- level selections ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Selection:
    """Levels named on the command line: ``keys`` holds numbers and titles, ``None`` is all.

    >>> Selection.parse("1-3,7").keys
    (1, 2, 3, 7)
    >>> Selection.parse("Hot Spot").keys
    ('Hot Spot',)
    >>> Selection.parse("all").keys is None
    True
    """

    text: str
    keys: tuple[int | str, ...] | None

    @classmethod
    def parse(cls, text: str) -> Selection:
        """Read a selection; raises :class:`ValueError` for a range such as ``5-2`` or ``0``.

        Digits, ranges and commas make numbers; ``all`` (any case) is every level; anything
        else is a title.
        """
        stripped = text.strip()
        if not stripped:
            raise ValueError("an empty level selection")
        if stripped.lower() == "all":
            return cls(text, None)
        if not _LIST.fullmatch(stripped):
            return cls(text, (stripped,))
        keys: list[int | str] = []
        for part in stripped.split(","):
            part = part.strip()
            if _NUMBER.fullmatch(part):
                first = last = int(part)
            elif match := _RANGE.fullmatch(part):
                first, last = int(match[1]), int(match[2])
                if first > last:
                    raise ValueError(f"the range {part!r} is empty")
            else:
                raise ValueError(f"{part!r} is not a level number or range in {text!r}")
            if first < 1:
                raise ValueError(f"level numbers start at 1, not {first}")
            if last - first > 1_000_000:
                raise ValueError(f"the range {part!r} is too long")
            keys.extend(range(first, last + 1))
        return cls(text, tuple(keys))

    @property
    def is_all(self) -> bool:
        return self.keys is None

    def levels(self, collection: Collection) -> list[Level]:
        """The selected levels of ``collection``, in the order named.

        A number or title the collection lacks raises its ``LevelNotFoundError``.
        """
        if self.keys is None:
            return list(collection)
        return [collection.find(key) for key in self.keys]


class SelectionType(click.ParamType):  # type: ignore[type-arg]  # generic since click 8.2
    """The click type of ``--level``: gives a :class:`Selection`."""

    name = "N|TITLE|RANGE|all"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, Selection):
            return value
        try:
            return Selection.parse(str(value))
        except ValueError as error:
            self.fail(str(error), param, ctx)


def level_option(
    default: str | None = None,
    help: str = "Levels by number, title, range (1-10) or list (1,3,5), or 'all'.",
) -> Callable[[F], F]:
    """The ``--level/-l`` option; the command receives ``level`` as a :class:`Selection` (or
    ``None`` when it is not given and there is no default)."""
    return click.option(
        "--level",
        "-l",
        "level",
        type=SelectionType(),
        default=default,
        show_default=default is not None,
        help=help,
    )


# --- collections --------------------------------------------------------------------------


#: Broken levels warned about one by one; the rest are counted in one more line.
MAX_WARNINGS = 20


def load_collection(path: str | os.PathLike[str]) -> Collection:
    """Read a collection; each broken level is skipped with one warning line on stderr.

    A file without one readable level is an error: the broken level's own message when
    there was just one, or a count otherwise.
    """
    from sokoban import slc

    name = os.fspath(path)
    _refuse_endless(path)
    try:
        collection = slc.load_file(path)
    except XsbError as failure:  # a file that is not XSB at all (one endless line)
        raise XsbError(f"{name}: {failure}") from None
    errors = collection.errors
    if not collection.levels and len(errors) == 1:
        raise SokobanError(f"{name}: {errors[0]}")
    for error in errors[:MAX_WARNINGS]:
        # The error names the level's position ("level 3: ...") when the reader knows it.
        what = "" if getattr(error, "level", None) is not None else "a broken level: "
        warn(f"{name}: skipped {what}{error}")
    if len(errors) > MAX_WARNINGS:
        warn(f"{name}: skipped {len(errors) - MAX_WARNINGS} more broken levels")
    if not collection.levels:
        if errors:
            raise SokobanError(f"{name}: none of its {len(errors)} levels can be read")
        raise SokobanError(f"{name}: no levels in the file")
    return collection


def _refuse_endless(path: str | os.PathLike[str]) -> None:
    """Refuse a device that never ends (/dev/zero, /dev/urandom); a terminal or a pipe, as
    /dev/stdin is, ends when its writer does."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # opening it will say what is wrong
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        with open(path, "rb") as handle:
            if not handle.isatty():
                raise SokobanError(f"{os.fspath(path)}: a device, not a level file")


def select_levels(collection: Collection, selection: Selection | None) -> list[Level]:
    """The levels a ``--level`` option names; every level when it was not given."""
    if selection is None:
        return list(collection)
    return selection.levels(collection)


def select_one(
    collection: Collection, selection: Selection | None, path: str | os.PathLike[str]
) -> Level:
    """The one level a command works on: ``--level`` must name one, unless the file holds
    a single level."""
    if selection is None:
        if len(collection) == 1:
            return collection[0]
        raise click.UsageError(
            f"{os.fspath(path)} has {len(collection)} levels: choose one with --level"
        )
    levels = selection.levels(collection)
    if len(levels) != 1:
        raise click.UsageError(f"--level {selection.text!r} names {len(levels)} levels, not one")
    return levels[0]


def level_record(collection: Collection, level: Level) -> dict[str, Any]:
    """A level's number, title, size, boxes and problems, as JSON-ready values."""
    return {
        "number": collection.number(level),
        "title": level.title,
        "width": level.width,
        "height": level.height,
        "boxes": len(level.boxes),
        "goals": len(level.goals),
        "problems": level.problems(),
    }


# --- files --------------------------------------------------------------------------------


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (links and ``..`` included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def check_output(
    path: str | os.PathLike[str],
    param_hint: str,
    inputs: tuple[str | os.PathLike[str], ...] = (),
) -> None:
    """Refuse an output path before the work starts, not after: an empty name, a folder
    that does not exist, or one of the command's input files (which it would overwrite).
    """
    name = os.fspath(path)
    if name == "-":
        return
    # click turns an empty name into Path(""), which is ".", a folder.
    if not name or Path(path).is_dir():
        raise click.BadParameter(
            f"{name!r} is a folder, not a file" if name not in ("", ".") else "no file name",
            param_hint=param_hint,
        )
    for source in inputs:
        if same_file(source, path):
            raise click.BadParameter(
                f"{name!r} is an input file; write the result elsewhere", param_hint=param_hint
            )
    folder = Path(path).parent
    if not folder.is_dir():
        raise click.BadParameter(
            f"cannot write {name!r}: the folder {os.fspath(folder)!r} does not exist",
            param_hint=param_hint,
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise click.BadParameter(
            f"cannot write {name!r}: the folder {os.fspath(folder)!r} is not writable",
            param_hint=param_hint,
        )


def write_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write a whole file or nothing (:func:`sokoban.files.write_atomically`); ``-`` writes
    to stdout."""
    if os.fspath(path) == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        else:
            click.echo(data, nl=False)
        return
    files.write_atomically(path, data)


#: Most characters read for an ``@PATH`` argument: far more than any solution needs, few
#: enough that ``@/dev/zero`` stops at once.
MAX_ARGUMENT_FILE = 16_000_000


def read_text_argument(value: str, param_hint: str | None = None) -> str:
    """An argument's text, or a file's when it is ``@PATH`` (``@-`` reads stdin)."""
    if not value.startswith("@"):
        return value
    source = value[1:]
    if not source:
        raise click.BadParameter(
            "'@' needs a file name after it (or '-' for stdin)", param_hint=param_hint
        )
    try:
        if source == "-":
            text = sys.stdin.read(MAX_ARGUMENT_FILE + 1)
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read(MAX_ARGUMENT_FILE + 1)
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise click.BadParameter(
            f"cannot read {source!r}: {reason}", param_hint=param_hint
        ) from None
    if len(text) > MAX_ARGUMENT_FILE:
        raise click.BadParameter(
            f"{source!r} holds more than {MAX_ARGUMENT_FILE:,} characters", param_hint=param_hint
        )
    return text


# --- option types and formatting shared by the commands ------------------------------------


class FiniteFloatRange(click.FloatRange):
    """A :class:`click.FloatRange` that also refuses ``nan`` and ``inf``: ``float()`` reads
    both, and no range check catches ``nan``."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


#: Seconds or MiB: a positive, finite number.
POSITIVE = FiniteFloatRange(min=0, min_open=True)

#: Seconds or MiB that may be zero (a limit of zero stops at once): finite, not negative.
NON_NEGATIVE = FiniteFloatRange(min=0)


def format_bytes(n: int) -> str:
    """A byte count for people: ``B``, ``KiB``, ``MiB`` or ``GiB`` with one decimal."""
    value = float(n)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"

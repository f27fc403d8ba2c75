"""The ``sokoban`` command: a click group whose commands live in sibling modules.

Every failure is one ``error:`` line on stderr, never a traceback, and an exit status
that says which kind it was:

- 0: done;
- 1: not done: a level not solved within its limits, a solution that does not solve its
  level (:class:`~sokoban.cli.common.NotDone`), or out of memory;
- 2: bad input or usage: a file, level or solution that cannot be read, an unknown level,
  a bad option value (:class:`~sokoban.errors.SokobanError`, ``OSError`` and click's
  usage errors);
- 130: stopped by Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
from typing import Any

import click

from sokoban import __version__
from sokoban.cli.common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_NOT_DONE, NotDone
from sokoban.errors import SokobanError

#: Modules under ``sokoban.cli`` that add commands to the group when imported.
COMMAND_MODULES = [
    "levels",
    "pictures",
    "analysis",
    "solve",
    "generate",
    "search",
    "web",
    "db",
    "rl",
]


def _one_line(error: BaseException) -> str:
    """The error's message on one line."""
    if isinstance(error, click.ClickException):
        try:
            message = error.format_message()
        except Exception:  # a malformed exception must not turn into a traceback
            message = error.message
        ctx = getattr(error, "ctx", None)
        if isinstance(error, click.UsageError) and ctx is not None:
            message += f" (see '{ctx.command_path} --help')"
    elif isinstance(error, OSError) and error.strerror:
        # "[Errno 2] No such file or directory: 'x'" reads better as "x: No such file ...".
        message = error.strerror
        if error.filename is not None:
            message = f"{os.fsdecode(error.filename)}: {message}"
    else:
        message = str(error) or type(error).__name__
    return " ".join(message.split())


class _Group(click.Group):
    """Turns the errors of a command into one ``error:`` line and its exit status: 1 for
    work not done, 2 for bad input and usage, 130 for an interrupt."""

    def invoke(self, ctx: click.Context) -> Any:
        previous = _interrupt_on_sigterm()
        try:
            return super().invoke(ctx)
        except NotDone as error:
            click.echo(f"error: {_one_line(error)}", err=True)
            ctx.exit(error.exit_code)
        except click.ClickException as error:
            # Usage errors are 2 already; any other click error is bad input too.
            click.echo(f"error: {_one_line(error)}", err=True)
            ctx.exit(error.exit_code if error.exit_code > 1 else EXIT_BAD_INPUT)
        except (SokobanError, OSError) as error:
            click.echo(f"error: {_one_line(error)}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except MemoryError as error:
            click.echo(f"error: {_one_line(error)}", err=True)
            ctx.exit(EXIT_NOT_DONE)
        except KeyboardInterrupt:
            click.echo("error: interrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _interrupt_on_sigterm() -> Any:
    """Make SIGTERM (``timeout``, ``kill``, a shutdown) stop a command as Ctrl-C does, so
    that it stops its workers and saves its checkpoint; returns the handler it replaced."""
    if threading.current_thread() is not threading.main_thread():
        return None
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None
    return signal.signal(signal.SIGTERM, _sigterm)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sokoban")
def main() -> None:
    """Solve, generate and analyse Sokoban puzzles."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"sokoban.cli.{_name}")


def run() -> None:  # pragma: no cover - the console script entry point
    main(prog_name="sokoban")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

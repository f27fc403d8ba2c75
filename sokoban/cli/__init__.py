"""The ``sokoban`` command: a click group whose commands live in sibling modules.

A user error (bad file, bad level, bad solution, bad option) is one line on stderr and
exit status 1 (2 for click's usage errors), never a traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from sokoban import __version__
from sokoban.errors import SokobanError

#: Modules under ``sokoban.cli`` that add commands to the group when imported.
COMMAND_MODULES = ["levels"]


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (SokobanError, OSError, MemoryError) as error:
            message = str(error) or type(error).__name__
            click.echo(f"error: {message}", err=True)
            ctx.exit(1)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="sokoban")
def main() -> None:
    """Solve, generate and analyse Sokoban puzzles."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"sokoban.cli.{_name}")


def run() -> None:  # pragma: no cover - the console script entry point
    main(prog_name="sokoban")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

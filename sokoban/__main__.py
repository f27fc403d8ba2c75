"""``python -m sokoban`` runs the command-line interface."""

from sokoban.cli import main

main(prog_name="sokoban")

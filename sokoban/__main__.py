"""``python -m sokoban`` runs the command-line interface."""

from sokoban.cli import main

if __name__ == "__main__":
    main(prog_name="sokoban")

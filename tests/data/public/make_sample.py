"""Rebuild this sample from the full public collections (``../shared/levels`` beside the
repository): ``python tests/data/public/make_sample.py [FOLDER]``.

Each level keeps its number in the full collection as a ``Number:`` line, so that tests
name levels as the collections do (see ``tests/public.py``).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from sokoban import xsb

HERE = Path(__file__).resolve().parent
#: The levels the tests name, by file and 1-based number in the full collection.
SAMPLE = {
    "microban.xsb": [
        *range(1, 13),
        22,
        29,
        35,
        36,
        42,
        44,
        47,
        48,
        54,
        57,
        59,
        60,
        80,
        93,
        96,
        111,
        146,
        155,
    ],
    "microban2.xsb": [1, 2, 54],
    "xsokoban.xsb": [1, 2, 29, 85, 87, 88],
    "boxoban/unfiltered_test_000.txt": [1, 2, 3],
    "boxoban/medium_valid_000.txt": [1, 2, 3],
    "boxoban/hard_000.txt": [1, 2, 3],
}
NOTE = "A sample for the sokoban project's tests: see tests/data/public/README.md."


def main(folder: Path) -> None:
    for name, numbers in SAMPLE.items():
        full = xsb.load(folder / name)
        levels = []
        for number in numbers:
            level = full.find(number)
            levels.append(level.with_metadata(metadata=(*level.metadata, ("Number", str(number)))))
        header = f"{full.header}\n\n{NOTE}" if full.header else NOTE
        (HERE / name).parent.mkdir(exist_ok=True)
        xsb.dump(levels, HERE / name, header=header)
    with open(folder / "optimal.csv", encoding="utf-8") as handle:
        lines = list(handle)
    comments = [line for line in lines if line.startswith("#")]
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    kept = [r for r in rows if int(r["level"]) in SAMPLE.get(r["file"], [])]
    with open(HERE / "optimal.csv", "w", encoding="utf-8", newline="") as out:
        out.writelines(comments)
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(kept)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[3] / "shared" / "levels")

"""The JS rules (``static/rules.js``) must not drift from the Python ones: a corpus of levels
and LURD made here (our test levels, the public collections' optimal solutions when present,
random walks that end in illegal steps) is replayed by rules.js in the page, and every
final position, metric, error index and problem list must equal Python's."""

from __future__ import annotations

import csv
import dataclasses
import functools
import random
from pathlib import Path
from typing import Any

import pytest

from sokoban import Level, xsb
from sokoban.direction import DIRECTIONS
from sokoban.errors import IllegalMoveError
from sokoban.game import Game
from sokoban.lurd import replay

from .web_helpers import DATA, SHARED_LEVELS, Page

pytestmark = pytest.mark.browser

#: Boards with problems, for rules.problems() against Level.problems().
INVALID = [
    "#####\n#  .#\n#####",  # no player
    "######\n#@$@.#\n######",  # several players
    "#####\n#@ .#\n#####",  # no boxes, a goal too many
    "#####\n#@$ #\n#####",  # a box and no goal
    "#######\n#@$.# #\n#####$#\n    #.#\n    ###",  # a box and goal the player never reaches
    "#####\n @$.#\n#####",  # the player outside the walls
    "#######\n#@$.  #\n### ###",  # a gap in the bottom wall, named by row and column
    "#####\n#@$.#\n#\n#####",  # a ragged row leaves the wall open on the right
]


def _expected(level: Level, lurd: str) -> dict[str, Any]:
    try:
        result = replay(level, lurd)
    except IllegalMoveError as error:
        return {"error": error.index}
    return {
        "final": result.final.xsb(),
        "metrics": dataclasses.asdict(result.metrics),
        "solved": result.is_solved,
        "lurd": result.solution.lurd(),
    }


def _walk(level: Level, rng: random.Random, length: int) -> str:
    """A random walk that mostly plays legal steps (pushes included) and may try an illegal
    one: Python decides where it stops."""
    game = Game(level)
    out = []
    for _ in range(length):
        legal = [d for d in DIRECTIONS if game.can_move(d)]
        d = rng.choice(legal) if legal and rng.random() < 0.93 else rng.choice(DIRECTIONS)
        game.move(d)
        letter = d.value
        out.append(letter.upper() if rng.random() < 0.3 else letter)  # case is not trusted
    return "".join(out)


def _rle(lurd: str) -> str:
    """Run-length encode a LURD (``3r``), so that rules.js decodes what Python decodes."""
    out = []
    i = 0
    while i < len(lurd):
        j = i
        while j < len(lurd) and lurd[j] == lurd[i]:
            j += 1
        out.append(f"{j - i}{lurd[i]}" if j - i > 1 else lurd[i])
        i = j
    return "".join(out)


@functools.cache
def corpus() -> list[dict[str, Any]]:
    """The cases, made once a session."""
    rng = random.Random(10)
    levels: list[tuple[Level, list[str]]] = []
    for name in ("tiny.xsb", "variants.xsb", "sok.sok"):
        for level in xsb.iter_levels(DATA / name):
            levels.append((level, list(level.solutions)))
    optimal = SHARED_LEVELS / "optimal.csv"
    if optimal.exists():
        files: dict[str, list[Level]] = {}
        with open(optimal, encoding="utf-8") as handle:
            rows = [line for line in handle if not line.startswith("#")]
        for row in csv.DictReader(rows):
            path = SHARED_LEVELS / row["file"]
            if row["file"] not in files:
                files[row["file"]] = list(xsb.iter_levels(path)) if path.exists() else []
            if files[row["file"]]:
                levels.append((files[row["file"]][int(row["level"]) - 1], [row["solution"]]))
    cases = []
    for level, solutions in levels:
        if len(level.players) != 1:
            continue
        lurds = list(solutions)
        lurds += [_rle(s.lower()) for s in solutions[:1]]  # pushes found by replay, RLE read
        lurds += [_walk(level, rng, rng.randrange(5, 120)) for _ in range(2)]
        lurds.append("r" * 200)  # into a wall sooner or later
        for lurd in lurds:
            cases.append(
                {
                    "board": level.xsb(),
                    "rle": level.xsb(rle=True),
                    "lurd": lurd,
                    "expected": _expected(level, lurd),
                }
            )
    return cases


_RUN = """async (data) => {
  const R = await import("/static/rules.js");
  const out = { cases: [], problems: [] };
  for (const c of data.cases) {
    const level = R.parseBoard(c.board);
    const fromRle = R.parseBoard(c.rle);
    const row = {
      board: R.formatBoard(level), rle: R.formatBoard(level, { rle: true }),
      fromRle: R.formatBoard(fromRle),
    };
    try {
      const r = R.replay(level, c.lurd);
      Object.assign(row, { final: R.formatBoard(r.final), metrics: r.metrics, solved: r.solved,
        lurd: R.formatLurd(r.steps) });
      // The Game (moves with a cursor) agrees with replay, and undo-all brings the start back.
      const game = new R.Game(level);
      game.play(r.steps.map((s) => s.d));
      row.game = [R.formatBoard(game.position), game.moves, game.pushes, game.lurd()];
      game.restart();
      row.restart = R.formatBoard(game.position) === R.formatBoard(level)
        && game.steps.length === r.steps.length;
    } catch (error) {
      row.error = error instanceof R.IllegalMove ? error.index : String(error);
    }
    out.cases.push(row);
  }
  for (const text of data.problems) out.problems.push(R.problems(R.parseBoard(text)));
  return out;
}"""


def test_js_rules_replay_the_python_corpus_exactly(web: Page) -> None:
    cases = corpus()
    assert len(cases) >= 40
    assert any("error" in c["expected"] for c in cases)
    assert any(c["expected"].get("solved") for c in cases)
    web.goto("#/import")
    web.page.wait_for_selector("#screen-import:not([hidden])")
    got = web.page.evaluate(_RUN, {"cases": cases, "problems": INVALID})
    mismatches = []
    for case, row in zip(cases, got["cases"], strict=True):
        expected = case["expected"]
        boards = (row["board"], row["rle"], row["fromRle"])
        if boards != (case["board"], case["rle"], case["board"]):
            mismatches.append(("board", case["board"], row))
            continue
        if "error" in expected:
            if row.get("error") != expected["error"]:
                mismatches.append(("error", case["lurd"], expected, row))
            continue
        seen = {k: row.get(k) for k in ("final", "metrics", "solved", "lurd")}
        if seen != expected:
            mismatches.append(("replay", case["lurd"], expected, seen))
        elif (
            row["game"]
            != [
                expected["final"],
                expected["metrics"]["moves"],
                expected["metrics"]["pushes"],
                expected["lurd"],
            ]
            or not row["restart"]
        ):
            mismatches.append(("game", case["lurd"], row["game"]))
    assert not mismatches, f"{len(mismatches)} of {len(cases)} differ, first: {mismatches[:3]}"
    assert got["problems"] == [Level.from_xsb(text).problems() for text in INVALID]


def test_corpus_uses_the_shared_solutions_when_present() -> None:
    # Without /work/shared the corpus is our own levels only; with it, every optimal solution.
    cases = corpus()
    shared = Path(SHARED_LEVELS / "optimal.csv").exists()
    assert (len(cases) > 500) == shared


def _fewest_pushes(level: Level, box: int) -> dict[int, int]:
    """Oracle for push-to: breadth-first over (box cell, player region) states, the other
    boxes fixed; the fewest pushes that bring the box to each cell it can reach."""
    others = level.boxes - {box}
    assert level.player is not None

    def region(box_at: int, player: int) -> frozenset[int]:
        return level.moved(boxes=others | {box_at}, player=player).reachable()

    start = region(box, level.player)
    seen = {(box, min(start))}
    frontier = [(box, start)]
    best = {box: 0}
    pushes = 0
    while frontier:
        pushes += 1
        nxt = []
        for box_at, reach in frontier:
            for d in DIRECTIONS:
                behind, ahead = level.neighbour(box_at, d.opposite), level.neighbour(box_at, d)
                if behind not in reach or ahead is None:
                    continue
                if ahead in level.walls or ahead in others:
                    continue
                new_reach = region(ahead, box_at)
                key = (ahead, min(new_reach))
                if key in seen:
                    continue
                seen.add(key)
                best.setdefault(ahead, pushes)
                nxt.append((ahead, new_reach))
        frontier = nxt
    return best


_PUSH_TO = """async (boards) => {
  const R = await import("/static/rules.js");
  return boards.map((text) => {
    const level = R.parseBoard(text);
    return [...level.boxes].sort((a, b) => a - b).map((box) =>
      [box, [...R.pushTargets(level, box)].map(([cell, dirs]) => [cell, dirs.join("")])]);
  });
}"""


def test_js_push_to_takes_each_box_anywhere_with_the_fewest_pushes(web: Page) -> None:
    levels = [lv for lv in xsb.iter_levels(DATA / "tiny.xsb") if len(lv.players) == 1]
    microban = SHARED_LEVELS / "microban.xsb"
    if not microban.exists():  # a clone without ../shared: the sample in tests/data/public
        microban = DATA / "public" / "microban.xsb"
    levels += list(xsb.iter_levels(microban))[:25]
    web.goto("#/import")
    web.page.wait_for_selector("#screen-import:not([hidden])")
    got = web.page.evaluate(_PUSH_TO, [lv.xsb() for lv in levels])
    checked = 0
    for level, boxes in zip(levels, got, strict=True):
        for box, targets in boxes:
            oracle = _fewest_pushes(level, box)
            assert {cell for cell, _ in targets} == set(oracle) - {box}, level.xsb()
            for cell, lurd in targets:
                result = replay(level, lurd)  # legal, or IllegalMoveError fails the test
                assert result.final.boxes == (level.boxes - {box}) | {cell}
                assert result.metrics.pushes == oracle[cell], (level.xsb(), box, cell)
                checked += 1
    assert checked > 100

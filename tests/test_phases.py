"""The packing plan's phases as a guide for best-first search (``sokoban.solve._phases``):
phases against the plan, distances and scores against slow references, and the guided
search's replayed solutions."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from public import PUBLIC
from test_fess import CORRIDOR, ROOM, SCATTERED, level, xy

from sokoban import verify
from sokoban.solve import Limits, Status, solve
from sokoban.solve._board import INF, Board
from sokoban.solve._packing import packing_order
from sokoban.solve._phases import GOAL_BONUS, phase_score, phases, score_max


def phase_of(guide, i: int) -> int:
    return int(np.searchsorted(guide.start, i, side="right") - 1)


def test_a_goal_corridor_is_one_phase_a_goal_from_the_deepest() -> None:
    board = Board(level(CORRIDOR))
    guide = phases(board, packing_order(board, parking=False))
    assert [xy(board, g) for g in guide.goals] == [(4, 6), (4, 5), (4, 4)]
    assert guide.start.tolist() == [0, 1, 2, 3]


def test_scattered_goals_are_one_phase() -> None:
    board = Board(level(SCATTERED))
    guide = phases(board, packing_order(board, parking=False))
    assert guide.start.tolist() == [0, 3]


def boards() -> list[tuple[str, Board]]:
    found = [("room", Board(level(ROOM))), ("corridor", Board(level(CORRIDOR)))]
    for name in ("microban.xsb", "xsokoban.xsb"):
        found += [(f"{name} {n}", Board(lv)) for n, lv in PUBLIC.levels(name)][:12]
    return found


@pytest.mark.parametrize(("name", "board"), boards(), ids=lambda x: x if isinstance(x, str) else "")
def test_a_goal_fills_in_an_earlier_phase_than_the_goal_it_precedes(
    name: str, board: Board
) -> None:
    plan = packing_order(board, parking=False)
    guide = phases(board, plan)
    assert sorted(guide.goals.tolist()) == sorted(board.goals.tolist())
    assert guide.start[0] == 0 and guide.start[-1] == len(board.goals)
    assert (np.diff(guide.start) > 0).all()  # no empty phase
    where = {int(g): phase_of(guide, i) for i, g in enumerate(guide.goals)}
    for i, p in enumerate(plan.parent):
        if p >= 0:
            assert where[int(plan.order[i])] < where[int(plan.order[p])]


def lone_box_pushes(board: Board, walls: set[int], goal: int) -> np.ndarray:
    """Fewest pushes of a lone box from each cell to ``goal``, the player first on any
    free cell beside the box, ``walls`` blocked: breadth-first over (box, player)."""
    nbr = board.nbr
    best = np.full(board.n, INF, dtype=np.int64)
    for box in range(board.n):
        if box in walls:
            continue
        starts = [(box, int(p)) for p in nbr[box] if p >= 0 and int(p) not in walls]
        seen = set(starts)
        queue = deque((s, 0) for s in starts)
        while queue:
            (b, p), d = queue.popleft()
            if b == goal:
                best[box] = d
                break
            # The player walks around the box, then pushes.
            around = {p}
            todo = [p]
            while todo:
                c = todo.pop()
                for x in nbr[c]:
                    x = int(x)
                    if x >= 0 and x != b and x not in walls and x not in around:
                        around.add(x)
                        todo.append(x)
            for s in range(4):
                behind, ahead = int(nbr[b, s]), int(nbr[b, (s + 2) % 4])
                if behind in around and ahead >= 0 and ahead not in walls:
                    state = (ahead, b)
                    if state not in seen:
                        seen.add(state)
                        queue.append((state, d + 1))
    return best


def test_distances_wall_in_the_goals_of_earlier_phases() -> None:
    for text in (ROOM, CORRIDOR):
        board = Board(level(text))
        guide = phases(board, packing_order(board, parking=False))
        # The directions of nbr: opposite sides two apart.
        assert all(
            board.nbr[board.nbr[c, s], (s + 2) % 4] == c
            for c in range(board.n)
            for s in range(4)
            if board.nbr[c, s] >= 0
        )
        for i, goal in enumerate(guide.goals):
            walls = {int(g) for g in guide.goals[: guide.start[phase_of(guide, i)]]}
            expected = lone_box_pushes(board, walls, int(goal))
            assert guide.dist[i].tolist() == np.minimum(expected, INF).tolist()


def reference_score(occ: np.ndarray, b: int, t: int, guide) -> tuple[int, bool]:
    """:func:`phase_score` written out plainly."""
    goals, start, dist = guide
    empty = [i for i in range(len(goals)) if occ[goals[i]] < 0]
    phase = phase_of(guide, empty[0]) if empty else len(start) - 2
    members = range(start[phase], start[phase + 1])
    filled = [i for i in members if occ[goals[i]] >= 0]
    open_ = [i for i in members if occ[goals[i]] < 0]
    closer = sum(dist[i, t] < dist[i, b] for i in open_)
    landed = any(goals[i] == t for i in filled)
    near = min((dist[i, t] for i in open_), default=INF)
    score = GOAL_BONUS * (len(goals) - start[phase] - len(filled)) + 2 * len(goals)
    score += 2 * (near + 1) if near < INF else GOAL_BONUS // 4
    return score - 2 * closer - landed + 1, bool(closer > 0 or landed)


def test_phase_scores_match_a_slow_reference() -> None:
    board = Board(PUBLIC.level("xsokoban.xsb", 1))
    guide = phases(board, packing_order(board, parking=False))
    rng = np.random.default_rng(1)
    top = score_max(guide)
    for trial in range(300):
        occ = np.full(board.n, -1, np.int32)
        # A prefix of the phases filled, then some boxes scattered.
        for g in guide.goals[: rng.integers(0, len(guide.goals) + 1)]:
            occ[g] = 0
        for c in rng.choice(board.n, size=rng.integers(1, 6)):
            occ[c] = 0 if rng.random() < 0.7 else -1
        t = int(rng.choice(np.flatnonzero(occ >= 0))) if (occ >= 0).any() else 0
        occ[t] = 0
        b = int(rng.integers(0, board.n))
        got = phase_score(occ, b, t, *guide)
        assert got == reference_score(occ, b, t, guide), trial
        assert 1 <= got[0] <= top


GUIDED = [("xsokoban.xsb", 1), ("xsokoban.xsb", 2)]
GUIDED += [("microban.xsb", n) for n in PUBLIC.numbers("microban.xsb")[:12]]


@pytest.mark.parametrize(("name", "number"), GUIDED)
def test_the_guided_search_solves_levels_and_its_solutions_replay(name: str, number: int) -> None:
    found = PUBLIC.level(name, number)
    result = solve(found, "greedy", Limits(time=60), phases=True)
    assert result.status is Status.SOLVED, result.message
    assert verify(found, result.solution).is_solved

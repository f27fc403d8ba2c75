"""Deadlock sets computed before the search: small groups of boxes near walls that, alone
on the board, can never all reach goals, kept as learned patterns from the start.

The corral sub-searches of :mod:`sokoban.solve._corral_deadlock` find such groups while
the search runs, once a position has them; this finds the compact ones first, as YASS's
precalculated deadlock sets do. A candidate is a group of three or four boxes on live
cells next to a wall, each within one step (diagonals too) of another box of the group:
groups near walls are the ones that cannot be pushed clear, and compact groups are the
ones whose proof is small. Each player region among the group's boxes alone is tried by
the same exhaustive sub-search as a corral (:func:`~sokoban.solve._corral_deadlock._solvable`),
so a kept set is as sound as a corral pattern: any position with a box on each of its
cells and the player in that region is dead.

Groups the every-child tests already decide (a box frozen off a goal, a two-box
deadlock) or that hold a set already kept are skipped, so the patterns add knowledge the
search would not have. The work is bounded by a budget of sub-search states that grows
with the level's floor (:func:`seed_budget`).
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit
from sokoban.solve._board import Board, SearchBoard
from sokoban.solve._corral_deadlock import (
    DEAD,
    FIRST_BUDGET,
    PATTERNS,
    Learned,
    _keep,
    _solvable,
    matches,
    new_scratch,
)
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._driver import BUDGET, EXHAUSTED
from sokoban.solve._pairs import pair_dead
from sokoban.solve._reach import reach
from sokoban.solve._turns import Entrant

#: Sub-search states the seeding may spend per floor cell of the level.
STATES_PER_CELL = 2048
#: Boxes in a group, at most.
MAX_GROUP = 4


def seed_budget(board: Board) -> int:
    """Sub-search states the seeding of ``board`` may spend: a fixed share per floor cell,
    so its time stays a small part of what a search of the level costs."""
    return STATES_PER_CELL * board.n


def candidate_groups(board: Board, most: int = MAX_GROUP) -> np.ndarray:
    """The groups of 3 to ``most`` boxes tried (see the module): int16[g, most], each row
    sorted and -1 padded, smaller groups first."""
    if most < 3:
        return np.full((0, MAX_GROUP), -1, np.int16)
    n, width = board.n, board.level.width
    nbr = board.nbr
    x = board.cells % width
    y = board.cells // width
    near = [c for c in range(n) if not board.dead[c] and any(nbr[c, d] < 0 for d in range(4))]
    at = {(int(x[c]), int(y[c])): c for c in near}
    around: dict[int, list[int]] = {}
    for c in near:
        cx, cy = int(x[c]), int(y[c])
        around[c] = [
            at[(cx + dx, cy + dy)]
            for dy in (-1, 0, 1)
            for dx in (-1, 0, 1)
            if (dx or dy) and (cx + dx, cy + dy) in at
        ]
    groups: list[list[int]] = []
    level_sets: set[frozenset[int]] = {frozenset((c,)) for c in near}
    for size in range(2, most + 1):
        grown: set[frozenset[int]] = set()
        for group in level_sets:
            for c in group:
                for d in around[c]:
                    if d not in group:
                        grown.add(group | {d})
        level_sets = grown
        if size >= 3:
            groups.extend(sorted(sorted(g) for g in grown))
    rows = np.full((len(groups), most), -1, np.int16)
    for i, members in enumerate(groups):
        rows[i, : len(members)] = members
    return rows


@njit
def _seed(groups, board, learned, scratch, budget, side, done):
    """Prove the ``groups`` (int16[g, w], -1 padded) dead or not per player region, keeping
    the dead ones in ``learned``, until ``budget`` sub-search states are spent. ``side``:
    int32[4 w] scratch; ``done``: int64[3], zero, gets the groups looked at, the
    sub-searches run and the states they spent."""
    nbr, goal, dead = board.nbr, board.goal, board.dead
    live, pairs, starts, partners = board.live, board.pairs, board.starts, board.partners
    socc, sseen, squeue = scratch[2], scratch[3], scratch[4]
    stack, marks, swalk = scratch[7], scratch[11], scratch[12]
    comp, fence = scratch[0], scratch[14]
    width = groups.shape[1]
    for g in range(groups.shape[0]):
        if done[2] >= budget:
            break
        done[0] += 1
        k = 0
        while k < width and groups[g, k] >= 0:
            fence[k] = groups[g, k]
            k += 1
        all_goals = True
        for i in range(k):
            socc[fence[i]] = i
            if not goal[fence[i]]:
                all_goals = False
        skip = all_goals
        for i in range(k):
            if not skip and frozen(fence[i], socc, nbr, goal, dead, stack) == FROZEN_OFF_GOAL:
                skip = True
        if not skip:
            # Each player region next to the group, by its canonical cell (the free cells
            # beside the group, ``side``, are marked in ``comp`` once their region is done).
            marks[0] += 1
            gid = np.int32(marks[0])
            nside = 0
            for i in range(k):
                for d in range(4):
                    s = nbr[fence[i], d]
                    if s >= 0 and socc[s] < 0:
                        side[nside] = s
                        nside += 1
            for r in range(nside):
                if comp[side[r]] == gid:
                    continue
                marks[1] += 1
                here = np.int32(marks[1])
                canon = reach(side[r], socc, nbr, sseen, here, squeue, swalk)
                for q in range(nside):
                    if sseen[side[q]] == here:
                        comp[side[q]] = gid
                known = False
                for j in range(k):
                    if pair_dead(fence[j], canon, socc, live, pairs, starts, partners) or matches(
                        fence[j], canon, socc, learned
                    ):
                        known = True
                        break
                if known:
                    continue
                if done[2] >= budget:
                    break
                for j in range(k):
                    socc[fence[j]] = -1
                verdict, used = _solvable(fence, k, canon, 0, FIRST_BUDGET, board, scratch)
                done[1] += 1
                done[2] += used
                if verdict == DEAD:
                    _keep(fence, k, canon, nbr, learned, scratch)
                for j in range(k):
                    socc[fence[j]] = j
        for i in range(k):
            socc[fence[i]] = -1


class DeadlockSets:
    """The proofs of the level's deadlock sets as a search that takes turns
    (:mod:`sokoban.solve._turns`) beside the searches that use them: each step proves the
    next groups (see the module) into ``learned``, the patterns those searches share; it
    runs out of positions (and leaves the turns) when every group is tried or
    :func:`seed_budget` is spent. It never solves the level and expands no position, so
    limits of expansions do not count its work. ``board``: the level's
    :class:`~sokoban.solve._board.Board`; ``search_board``: its
    :class:`~sokoban.solve._board.SearchBoard` with the two-box table the searches use."""

    def __init__(self, board: Board, search_board: SearchBoard, learned: Learned) -> None:
        self.board = board
        self.search_board = search_board
        self.learned = learned
        # A group of every box is the whole position, which the searches decide; patterns
        # not kept are no groups to try.
        keeps = learned.head.shape[0] > 0
        self.groups = candidate_groups(board, min(MAX_GROUP, board.nboxes - 1) if keeps else 0)
        self.budget = seed_budget(board)
        self.scratch = new_scratch(board.n) if self.groups.shape[0] else ()
        self.side = np.empty(4 * MAX_GROUP, np.int32)
        #: Groups looked at, sub-searches run, states spent.
        self.done = np.zeros(3, np.int64)
        self.counters = np.zeros(8, np.int64)
        self.expanded = 0
        self.cost = 0

    @property
    def exhausted(self) -> bool:
        return bool(self.done[0] >= self.groups.shape[0] or self.done[2] >= self.budget)

    @property
    def nbytes(self) -> int:
        return int(self.groups.nbytes + sum(a.nbytes for a in self.scratch))

    @property
    def kept(self) -> int:
        """Patterns in ``learned`` (these and any the searches added)."""
        return int(self.learned.counts[PATTERNS])

    def step(self, steps: int) -> int:
        """Prove up to ``steps`` more groups; :data:`~sokoban.solve._driver.EXHAUSTED` when
        none is left, else :data:`~sokoban.solve._driver.BUDGET`."""
        if not self.exhausted:
            first = int(self.done[0])
            rows = self.groups[first : first + max(1, steps)]
            _seed(rows, self.search_board, self.learned, self.scratch, self.budget, self.side,
                  self.done)  # fmt: skip
        return EXHAUSTED if self.exhausted else BUDGET

    def prove_all(self) -> None:
        """Prove every group within the budget at once (outside the turns)."""
        while self.step(256) != EXHAUSTED:
            pass

    def grow(self, code: int, memory: int) -> bool:
        return False

    def path(self) -> list[int]:
        raise RuntimeError("the deadlock sets do not solve a level")


def sets_entrants(board: Board, pairs: tuple[np.ndarray, ...], learned: Learned) -> list[Entrant]:
    """The proofs of the deadlock sets as an entrant of the turns, proved with the two-box
    table ``pairs`` into ``learned``; none when ``learned`` keeps no patterns."""
    if learned.head.shape[0] == 0:
        return []
    return [Entrant("deadlock sets", DeadlockSets(board, board.search_board(pairs), learned))]

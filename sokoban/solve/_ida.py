"""The method ``ida`` and its kernel.

IDA*: depth-first searches over pushes with a rising bound on f = g + h, the engine's
matching lower bound as h, and a transposition table.

Each iteration searches every path whose f stays within the threshold, children tried
cheapest bound first; the next threshold is the least f that passed it. The depth-first
stack lives in arrays, so the kernel stops after a budget of expansions and resumes where
it was (the driver checks the clock between calls).

The transposition table holds states with the least g they were reached at in the
current iteration; reaching one again at that g or more is cut (a cycle, or a repetition
of a subtree already searched with more room), which keeps IDA* push-optimal. States are
stored once and kept across iterations; when the store is full and may not grow, new
states go unrecorded (the search stays correct, only slower).

The table also learns bounds. When the search leaves a state at depth ``g0``, the least
f that passed the threshold below it, ``f0``, is stored with ``g0`` (the least over its
children: those cut by the threshold with their f, those searched with their own ``f0``;
a child cut as a repetition adds nothing, its subtree being searched where it was first
reached, at no greater depth). Reaching the state again, in this iteration or a later
one, at depth ``g >= g0`` gives it ``f = max(g + h, f0 + g - g0)``: each of its
solutions costs at least that, but for those through children searched elsewhere, which
are bounded where they were searched. This is the rule SMA* uses with its bound cache
(:mod:`sokoban.solve._sma`, where the argument is given), and the same tests hold IDA* to
the reference search; option ``learn="off"`` turns it off. A repetition is skipped
before any learned bound applies: were an ancestor's bound charged to a cycle back to it,
the bound would feed on itself, rising by the cycle's length every iteration, and an
unsolvable level would never finish.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from sokoban._arrays import copy_into, doubled
from sokoban._jit import njit
from sokoban.level import Level
from sokoban.lurd import Solution
from sokoban.solve import _driver, _table
from sokoban.solve._board import INF
from sokoban.solve._bounds import BOUNDS
from sokoban.solve._driver import AGAIN, BUDGET, EXHAUSTED, FULL, SOLVED
from sokoban.solve._options import BOUND_OPTION
from sokoban.solve._path import expand
from sokoban.solve._successors import Children, FamilyBoard, is_solved, pushes
from sokoban.solve.types import Limits, Option, ProgressCallback, SearchStats, SolveResult, register

#: Kernel result: the iteration is over (``state[NEXT]`` is the next threshold).
ITERATION_DONE = 6
# Slots of the state (int64 array): stack depth, threshold, next threshold, expanded,
# generated, stored states, budget, may insert (0/1), goal depth, learn bounds (0/1),
# children whose f a learned bound raised.
(
    DEPTH,
    THRESHOLD,
    NEXT,
    EXPANDED,
    GENERATED,
    STORED,
    STEPS,
    INSERT,
    GOAL_DEPTH,
    LEARN,
    LEARNED,
) = range(11)


class Stack(NamedTuple):
    """The depth-first stack for paths of up to ``D - 2`` pushes: per level the state
    (boxes int16[D, b], player int32[D], key uint64[D]), its children (boxes
    int16[D, m, b], player int32[D, m], key uint64[D, m], bound int32[D, m]), their order
    int32[D, m], count int32[D] and next child to try int32[D] (-1: not yet expanded),
    the least f found below that passed the threshold int32[D], and the state's row in
    the table int32[D] (-1: not stored); m = 4 b."""

    boxes: np.ndarray
    player: np.ndarray
    key: np.ndarray
    child_boxes: np.ndarray
    child_player: np.ndarray
    child_key: np.ndarray
    child_bound: np.ndarray
    child_order: np.ndarray
    child_count: np.ndarray
    child_next: np.ndarray
    least_f: np.ndarray
    row: np.ndarray


class Table(NamedTuple):
    """The transposition table: the engine's probe table int32[2 cap] over stored states
    (hash uint64[cap], boxes int16[cap, b], player int32[cap]), their least g this
    iteration int32[cap], and their learned bound: the depth it was learned at int32[cap]
    (-1: none) and the bound int32[cap]."""

    probe: np.ndarray
    hash: np.ndarray
    boxes: np.ndarray
    player: np.ndarray
    g: np.ndarray
    g0: np.ndarray
    f0: np.ndarray


def new_stack(depth: int, nboxes: int) -> Stack:
    """A :class:`Stack` for paths of up to ``depth`` pushes."""
    d = depth + 2
    m = 4 * max(nboxes, 1)
    return Stack(
        np.zeros((d, nboxes), np.int16),
        np.zeros(d, np.int32),
        np.zeros(d, np.uint64),
        np.zeros((d, m, nboxes), np.int16),
        np.zeros((d, m), np.int32),
        np.zeros((d, m), np.uint64),
        np.zeros((d, m), np.int32),
        np.zeros((d, m), np.int32),
        np.zeros(d, np.int32),
        np.full(d, -1, np.int32),
        np.full(d, INF, np.int32),
        np.full(d, -1, np.int32),
    )


def new_table(capacity: int, nboxes: int) -> Table:
    """An empty :class:`Table` for ``capacity`` states."""
    return Table(
        np.full(2 * capacity, -1, np.int32),
        np.zeros(capacity, np.uint64),
        np.zeros((capacity, nboxes), np.int16),
        np.zeros(capacity, np.int32),
        np.full(capacity, INF, np.int32),
        np.full(capacity, -1, np.int32),
        np.zeros(capacity, np.int32),
    )


#: Bytes per table entry of a level with ``b`` boxes: ``BYTES_PER_ENTRY + 2 * b``.
BYTES_PER_ENTRY = 2 * 4 + 8 + 4 + 4 + 4 + 4


@njit(internal=True)
def _finish(d, stack, tt):
    """Leave level ``d``: store what was learned of its state and pass it up."""
    s_next, s_row = stack.least_f, stack.row
    t_g0, t_f0 = tt.g0, tt.f0
    value = s_next[d]
    row = s_row[d]
    if row >= 0:
        keep = (
            t_g0[row] >= 0
            and t_g0[row] <= d
            and (t_f0[row] >= INF or t_f0[row] - t_g0[row] >= value - d)
        )
        if not keep:
            t_g0[row] = d
            t_f0[row] = value
    if d > 0 and value < s_next[d - 1]:
        s_next[d - 1] = value


@njit
def run(board, scratch, stack, tt, state, kind):
    """Continue the current iteration for up to ``state[STEPS]`` expansions.

    Returns :data:`SOLVED` (the path is ``stack`` levels ``0..state[GOAL_DEPTH]``),
    :data:`ITERATION_DONE` (``state[NEXT]`` is the next threshold, :data:`INF` when no path
    passed the threshold: no solution), :data:`BUDGET`, or :data:`FULL` (the table's store
    is full; the driver grows it or clears ``state[INSERT]``).
    """
    goal = board.goal
    s_boxes, s_player, s_key, c_boxes, c_player, c_key, c_h, c_order, c_count, c_next = stack[:10]
    s_next, s_row = stack.least_f, stack.row
    table, t_hash, t_boxes, t_player, t_g, t_g0, t_f0 = tt
    threshold = state[THRESHOLD]
    learn = state[LEARN]
    cap = t_hash.shape[0]
    steps = 0
    while True:
        d = state[DEPTH]
        if d < 0:
            return ITERATION_DONE
        if c_next[d] < 0:
            if is_solved(s_boxes[d], goal):
                state[GOAL_DEPTH] = d
                return SOLVED
            if steps >= state[STEPS]:
                return BUDGET
            children = Children(c_boxes[d], c_player[d], c_key[d], c_h[d])
            count = pushes(s_boxes[d], s_player[d], s_key[d], board, scratch, kind, children)
            steps += 1
            state[EXPANDED] += 1
            state[GENERATED] += count
            # Cheapest bound first (insertion sort: at most 4 b children).
            for i in range(count):
                j = i
                while j > 0 and c_h[d, c_order[d, j - 1]] > c_h[d, i]:
                    c_order[d, j] = c_order[d, j - 1]
                    j -= 1
                c_order[d, j] = i
            c_count[d] = count
            c_next[d] = 0
            s_next[d] = INF
        advanced = False
        g = d + 1
        while c_next[d] < c_count[d]:
            i = c_order[d, c_next[d]]
            c_next[d] += 1
            found = _table.find(
                table, c_key[d, i], c_boxes[d, i], c_player[d, i], t_hash, t_boxes, t_player
            )
            if found >= 0 and t_g[found] <= g:
                continue  # a repetition: searched where it was first reached this iteration
            f = g + c_h[d, i]
            if learn and found >= 0 and 0 <= t_g0[found] <= g:
                known = INF if t_f0[found] >= INF else min(t_f0[found] + g - t_g0[found], INF)
                if known > f:
                    f = known
                    state[LEARNED] += 1
            if f > threshold:
                if f < state[NEXT]:
                    state[NEXT] = f
                if f < s_next[d]:
                    s_next[d] = f
                continue
            if found >= 0:
                t_g[found] = g
                s_row[g] = found
            elif state[INSERT]:
                if state[STORED] >= cap:
                    c_next[d] -= 1  # retry this child once the driver made room
                    return FULL
                new = state[STORED]
                state[STORED] += 1
                t_hash[new] = c_key[d, i]
                copy_into(t_boxes[new], c_boxes[d, i])
                t_player[new] = c_player[d, i]
                t_g[new] = g
                t_g0[new] = -1
                table[-found - 1] = new
                s_row[g] = new
            else:
                s_row[g] = -1
            copy_into(s_boxes[g], c_boxes[d, i])
            s_player[g] = c_player[d, i]
            s_key[g] = c_key[d, i]
            c_next[g] = -1
            state[DEPTH] = g
            advanced = True
            break
        if not advanced:
            if learn:
                _finish(d, stack, tt)
            state[DEPTH] = d - 1


class Ida:
    """The stack and table of one IDA*, run by :func:`sokoban.solve._driver.drive`; an
    iteration that ends starts the next one within :meth:`step`."""

    def __init__(self, family: FamilyBoard, kind: int, h0: int, learn: bool, memory: int) -> None:
        self.family = family
        self.kind = kind
        nb = family.nboxes
        self.stack = new_stack(h0, nb)
        fixed = family.nbytes + sum(a.nbytes for a in self.stack)
        capacity = 1 << 12  # the table starts smaller when memory is short
        while capacity > 16 and fixed + capacity * (2 * nb + BYTES_PER_ENTRY) > memory:
            capacity //= 2
        tt = new_table(capacity, nb)
        slot = _table.find(
            tt.probe, family.key, family.boxes, family.player, tt.hash, tt.boxes, tt.player
        )
        tt.probe[-slot - 1] = 0
        tt.hash[0], tt.boxes[0], tt.player[0] = family.key, family.boxes, family.player
        self.table = tt
        self.state = np.zeros(11, np.int64)
        self.state[STORED] = 1
        self.state[INSERT] = 1
        self.state[LEARN] = learn
        self.threshold = h0
        self.iterations = 1
        self._fresh = True  # the iteration starts with the next call

    @property
    def nbytes(self) -> int:
        return self.family.nbytes + sum(a.nbytes for a in (*self.table, *self.stack))

    @property
    def expanded(self) -> int:
        return int(self.state[EXPANDED])

    @property
    def exhausted(self) -> bool:
        return False

    def _start_iteration(self) -> None:
        tt, stack, family, state = self.table, self.stack, self.family, self.state
        tt.g[: int(state[STORED])] = INF
        tt.g[0] = 0
        stack.boxes[0], stack.player[0], stack.key[0] = family.boxes, family.player, family.key
        stack.child_next[0] = -1
        stack.row[0] = 0  # the start's row in the table
        state[DEPTH] = 0
        state[THRESHOLD] = self.threshold
        state[NEXT] = INF
        self._fresh = False

    def step(self, budget: int) -> int:
        if self._fresh:
            self._start_iteration()
        self.state[STEPS] = budget
        code: int = run(
            self.family.kernel, self.family.scratch, self.stack, self.table, self.state, self.kind
        )
        if code != ITERATION_DONE:
            return code
        if self.state[NEXT] >= INF:
            return EXHAUSTED
        self.threshold = int(self.state[NEXT])
        self.iterations += 1
        self._fresh = True
        # Paths of the new threshold may need a deeper stack: FULL has grow() make it.
        return FULL if self.stack.player.shape[0] < self.threshold + 2 else AGAIN

    def grow(self, code: int, memory: int) -> bool:
        stack = self.stack
        if self._fresh:  # a deeper stack for the next iteration
            depth = max(self.threshold, 2 * (stack.player.shape[0] - 2))
            self.stack = new_stack(depth, self.family.nboxes)
            return self.nbytes <= memory
        tt, state = self.table, self.state
        if self.nbytes + sum(a.nbytes for a in tt) > memory:
            state[INSERT] = 0  # go on without recording new states
            return True
        grown = [doubled(a) for a in tt[1:]]
        grown[3][int(state[STORED]) :] = INF
        grown[4][int(state[STORED]) :] = -1
        probe = np.empty(2 * tt.probe.shape[0], np.int32)
        _table.rebuild(probe, grown[0], int(state[STORED]))
        self.table = Table._make([probe, *grown])
        return True

    def stats(self, run: _driver.Run) -> SearchStats:
        state = self.state
        return SearchStats(
            int(state[EXPANDED]),
            int(state[GENERATED]),
            int(state[STORED]),
            run.peak_bytes,
            run.seconds,
        )

    def solution(self) -> Solution:
        stack = self.stack
        depth = int(self.state[GOAL_DEPTH])
        path = [(stack.boxes[i].copy(), int(stack.player[i])) for i in range(depth + 1)]
        return expand(self.family.board, path)

    def solved_message(self, optimal: bool) -> str:
        depth = int(self.state[GOAL_DEPTH])
        return f"solved in {depth} pushes (optimal) after {self.iterations} iterations"


@register(
    "ida",
    "IDA*: depth-first iterations on pushes + matching bound, with a transposition table",
    "pushes",
    optimal=True,
    options=(
        BOUND_OPTION,
        Option(
            "learn",
            str,
            "at-least",
            "whether the table keeps learned bounds",
            choices=("at-least", "off"),
        ),
    ),
)
def ida(
    level: Level, limits: Limits, progress: ProgressCallback | None, **options: Any
) -> SolveResult:
    """Push-optimal IDA*; option ``learn``: whether the table keeps learned bounds (see
    the module docstring)."""
    kind = BOUNDS[options["bound"]]
    family = FamilyBoard(level)
    h0 = family.bound(kind, family.boxes)
    if h0 >= INF:
        return _driver.unsolvable("ida")
    search = Ida(family, kind, h0, options["learn"] == "at-least", limits.memory_bytes)
    run = _driver.drive(search, limits, progress)
    return _driver.result(search, run, "ida", True, h0)

"""Packing order: in which order the goals should be filled, found once per level by
retrograde analysis from the solved position.

Start with a box on every goal and the player wherever it could stand at the end (every
region holding the start player cell or a start box cell off the goals, since those cells
are empty then). Repeatedly take out the goal box that the fewest pulls bring onto a cell
off the goals, and remove it from the board. A box counts as removable only if pulls can
bring it back to the start cell of some box (off the goals) with the goal boxes still
there in the way, since in forward time a box must come from somewhere: a pull into a
dead-end pocket no box can reach stands for no push at all, and the goal it empties must
be filled before the goals across its real entrance. When no goal box can go back so
(boxes must wait inside the goal area: parking, not planned here), any cell off the
goals will do: the box is *parked* there (see below). A goal room with one entrance
empties from the door inwards, so the reverse of that removal order fills it from the
deepest goal out. Scattered goals are all removable at once: their order does not matter.

Parking: a goal box that no pulls bring back to a start cell, only onto some cell off
the goals (the nearest such cell by pulls), stays on that cell as a parked box while the
removal goes on; it leaves (is pulled back to a start cell) as soon as it can, before any
more goal boxes are removed. In forward time the plan then reads: park a box on that
cell before the goals that would cut it off are filled, and push it on to its goal
later: a goal filled only from a cell that the goals above it cut off would otherwise be
left for last, after those goals, and the search would stall below it. When neither a
goal box nor a parked box can go anywhere, the parked box that was parked first leaves
anyway (the plan gives up on it). Where this greedy
analysis parks, a depth-first search over removal orders and parking cells
(:class:`_ParkingSearch`) looks for a plan in which every parked box leaves by pulls back
to a start, and takes it when it finds one.

Besides the order, the analysis records which box blocked which: when removing box P
(or a parked box leaving) makes box X removable for the first time, P's step is the
*parent* of X's goal, and X's goal must be filled before P's. A parking's parent is the
goal removed last before the parked box left: the box must be parked before that goal
is filled. A goal is *packed* (:func:`packed_count`) when it holds a box and every goal
it blocks is packed; boxes on goals that are not packed are out of plan: they wall in
goals that are still empty. The plan's steps (goals and parkings in fill order) count
the same way (:func:`steps_packed`): a parking holds while a box stands on its cell or
on the goal it feeds.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sokoban._arrays import copy_into
from sokoban._jit import njit
from sokoban.solve._board import Board
from sokoban.solve._reach import reach

#: The pull searches the search for a plan whose parked boxes all leave may run (each a few
#: floods): a bound on the set-up of a level that has no such plan.
PARKING_PULLS = 20_000


@dataclasses.dataclass(frozen=True)
class PackingOrder:
    """The goals (floor indices) in the order to fill them, and for each goal in that
    order the position in ``order`` of the goal it must precede (its parent, -1 if none);
    the same for the plan's steps, the goals and the parking cells in the order to fill
    them, with for each parking the position in ``steps`` of the goal its box goes on to.

    ``order``: int32[g]; ``parent``: int32[g], ``parent[i] > i`` or -1; ``steps``:
    int32[m] (m = g + parkings), ``step_parent``: int32[m] likewise; ``feeds``: int32[m],
    -1 on a goal's step, ``feeds[i] > i`` on a parking's. Without parkings the steps are
    the goals.
    """

    order: np.ndarray
    parent: np.ndarray
    steps: np.ndarray
    step_parent: np.ndarray
    feeds: np.ndarray

    @property
    def parkings(self) -> np.ndarray:
        """int32[p]: the parking cells, in fill order."""
        return self.steps[self.feeds >= 0]

    def precedes(self) -> np.ndarray:
        """uint8[g, g]: 1 at [i, j] when goal j must be filled before goal i (j is in the
        subtree of i by ``parent``); positions in ``order``."""
        ng = len(self.order)
        before = np.zeros((ng, ng), dtype=np.uint8)
        for j in range(ng):
            i = self.parent[j]
            while i >= 0:
                before[i, j] = 1
                i = self.parent[i]
        return before

    @property
    def depth(self) -> int:
        """The longest chain of goals that must be filled one after another."""
        depth = np.zeros(len(self.order), dtype=np.int64)
        for i in range(len(self.order) - 1, -1, -1):
            p = self.parent[i]
            if p >= 0:
                depth[i] = depth[p] + 1
        return int(depth.max()) + 1 if len(depth) else 0


def packing_order(board: Board, *, parking: bool = True) -> PackingOrder:
    """The packing order of ``board``'s goals (see the module docstring); ``parking``:
    False removes a box that has no pulls back to a start instead of parking it (the
    goals only, no parking steps)."""
    off_goals = board.boxes[board.goal[board.boxes] == 0].astype(np.int32)
    starts = off_goals if board.player < 0 else np.append(off_goals, np.int32(board.player))
    origins = np.zeros(board.n, dtype=np.uint8)
    origins[off_goals] = 1
    starts = starts.astype(np.int32)
    found = _retrograde(board.nbr, board.goal, board.goals, starts, origins, parking)
    if len(found[2]) > 0:
        # Parked boxes: look for a plan where every one leaves by pulls back to a start.
        found = _ParkingSearch(board, starts, origins).run() or found
    return _plan(board, *found)


def _plan(
    board: Board,
    events: np.ndarray,
    parent: np.ndarray,
    park_cell: np.ndarray,
    park_goal: np.ndarray,
) -> PackingOrder:
    """The :class:`PackingOrder` of the removal events of :func:`_retrograde`."""
    # Fill in the reverse of the removal order; parents are positions in that order.
    ng = len(board.goals)
    m = len(events)
    position = m - 1 - np.arange(m)  # by event: its position in fill order
    steps = np.empty(m, dtype=np.int32)
    step_parent = np.full(m, -1, dtype=np.int32)
    feeds = np.full(m, -1, dtype=np.int32)
    goal_event = np.empty(ng, dtype=np.int64)
    for e, what in enumerate(events):
        if what < ng:
            goal_event[what] = e
    for e, what in enumerate(events):
        at = position[e]
        if what < ng:
            steps[at] = board.goals[what]
        else:
            steps[at] = park_cell[what - ng]
            feeds[at] = position[goal_event[park_goal[what - ng]]]
        if parent[e] >= 0:
            step_parent[at] = position[parent[e]]
    # The goals alone: a goal's parent is its nearest goal step above it.
    is_goal = feeds < 0
    goal_at = np.cumsum(is_goal) - 1  # by step: its position among the goals
    order = steps[is_goal]
    parent_of = np.full(len(order), -1, dtype=np.int32)
    for at in np.flatnonzero(is_goal):
        up = step_parent[at]
        while up >= 0 and not is_goal[up]:
            up = step_parent[up]
        if up >= 0:
            parent_of[goal_at[at]] = goal_at[up]
    return PackingOrder(order, parent_of, steps, step_parent, feeds)


class _ParkingSearch:
    """A depth-first search over removal orders and parkings (plain Python over the
    kernels :func:`_flood` and :func:`_pulls_out`) for a plan in which every parked box
    leaves by pulls back to a start: :func:`_retrograde` parks greedily, on the nearest
    cell, and a box that leaves only because nothing else could move makes a parking
    step the forward search cannot take. A parked box that can leave leaves at once;
    else the goal boxes that can go back to a start are tried, fewest pulls first; only
    when none can, every goal box on every cell off the goals its pulls reach (the
    greedy plan may park a box on a waypoint that a later goal needs free). Gives up
    after :data:`PARKING_PULLS` pull searches.
    """

    def __init__(self, board: Board, starts: np.ndarray, origins: np.ndarray) -> None:
        n = board.n
        self.board, self.origins = board, origins
        self.starts = [int(c) for c in starts]
        self.seen = np.zeros(n, dtype=np.int32)
        self.queue = np.empty(n, dtype=np.int32)
        self.pseen = np.zeros(n, dtype=np.int32)
        self.pqueue = np.empty(n, dtype=np.int32)
        self.pmark = np.zeros(1, dtype=np.int64)
        self.pwalk = np.empty(n, dtype=np.int32)
        self.walk = np.empty(n, dtype=np.int32)
        self.state = np.full((n, 4), -1, dtype=np.int32)
        self.fifo = np.empty(4 * n, dtype=np.int64)
        self.mark = 0
        self.calls = 0

    def flood(self, occ: np.ndarray, sources: list[int]) -> None:
        self.mark += 1
        cells = np.array(sources, dtype=np.int32)
        _flood(cells, len(cells), occ, self.board.nbr, self.seen, self.mark, self.queue, self.walk)

    def pulls(self, cell: int, occ: np.ndarray, wanted: np.ndarray) -> int:
        self.calls += 1
        b = self.board
        found, _ = _pulls_out(
            cell, occ, b.nbr, b.goal, wanted, self.seen, self.mark, self.state, self.fifo,
            self.pseen, self.pmark, self.pqueue, self.pwalk,
        )  # fmt: skip
        return int(found)

    def run(self) -> tuple[np.ndarray, ...] | None:
        b = self.board
        ng = len(b.goals)
        occ = np.full(b.n, -1, dtype=np.int32)
        occ[b.goals] = np.arange(ng, dtype=np.int32)
        steps = self._search(occ, list(self.starts), [], [], ng)
        return None if steps is None else self._events(steps)

    def _search(
        self, occ: np.ndarray, sources: list[int], parked: list[tuple[int, int]],
        steps: list[tuple[str, int, int]], left: int,
    ) -> list[tuple[str, int, int]] | None:  # fmt: skip
        """The steps ("remove", goal index, -1), ("park", goal index, cell), ("leave",
        goal index, cell) of a plan from here, or None."""
        if self.calls > PARKING_PULLS:
            return None
        if left == 0 and not parked:
            return steps
        b = self.board
        self.flood(occ, sources)
        for j, (cell, i) in enumerate(parked):
            if self.pulls(cell, occ, self.origins) >= 0:
                occ[cell] = -1
                rest = parked[:j] + parked[j + 1 :]
                return self._search(occ, [*sources, cell], rest, [*steps, ("leave", i, cell)], left)
        ng = len(b.goals)
        ready = []
        for i in range(ng):
            if occ[b.goals[i]] == i:
                pulls = self.pulls(int(b.goals[i]), occ, self.origins)
                if pulls >= 0:
                    ready.append((pulls, i))
        for _, i in sorted(ready):
            g = int(b.goals[i])
            occ[g] = -1
            found = self._search(occ, [*sources, g], parked, [*steps, ("remove", i, -1)], left - 1)
            if found is not None:
                return found
            occ[g] = i
        if ready:
            return None
        places = []
        for i in range(ng):
            if occ[b.goals[i]] == i:
                places += [(p, i, c) for p, c in self._landings(int(b.goals[i]), occ)]
        for _, i, cell in sorted(places):
            g = int(b.goals[i])
            occ[g], occ[cell] = -1, ng + i
            found = self._search(
                occ, [*sources, g], [*parked, (cell, i)], [*steps, ("park", i, cell)], left - 1
            )
            if found is not None:
                return found
            occ[g], occ[cell] = i, -1
            self.flood(occ, sources)
        return None

    def _landings(self, cell: int, occ: np.ndarray) -> list[tuple[int, int]]:
        """(pulls, cell) for each free cell off the goals that pulls bring the box on
        ``cell`` onto (the player on the cells flooded last)."""
        b = self.board
        wanted = np.zeros(b.n, dtype=np.uint8)
        found = []
        for c in np.flatnonzero((b.goal == 0) & (occ < 0)):
            wanted[c] = 1
            pulls = self.pulls(cell, occ, wanted)
            wanted[c] = 0
            if pulls >= 0:
                found.append((pulls, int(c)))
        return found

    def _events(self, steps: list[tuple[str, int, int]]) -> tuple[np.ndarray, ...]:
        """The steps as :func:`_retrograde`'s events, with its parents: replayed, each
        goal's parent is the event after which it could first be removed."""
        b = self.board
        ng = len(b.goals)
        occ = np.full(b.n, -1, dtype=np.int32)
        occ[b.goals] = np.arange(ng, dtype=np.int32)
        sources = list(self.starts)
        removable = np.zeros(ng, dtype=bool)
        goal_parent = np.full(ng, -1, dtype=np.int64)
        events: list[int] = []
        parent: list[int] = []
        park_cell: list[int] = []
        park_goal: list[int] = []
        index: dict[int, int] = {}
        last = -1
        anywhere = np.zeros(0, dtype=np.uint8)
        for kind, i, cell in steps:
            self.flood(occ, sources)
            for wanted in (self.origins, anywhere) if kind == "park" else (self.origins,):
                for k in range(ng):
                    if occ[b.goals[k]] == k and not removable[k]:
                        if self.pulls(int(b.goals[k]), occ, wanted) >= 0:
                            removable[k], goal_parent[k] = True, last
            if kind == "leave":
                events.append(ng + index[cell])
                parent.append(last)
                occ[cell] = -1
                sources.append(cell)
            else:
                events.append(i)
                parent.append(int(goal_parent[i]))
                g = int(b.goals[i])
                occ[g] = -1
                sources.append(g)
                if kind == "park":
                    index[cell] = len(park_cell)
                    park_cell.append(cell)
                    park_goal.append(i)
                    occ[cell] = ng + i
            last = len(events) - 1
        return (
            np.array(events, dtype=np.int64),
            np.array(parent, dtype=np.int64),
            np.array(park_cell, dtype=np.int64),
            np.array(park_goal, dtype=np.int64),
        )


@njit
def _flood(sources, count, occ, nbr, seen, mark, queue, walk):
    """Mark ``seen[c] = mark`` on the free cells (``occ < 0``) reachable from the first
    ``count`` of ``sources`` (int32[k]): the player's walk from each
    (:func:`sokoban.solve._reach.reach`). ``occ``, ``seen``, ``queue``, ``walk``:
    int32[n]."""
    for i in range(count):
        s = sources[i]
        if occ[s] < 0 and seen[s] != mark:
            reach(s, occ, nbr, seen, mark, queue, walk)


@njit
def _pulls_out(box, occ, nbr, goal, origins, seen, mark, state, fifo, pseen, pmark, pqueue, pwalk):
    """The fewest pulls taking the box on ``box`` onto a cell off the goals, the player
    starting on the cells with ``seen == mark`` and the other boxes (``occ >= 0``) fixed;
    -1 when no pulls do, or when no pulls bring it onto a cell of ``origins`` (uint8[n],
    the start cells of the boxes off the goals; empty: not asked). Returns (pulls, the
    cell the box reaches off the goals first, -1 if none). ``state``: int32[n, 4]
    scratch (set to -1 on entry), ``fifo``: int64[4n]; ``pseen``, ``pqueue``, ``pwalk``:
    int32[n] scratch for the player's floods; ``pmark``: int64[1], the flood mark,
    advanced here.
    """
    head, tail = 0, 0
    for d in range(4):
        p = nbr[box, d]
        if p >= 0 and seen[p] == mark and occ[p] < 0:
            state[box, d] = 0
            fifo[tail] = box * 4 + d
            tail += 1
    me = occ[box]
    occ[box] = -1
    result = -1
    first = -1
    landing = -1
    need = origins.shape[0] > 0
    while head < tail:
        b = fifo[head] // 4
        d = fifo[head] % 4
        head += 1
        # Pull towards side d: the player steps from nbr[b, d] to the cell beyond.
        p = nbr[b, d]
        q = nbr[p, d]
        if q < 0 or occ[q] >= 0:
            continue
        steps = state[b, d] + 1
        if not goal[p] and first < 0:
            first = steps
            landing = p
        if first >= 0 and (not need or origins[p]):
            result = first
            break
        # The box is now on p, the player on q: the sides of p the player can walk to.
        occ[p] = me
        pmark[0] += 1
        reach(q, occ, nbr, pseen, pmark[0], pqueue, pwalk)
        for e in range(4):
            r = nbr[p, e]
            if r >= 0 and pseen[r] == pmark[0] and state[p, e] < 0:
                state[p, e] = steps
                fifo[tail] = p * 4 + e
                tail += 1
        occ[p] = -1
    occ[box] = me
    for i in range(tail):
        state[fifo[i] // 4, fifo[i] % 4] = -1
    return result, landing


@njit(allocates=True)
def _retrograde(nbr, goal, goals, starts, origins, parking):
    """Remove the goal boxes one by one, parking those that cannot go back to a start
    (see the module docstring).

    ``nbr``: int32[n, 4]; ``goal``: uint8[n]; ``goals``: int32[g]; ``starts``: int32[k],
    cells where the player may stand at the end; ``origins``: uint8[n], the start cells of
    the boxes off the goals (see :func:`_pulls_out`); ``parking``: park the boxes that
    cannot go back (else remove them, as if they could). Returns (events int64[m], in
    removal order: goal index i for goal box i removed (or parked), g + j for parked box j
    leaving; parent int64[m], per event the event whose removal first made it possible,
    -1 if it was possible from the start; the parking cells int64[p]; per parking the goal
    index whose box was parked, int64[p]).
    """
    n = nbr.shape[0]
    ng = goals.shape[0]
    occ = np.full(n, -1, dtype=np.int32)
    for i in range(ng):
        occ[goals[i]] = i
    seen = np.zeros(n, dtype=np.int32)
    queue = np.empty(n, dtype=np.int32)
    pseen = np.zeros(n, dtype=np.int32)
    pqueue = np.empty(n, dtype=np.int32)
    pmark = np.zeros(1, dtype=np.int64)
    pwalk = np.empty(n, dtype=np.int32)
    state = np.full((n, 4), -1, dtype=np.int32)
    fifo = np.empty(4 * n, dtype=np.int64)
    sources = np.empty(starts.shape[0] + 2 * ng, dtype=np.int32)
    nsources = starts.shape[0]
    copy_into(sources, starts)
    events = np.empty(2 * ng, dtype=np.int64)
    parent = np.full(2 * ng, -1, dtype=np.int64)
    goal_parent = np.full(ng, -1, dtype=np.int64)
    removable = np.zeros(ng, dtype=np.uint8)
    gone = np.zeros(ng, dtype=np.uint8)
    park_cell = np.empty(ng, dtype=np.int64)
    park_goal = np.empty(ng, dtype=np.int64)
    parked = np.zeros(ng, dtype=np.uint8)  # by parking: still standing on its cell
    nparks = 0
    left = ng  # goal boxes not yet removed
    last = -1  # the last event
    nev = 0
    mark = 0
    anywhere = np.zeros(0, dtype=np.uint8)
    # No box off the goals: no start for a parked box to go back to.
    can_park = parking and origins.any()
    while left > 0 or parked[:nparks].any():
        mark += 1
        _flood(sources, nsources, occ, nbr, seen, mark, queue, pwalk)
        # A parked box leaves as soon as pulls bring it back to a start.
        leave = -1
        for j in range(nparks):
            if parked[j]:
                pulls, _ = _pulls_out(
                    park_cell[j],
                    occ,
                    nbr,
                    goal,
                    origins,
                    seen,
                    mark,
                    state,
                    fifo,
                    pseen,
                    pmark,
                    pqueue,
                    pwalk,
                )
                if pulls >= 0:
                    leave = j
                    break
        best, best_pulls, landing = -1, 1 << 30, -1
        if leave < 0 and left > 0:
            # Pulls back to a box's start first; when no goal box has them, pulls onto
            # the nearest cell off the goals, where the box is parked.
            for wanted in (origins, anywhere):
                for i in range(ng):
                    if gone[i]:
                        continue
                    pulls, cell = _pulls_out(
                        goals[i],
                        occ,
                        nbr,
                        goal,
                        wanted,
                        seen,
                        mark,
                        state,
                        fifo,
                        pseen,
                        pmark,
                        pqueue,
                        pwalk,
                    )
                    if pulls < 0:
                        continue
                    if not removable[i]:
                        removable[i] = 1
                        goal_parent[i] = last
                    if pulls < best_pulls:
                        best, best_pulls, landing = i, pulls, cell
                if best >= 0:
                    if wanted.shape[0] > 0:
                        landing = -1  # back to a start: removed, not parked
                    break
        if leave < 0 and best < 0:
            # Nothing can go anywhere: the first parked box leaves anyway, or else the
            # goal boxes left keep no order among themselves.
            for j in range(nparks):
                if parked[j]:
                    leave = j
                    break
            if leave < 0:
                for i in range(ng):
                    if not gone[i]:
                        best = i
                        break
        if leave >= 0:
            parked[leave] = 0
            cell = park_cell[leave]
            occ[cell] = -1
            events[nev] = ng + leave
            parent[nev] = last
        else:
            gone[best] = 1
            left -= 1
            cell = goals[best]
            occ[cell] = -1
            events[nev] = best
            parent[nev] = goal_parent[best]
            if landing >= 0 and can_park:
                park_cell[nparks] = landing
                park_goal[nparks] = best
                parked[nparks] = 1
                occ[landing] = ng + nparks
                nparks += 1
        sources[nsources] = cell
        nsources += 1
        last = nev
        nev += 1
    return (
        events[:nev].copy(),
        parent[:nev].copy(),
        park_cell[:nparks].copy(),
        park_goal[:nparks].copy(),
    )


@njit(internal=True)
def packed_count(occ, order, parent, ok):
    """How many goals are packed (see the module docstring) and how many boxes on goals
    are not (out of plan), for the boxes ``occ`` (int32[n], >= 0 on a box).

    ``order``: int32[g] goals in fill order; ``parent``: int32[g] (see
    :class:`PackingOrder`); ``ok``: uint8[g] scratch. Returns (packed, out of plan).
    """
    ng = order.shape[0]
    ok[:] = 1
    packed = 0
    out = 0
    for i in range(ng):
        if occ[order[i]] >= 0:
            if ok[i]:
                packed += 1
            else:
                out += 1
        else:
            ok[i] = 0
        if not ok[i] and parent[i] >= 0:
            ok[parent[i]] = 0
    return packed, out


@njit(internal=True)
def _holds(occ, steps, feeds, i):
    """Whether step ``i`` of the plan holds: a box on its cell, or for a parking on the
    goal it feeds (the box moved on)."""
    f = feeds[i]
    return occ[steps[i]] >= 0 or (f >= 0 and occ[steps[f]] >= 0)


@njit(internal=True)
def steps_packed(occ, steps, parent, feeds, ok):
    """:func:`packed_count` over the plan's steps (see :class:`PackingOrder`): a parking
    step holds while a box stands on its cell or on the goal it feeds. Returns (steps
    packed, boxes on goals out of plan)."""
    m = steps.shape[0]
    ok[:m] = 1
    packed = 0
    out = 0
    for i in range(m):
        if _holds(occ, steps, feeds, i):
            if ok[i]:
                packed += 1
            elif feeds[i] < 0:
                out += 1
        else:
            ok[i] = 0
        if not ok[i] and parent[i] >= 0:
            ok[parent[i]] = 0
    return packed, out


@njit(internal=True)
def ready_steps(occ, steps, parent, feeds, ok, targets):
    """The first steps of the plan (positions in ``steps``, into ``targets``) that do not
    hold while every step they must follow holds with its own; returns how many."""
    m = steps.shape[0]
    ok[:m] = 1
    count = 0
    for i in range(m):
        if not _holds(occ, steps, feeds, i):
            if ok[i] and count < targets.shape[0]:
                targets[count] = i
                count += 1
            ok[i] = 0
        if not ok[i] and parent[i] >= 0:
            ok[parent[i]] = 0
    return count

"""Feature-space search (after Shoham and Schaeffer's FESS): positions are projected onto
cells of a small feature space (:mod:`sokoban.solve._features`) and the search takes
turns among the cells; this module holds the search object, the turns between searches
with different keys, and the method ``fess``. The kernel is :mod:`sokoban.solve._fess_kernel`.

Every cell holds its positions in LIFO buckets by a key (:data:`FESS_KEYS`): the matching
lower bound, or a weight - the pushes on the path that improved nothing, neither the
bound nor a feature - or both; or FESS's own weight, the pushes on the path that none of
its advisors proposed (of a node's children, the best that packs more, the best with
fewer player regions, with fewer obstructed room links, with fewer boxes out of plan,
the lowest bound). The search progresses along the packing order without betting
everything on one path; :func:`sokoban.solve._turns.take_turns` runs searches with
different keys by turns.

It stores nodes in the shared node store (:mod:`sokoban.solve._store`) and the
transposition table of :mod:`sokoban.solve._table`; the path's macros are found again
when it is expanded to LURD (:func:`sokoban.solve._path.expand`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from sokoban.level import Level
from sokoban.solve import _driver, _table
from sokoban.solve._board import INF, Board, push_distances
from sokoban.solve._bounds import grown_memo, matching, new_memo
from sokoban.solve._carry import MAX_STATES
from sokoban.solve._corral_deadlock import Learned, new_learned, no_learned
from sokoban.solve._deadlock_sets import sets_entrants
from sokoban.solve._features import (
    CONNECTIVITY_CAP,
    MAX_BUCKETS,
    OUT_OF_PLAN_CAP,
    QUEUED,
    ROOMS_CAP,
    cell_push,
    feature_cell,
    new_cells,
    rows_short,
)
from sokoban.solve._fess_kernel import (
    CELL,
    KEY_ADVISORS,
    KEY_BOUND,
    KEY_FEATURES,
    KEY_MIXED,
    KEY_WEIGHT,
    LINK,
    P_BUDGET,
    P_KEY,
    P_ROOMS,
    WEIGHT,
    Tree,
    expand_batch,
    expansion_room,
)
from sokoban.solve._options import FESS_DEADLOCK_OPTIONS, PACKED_WALLS_OPTION
from sokoban.solve._packed_walls import (
    PACKED_WALLS,
    WALLS_CHAIN,
    WALLS_OFF,
    WALLS_PREFIX,
    must_precede,
    new_chain_cache,
    new_frozen_cache,
)
from sokoban.solve._packing import PackingOrder, packing_order
from sokoban.solve._pairs import no_table, pair_table
from sokoban.solve._pull_search import PullSearch, no_meet
from sokoban.solve._reach import reach
from sokoban.solve._rooms import no_links, room_links
from sokoban.solve._store import EXPANDED, GOAL, MEET, NODES, new_store
from sokoban.solve._tables import Tables
from sokoban.solve._turns import Entrant, take_turns
from sokoban.solve.types import (
    Limits,
    Option,
    ProgressCallback,
    SolveResult,
    Status,
    register,
)

#: Goals of the packing order a node tries to carry a box to (the first ones ready), and
#: the boxes tried per goal at most, nearest by push distance first, until one is carried.
MACRO_TARGETS, MACRO_BOXES = 1, 3
#: The packed-walls test by prefix is off on levels where its cache would take more bytes.
PACKED_WALLS_BYTES = 1 << 25


class Fess:
    """The arrays of one feature-space search, run by :func:`sokoban.solve._driver.drive`.

    ``key``: :data:`KEY_BOUND` ...; ``tunnels``: tunnel macros (a search exhausted with
    them proves nothing); ``macros``: packing macros, the boxes tried per goal (0: none);
    ``targets``: the goals tried per expansion; ``carry_states``: the states a carry may
    take before it gives up; ``pairs``: the two-box deadlock table, or
    whether to build one; ``learned``: the corral memo and deadlock patterns
    (:mod:`sokoban.solve._corral_deadlock`; searches of one level share them), none by
    default; ``packed_walls``: the heuristic test of :mod:`sokoban.solve._packed_walls`,
    a key of :data:`~sokoban.solve._packed_walls.PACKED_WALLS`; ``frozen_goals``: run its
    sound variant (:func:`~sokoban.solve._packed_walls.frozen_short`) on the node about to
    be expanded; ``project``: FESS's projection (a child that gets no further than its
    parent waits in the parent's feature cell); ``rooms``: the room connectivity feature
    (:mod:`sokoban.solve._rooms`)."""

    def __init__(
        self,
        board: Board,
        *,
        plan: PackingOrder | None = None,
        corrals: bool = True,
        key: int = KEY_BOUND,
        tunnels: bool = True,
        macros: int = MACRO_BOXES,
        targets: int = MACRO_TARGETS,
        carry_states: int = MAX_STATES,
        pairs: bool | tuple[np.ndarray, ...] = True,
        learned: Learned | None = None,
        packed_walls: str = "off",
        frozen_goals: bool = True,
        project: bool = False,
        rooms: bool = True,
        meet: PullSearch | None = None,
        capacity: int = 1 << 12,
    ) -> None:
        self.board = board
        self.plan = plan if plan is not None else packing_order(board)
        nb = board.nboxes
        if isinstance(pairs, bool):
            pairs = pair_table(board) if pairs else no_table()
        self.kernel_board = board.search_board(pairs)
        #: The corral memo and the deadlock patterns learned (shareable between searches).
        self.learned = learned if learned is not None else no_learned()
        plan = self.plan
        # The lone box's push distances to each step's cell: a goal's row of board.dist,
        # a parking cell's computed here.
        parks = plan.feeds >= 0
        sdist = np.empty((len(plan.steps), board.n), dtype=np.int32)
        sdist[~parks] = board.dist[np.searchsorted(board.goals, plan.steps[~parks])]
        if parks.any():
            sdist[parks] = push_distances(board.nbr, plan.steps[parks], board.sides)
        mode = PACKED_WALLS[packed_walls]
        if mode == WALLS_CHAIN:
            before = self.plan.precedes()
        else:
            before = must_precede(board.nbr, self.plan.order, board.boxes.astype(np.int32))
        self.kernel_plan = (
            plan.order,
            plan.parent,
            before,
            plan.steps,
            plan.step_parent,
            plan.feeds,
            sdist,
        )
        self.store = new_store(capacity, nb)
        self.table = np.full(2 * capacity, -1, dtype=np.int32)
        self.extra = np.full((3, capacity), -1, dtype=np.int32)
        buckets = min(board.hmax + 1, MAX_BUCKETS)
        #: The links between the level's rooms (none: the room connectivity feature off).
        self.links = room_links(board) if rooms else no_links()
        rooms_cap = min(ROOMS_CAP, self.links.nlinks + 1)
        self.cells = new_cells(len(plan.steps), buckets, rooms_cap)
        self.counters = np.zeros(11, dtype=np.int64)
        self.counters[MEET] = -1
        #: The backward search whose positions end this one (``None``: none).
        self.meet_source = meet
        self._no_meet = no_meet(nb)
        # The packed-walls test caches a floor map per goal and packed prefix.
        if mode == WALLS_PREFIX and (nb + 1) * nb * board.n > PACKED_WALLS_BYTES:
            mode = WALLS_OFF
        self.params = np.array(
            [0, int(corrals), CONNECTIVITY_CAP, OUT_OF_PLAN_CAP, buckets, key]
            + [int(tunnels), int(macros), targets, carry_states, mode, int(frozen_goals)]
            + [int(project), rooms_cap],
            dtype=np.int64,
        )
        #: The frozen-goals test's floods per frozen set, kept from call to call.
        self.frozen_cache = new_frozen_cache(
            board.n if frozen_goals else 1, len(board.goals) if frozen_goals else 0
        )
        #: The packed-walls test's floods per set of packed goals, kept likewise.
        chained = mode == WALLS_CHAIN
        self.chain_cache = new_chain_cache(
            board.n if chained else 1, len(plan.order) if chained else 0
        )
        #: The matchings of the nodes stored last (:class:`~sokoban.solve._bounds.MatchMemo`),
        #: in no more bytes than the node store: it grows with it.
        self.memo = new_memo(nb, self.store.nbytes)
        self._put_root()
        #: The most bytes the arrays took over every run so far.
        self.peak = self.nbytes

    def _put_root(self) -> None:
        board = self.board
        boxes = board.boxes.copy()
        n = board.n
        occ = np.full(n, -1, np.int32)
        occ[boxes] = np.arange(len(boxes), dtype=np.int32)
        walked = np.zeros(n, np.int32)
        player = int(reach(board.player, occ, board.nbr, walked, 1, walked.copy(), walked.copy()))
        zbox, zplayer = self.kernel_board.zbox, self.kernel_board.zplayer
        key = np.uint64(zplayer[player])
        for b in boxes:
            key ^= zbox[b]
        h = int(matching(boxes, board.dist, np.zeros((6, len(boxes) + 1), np.int64)))
        #: The start position's lower bound (:data:`INF` or more: a bipartite deadlock).
        self.root_bound = h
        store = self.store
        store.last[0] = -1
        store.boxes[0] = boxes
        store.player[0] = player
        store.parent[0] = -1
        store.h[0] = min(h, INF)
        store.hash[0] = key
        self.counters[NODES] = 1
        if h >= INF:
            return  # a bipartite deadlock at the start: nothing to search
        slot = _table.find(self.table, key, boxes, player, store.hash, store.boxes, store.player)
        self.table[-slot - 1] = 0
        plan = self.plan
        ok = np.ones(len(plan.steps), np.uint8)
        cell, _ = feature_cell(
            occ,
            board.nbr,
            plan.steps,
            plan.step_parent,
            plan.feeds,
            ok,
            np.zeros(n, np.int32),
            1,
            np.empty(n, np.int32),
            walked,
            1,
            self.links,
            CONNECTIVITY_CAP,
            int(self.params[P_ROOMS]),
            OUT_OF_PLAN_CAP,
        )
        self.extra[WEIGHT, 0] = 0
        self.extra[CELL, 0] = cell
        first = h if self.params[P_KEY] in (KEY_BOUND, KEY_MIXED) else 0
        cell_push(self.cells, self.extra[LINK], self.counters, cell, first, 0)

    @property
    def nbytes(self) -> int:
        arrays = [*self.store, self.table, self.extra, *self.cells, *self.kernel_board]
        arrays += [*self.learned, *self.frozen_cache, *self.chain_cache, *self.memo]
        return sum(a.nbytes for a in arrays)

    @property
    def expanded(self) -> int:
        return int(self.counters[EXPANDED])

    @property
    def exhausted(self) -> bool:
        return bool(self.counters[QUEUED] == 0)

    def step(self, budget: int) -> int:
        self.params[P_BUDGET] = budget
        tree = Tree(
            self.kernel_board,
            self.learned,
            self.kernel_plan,
            self.store,
            self.table,
            self.cells,
            self.extra,
            self.counters,
            self.params,
            self.meet_source.meet() if self.meet_source is not None else self._no_meet,
            self.memo,
            self.links,
        )
        return expand_batch(tree, self.frozen_cache, self.chain_cache)

    def grow(self, code: int, memory: int) -> bool:
        """Double the node store, table and links, or give the feature cells more rows of
        buckets, whichever is short; False when that would pass ``memory``."""
        room = expansion_room(self.params, self.board.nboxes)
        if rows_short(self.cells, room):
            cells = self.cells.with_rows(room)
            if self.nbytes + cells.heads.nbytes - self.cells.heads.nbytes > memory:
                return False
            self.cells = cells
            if int(self.counters[NODES]) + room <= self.store.capacity:
                return True
        memo = grown_memo(self.memo, 2 * self.store.nbytes)
        extra = self.store.nbytes + 2 * self.table.nbytes + self.extra.nbytes
        extra += memo.nbytes - self.memo.nbytes
        if self.nbytes + extra > memory:
            return False
        self.memo = memo
        self.store = self.store.doubled()
        self.extra = np.concatenate([self.extra, np.full_like(self.extra, -1)], axis=1)
        self.table = np.empty(2 * self.table.shape[0], dtype=np.int32)
        _table.rebuild(self.table, self.store.hash, int(self.counters[NODES]))
        return True

    def run(self, limits: Limits, progress: ProgressCallback | None = None) -> _driver.Run:
        """Search on from where the last run stopped, within ``limits``."""
        run = _driver.drive(self, limits, progress)
        self.peak = max(self.peak, run.peak_bytes)
        return run

    @property
    def cost(self) -> int:
        """The pushes of the solution found, through the backward search's tree when it
        met it."""
        cost = int(self.store.g[int(self.counters[GOAL])])
        there = int(self.counters[MEET])
        if there >= 0 and self.meet_source is not None:
            cost += int(self.meet_source.store.g[there])
        return cost

    def path(self) -> list[tuple[np.ndarray, int]]:
        """The states from the start to the solved node, and on through the backward
        search's tree when the node was one of its positions."""
        states = self.store.path(int(self.counters[GOAL]))
        there = int(self.counters[MEET])
        if there >= 0 and self.meet_source is not None:
            states += self.meet_source.chain(there)[1:]
        return states


#: The keys within a feature cell, by name.
FESS_KEYS = {
    "bound": KEY_BOUND,
    "weight": KEY_WEIGHT,
    "mixed": KEY_MIXED,
    "features": KEY_FEATURES,
    "advisors": KEY_ADVISORS,
}


@register(
    "fess",
    "feature-space search along a packing order: fast, not optimal",
    options=(
        Option(
            "key",
            str,
            "weight,mixed",
            "how a cell orders its positions; several keys run by turns",
            choices=tuple(FESS_KEYS),
            multiple=True,
        ),
        Option("corrals", bool, True, "PI-corral pruning"),
        Option("tunnels", bool, True, "tunnel macros (a box goes through in one move)"),
        Option("macros", bool, True, "packing macros (a box carried to the next goal in one move)"),
        Option(
            "project",
            bool,
            False,
            "a child that gets no further than its parent waits in the parent's feature cell "
            "(FESS's projection into the best ancestor's cell)",
        ),
        Option(
            "rooms",
            bool,
            True,
            "the room connectivity feature: how many links between rooms hold a box",
        ),
        Option(
            "parking",
            bool,
            True,
            "park the boxes the packing order cannot bring back to a start, as steps of the plan",
        ),
        PACKED_WALLS_OPTION,
        *FESS_DEADLOCK_OPTIONS,
    ),
)
def fess(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    tables: Tables | None = None,
    **options: Any,
) -> SolveResult:
    """Feature-space search: takes turns among cells of (goals packed in the packing
    order, regions, obstructed room links, boxes out of plan). Option ``key``: how a
    cell orders its positions, a name of :data:`FESS_KEYS` or several joined by commas,
    run by turns. ``tables``: the level's tables, when a portfolio has them (else built
    here)."""
    tables = tables or Tables(level)
    board = tables.board
    plan = tables.plan(parking=options["parking"])
    names = options["key"].split(",")
    keys = [FESS_KEYS[name] for name in names]
    two_box = tables.pairs(options["pairs"])
    # One memo and one set of patterns for every search of the level: a proof holds for all.
    learned = (
        new_learned(
            board.n,
            learn=options["learn"],
            neighbours=options["neighbours"],
            tangles=options["tangles"],
        )
        if options["corral_deadlocks"]
        else no_learned()
    )
    # The level's deadlock sets, proved by turns beside the keys (once, across the retry).
    sets = sets_entrants(board, two_box, learned) if options["deadlock_sets"] else []

    def run(limits: Limits, tunnels: bool, packed_walls: str) -> SolveResult:
        searches = [
            Fess(
                board,
                plan=plan,
                corrals=options["corrals"],
                key=k,
                tunnels=tunnels,
                macros=MACRO_BOXES if options["macros"] else 0,
                pairs=two_box,
                learned=learned,
                packed_walls=packed_walls,
                frozen_goals=options["frozen_goals"],
                project=options["project"],
                rooms=options["rooms"],
            )
            for k in keys
        ]
        # Every key prunes alike: one running out of positions ends them all.
        entrants = [
            Entrant(f"fess {name}", search, proves=True)
            for name, search in zip(names, searches, strict=True)
        ]
        entrants[1:1] = sets
        found = take_turns(entrants, limits, progress)
        root = searches[0].root_bound
        return _driver.result(found, found.run, "fess", False, root if root < INF else None)

    result = run(limits, options["tunnels"], options["packed_walls"])
    if result.status is not Status.UNSOLVABLE or not (
        options["tunnels"] or options["packed_walls"] != "off"
    ):
        return result
    # Tunnel macros and the packed-walls test may cut off every solution: running out of
    # positions with them proves nothing, so search again without them in the limits left.
    spent = result.stats
    again = run(_driver.remaining(limits, spent), False, "off")
    return dataclasses.replace(again, stats=spent + again.stats)

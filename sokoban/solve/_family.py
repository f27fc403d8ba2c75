"""The search family: move-optimal breadth-first search, bidirectional search, IDA* and
SMA*, registered beside the engine's methods and run on its kernels.

Each method here is a plain-Python driver around a kernel of its own
(:mod:`~sokoban.solve._bfs_moves`, :mod:`~sokoban.solve._bidirectional`,
:mod:`~sokoban.solve._ida`, :mod:`~sokoban.solve._sma`); the kernels share the engine's
board encoding, Zobrist keys, transposition table, deadlock tests and lower bounds. The
driver calls its kernel for about 50 ms at a time, checking the limits between calls,
and :func:`sokoban.solve.solve` replays every solution before returning it.

IDA* and SMA* learn bounds: the least f found below a state, kept with its depth and used
when the state is met again at that depth or deeper (IDA* in its transposition table,
SMA* in a bound cache that its budget pays for: :data:`SMA_CACHE_PER_NODE` entries per
node). The kernels' docstrings say why this keeps them optimal; option ``learn="off"``
turns it off for comparison.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from sokoban.direction import DIRECTIONS
from sokoban.errors import BudgetTooLargeError, SokobanError
from sokoban.level import Level
from sokoban.lurd import Solution
from sokoban.solve import (
    DEFAULT_MEMORY,
    Limits,
    SearchStats,
    SolveResult,
    Status,
    _bfs_moves,
    _bidirectional,
    _ida,
    _sma,
    _table,
    register,
)
from sokoban.solve._board import INF, Board
from sokoban.solve._path import expand
from sokoban.solve._search import BOUNDS, bound, reach, zobrist
from sokoban.solve._successors import WORK_ROWS, new_children, new_scratch, state_key

_LIMIT_STATUS = {
    "time": Status.TIME_LIMIT,
    "nodes": Status.NODE_LIMIT,
    "memory": Status.MEMORY_LIMIT,
}
#: SMA*'s node budget when neither a budget nor a memory limit is given.
DEFAULT_SMA_NODES = 1 << 21
#: SMA*'s arrays at the start, in nodes; they double up to the budget as needed.
SMA_START_NODES = 1 << 12


@dataclasses.dataclass(frozen=True)
class MemoryBoundedStats(SearchStats):
    """:class:`~sokoban.solve.SearchStats` of SMA*, with what staying in budget cost:
    leaves forgotten, children regenerated, nodes dropped with a subtree a cheaper path
    replaced, the most nodes held at once, children whose bound the cache raised
    (``learned``), the bound cache's entries, and the budget in nodes and bytes
    (``peak_bytes`` is the most the arrays and the cache took: they start small and grow up
    to what the budget needs, never more than ``budget_bytes``)."""

    forgotten: int = 0
    regenerated: int = 0
    dropped: int = 0
    peak_nodes: int = 0
    learned: int = 0
    cache_entries: int = 0
    budget_nodes: int = 0
    budget_bytes: int = 0


@dataclasses.dataclass
class _Snapshot:
    """What a ``progress`` callback sees between kernel calls, shaped like the engine's
    search: ``counters[0]`` is the nodes expanded, ``nbytes`` the bytes held."""

    counters: np.ndarray
    nbytes: int


class _Pacer:
    """Hands a kernel a number of expansions that takes about 50 ms (less near the time
    limit), says which limit, if any, has been reached, and reports progress."""

    def __init__(self, limits: Limits, options: dict[str, Any]) -> None:
        self.limits = limits
        self.progress = options.get("progress")
        self.start = time.perf_counter()
        self.budget = 64
        self._t0 = self.start

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start

    def reached(self, expanded: int) -> str:
        """``"time"`` or ``"nodes"`` when that limit is reached, else ``""``."""
        if self.limits.time is not None and self.seconds >= self.limits.time:
            return "time"
        if self.limits.nodes is not None and expanded >= self.limits.nodes:
            return "nodes"
        return ""

    def steps(self, expanded: int) -> int:
        """The expansions allowed in the next kernel call."""
        self._t0 = time.perf_counter()
        steps = self.budget
        if self.limits.nodes is not None:
            steps = min(steps, self.limits.nodes - expanded)
        return max(steps, 1)

    def done(self, used_all: bool, expanded: int = 0, nbytes: int = 0) -> None:
        """After a call: adapt the budget when the call used all of it; report progress."""
        took = time.perf_counter() - self._t0
        target = 0.05
        if self.limits.time is not None:
            target = min(target, max(0.002, (self.limits.time - self.seconds) / 4))
        if used_all and took > 0:
            self.budget = int(min(max(16, self.budget * target / took), 4 * self.budget + 16))
        if self.progress is not None:
            self.progress(_Snapshot(np.array([expanded], np.int64), nbytes), self.seconds)


def _options(options: dict[str, Any], allowed: set[str], method: str) -> None:
    unknown = set(options) - allowed - {"progress"}
    if unknown:
        raise SokobanError(
            f"unknown option {sorted(unknown)[0]!r} for method {method!r}"
            + (f"; it takes {', '.join(sorted(allowed))}" if allowed else "")
        )


def _bound_kind(options: dict[str, Any]) -> int:
    name = options.get("bound", "matching")
    if name not in ("matching", "nearest"):
        raise SokobanError(f"unknown bound {name!r}; choose matching or nearest")
    return BOUNDS[name]


def _positive_int(options: dict[str, Any], name: str) -> int | None:
    value = options.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise SokobanError(f"option {name}={value!r} is not a count of nodes or bytes")
    return int(value)


def _memory(limits: Limits) -> int:
    return limits.memory if limits.memory is not None else DEFAULT_MEMORY


class _Engine:
    """The engine's view of one level: the board, its kernel tuple, and the start state
    with its canonical player cell and key."""

    def __init__(self, level: Level) -> None:
        board = Board(level)
        self.board = board
        zbox, zplayer = zobrist(board.n)
        self.kernel = (board.nbr, board.goal, board.dead, board.dist, zbox, zplayer)
        self.boxes = board.boxes.copy()
        self.player = self.canonical(self.boxes, board.player)
        self.key = self.state_key(self.boxes, self.player)
        self.scratch = new_scratch(board.n, board.nboxes)
        self.children = new_children(board.nboxes)

    def state_key(self, boxes: np.ndarray, player: int) -> np.uint64:
        return np.uint64(state_key(boxes, player, self.kernel[4], self.kernel[5]))

    def canonical(self, boxes: np.ndarray, player: int) -> int:
        occ = np.full(self.board.n, -1, np.int32)
        occ[boxes] = 0
        seen = np.zeros(self.board.n, np.int32)
        return int(reach(player, occ, self.board.nbr, seen, 1, seen.copy(), seen.copy()))

    def bound(self, kind: int, boxes: np.ndarray) -> int:
        work = np.zeros((WORK_ROWS, len(boxes) + 1), np.int64)
        return int(bound(kind, boxes, self.board.dist, work))

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (*self.kernel, *self.scratch, *self.children))


def _stopped(method: str, limit: str, stats: SearchStats, bound: int = -1) -> SolveResult:
    return SolveResult(
        _LIMIT_STATUS[limit], None, method, False, stats, f"stopped by the {limit} limit", bound
    )


# --- bfs-moves ----------------------------------------------------------------------------


@register(
    "bfs-moves",
    "breadth-first search over single steps: the fewest moves, for small levels",
    "moves",
    optimal=True,
)
def bfs_moves(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Move-optimal breadth-first search. It refuses (:attr:`Status.MEMORY_LIMIT`) a level
    whose positions, counted generously, would not fit the memory limit, unless the option
    ``force`` is true; the memory limit still stops it then."""
    _options(options, {"force"}, "bfs-moves")
    engine = _Engine(level)
    board = engine.board
    nb = board.nboxes
    memory = _memory(limits)
    live = int(np.count_nonzero(board.dead == 0))
    estimate = _bfs_moves.estimate_states(board.n, live, nb)
    need = estimate * _bfs_moves.bytes_per_state(nb) + engine.nbytes
    if need > memory and not options.get("force"):
        return SolveResult(
            Status.MEMORY_LIMIT,
            None,
            "bfs-moves",
            False,
            SearchStats(),
            f"refused: up to {estimate:,} positions ({need / 2**20:,.0f} MiB) may not fit the "
            f"memory limit of {memory / 2**20:,.0f} MiB; use a push-level method or a larger "
            "limit (the option force=True tries anyway)",
        )
    capacity = 1 << 10  # a power of two, as the table's probing needs
    while capacity < min(estimate, 1 << 16):
        capacity *= 2
    while capacity > 16 and engine.nbytes + capacity * _bfs_moves.bytes_per_state(nb) > memory:
        capacity //= 2
    nodes = _bfs_moves.new_nodes(capacity, nb)
    if engine.nbytes + sum(a.nbytes for a in nodes) > memory:
        return _stopped("bfs-moves", "memory", SearchStats())
    key = engine.state_key(engine.boxes, board.player)
    nodes[0][0] = engine.boxes
    nodes[1][0] = board.player
    nodes[2][0] = key
    nodes[3][0] = -1
    slot = _table.find(nodes[5], key, engine.boxes, board.player, nodes[2], nodes[0], nodes[1])
    nodes[5][-slot - 1] = 0
    state = np.zeros(6, np.int64)
    state[_bfs_moves.COUNT] = 1
    pacer = _Pacer(limits, options)
    peak = engine.nbytes + sum(a.nbytes for a in nodes)
    code, limit = _bfs_moves.BUDGET, ""
    while True:
        limit = pacer.reached(int(state[_bfs_moves.EXPANDED]))
        if limit:
            break
        state[_bfs_moves.STEPS] = pacer.steps(int(state[_bfs_moves.EXPANDED]))
        code = _bfs_moves.run(engine.kernel, nodes, engine.scratch, state)
        pacer.done(code == _bfs_moves.BUDGET, int(state[_bfs_moves.EXPANDED]), peak)
        if code == _bfs_moves.FULL:
            grown = tuple(np.concatenate([a, np.zeros_like(a)]) for a in nodes[:5])
            size = engine.nbytes + sum(a.nbytes for a in grown) + 2 * nodes[5].nbytes
            if size > memory:
                limit = "memory"
                break
            table = np.empty(2 * nodes[5].shape[0], np.int32)
            _table.rebuild(table, grown[2], int(state[_bfs_moves.COUNT]))
            nodes = (*grown, table)
            peak = max(peak, size)
        elif code != _bfs_moves.BUDGET:
            break
    stats = SearchStats(
        int(state[_bfs_moves.EXPANDED]),
        int(state[_bfs_moves.GENERATED]),
        int(state[_bfs_moves.COUNT]),
        peak,
        pacer.seconds,
    )
    if code == _bfs_moves.SOLVED and not limit:
        steps = []
        node = int(state[_bfs_moves.GOAL])
        while nodes[3][node] >= 0:
            step = int(nodes[4][node])
            steps.append((DIRECTIONS[step % 4], step >= 4))
            node = int(nodes[3][node])
        solution = Solution(tuple(reversed(steps)))
        message = f"solved in {solution.moves} moves (optimal)"
        return SolveResult(Status.SOLVED, solution, "bfs-moves", True, stats, message)
    if code == _bfs_moves.EXHAUSTED and not limit:
        return SolveResult(Status.UNSOLVABLE, None, "bfs-moves", False, stats, "no solution exists")
    return _stopped("bfs-moves", limit, stats)


# --- bidirectional ------------------------------------------------------------------------


def _solved_positions(engine: _Engine) -> list[tuple[np.ndarray, int]]:
    """Boxes on every goal with the player in each region of the floor left free."""
    board = engine.board
    goals = np.sort(board.goals).astype(np.int16)
    occ = np.full(board.n, -1, np.int32)
    occ[goals] = 0
    seen = np.zeros(board.n, np.int32)
    scratch = np.zeros(board.n, np.int32)
    positions = []
    mark = 0
    for cell in range(board.n):
        if occ[cell] >= 0 or seen[cell]:
            continue
        mark += 1
        canon = int(reach(cell, occ, board.nbr, seen, mark, scratch, scratch.copy()))
        positions.append((goals, canon))
    return positions


@register(
    "bidirectional",
    "breadth-first pushes from the start and pulls from the solved positions, meeting midway",
    "pushes",
    optimal=True,
)
def bidirectional(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Push-optimal bidirectional breadth-first search; option ``bound`` ("matching" or
    "nearest") prunes forward bipartite deadlocks."""
    _options(options, {"bound"}, "bidirectional")
    kind = _bound_kind(options)
    engine = _Engine(level)
    nb = engine.board.nboxes
    memory = _memory(limits)
    if engine.bound(kind, engine.boxes) >= INF:
        return SolveResult(
            Status.UNSOLVABLE, None, "bidirectional", False, SearchStats(), "no solution exists"
        )
    sides = [_bidirectional.new_side(1 << 12, nb), _bidirectional.new_side(1 << 12, nb)]
    state = np.zeros(13, np.int64)
    state[_bidirectional.SIDE] = -1
    state[_bidirectional.BEST] = _bidirectional.NONE
    _bidirectional.add_root(sides[0], state, 0, engine.boxes, engine.player, engine.key)
    for boxes, player in _solved_positions(engine):
        key = engine.state_key(boxes, player)
        _bidirectional.add_root(sides[1], state, 1, boxes, player, key)

    def size() -> int:
        return engine.nbytes + sum(a.nbytes for side in sides for a in side)

    pacer = _Pacer(limits, options)
    peak = size()
    if peak > memory:
        return _stopped("bidirectional", "memory", SearchStats(peak_bytes=peak))
    code, limit = _bidirectional.BUDGET, ""
    while True:
        limit = pacer.reached(int(state[_bidirectional.EXPANDED]))
        if limit:
            break
        state[_bidirectional.STEPS] = pacer.steps(int(state[_bidirectional.EXPANDED]))
        code = _bidirectional.run(
            engine.kernel, engine.scratch, engine.children, sides[0], sides[1], state, kind
        )
        pacer.done(code == _bidirectional.BUDGET, int(state[_bidirectional.EXPANDED]), peak)
        if code == _bidirectional.FULL:
            which = int(state[_bidirectional.SIDE])
            side = sides[which]
            extra = sum(a.nbytes for a in side[:5]) + 2 * side[5].nbytes
            if size() + extra > memory:
                limit = "memory"
                break
            grown = tuple(np.concatenate([a, np.zeros_like(a)]) for a in side[:5])
            table = np.empty(2 * side[5].shape[0], np.int32)
            _table.rebuild(table, grown[2], int(state[3 * which + _bidirectional.COUNT]))
            sides[which] = (*grown, table)
            peak = max(peak, size())
        elif code != _bidirectional.BUDGET:
            break
    stored = int(state[_bidirectional.COUNT] + state[3 + _bidirectional.COUNT])
    stats = SearchStats(
        int(state[_bidirectional.EXPANDED]),
        int(state[_bidirectional.GENERATED]),
        stored,
        peak,
        pacer.seconds,
    )
    if code == _bidirectional.MET and not limit:
        forward, backward = sides
        path = []
        node = int(state[_bidirectional.BEST_F])
        while node >= 0:
            path.append((forward[0][node].copy(), int(forward[1][node])))
            node = int(forward[3][node])
        path.reverse()
        node = int(backward[3][int(state[_bidirectional.BEST_B])])
        while node >= 0:
            path.append((backward[0][node].copy(), int(backward[1][node])))
            node = int(backward[3][node])
        solution = expand(engine.board, path)
        pushes = int(state[_bidirectional.BEST])
        return SolveResult(
            Status.SOLVED,
            solution,
            "bidirectional",
            True,
            stats,
            f"solved in {pushes} pushes (optimal)",
        )
    if code == _bidirectional.EXHAUSTED and not limit:
        return SolveResult(
            Status.UNSOLVABLE, None, "bidirectional", False, stats, "no solution exists"
        )
    return _stopped("bidirectional", limit, stats)


# --- IDA* ---------------------------------------------------------------------------------


@register(
    "ida",
    "IDA*: depth-first iterations on pushes + matching bound, with a transposition table",
    "pushes",
    optimal=True,
)
def ida(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """Push-optimal IDA*; option ``bound`` ("matching" or "nearest"); option ``learn``
    ("at-least", the default, or "off"): whether the table keeps learned bounds (see
    :mod:`sokoban.solve._ida`)."""
    _options(options, {"bound", "learn"}, "ida")
    kind = _bound_kind(options)
    learn = options.get("learn", "at-least")
    if learn not in ("at-least", "off"):
        raise SokobanError(f"option learn={learn!r} is not one of at-least, off")
    engine = _Engine(level)
    nb = engine.board.nboxes
    memory = _memory(limits)
    h0 = engine.bound(kind, engine.boxes)
    if h0 >= INF:
        return SolveResult(
            Status.UNSOLVABLE, None, "ida", False, SearchStats(), "no solution exists"
        )
    stack = _ida.new_stack(h0, nb)
    fixed = engine.nbytes + sum(a.nbytes for a in stack)
    capacity = 1 << 12  # the table starts smaller when memory is short
    while capacity > 16 and fixed + capacity * (2 * nb + _ida.BYTES_PER_ENTRY) > memory:
        capacity //= 2
    tt = _ida.new_table(capacity, nb)
    slot = _table.find(tt[0], engine.key, engine.boxes, engine.player, tt[1], tt[2], tt[3])
    tt[0][-slot - 1] = 0
    tt[1][0], tt[2][0], tt[3][0] = engine.key, engine.boxes, engine.player
    state = np.zeros(11, np.int64)
    state[_ida.STORED] = 1
    state[_ida.INSERT] = 1
    state[_ida.LEARN] = learn == "at-least"

    def size() -> int:
        return engine.nbytes + sum(a.nbytes for a in (*tt, *stack))

    pacer = _Pacer(limits, options)
    peak = size()
    if peak > memory:
        return _stopped("ida", "memory", SearchStats(peak_bytes=peak), h0)
    threshold = h0
    code, limit = _ida.BUDGET, ""
    iterations = 0
    while not limit:
        iterations += 1
        if stack[1].shape[0] < threshold + 2:
            stack = _ida.new_stack(max(threshold, 2 * (stack[1].shape[0] - 2)), nb)
            if size() > memory:
                limit = "memory"
                break
            peak = max(peak, size())
        tt[4][: int(state[_ida.STORED])] = INF
        tt[4][0] = 0
        stack[0][0], stack[1][0], stack[2][0] = engine.boxes, engine.player, engine.key
        stack[9][0] = -1
        stack[11][0] = 0  # the start's row in the table
        state[_ida.DEPTH] = 0
        state[_ida.THRESHOLD] = threshold
        state[_ida.NEXT] = INF
        while True:
            limit = pacer.reached(int(state[_ida.EXPANDED]))
            if limit:
                break
            state[_ida.STEPS] = pacer.steps(int(state[_ida.EXPANDED]))
            code = _ida.run(engine.kernel, engine.scratch, stack, tt, state, kind)
            pacer.done(code == _ida.BUDGET, int(state[_ida.EXPANDED]), peak)
            if code == _ida.FULL:
                extra = sum(a.nbytes for a in tt)
                if size() + extra > memory:
                    state[_ida.INSERT] = 0  # go on without recording new states
                    continue
                grown = tuple(np.concatenate([a, np.zeros_like(a)]) for a in tt[1:])
                grown[3][int(state[_ida.STORED]) :] = INF
                grown[4][int(state[_ida.STORED]) :] = -1
                table = np.empty(2 * tt[0].shape[0], np.int32)
                _table.rebuild(table, grown[0], int(state[_ida.STORED]))
                tt = (table, *grown)
                peak = max(peak, size())
            elif code != _ida.BUDGET:
                break
        if limit or code == _ida.SOLVED:
            break
        if state[_ida.NEXT] >= INF:
            break
        threshold = int(state[_ida.NEXT])
    stats = SearchStats(
        int(state[_ida.EXPANDED]),
        int(state[_ida.GENERATED]),
        int(state[_ida.STORED]),
        peak,
        pacer.seconds,
    )
    if limit:
        return _stopped("ida", limit, stats, h0)
    if code == _ida.SOLVED:
        depth = int(state[_ida.GOAL_DEPTH])
        path = [(stack[0][i].copy(), int(stack[1][i])) for i in range(depth + 1)]
        return SolveResult(
            Status.SOLVED,
            expand(engine.board, path),
            "ida",
            True,
            stats,
            f"solved in {depth} pushes (optimal) after {iterations} iterations",
            h0,
        )
    return SolveResult(Status.UNSOLVABLE, None, "ida", False, stats, "no solution exists", h0)


# --- SMA* ---------------------------------------------------------------------------------


#: Learned bounds held per node of SMA*'s budget: a budget of M nodes holds M nodes and a
#: bound cache of this many times M entries of 16 bytes (a node takes about 2 b + 90 bytes);
#: a budget in bytes is shared in the same proportion.
SMA_CACHE_PER_NODE = 32
#: Option ``learn``: when a learned bound applies to a state reached again at depth g, for
#: a bound learned at depth g0 (see :mod:`sokoban.solve._sma`).
SMA_LEARN = {"at-least": _sma.RULE_AT_LEAST, "deeper": _sma.RULE_DEEPER, "off": _sma.RULE_NEVER}


def _sma_arrays(capacity: int, nb: int) -> tuple[tuple[np.ndarray, ...], ...]:
    table_size = 1
    while table_size < 2 * capacity:
        table_size *= 2
    return (
        _sma.new_nodes(capacity, nb),
        (np.full(table_size, -1, np.int32),),
        _sma.new_heaps(capacity),
        (np.zeros(capacity, np.int32),),
    )


def _sma_grown(
    nodes: tuple[np.ndarray, ...], heaps: tuple[np.ndarray, ...], size: int, used: int
) -> tuple[tuple[np.ndarray, ...], np.ndarray, tuple[np.ndarray, ...], np.ndarray]:
    """SMA*'s arrays enlarged to ``size`` nodes, the table rebuilt over the nodes held."""
    bigger, (table,), fresh, (todo,) = _sma_arrays(size, nodes[0].shape[1])
    old = nodes[0].shape[0]
    for new, array in zip(bigger, nodes, strict=True):
        new[:old] = array
    for new, array in zip(fresh, heaps, strict=True):
        new[:old] = array
    _sma.rebuild(table, bigger[2], bigger[3], used)
    return bigger, table, fresh, todo


def _sma_node_bytes(capacity: int, nboxes: int) -> int:
    """Bytes of the node arrays (store, table, heaps, scratch) for ``capacity`` nodes."""
    table_size = 1
    while table_size < 2 * capacity:
        table_size *= 2
    per_node = 2 * nboxes + 4 + 8 + 4 * 9 + 1 + 4 * 5 + 4
    return capacity * per_node + 4 * table_size


def sma_cache_entries(capacity: int, nboxes: int, learn: str = "at-least") -> int:
    """Entries of the bound cache that comes with a budget of ``capacity`` nodes:
    :data:`SMA_CACHE_PER_NODE` per node, in whole sets; 0 when learning is off."""
    if learn == "off":
        return 0
    entries = capacity * SMA_CACHE_PER_NODE
    return max(_sma.WAYS, entries - entries % _sma.WAYS)


def sma_bytes(capacity: int, nboxes: int, fixed: int = 0, learn: str = "at-least") -> int:
    """Bytes SMA* takes for a budget of ``capacity`` nodes: the node arrays and the bound
    cache, plus ``fixed``."""
    cache = max(sma_cache_entries(capacity, nboxes, learn), _sma.WAYS) * _sma.ENTRY_BYTES
    return fixed + _sma_node_bytes(capacity, nboxes) + cache


def sma_capacity(memory: int, nboxes: int, fixed: int = 0, learn: str = "at-least") -> int:
    """The most nodes whose arrays and bound cache fit ``memory`` bytes."""
    low, high = 0, max(memory // (2 * nboxes + 77), 1)
    while low < high:
        mid = (low + high + 1) // 2
        if sma_bytes(mid, nboxes, fixed, learn) <= memory:
            low = mid
        else:
            high = mid - 1
    return low


@register(
    "sma",
    "SMA*: A* over pushes in a fixed memory budget, forgetting the worst leaves",
    "pushes",
    optimal=True,
)
def sma(level: Level, limits: Limits, **options: Any) -> SolveResult:
    """SMA* with a hard budget: option ``budget`` in nodes, or ``budget_bytes`` (or the
    memory limit) in bytes; the smaller wins when more than one is given. Without either,
    the budget is :data:`DEFAULT_SMA_NODES` nodes within the memory limit. A budget in
    nodes comes with a bound cache as large as its node arrays (:data:`SMA_CACHE_RATIO`),
    and a budget in bytes is shared between the two; ``peak_bytes`` and ``budget_bytes``
    count both. Without a memory limit, a budget that needs more than
    :data:`~sokoban.solve.DEFAULT_MEMORY` bytes is refused (:class:`BudgetTooLargeError`).
    Option ``bound`` ("matching" or "nearest"); option ``learn`` ("at-least", the default,
    "deeper" or "off"): when the bound cache applies, see :mod:`sokoban.solve._sma`."""
    _options(options, {"bound", "budget", "budget_bytes", "learn"}, "sma")
    kind = _bound_kind(options)
    learn = options.get("learn", "at-least")
    if learn not in SMA_LEARN:
        raise SokobanError(f"option learn={learn!r} is not one of {', '.join(SMA_LEARN)}")
    engine = _Engine(level)
    nb = engine.board.nboxes
    fixed = engine.nbytes
    nodes_budget = _positive_int(options, "budget")
    bytes_budget = _positive_int(options, "budget_bytes")
    if limits.memory is None:
        # No limit was given: refuse what the default one could not hold, rather than
        # allocate it.
        if bytes_budget is not None and bytes_budget > DEFAULT_MEMORY:
            raise BudgetTooLargeError(
                f"option budget_bytes={bytes_budget!r} is more than {DEFAULT_MEMORY:,} bytes; "
                "give a memory limit to allow it"
            )
        if nodes_budget is not None and sma_bytes(nodes_budget, nb, fixed, learn) > DEFAULT_MEMORY:
            raise BudgetTooLargeError(
                f"option budget={nodes_budget!r} nodes needs "
                f"{sma_bytes(nodes_budget, nb, fixed, learn):,} bytes, more than "
                f"{DEFAULT_MEMORY:,}; give a memory limit to allow it"
            )
    ceiling = bytes_budget
    if limits.memory is not None:
        ceiling = limits.memory if ceiling is None else min(ceiling, limits.memory)
    if ceiling is None and nodes_budget is None:
        ceiling = DEFAULT_MEMORY
    capacity = sma_capacity(ceiling, nb, fixed, learn) if ceiling is not None else None
    if nodes_budget is not None:
        capacity = nodes_budget if capacity is None else min(capacity, nodes_budget)
    elif bytes_budget is None and capacity is not None:
        capacity = min(capacity, DEFAULT_SMA_NODES)
    assert capacity is not None
    budget_bytes = ceiling if ceiling is not None else sma_bytes(capacity, nb, fixed, learn)
    entries = sma_cache_entries(capacity, nb, learn)
    h0 = engine.bound(kind, engine.boxes)
    if capacity < 2:
        stats = MemoryBoundedStats(budget_nodes=capacity, budget_bytes=budget_bytes)
        return SolveResult(
            Status.MEMORY_LIMIT,
            None,
            "sma",
            False,
            stats,
            f"a budget of {capacity} nodes cannot hold a single push",
            h0 if h0 < INF else -1,
        )
    if h0 >= INF:
        return SolveResult(
            Status.UNSOLVABLE, None, "sma", False, SearchStats(), "no solution exists"
        )
    # The arrays start small and double up to the budget as the tree grows.
    size = min(capacity, SMA_START_NODES)
    nodes, (table,), heaps, (todo,) = _sma_arrays(size, nb)
    nodes[0][0] = engine.boxes
    nodes[1][0] = engine.player
    nodes[2][0] = engine.key
    nodes[3][0] = -1
    nodes[5][0] = h0
    nodes[6][0] = h0
    nodes[7][0] = INF
    nodes[9][0] = -1
    slot = _table.find(table, engine.key, engine.boxes, engine.player, nodes[2], nodes[0], nodes[1])
    table[-slot - 1] = 0
    state = np.zeros(18, np.int64)
    state[_sma.ST_BUDGET] = capacity
    state[_sma.ST_RULE] = SMA_LEARN[learn]
    # The cache is of use only once leaves are forgotten, when the arrays are full: it
    # takes its room then.
    cache = _sma.new_cache(entries if size == capacity else 0)
    state[_sma.ST_USED] = 1
    state[_sma.ST_LIVE] = 1
    state[_sma.ST_PEAK] = 1
    state[_sma.ST_PROTECTED] = -1
    heaps[0][0] = 0
    heaps[1][0] = 0
    state[_sma.ST_OPEN] = 1
    held = fixed + sum(a.nbytes for a in (*nodes, table, *heaps, todo, *cache))
    pacer = _Pacer(limits, options)
    code, limit = _sma.BUDGET, ""
    while True:
        limit = pacer.reached(int(state[_sma.ST_EXPANDED]))
        if limit:
            break
        state[_sma.ST_STEPS] = pacer.steps(int(state[_sma.ST_EXPANDED]))
        code = _sma.run(
            engine.kernel,
            engine.scratch,
            engine.children,
            nodes,
            table,
            heaps,
            state,
            todo,
            cache,
            kind,
        )
        pacer.done(code == _sma.BUDGET, int(state[_sma.ST_EXPANDED]), held)
        if code == _sma.FULL:
            size = min(2 * size, capacity)
            nodes, table, heaps, todo = _sma_grown(nodes, heaps, size, int(state[_sma.ST_USED]))
            if size == capacity and entries > cache[0].shape[0]:
                bigger = _sma.new_cache(entries)
                _sma.recache(cache, bigger)
                cache = bigger
            total = sum(a.nbytes for a in (*nodes, table, *heaps, todo, *cache))
            held = max(held, fixed + total)
        elif code != _sma.BUDGET:
            break
    stats = MemoryBoundedStats(
        expanded=int(state[_sma.ST_EXPANDED]),
        generated=int(state[_sma.ST_GENERATED]),
        stored=int(state[_sma.ST_LIVE]),
        peak_bytes=held,
        seconds=pacer.seconds,
        forgotten=int(state[_sma.ST_FORGOTTEN]),
        regenerated=int(state[_sma.ST_REGENERATED]),
        dropped=int(state[_sma.ST_DROPPED]),
        peak_nodes=int(state[_sma.ST_PEAK]),
        learned=int(state[_sma.ST_LEARNED]),
        cache_entries=int(cache[0].shape[0]) if entries else 0,
        budget_nodes=capacity,
        budget_bytes=budget_bytes,
    )
    if limit:
        return _stopped("sma", limit, stats, h0)
    if code == _sma.SOLVED:
        node = int(state[_sma.ST_GOAL])
        pushes = int(nodes[4][node])
        path = []
        while node >= 0:
            path.append((nodes[0][node].copy(), int(nodes[1][node])))
            node = int(nodes[3][node])
        path.reverse()
        return SolveResult(
            Status.SOLVED,
            expand(engine.board, path),
            "sma",
            True,
            stats,
            f"solved in {pushes} pushes (optimal) within {capacity:,} nodes",
            h0,
        )
    if state[_sma.ST_CUT]:
        return SolveResult(
            Status.MEMORY_LIMIT,
            None,
            "sma",
            False,
            stats,
            f"no solution of fewer than {capacity - 1} pushes exists, and a budget of "
            f"{capacity:,} nodes cannot hold a longer one",
            h0,
        )
    return SolveResult(Status.UNSOLVABLE, None, "sma", False, stats, "no solution exists", h0)

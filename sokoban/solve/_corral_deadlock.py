"""Corral deadlocks: a region the player cannot reach whose fence boxes, alone on the
board, can never all be pushed onto goals; and the deadlock patterns such proofs leave,
kept for the rest of the search.

Taking boxes away never makes a position harder: the pushes of any solution, the other
boxes removed, still put the remaining boxes on goals (goals left empty do not matter:
the sub-problem asks only that its own boxes end on goals). So when a small search over
a subset of the boxes alone (the player walking through the removed ones) finds no way
to put every box of the subset on a goal, the position is a deadlock. The subset tried
here is the fence of each corral (the boxes next to a free area the player cannot reach)
that is touched (a goal inside, or a fence box off its goal): closed diagonals, boxes
walling in a goal, and groups that can only push each other into corners are caught
this way.

The sub-search is exhaustive within a budget of states (past it, it proves nothing; a
corral met again is searched with twice the budget, up to :data:`MAX_BUDGET`, as
Festival does; one out of budget is searched again loose, see :func:`_solvable`, whose
merged states often exhaust within the same budget), prunes only by sound tests (dead
squares, freeze deadlocks among the subset, the two-box table), and compares whole
states, never hashes alone. Verdicts are remembered in a direct-mapped memo by fence and
player region.

A proof is a *pattern*: those boxes, with the player anywhere in the region it had among
them alone. Any later position that has a box on each of the pattern's cells and the
player on a cell of that region is dead by the same argument (its extra boxes only make
it harder, and the player's region among the pattern's boxes alone is the one proved).
Patterns are indexed by each of their cells, so a child looks only at the patterns that
hold the cell its box was pushed to (Rolling Stone's pattern search, YASS's dynamic
deadlock sets). All of it lives in a :class:`Learned` bundle kept between kernel calls
and shared by the searches of one level that run by turns (never by threads at once).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._jit import njit
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._pairs import pair_dead
from sokoban.solve._push_moves import BOX, FROM, TO, moved, push_moves
from sokoban.solve._reach import reach

#: Smallest and largest fence searched.
MIN_FENCE, MAX_FENCE = 3, 8
#: Most boxes in a tangle searched (:func:`tangle_dead`): its loose sub-search drops the
#: boxes that come apart, so it goes further than a corral's. The width of the
#: sub-searches' rows of boxes, and of the memo's and patterns' rows when tangles are
#: looked for (else :data:`MAX_FENCE`, which keeps the bundle a third smaller).
MAX_TANGLE = WIDTH = 12
#: States a first sub-search may store before giving up (proving nothing), and the most a
#: repeated one may (the budget doubles each time the same corral is met again).
FIRST_BUDGET, MAX_BUDGET = 512, 8192
#: Mixed into the memo key of a loose sub-search (:func:`tangle_dead`).
LOOSE_SALT = np.uint64(0x9E3779B97F4A7C15)
#: The same for a tangle alive wherever the player stands.
ANY_SALT = np.uint64(0xC2B2AE3D27D4EB4F)
#: Memo entries (a power of two).
MEMO_SIZE = 1 << 14
#: Patterns kept at most (later proofs still prune, but are not kept).
MAX_PATTERNS = 1 << 14
#: Sub-search verdicts and memo entries: none; alive (or the player got into the corral:
#: searching on would mostly solve a small puzzle the long way); dead; out of budget.
UNKNOWN, ALIVE, DEAD, OVER = 0, 1, 2, 3
#: Slots of :attr:`Learned.counts`: patterns kept, index entries used, positions pruned by
#: a pattern, sub-searches run, of which proved dead, ran out of budget, were repeats;
#: states the sub-searches stored, positions checked.
PATTERNS, ENTRIES, MATCHES, SEARCHES, PROVED, OVERS, RETRIES, STATES, CALLS = range(9)
#: The same for the loose sub-searches of tangles: searches, proved dead, out of budget,
#: states stored.
T_SEARCHES, T_PROVED, T_OVERS, T_STATES = range(9, 13)
#: Slots of :attr:`Learned.settings`: keep patterns (0/1), the largest budget, the states
#: the sub-searches may store per position checked, on average (0: no limit), add the boxes
#: next to the fence to the sub-problem (0/1), test the tangle the pushed box joins (0/1).
S_LEARN, S_MAX_BUDGET, S_RATIO, S_NEIGHBOURS, S_TANGLES = 0, 1, 2, 3, 4
#: States the sub-searches may store before the average above applies.
FREE_STATES = 32 * FIRST_BUDGET
#: The default of that average.
STATES_PER_POSITION = 0
#: The average for the tangles' sub-searches (:func:`tangle_dead`), always applied and
#: from the first position on: a state of a sub-search costs less than a position of the
#: search, so one per position keeps them to a share of the time, whatever the level.
TANGLE_STATES = 1


class Learned(NamedTuple):
    """What the corral sub-searches found on one level, kept between kernel calls.

    The memo (direct-mapped, :data:`MEMO_SIZE`): ``memo_key`` uint64, ``memo_boxes``
    int16[., width] (-1 padded), ``memo_player`` int32 (canonical cell among the fence
    alone), ``memo_verdict`` uint8 (:data:`UNKNOWN` where empty), ``memo_budget`` int32
    (states the last search of that entry might store). The patterns: ``boxes``
    int16[p, width] (-1 padded), ``region`` uint64[p, w] (bit ``c % 64`` of word
    ``c // 64``: the player may stand on cell ``c``), indexed per cell by ``head``
    int32[n] (first entry, -1 none), ``link`` and ``owner`` int32[p * width] (the next
    entry of the same cell, the pattern of the entry). ``counts`` int64[13], slots
    :data:`PATTERNS` ...; ``settings`` int64[5], slots :data:`S_LEARN` ... A memo of size
    0 means the check is off. Only set memo entries and kept patterns hold values: the
    rest is uninitialised memory."""

    memo_key: np.ndarray
    memo_boxes: np.ndarray
    memo_player: np.ndarray
    memo_verdict: np.ndarray
    memo_budget: np.ndarray
    boxes: np.ndarray
    region: np.ndarray
    head: np.ndarray
    link: np.ndarray
    owner: np.ndarray
    counts: np.ndarray
    settings: np.ndarray


def new_learned(
    n: int,
    *,
    learn: bool = True,
    memo: int = MEMO_SIZE,
    patterns: int = MAX_PATTERNS,
    max_budget: int = MAX_BUDGET,
    ratio: int = STATES_PER_POSITION,
    neighbours: bool = False,
    tangles: bool = False,
    width: int | None = None,
) -> Learned:
    """An empty :class:`Learned` for a board of ``n`` floor cells; ``learn``: keep the
    patterns (else only the memo remembers); ``max_budget``: the largest sub-search
    (:data:`FIRST_BUDGET` or more: no repeats); ``neighbours``: the sub-problem of a corral
    also holds the boxes next to its fence (up to :data:`MAX_FENCE` boxes in all), which
    catches boxes that lock the fence from outside (see :func:`corral_dead`);
    ``tangles``: each child is also tested by :func:`tangle_dead`; ``width``: the most
    boxes of a group kept (:data:`MAX_TANGLE` with tangles, else :data:`MAX_FENCE`)."""
    words = (n + 63) // 64
    if width is None:
        width = MAX_TANGLE if tangles else MAX_FENCE
    p = patterns if learn else 0
    # Only the verdicts and the index heads need filling: the rest of a memo entry is read
    # once its verdict is set, a pattern's row, region and index entries once it is kept,
    # and each is written whole then (filling the megabyte of the rest cost more than the
    # search of a small level).
    return Learned(
        np.empty(memo, np.uint64),
        np.empty((memo, width), np.int16),
        np.empty(memo, np.int32),
        np.zeros(memo, np.uint8),
        np.empty(memo, np.int32),
        np.empty((p, width), np.int16),
        np.empty((p, words), np.uint64),
        np.full(n if learn else 0, -1, np.int32),
        np.empty(p * width, np.int32),
        np.empty(p * width, np.int32),
        np.zeros(13, np.int64),
        np.array(
            [int(learn), max(max_budget, FIRST_BUDGET), ratio, int(neighbours), int(tangles)],
            np.int64,
        ),
    )


def no_learned() -> Learned:
    """A :class:`Learned` of size 0: corral deadlocks are not looked for."""
    return new_learned(0, learn=False, memo=0)


def new_scratch(n: int) -> tuple[np.ndarray, ...]:
    """Work arrays for :func:`corral_dead` on ``n`` floor cells: comp int32[n], cells
    int32[n] (a corral's cells), socc int32[n] (all -1), sseen, squeue, seen2, queue2
    int32[n], stack uint8[n], states int16[MAX_BUDGET + 1, WIDTH], splayer
    int32[MAX_BUDGET + 1], stable int32[4 * MAX_BUDGET] (all -1 between sub-searches),
    marks int64[2], swalk int32[n] (walk lengths, unused), sslot int32[MAX_BUDGET + 1]
    (the slots of ``stable`` a sub-search used), fence and child int16[WIDTH] (a
    fence's boxes; a sub-search's child), and the pushes of
    :func:`sokoban.solve._push_moves.push_moves`: allowed uint8[WIDTH] (all 1), order
    int32[WIDTH], moves int32[4 WIDTH, 6]; and dropped int32[2, WIDTH] (the
    cells and indices of the boxes a loose sub-search drops from a child)."""
    return (
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.full(n, -1, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.uint8),
        np.zeros((MAX_BUDGET + 1, WIDTH), np.int16),
        np.zeros(MAX_BUDGET + 1, np.int32),
        np.full(4 * MAX_BUDGET, -1, np.int32),
        np.zeros(2, np.int64),
        np.zeros(n, np.int32),
        np.zeros(MAX_BUDGET + 1, np.int32),
        np.zeros(WIDTH, np.int16),
        np.zeros(WIDTH, np.int16),
        np.ones(WIDTH, np.uint8),
        np.zeros(WIDTH, np.int32),
        np.zeros((4 * WIDTH, 6), np.int32),
        np.zeros((2, WIDTH), np.int32),
    )


@njit(internal=True)
def _key(boxes, k, player, zbox, zplayer):
    key = zplayer[player]
    for i in range(k):
        key ^= zbox[boxes[i]]
    return key


@njit(internal=True)
def _store(states, splayer, stable, sslot, count, boxes, k, player, key):
    """Add the state unless stored (its slot of ``stable`` listed in ``sslot``): returns
    the new count, or -1 when it was there. Rows hold ``k`` boxes, then -1 (states of one
    sub-search may differ in size: see :func:`_solvable`)."""
    mask = stable.shape[0] - 1
    width = states.shape[1]
    i = np.int64(key & np.uint64(mask))
    while True:
        s = stable[i]
        if s < 0:
            break
        if splayer[s] == player and (k == width or states[s, k] < 0):
            same = True
            for j in range(k):
                if states[s, j] != boxes[j]:
                    same = False
                    break
            if same:
                return -1
        i = (i + 1) & mask
    stable[i] = count
    sslot[count] = i
    for j in range(k):
        states[count, j] = boxes[j]
    for j in range(k, width):
        states[count, j] = -1
    splayer[count] = player
    return count + 1


@njit(internal=True)
def touching(c, occ, nbr):
    """Whether a box stands on a cell one step from ``c``, diagonals included (through
    either floor cell between): the boxes of a tangle."""
    for d in range(4):
        a = nbr[c, d]
        if a < 0:
            continue
        if occ[a] >= 0:
            return True
        for e in range(4):
            if (e & 1) == (d & 1):
                continue  # along the same axis: no diagonal
            q = nbr[a, e]
            if q >= 0 and occ[q] >= 0:
                return True
    return False


@njit(internal=True)
def _solvable(start, k, player, ncells, budget, board, scratch, loose=False):
    """Whether boxes ``start[:k]`` (sorted int16) alone can all be pushed onto goals from
    ``player`` (a canonical cell): :data:`ALIVE` (also when the player got into the
    corral, whose cells are ``scratch``'s ``cells[:ncells]``), :data:`DEAD`, or
    :data:`OVER` when the search outgrew ``budget`` states (a power of two at most
    :data:`MAX_BUDGET`); and the states it stored. ``board``: as for
    :func:`corral_dead`.

    ``loose``: a box that no longer touches another (see :func:`touching`) leaves the
    sub-problem, and fewer than :data:`MIN_FENCE` boxes left count as alive. Dropping a
    box keeps a dead verdict sound (a state solvable stays so with a box less, so the
    pushes of any solution still lead the search to one), and lets a tangle that can come
    apart be shown alive in a few states instead of solving its boxes the long way."""
    nbr, goal, dead, zbox, zplayer = board.nbr, board.goal, board.dead, board.zbox, board.zplayer
    live, pairs, starts, partners = board.live, board.pairs, board.starts, board.partners
    comp, cells, socc, sseen, squeue, seen2, queue2, stack = scratch[:8]
    states, splayer, stable_all, marks, swalk, sslot = scratch[8:14]
    solved = True
    for i in range(k):
        if not goal[start[i]]:
            solved = False
    if solved:
        return ALIVE, 0
    width = states.shape[1]
    stable = stable_all[: 4 * budget]
    key = _key(start, k, player, zbox, zplayer)
    count = _store(states, splayer, stable, sslot, 0, start, k, player, key)
    child, allowed, order, moves = scratch[15], scratch[16], scratch[17], scratch[18]
    drop_cell, drop_index = scratch[19][0], scratch[19][1]
    head = 0
    verdict = DEAD
    while head < count and verdict == DEAD:
        boxes = states[head]
        k = width
        for i in range(width):
            if boxes[i] < 0:
                k = i
                break
        for i in range(k):
            socc[boxes[i]] = i
        marks[1] += 1
        here = np.int32(marks[1])
        reach(splayer[head], socc, nbr, sseen, here, squeue, swalk)
        head += 1
        for i in range(ncells):
            if sseen[cells[i]] == here:
                verdict = ALIVE
                break
        made = 0
        if verdict == DEAD:
            made = push_moves(
                boxes[:k], -1, socc, sseen, here, nbr, goal, dead, False, allowed, order, moves
            )
        for m in range(made):
            i, b, t = moves[m, BOX], moves[m, FROM], moves[m, TO]
            socc[b] = -1
            socc[t] = i
            if pair_dead(t, b, socc, live, pairs, starts, partners) or (
                frozen(t, socc, nbr, goal, dead, stack) == FROZEN_OFF_GOAL
            ):
                socc[t] = -1
                socc[b] = i
                continue
            moved(boxes[:k], b, t, child[:k])
            kept, gone = k, 0
            if loose:
                # Drop the boxes that touch no other (touching is symmetric: dropping one
                # leaves the others' contacts as they were).
                kept = 0
                for x in range(k):
                    c = child[x]
                    if touching(c, socc, nbr):
                        child[kept] = c
                        kept += 1
                    else:
                        drop_cell[gone] = c
                        drop_index[gone] = socc[c]
                        gone += 1
                for g in range(gone):
                    socc[drop_cell[g]] = -1
            marks[1] += 1
            canon = reach(b, socc, nbr, seen2, np.int32(marks[1]), queue2, swalk)
            for g in range(gone):
                socc[drop_cell[g]] = drop_index[g]
            socc[t] = -1
            socc[b] = i
            done = True
            for x in range(kept):
                if not goal[child[x]]:
                    done = False
                    break
            if done or kept < MIN_FENCE:
                verdict = ALIVE
                break
            if count >= budget:
                verdict = OVER
                break
            key = _key(child, kept, canon, zbox, zplayer)
            added = _store(states, splayer, stable, sslot, count, child, kept, canon, key)
            if added >= 0:
                count = added
        for i in range(k):
            socc[boxes[i]] = -1
    for i in range(count):
        stable[sslot[i]] = -1  # empty again for the next sub-search
    return verdict, count


@njit(internal=True)
def matches(cell, player, occ, learned):
    """Whether a kept pattern with a box on ``cell`` has a box on each of its cells in
    ``occ`` (int32[n], box index or -1) and holds ``player`` (a free cell the player
    reaches) in its region: the position is then dead."""
    head = learned.head
    if head.shape[0] == 0:
        return False
    pboxes, region, nxt, owner = learned.boxes, learned.region, learned.link, learned.owner
    bit = np.uint64(1) << np.uint64(player & 63)
    word = player >> 6
    e = head[cell]
    while e >= 0:
        p = owner[e]
        if region[p, word] & bit:
            hit = True
            for i in range(pboxes.shape[1]):
                c = pboxes[p, i]
                if c < 0:
                    break
                if occ[c] < 0:
                    hit = False
                    break
            if hit:
                learned.counts[MATCHES] += 1
                return True
        e = nxt[e]
    return False


@njit(internal=True)
def _keep(fence, size, canon, nbr, learned, scratch):
    """Keep the proof that boxes ``fence[:size]`` alone with the player on ``canon`` are
    dead as a pattern (unless the store is full)."""
    counts = learned.counts
    p = counts[PATTERNS]
    if p >= learned.boxes.shape[0]:
        return
    socc, sseen, squeue = scratch[2], scratch[3], scratch[4]
    marks, swalk = scratch[11], scratch[12]
    for i in range(size):
        socc[fence[i]] = i
    marks[1] += 1
    here = np.int32(marks[1])
    reach(canon, socc, nbr, sseen, here, squeue, swalk)
    for i in range(size):
        socc[fence[i]] = -1
    region = learned.region
    region[p, :] = 0
    for c in range(nbr.shape[0]):
        if sseen[c] == here:
            region[p, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    learned.boxes[p, size:] = -1
    e = counts[ENTRIES]
    for i in range(size):
        learned.boxes[p, i] = fence[i]
        learned.owner[e] = p
        learned.link[e] = learned.head[fence[i]]
        learned.head[fence[i]] = e
        e += 1
    counts[ENTRIES] = e
    counts[PATTERNS] = p + 1


@njit(internal=True)
def _sort(fence, size):
    """Sort ``fence[:size]`` in place (insertion: a few boxes)."""
    for i in range(1, size):
        x = fence[i]
        j = i
        while j > 0 and fence[j - 1] > x:
            fence[j] = fence[j - 1]
            j -= 1
        fence[j] = x


@njit(internal=True)
def _canon(fence, size, player, nbr, scratch):
    """The player's canonical cell among boxes ``fence[:size]`` alone, from ``player``."""
    socc, sseen, squeue, marks, swalk = scratch[2], scratch[3], scratch[4], scratch[11], scratch[12]
    for i in range(size):
        socc[fence[i]] = i
    marks[1] += 1
    canon = reach(player, socc, nbr, sseen, np.int32(marks[1]), squeue, swalk)
    for i in range(size):
        socc[fence[i]] = -1
    return canon


@njit(internal=True)
def _same_row(mboxes, slot, fence, size):
    """Whether memo row ``slot`` holds exactly boxes ``fence[:size]`` (-1 padded)."""
    for i in range(mboxes.shape[1]):
        if mboxes[slot, i] != (fence[i] if i < size else -1):
            return False
    return True


@njit(internal=True)
def _decide(fence, size, canon, ncells, loose, board, learned, scratch):
    """The verdict on boxes ``fence[:size]`` (sorted) alone with the player on ``canon``
    (canonical among them): from the memo, or by a sub-search (:func:`_solvable` with
    ``ncells`` and ``loose``) whose budget doubles each time the same sub-problem is met
    again out of budget; a dead one is kept as a pattern. :data:`UNKNOWN` when the
    sub-search is left for now. Loose sub-searches keep their verdicts apart (their
    :data:`ALIVE` is not a corral's)."""
    mkeys, mboxes, mplayer = learned.memo_key, learned.memo_boxes, learned.memo_player
    mverdict, mbudget = learned.memo_verdict, learned.memo_budget
    counts = learned.counts
    msize = mkeys.shape[0]
    key = _key(fence, size, canon, board.zbox, board.zplayer) ^ np.uint64(size)
    if loose:
        key ^= LOOSE_SALT
    slot = np.int64(key & np.uint64(msize - 1))
    verdict = UNKNOWN
    budget = 0
    if mverdict[slot] != UNKNOWN and mkeys[slot] == key and mplayer[slot] == canon:
        if _same_row(mboxes, slot, fence, size):
            verdict = mverdict[slot]
            budget = mbudget[slot]
    if verdict == OVER and 2 * budget <= learned.settings[S_MAX_BUDGET]:
        counts[RETRIES] += 1
        verdict = UNKNOWN  # met again: search with twice the budget
        budget *= 2
    elif verdict == UNKNOWN:
        budget = FIRST_BUDGET
    else:
        return verdict  # decided, or out of budget for good
    ratio = learned.settings[S_RATIO]
    if ratio > 0 and counts[STATES] > ratio * counts[CALLS] + FREE_STATES:
        return UNKNOWN  # over the average: leave this sub-problem for now
    if loose and counts[T_STATES] > TANGLE_STATES * counts[CALLS]:
        return UNKNOWN  # the same for the tangles, always held to their average
    counts[SEARCHES] += 1
    verdict, used = _solvable(fence, size, canon, ncells, budget, board, scratch, loose)
    if verdict == OVER and not loose:
        # Out of budget: the loose search, which merges the states whose boxes came apart,
        # may still exhaust within it (its dead verdict is as sound).
        again, more = _solvable(fence, size, canon, ncells, budget, board, scratch, True)
        used += more
        if again == DEAD:
            verdict = DEAD
    counts[STATES] += used
    if verdict == OVER:
        counts[OVERS] += 1
    mkeys[slot] = key
    mplayer[slot] = canon
    mverdict[slot] = verdict
    mbudget[slot] = budget
    for i in range(mboxes.shape[1]):
        mboxes[slot, i] = fence[i] if i < size else -1
    if loose:
        counts[T_SEARCHES] += 1
        counts[T_STATES] += used
        counts[T_OVERS] += verdict == OVER
        counts[T_PROVED] += verdict == DEAD
    if verdict == DEAD:
        counts[PROVED] += 1
        if learned.settings[S_LEARN] != 0:
            _keep(fence, size, canon, board.nbr, learned, scratch)
    return verdict


@njit(internal=True)
def _tangle(start, occ, goal, nbr, comp, tid, fence):
    """List in ``fence`` the tangle of boxes off goals linked to ``start`` by
    :func:`touching`, marking them ``comp[c] = tid``; returns its size, or
    ``MAX_TANGLE + 1`` when it has more boxes than that."""
    comp[start] = tid
    fence[0] = start
    size, head = 1, 0
    while head < size:
        c = fence[head]
        head += 1
        for d in range(4):
            a = nbr[c, d]
            if a < 0:
                continue
            for e in range(-1, 4):
                q = a
                if e >= 0:
                    if (e & 1) == (d & 1):
                        continue  # along the same axis: no diagonal
                    q = nbr[a, e]
                if q < 0 or occ[q] < 0 or goal[q] or comp[q] == tid:
                    continue
                if size == MAX_TANGLE:
                    return MAX_TANGLE + 1
                comp[q] = tid
                fence[size] = q
                size += 1
    return size


@njit(internal=True)
def _tangle_from(start, player, occ, tid, nb, board, learned, scratch):
    """Whether the tangle of the box on ``start`` (unless listed in this call already:
    ``comp == tid``) is a deadlock, per :func:`tangle_dead`."""
    nbr, goal = board.nbr, board.goal
    comp, fence = scratch[0], scratch[14]
    if occ[start] < 0 or goal[start] or comp[start] == tid:
        return False
    size = _tangle(start, occ, goal, nbr, comp, tid, fence)
    if size < MIN_FENCE or size > learned.memo_boxes.shape[1] or size == nb:
        return False
    _sort(fence, size)
    # A tangle shown alive once is taken as alive wherever the player stands (skipping a
    # test is always sound): most are open, and the flood of the player's region among
    # them costs more than the rest of the test.
    mkeys, mboxes, mplayer, mverdict = (
        learned.memo_key,
        learned.memo_boxes,
        learned.memo_player,
        learned.memo_verdict,
    )
    key = _key(fence, size, 0, board.zbox, board.zplayer) ^ np.uint64(size) ^ ANY_SALT
    slot = np.int64(key & np.uint64(mkeys.shape[0] - 1))
    if mverdict[slot] == ALIVE and mkeys[slot] == key and mplayer[slot] == -1:
        if _same_row(mboxes, slot, fence, size):
            return False
    canon = _canon(fence, size, player, nbr, scratch)
    verdict = _decide(fence, size, canon, 0, True, board, learned, scratch)
    if verdict == ALIVE:
        mkeys[slot] = key
        mplayer[slot] = -1
        mverdict[slot] = ALIVE
        for i in range(mboxes.shape[1]):
            mboxes[slot, i] = fence[i] if i < size else -1
    return verdict == DEAD


@njit(internal=True)
def tangle_dead(boxes, player, last, occ, board, learned, scratch):
    """Whether the push onto ``last`` made a tangle that is a deadlock: boxes off goals
    linked by :func:`touching`, :data:`MIN_FENCE` to :data:`MAX_TANGLE` of them, that
    alone on the board can never all reach goals; every tangle when ``last`` is -1. Such a
    tangle is the one the pushed box joined, or one it left (a tangle too big to search
    shrinks to one that is not); the boxes near the cells the push may have come from
    stand for the latter. A tangle the player walks around is no corral, so
    :func:`corral_dead` never looks at it; searches along a packing order drown under one
    made early and left while far goals fill. Its sub-search is loose
    (:func:`_solvable`), so that a tangle that can come apart costs few states. Arguments
    as for :func:`corral_dead`."""
    nbr = board.nbr
    nb = boxes.shape[0]
    marks = scratch[11]
    marks[0] += 1
    tid = np.int32(marks[0])  # the tangles listed in this call
    if last < 0:
        for k in range(nb):
            if _tangle_from(boxes[k], player, occ, tid, nb, board, learned, scratch):
                return True
        return False
    if _tangle_from(last, player, occ, tid, nb, board, learned, scratch):
        return True
    for s in range(4):
        # The boxes one step, diagonals too, from the cells the push may have come from.
        around = nbr[last, s]
        if around < 0:
            continue
        for d in range(-1, 4):
            a = around if d < 0 else nbr[around, d]
            if a < 0:
                continue
            for e in range(-1, 4):
                start = a
                if e >= 0:
                    if d < 0 or (e & 1) == (d & 1):
                        continue  # the cell itself, or along the same axis
                    start = nbr[a, e]
                if start >= 0 and _tangle_from(
                    start, player, occ, tid, nb, board, learned, scratch
                ):
                    return True
    return False


@njit(internal=True)
def corral_dead(boxes, player, last, occ, seen, mark, board, learned, scratch):
    """Whether some touched corral next to the box on ``last`` is a deadlock (see the
    module); every corral when ``last`` is -1. A corral proved dead is kept as a pattern
    in ``learned`` (when it keeps them).

    Only corrals next to the box pushed last need a look: any other corral had the same
    fence before the push and, in the sub-problem of its fence, the player in the same
    region (the pushed box is not there), so the parent already passed it. With the
    fence's neighbours in the sub-problem, corrals next to the boxes beside the pushed one
    are looked at too.

    ``boxes``: int16[b] sorted; ``player``: a cell the player reaches; ``occ``: int32[n]
    box index or -1; ``seen[c] == mark`` on the cells the player reaches; ``board``: the
    search kernel's :class:`sokoban.solve._best_first.SearchBoard`; ``learned``: a
    :class:`Learned` (memo of size 0: nothing is looked for); ``scratch``:
    :func:`new_scratch` (corral ids grow in its ``marks[0]``).
    """
    nbr, goal = board.nbr, board.goal
    if learned.memo_key.shape[0] == 0:
        return False
    learned.counts[CALLS] += 1
    neighbours = learned.settings[S_NEIGHBOURS] != 0
    comp, cells, socc = scratch[:3]
    marks = scratch[11]
    nb = boxes.shape[0]
    fence = scratch[14]
    first = marks[0] + 1  # corrals flooded in this call have ids from here on
    for k in range(nb):
        if last >= 0 and boxes[k] != last:
            # With the neighbours in the sub-problems, a corral next to a box beside the
            # one pushed last has a new sub-problem too.
            if not neighbours:
                continue
            beside = False
            for d in range(4):
                if nbr[boxes[k], d] == last:
                    beside = True
            if not beside:
                continue
        for d in range(4):
            start = nbr[boxes[k], d]
            if start < 0 or occ[start] >= 0 or seen[start] == mark or comp[start] >= first:
                continue
            marks[0] += 1
            cid = np.int32(marks[0])
            # Flood the corral and list its fence.
            comp[start] = cid
            cells[0] = start
            head, tail = 0, 1
            has_goal = False
            size = 0
            too_big = False
            while head < tail:
                c = cells[head]
                head += 1
                if goal[c]:
                    has_goal = True
                for e in range(4):
                    x = nbr[c, e]
                    if x < 0:
                        continue
                    if occ[x] >= 0:
                        if socc[x] != -2:
                            socc[x] = -2  # a fence box, marked while this corral is read
                            if size < MAX_FENCE:
                                fence[size] = x
                            else:
                                too_big = True
                            size += 1
                    elif comp[x] != cid:
                        comp[x] = cid
                        cells[tail] = x
                        tail += 1
                if too_big:
                    break  # no need to see the rest of a corral not searched
            off_goal = False
            for i in range(min(size, MAX_FENCE)):
                socc[fence[i]] = -1
                if not goal[fence[i]]:
                    off_goal = True
            if too_big:
                # Clear the marks of the fence boxes not listed.
                for i in range(tail):
                    c = cells[i]
                    for e in range(4):
                        x = nbr[c, e]
                        if x >= 0 and socc[x] == -2:
                            socc[x] = -1
                continue
            if not (has_goal or off_goal):
                continue  # untouched
            if neighbours:
                # Boxes next to the fence, outside it, can lock a fence box in place (a
                # box against a fence box across a pocket the player cannot reach); any
                # subset of the boxes is a sound sub-problem, so they may join it.
                listed = size
                for i in range(listed):
                    for e in range(4):
                        x = nbr[fence[i], e]
                        if x < 0 or occ[x] < 0 or size >= MAX_FENCE:
                            continue
                        new_box = True
                        for j in range(size):
                            if fence[j] == x:
                                new_box = False
                                break
                        if new_box:
                            fence[size] = x
                            size += 1
            if size == nb or size < MIN_FENCE:
                # The whole position, which the search itself looks at; or one or two
                # boxes, which the dead squares and the two-box table decide.
                continue
            # The fence alone, sorted; the player where it stands now.
            _sort(fence, size)
            canon = _canon(fence, size, player, nbr, scratch)
            if _decide(fence, size, canon, tail, False, board, learned, scratch) == DEAD:
                return True
    if learned.settings[S_TANGLES] != 0:
        return tangle_dead(boxes, player, last, occ, board, learned, scratch)
    return False

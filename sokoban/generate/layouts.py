"""Room layouts: where the floor is, before any box, goal or player is placed.

A layout is a ``bool`` array of shape ``(height, width)``, ``True`` on floor; the outer
ring is always wall and the floor is one connected region. Four makers share the
signature ``maker(width, height, rng) -> numpy.ndarray``:

- :func:`random_walk`: a walker carves small brushes, as Boxoban rooms are made;
- :func:`templates`: 3 x 3 blocks of wall and floor, kept only if the result passes
  the rejection rules (connected, no large open area, no dead end);
- :func:`rooms`: the interior is split into rooms by walls with doors;
- :func:`obstacles`: an open room with random wall blocks that never disconnect it.

:func:`from_level` takes a layout from a level (a file), and :data:`LAYOUTS` names the
makers for the ``generate`` API and command.

>>> import numpy as np
>>> floor = random_walk(10, 10, np.random.default_rng(1))
>>> floor.shape, bool(floor[0].any()), is_connected(floor)
((10, 10), False, True)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np

from sokoban.errors import LayoutError
from sokoban.level import Level

#: Smallest board side: a ring of wall around at least one row or column of floor.
MIN_SIDE = 3


LayoutMaker = Callable[[int, int, np.random.Generator], np.ndarray]


def _check_size(width: int, height: int) -> None:
    if width < MIN_SIDE or height < MIN_SIDE:
        raise LayoutError(f"board of {width} x {height} cells is too small (at least 3 x 3)")


# --- connectivity and shape rules ------------------------------------------------------------


def components(floor: np.ndarray) -> np.ndarray:
    """Label the 4-connected floor regions: ``int32`` array, ``-1`` on wall, ``0..k-1`` on floor."""
    height, width = floor.shape
    labels = np.full(floor.shape, -1, dtype=np.int32)
    label = 0
    for y0, x0 in zip(*np.nonzero(floor), strict=True):
        if labels[y0, x0] >= 0:
            continue
        labels[y0, x0] = label
        todo = deque([(y0, x0)])
        while todo:
            y, x = todo.popleft()
            for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                if 0 <= ny < height and 0 <= nx < width and floor[ny, nx] and labels[ny, nx] < 0:
                    labels[ny, nx] = label
                    todo.append((ny, nx))
        label += 1
    return labels


def is_connected(floor: np.ndarray) -> bool:
    """Whether the floor is one non-empty 4-connected region."""
    return bool(floor.any()) and int(components(floor).max()) == 0


def largest_region(floor: np.ndarray) -> np.ndarray:
    """The largest connected region of the floor (ties: the first in reading order)."""
    labels = components(floor)
    if labels.max() < 0:
        return np.zeros_like(floor)
    counts = np.bincount(labels[labels >= 0])
    return np.asarray(labels == int(np.argmax(counts)), dtype=bool)


def dead_ends(floor: np.ndarray) -> np.ndarray:
    """Floor cells with three or four wall neighbours (``bool`` array)."""
    padded = np.pad(floor, 1, constant_values=False)
    open_sides = (
        padded[:-2, 1:-1].astype(np.int8) + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:]
    )
    return np.asarray(floor & (open_sides <= 1), dtype=bool)


def open_areas(floor: np.ndarray, rows: int = 3, cols: int = 4) -> bool:
    """Whether some ``rows x cols`` (or ``cols x rows``) rectangle is all floor."""

    def has(r: int, c: int) -> bool:
        h, w = floor.shape
        if h < r or w < c:
            return False
        windows = np.lib.stride_tricks.sliding_window_view(floor, (r, c))
        return bool(windows.all(axis=(2, 3)).any())

    return has(rows, cols) or has(cols, rows)


def _open_spot(floor: np.ndarray, rows: int = 3, cols: int = 4) -> tuple[int, int] | None:
    """A cell near the middle of the first all-floor ``rows x cols`` window, or ``None``."""
    for r, c in ((rows, cols), (cols, rows)):
        h, w = floor.shape
        if h < r or w < c:
            continue
        windows = np.lib.stride_tricks.sliding_window_view(floor, (r, c)).all(axis=(2, 3))
        hits = np.argwhere(windows)
        if len(hits):
            y, x = hits[0]
            return int(y + r // 2), int(x + c // 2)
    return None


def _seal(floor: np.ndarray) -> np.ndarray:
    floor = floor.copy()
    floor[0, :] = floor[-1, :] = False
    floor[:, 0] = floor[:, -1] = False
    return floor


# --- makers -----------------------------------------------------------------------------------

#: Brushes the walker carves at each step, as offsets from its cell.
_BRUSHES: tuple[tuple[tuple[int, int], ...], ...] = (
    ((0, 0),),
    ((0, 0),),
    ((0, 0), (0, 1)),
    ((0, 0), (1, 0)),
    ((0, 0), (0, 1), (1, 0)),
    ((0, 0), (0, 1), (1, 0), (1, 1)),
    ((0, 0), (0, -1), (1, 0)),
)


def random_walk(
    width: int, height: int, rng: np.random.Generator, fill: float = 0.45
) -> np.ndarray:
    """Carve floor along a random walk until ``fill`` of the interior is floor.

    The walker keeps its heading with probability 0.5 and stamps a small random brush at
    each cell, giving the corridors and small chambers of Boxoban's rooms.
    """
    _check_size(width, height)
    floor = np.zeros((height, width), dtype=bool)
    inner = (width - 2) * (height - 2)
    target = max(1, round(fill * inner))
    y, x = int(rng.integers(1, height - 1)), int(rng.integers(1, width - 1))
    dy, dx = ((0, 1), (1, 0), (0, -1), (-1, 0))[int(rng.integers(4))]
    floor[y, x] = True
    # Each step carves at least one new cell most of the time; the cap only guards the loop.
    for _ in range(50 * inner):
        if int(floor.sum()) >= target:
            break
        if rng.random() < 0.5:
            dy, dx = ((0, 1), (1, 0), (0, -1), (-1, 0))[int(rng.integers(4))]
        y = min(max(y + dy, 1), height - 2)
        x = min(max(x + dx, 1), width - 2)
        for by, bx in _BRUSHES[int(rng.integers(len(_BRUSHES)))]:
            cy, cx = y + by, x + bx
            if 0 < cy < height - 1 and 0 < cx < width - 1:
                floor[cy, cx] = True
    return floor


#: 3 x 3 blocks of the template method (1 = floor); each is used in all eight orientations.
_BLOCKS = tuple(
    np.array(block, dtype=bool)
    for block in (
        [[1, 1, 1], [1, 1, 1], [0, 0, 0]],
        [[1, 1, 1], [1, 1, 1], [1, 0, 0]],
        [[1, 1, 1], [1, 0, 1], [1, 1, 1]],
        [[0, 1, 0], [1, 1, 1], [0, 1, 0]],
        [[1, 1, 0], [1, 1, 0], [1, 1, 1]],
        [[0, 1, 1], [1, 1, 1], [1, 1, 0]],
        [[1, 1, 1], [0, 1, 0], [1, 1, 1]],
        [[1, 1, 0], [1, 1, 1], [0, 1, 1]],
        [[0, 0, 0], [1, 1, 1], [1, 1, 1]],
        [[1, 0, 1], [1, 1, 1], [1, 1, 1]],
        [[1, 1, 1], [1, 0, 0], [1, 0, 0]],
        [[0, 0, 1], [1, 1, 1], [1, 0, 1]],
    )
)


def _orient(block: np.ndarray, k: int) -> np.ndarray:
    block = np.rot90(block, k % 4)
    return block[:, ::-1] if k >= 4 else block


def templates(width: int, height: int, rng: np.random.Generator, attempts: int = 500) -> np.ndarray:
    """Tile the interior with random 3 x 3 blocks; keep a tiling that passes the rules.

    Open areas get a pillar and dead ends are filled in first; then a tiling is rejected
    for a disconnected floor, an open area of 3 x 4 floor cells, or less than a third of
    the interior as floor. Raises :class:`LayoutError` after ``attempts`` rejections.
    """
    _check_size(width, height)
    inner = (width - 2) * (height - 2)
    for _ in range(attempts):
        floor = np.zeros((height + 3, width + 3), dtype=bool)
        for y in range(1, height - 1, 3):
            for x in range(1, width - 1, 3):
                block = _BLOCKS[int(rng.integers(len(_BLOCKS)))]
                floor[y : y + 3, x : x + 3] = _orient(block, int(rng.integers(8)))
        floor = _seal(floor[:height, :width])
        # Repairs before judging: a pillar inside each open area, dead ends filled in (a
        # corridor's end is useless for pushing).
        for _ in range(inner):
            spot = _open_spot(floor)
            if spot is None:
                break
            floor[spot] = False
        while (ends := dead_ends(floor)).any():
            floor &= ~ends
        if int(floor.sum()) * 3 < inner:
            continue
        if not is_connected(floor) or open_areas(floor) or dead_ends(floor).any():
            continue
        return floor
    raise LayoutError(f"no {width} x {height} template layout passed the rules in {attempts} tries")


def rooms(width: int, height: int, rng: np.random.Generator, min_room: int = 3) -> np.ndarray:
    """Split the interior into rooms by straight walls, each with a door, then open a few
    extra doors so that the rooms form loops as well as a tree.

    Splitting works from an explicit stack of rectangles: no recursion.
    """
    _check_size(width, height)
    floor = _seal(np.ones((height, width), dtype=bool))
    stack = [(1, 1, width - 2, height - 2)]  # x, y, w, h of a room's floor
    walls: list[tuple[np.ndarray, np.ndarray]] = []
    while stack:
        x, y, w, h = stack.pop()
        can_v = w >= 2 * min_room + 1
        can_h = h >= 2 * min_room + 1
        if not (can_v or can_h) or (w * h <= 3 * min_room * min_room and rng.random() < 0.5):
            continue
        vertical = can_v and (not can_h or (w > h) or (w == h and rng.random() < 0.5))
        if vertical:
            # A wall must not end against an earlier door, or it would close that door.
            spots = [
                c
                for c in range(x + min_room, x + w - min_room)
                if not floor[y - 1, c] and not floor[y + h, c]
            ]
            if not spots:
                continue
            cx = spots[int(rng.integers(len(spots)))]
            floor[y : y + h, cx] = False
            floor[int(rng.integers(y, y + h)), cx] = True
            walls.append((np.arange(y, y + h), np.full(h, cx)))
            stack.append((x, y, cx - x, h))
            stack.append((cx + 1, y, x + w - cx - 1, h))
        else:
            spots = [
                c
                for c in range(y + min_room, y + h - min_room)
                if not floor[c, x - 1] and not floor[c, x + w]
            ]
            if not spots:
                continue
            cy = spots[int(rng.integers(len(spots)))]
            floor[cy, x : x + w] = False
            floor[cy, int(rng.integers(x, x + w))] = True
            walls.append((np.full(w, cy), np.arange(x, x + w)))
            stack.append((x, y, w, cy - y))
            stack.append((x, cy + 1, w, y + h - cy - 1))
    # Extra doors make loops; the floor stays one region by construction, checked below.
    for ys, xs in walls:
        if rng.random() < 0.3:
            i = int(rng.integers(len(ys)))
            floor[ys[i], xs[i]] = True
    return largest_region(floor)


def obstacles(
    width: int, height: int, rng: np.random.Generator, density: float = 0.25
) -> np.ndarray:
    """An open room with walls dropped on random cells, each kept only if the floor stays
    connected; ``density`` is the share of the interior to try."""
    _check_size(width, height)
    floor = _seal(np.ones((height, width), dtype=bool))
    cells = np.argwhere(floor)
    order = rng.permutation(len(cells))
    wanted = round(density * len(cells))
    placed = 0
    for i in order:
        if placed >= wanted:
            break
        y, x = cells[i]
        floor[y, x] = False
        if is_connected(floor):
            placed += 1
        else:
            floor[y, x] = True
    return floor


#: The makers by name, as the ``generate`` API and command accept them.
LAYOUTS: dict[str, LayoutMaker] = {
    "walk": random_walk,
    "templates": templates,
    "rooms": rooms,
    "obstacles": obstacles,
}


def from_level(level: Level) -> np.ndarray:
    """The enclosed floor of a level (boxes, goals and player are ignored).

    Floor cells connected to the edge of the grid are outside; of the enclosed floor the
    largest region is kept. Raises :class:`LayoutError` if no floor is enclosed.
    """
    height, width = level.height, level.width
    open_ = np.ones((height, width), dtype=bool)
    for cell in level.walls:
        open_[cell // width, cell % width] = False
    padded = np.pad(open_, 1, constant_values=True)
    labels = components(padded)
    outside = labels == labels[0, 0]
    enclosed = open_ & ~outside[1:-1, 1:-1]
    if not enclosed.any():
        raise LayoutError("the layout has no room: no floor is enclosed by walls")
    floor = largest_region(enclosed)
    return floor


def parse_layout(text: str) -> np.ndarray:
    """A layout from XSB text (only the walls count); see :func:`from_level`."""
    return from_level(Level.from_xsb(text))


def to_level(floor: np.ndarray) -> Level:
    """An empty level of this layout, as Boxoban draws rooms: every cell off the floor is
    wall, so the board keeps the size asked for."""
    height, width = floor.shape
    walls = np.flatnonzero(~floor.ravel())
    empty: frozenset[int] = frozenset()
    return Level(width, height, frozenset(int(c) for c in walls), empty, empty, empty)

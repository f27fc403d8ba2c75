"""The longest single-box puzzle over every layout of K obstacles in a W x H room.

:func:`longest` enumerates the layouts up to the room's symmetries (4 for a rectangle, 8 for
a square) in chunks of combinations, analyses each chunk in one kernel call on local
processes or a Dask cluster (:mod:`sokoban.batch`), and can save a checkpoint after every
chunk so that an interrupted run resumes. :func:`anneal` searches larger rooms for a long
puzzle within a time budget: its answer is a lower bound, not a proof.

>>> result = longest(3, 3, 1, workers=0)
>>> result.layouts, result.best_moves, result.best_pushes
(3, 10, 2)
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from sokoban.analysis.single_box import METRICS, AnalysisError, Witness, analyse
from sokoban.level import Level

#: Tied winning layouts kept per metric.
TOP = 8
#: Chunks a run is cut into (fewer for small runs), for progress, balance and checkpoints.
TARGET_CHUNKS = 400
#: Runs of at most this many combinations stay in this process unless told otherwise.
SMALL_RUN = 20_000
#: Largest interior side the enumeration and search accept.
MAX_SIDE = 16
#: Most combinations an exhaustive run takes on (about a day on two cores); past that the
#: run would never end, and ``--search anneal`` is the tool.
MAX_COMBINATIONS = 10**9
#: Version of the checkpoint format.
CHECKPOINT_VERSION = 1


def symmetries(width: int, height: int) -> np.ndarray:
    """The room's symmetries as maps of interior cells: int64 (S, width*height), row 0 the
    identity; S is 8 for a square, 4 otherwise."""
    w, h = width, height
    maps: list[Callable[[int, int], tuple[int, int]]] = [
        lambda x, y: (x, y),
        lambda x, y: (w - 1 - x, y),
        lambda x, y: (x, h - 1 - y),
        lambda x, y: (w - 1 - x, h - 1 - y),
    ]
    if w == h:
        maps += [
            lambda x, y: (y, x),
            lambda x, y: (w - 1 - y, x),
            lambda x, y: (y, w - 1 - x),
            lambda x, y: (w - 1 - y, w - 1 - x),
        ]
    perms = np.empty((len(maps), w * h), np.int64)
    for s, f in enumerate(maps):
        for y in range(h):
            for x in range(w):
                nx, ny = f(x, y)
                perms[s, y * w + x] = ny * w + nx
    return perms


def unrank(rank: int, size: int, k: int) -> list[int]:
    """The ``rank``-th k-subset of ``range(size)`` in lexicographic order (from 0)."""
    combo = []
    x = 0
    for i in range(k):
        while True:
            below = math.comb(size - x - 1, k - i - 1)
            if rank < below:
                combo.append(x)
                x += 1
                break
            rank -= below
            x += 1
    return combo


def layout_room(width: int, height: int, obstacles: tuple[int, ...] | list[int]) -> Level:
    """The room as a level: a wall border around the interior, obstacles as walls."""
    full = width + 2
    walls = {y * full + x for y in range(height + 2) for x in range(full)}
    walls -= {(y + 1) * full + x + 1 for y in range(height) for x in range(width)}
    walls |= {interior_cell(width, c) for c in obstacles}
    return Level(full, height + 2, frozenset(walls), frozenset(), frozenset(), frozenset())


def interior_cell(width: int, cell: int) -> int:
    """The level cell of an interior cell (the level adds a border of walls)."""
    return (cell // width + 1) * (width + 2) + cell % width + 1


@dataclasses.dataclass(frozen=True, slots=True)
class Winner:
    """A layout and its longest placement: interior cells of the obstacles, player, box, goal."""

    obstacles: tuple[int, ...]
    player: int
    box: int
    goal: int
    value: int

    def witness(self, width: int, height: int, metric: str) -> Witness:
        """The placement as a level with an optimal solution, checked by a forward search."""
        room = layout_room(width, height, self.obstacles)
        table = analyse(room)
        w = table.witness(
            interior_cell(width, self.player),
            interior_cell(width, self.box),
            interior_cell(width, self.goal),
            metric,
        )
        got = w.moves if metric == "moves" else w.pushes
        if got != self.value:
            from sokoban.analysis.single_box import WitnessError

            raise WitnessError(f"layout search said {self.value} {metric}, the table {got}")
        return w


@dataclasses.dataclass
class LongestResult:
    """What a layout search found. ``proven`` is true only for a finished exhaustive run.

    ``hist_moves[v]`` counts the layouts whose longest placement takes ``v`` moves (layouts
    with no solvable placement are left out); likewise ``hist_pushes``. ``*_ties`` count
    the layouts reaching the maximum, ``*_winners`` list the first few of them.
    """

    width: int
    height: int
    obstacles: int
    method: str
    proven: bool
    layouts: int
    best_moves: int
    best_pushes: int
    moves_ties: int
    pushes_ties: int
    moves_winners: list[Winner]
    pushes_winners: list[Winner]
    hist_moves: np.ndarray
    hist_pushes: np.ndarray
    seconds: float = 0.0
    chunks_done: int = 0
    chunks: int = 0
    #: Chunks read from a checkpoint rather than analysed in this run.
    resumed: int = 0

    def best(self, metric: str) -> int:
        return self.best_moves if metric == "moves" else self.best_pushes

    def winners(self, metric: str) -> list[Winner]:
        return self.moves_winners if metric == "moves" else self.pushes_winners

    def ties(self, metric: str) -> int:
        return self.moves_ties if metric == "moves" else self.pushes_ties


@dataclasses.dataclass(frozen=True, slots=True)
class Chunk:
    """One task: ``count`` combinations from lexicographic rank ``start``."""

    width: int
    height: int
    k: int
    index: int
    start: int
    count: int


def run_chunk(chunk: Chunk) -> dict[str, Any]:
    """Analyse one chunk (in a worker): stats, winners and histograms as plain values."""
    from sokoban.analysis import _longest_puzzle

    size = chunk.width * chunk.height
    first = np.array(unrank(chunk.start, size, chunk.k), np.int64)
    stats = np.zeros(5, np.int64)
    winners = np.zeros((2, TOP, chunk.k + 3), np.int64)
    hist = np.zeros((2, _longest_puzzle.HIST_BINS), np.int64)
    perms = symmetries(chunk.width, chunk.height)
    _longest_puzzle.analyse_chunk(
        chunk.width, chunk.height, first, chunk.count, perms, TOP, stats, winners, hist
    )
    record: dict[str, Any] = {"index": chunk.index, "layouts": int(stats[0])}
    for m, metric in enumerate(METRICS):
        best, ties = int(stats[1 + 2 * m]), int(stats[2 + 2 * m])
        rows = winners[m, : min(ties, TOP)].tolist()
        record[metric] = {
            "best": best,
            "ties": ties,
            "winners": rows,
            "hist": {str(v): int(c) for v, c in enumerate(hist[m]) if c},
        }
    return record


def chunks(width: int, height: int, k: int, chunk_size: int | None = None) -> list[Chunk]:
    """The run's chunks, in order."""
    total = math.comb(width * height, k)
    if chunk_size is not None and chunk_size < 1:
        raise AnalysisError(f"a chunk holds at least one combination, not {chunk_size}")
    if chunk_size is None:
        chunk_size = max(64, -(-total // TARGET_CHUNKS))
    return [
        Chunk(width, height, k, i, start, min(chunk_size, total - start))
        for i, start in enumerate(range(0, total, chunk_size))
    ]


def _check_room(width: int, height: int, k: int) -> None:
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise AnalysisError(f"a {width} x {height} room is outside 1..{MAX_SIDE} a side")
    if not 0 <= k <= width * height:
        raise AnalysisError(f"{k} obstacles do not fit in a {width} x {height} room")


def _merge(
    width: int, height: int, k: int, records: list[dict[str, Any]], total: int
) -> LongestResult:
    records = sorted(records, key=lambda r: r["index"])
    out: dict[str, Any] = {}
    for metric in METRICS:
        best = max((r[metric]["best"] for r in records), default=-1)
        ties = 0
        winners: list[Winner] = []
        hist: dict[int, int] = {}
        for r in records:
            part = r[metric]
            for v, c in part["hist"].items():
                hist[int(v)] = hist.get(int(v), 0) + c
            if part["best"] == best and best >= 0:
                ties += part["ties"]
                for row in part["winners"]:
                    if len(winners) < TOP:
                        winners.append(Winner(tuple(row[:k]), row[k], row[k + 1], row[k + 2], best))
        array = np.zeros(max(hist, default=-1) + 1, np.int64)
        for v, c in hist.items():
            array[v] = c
        out[metric] = (best, ties, winners, array)
    return LongestResult(
        width,
        height,
        k,
        "exhaustive",
        len(records) == total,
        sum(r["layouts"] for r in records),
        out["moves"][0],
        out["pushes"][0],
        out["moves"][1],
        out["pushes"][1],
        out["moves"][2],
        out["pushes"][2],
        out["moves"][3],
        out["pushes"][3],
        chunks_done=len(records),
        chunks=total,
    )


def _load_checkpoint(path: Path, header: dict[str, Any]) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        raise AnalysisError(f"cannot read the checkpoint {str(path)!r}: {error}") from None
    if not isinstance(data, dict) or "header" not in data:
        raise AnalysisError(f"the checkpoint {str(path)!r} is not a checkpoint of this tool")
    if data["header"] != header:
        raise AnalysisError(
            f"the checkpoint {str(path)!r} belongs to another run ({data['header']}); "
            "remove it or choose another --checkpoint"
        )
    records = data.get("chunks")
    if (
        not isinstance(records, list)
        or not all(_is_record(r, header) for r in records)
        or len({r["index"] for r in records}) != len(records)
    ):
        raise AnalysisError(f"the checkpoint {str(path)!r} is damaged; remove it to start over")
    return records


def _is_record(record: Any, header: dict[str, Any]) -> bool:
    """Whether a chunk record read from a checkpoint has the shape :func:`run_chunk` gives."""
    try:
        k = header["obstacles"]
        ok = 0 <= record["index"] < header["chunks"] and record["layouts"] >= 0
        for metric in METRICS:
            part = record[metric]
            ok = ok and isinstance(part["best"], int) and isinstance(part["ties"], int)
            ok = ok and all(len(row) == k + 3 for row in part["winners"])
            ok = ok and all(int(v) >= 0 and c >= 0 for v, c in part["hist"].items())
        return bool(ok)
    except (KeyError, TypeError, ValueError, AttributeError):
        return False


def _save_checkpoint(path: Path, header: dict[str, Any], records: list[dict[str, Any]]) -> None:
    text = json.dumps({"header": header, "chunks": records})
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    except OSError as error:
        raise OSError(error.errno, error.strerror, os.fspath(path)) from error
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            # Name the checkpoint, not the temporary file beside it.
            raise OSError(error.errno, error.strerror, os.fspath(path)) from error
        raise


def longest(
    width: int,
    height: int,
    k: int,
    workers: int | None = None,
    scheduler: str | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    description: str | None = None,
    chunk_size: int | None = None,
    stop_after: int | None = None,
    max_combinations: int = MAX_COMBINATIONS,
) -> LongestResult:
    """Every layout of ``k`` obstacles in a ``width`` x ``height`` interior, up to symmetry.

    :param workers: local processes (default all cores, or this process alone for a run
        of at most :data:`SMALL_RUN` combinations; 0 runs in this process).
    :param scheduler: a Dask scheduler address, instead of local processes.
    :param checkpoint: a JSON file saved after each chunk; a run with the same room, ``k``
        and chunk size resumes from it.
    :param description: show a progress bar with this label.
    :param stop_after: stop after this many new chunks (for tests of resuming); the result
        is then not ``proven``.
    :param max_combinations: refuse runs over this many combinations of ``k`` cells.
    """
    from sokoban import batch

    _check_room(width, height, k)
    combinations = math.comb(width * height, k)
    if combinations > max_combinations:
        raise AnalysisError(
            f"{combinations:,} ways to place {k} obstacles in {width} x {height} are too many "
            f"to enumerate (at most {max_combinations:,}); use --search anneal for a lower bound"
        )
    plan = chunks(width, height, k, chunk_size)
    if workers is None and scheduler is None and math.comb(width * height, k) <= SMALL_RUN:
        workers = 0  # starting processes would take longer than the work
    header = {
        "version": CHECKPOINT_VERSION,
        "room": [width, height],
        "obstacles": k,
        "chunk_size": plan[0].count if plan else 0,
        "chunks": len(plan),
    }
    path = Path(checkpoint) if checkpoint is not None else None
    records = _load_checkpoint(path, header) if path is not None else []
    done = {r["index"] for r in records}
    todo = [c for c in plan if c.index not in done]
    if records and todo and description is not None:
        description += f" (resumed, {len(records)} of {len(plan)} chunks done)"
    if stop_after is not None:
        todo = todo[:stop_after]
    started = time.perf_counter()
    last_save = started
    try:
        for _, record in batch.run(
            run_chunk, todo, workers, scheduler, description=description, total=len(todo)
        ):
            records.append(record)
            now = time.perf_counter()
            if path is not None and now - last_save > 2.0:
                _save_checkpoint(path, header, records)
                last_save = now
    finally:
        if path is not None and todo:
            _save_checkpoint(path, header, records)
    result = _merge(width, height, k, records, len(plan))
    result.seconds = time.perf_counter() - started
    result.resumed = len(done)
    return result


# --- local search -------------------------------------------------------------------------


def layout_score(width: int, height: int, obstacles: list[int] | tuple[int, ...]) -> np.ndarray:
    """One layout's longest placements: int64 (8,) as :func:`_backward.layout_best` gives,
    cells in interior numbering."""
    from sokoban.analysis import _longest_puzzle

    size = width * height
    first = np.array(sorted(obstacles), np.int64)
    stats = np.zeros(5, np.int64)
    winners = np.zeros((2, 1, len(first) + 3), np.int64)
    hist = np.zeros((2, 1), np.int64)
    identity = np.arange(size, dtype=np.int64)[None, :]
    _longest_puzzle.analyse_chunk(width, height, first, 1, identity, 1, stats, winners, hist)
    k = len(obstacles)
    out = np.full(8, -1, np.int64)
    for m in range(2):
        out[4 * m] = stats[1 + 2 * m]
        if stats[1 + 2 * m] >= 0:
            out[4 * m + 1 : 4 * m + 4] = winners[m, 0, k : k + 3]
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class AnnealTask:
    width: int
    height: int
    k: int
    metric: str
    seconds: float
    seed: int


def anneal_chain(task: AnnealTask) -> dict[str, Any]:
    """One simulated-annealing chain. Returns the best layout it met (``value``, the other
    metric's ``other`` value as a tie-break, ``obstacles``, ``placement`` as player, box,
    goal) and how many layouts it ``tried``."""
    rng = random.Random(task.seed)
    size = task.width * task.height
    m = METRICS.index(task.metric)

    def score(cells: list[int]) -> dict[str, Any]:
        s = layout_score(task.width, task.height, cells)
        return {
            "value": int(s[4 * m]),
            "other": int(s[4 - 4 * m]),
            "obstacles": sorted(cells),
            "placement": [int(x) for x in s[4 * m + 1 : 4 * m + 4]],
        }

    layout = rng.sample(range(size), task.k)
    current = best = score(layout)
    tried = 1
    hot, cold = 3.0, 0.05
    start = time.perf_counter()
    while 0 < task.k < size:
        elapsed = (time.perf_counter() - start) / task.seconds
        if elapsed >= 1:
            break
        temperature = hot * (cold / hot) ** elapsed
        # Move one obstacle to a free cell; accept worse layouts less often as it cools.
        candidate = list(layout)
        free = [c for c in range(size) if c not in layout]
        candidate[rng.randrange(task.k)] = rng.choice(free)
        found = score(candidate)
        tried += 1
        delta = found["value"] - current["value"]
        if delta >= 0 or rng.random() < math.exp(delta / temperature):
            layout, current = candidate, found
            if (found["value"], found["other"]) > (best["value"], best["other"]):
                best = found
    return {**best, "tried": tried}


def anneal(
    width: int,
    height: int,
    k: int,
    metric: str = "moves",
    seconds: float = 10.0,
    seed: int = 0,
    chains: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    description: str | None = None,
) -> LongestResult:
    """A long single-box puzzle found by simulated annealing, one chain per worker, each for
    ``seconds``: a lower bound on the true maximum (``proven`` is false). Only ``metric``'s
    fields of the result are filled; ``layouts`` counts the layouts tried."""
    from sokoban import batch

    _check_room(width, height, k)
    if metric not in METRICS:
        raise AnalysisError(f"unknown metric {metric!r}: choose moves or pushes")
    if not (0 < seconds < math.inf):
        raise AnalysisError(f"the time budget must be a positive number of seconds, not {seconds}")
    if chains is None:
        chains = 1 if workers == 0 else (workers or batch.default_workers())
    if chains < 1:
        raise AnalysisError(f"annealing needs at least one chain, not {chains}")
    tasks = [AnnealTask(width, height, k, metric, seconds, seed * 1000 + i) for i in range(chains)]
    started = time.perf_counter()
    runs = [
        r for _, r in batch.run(anneal_chain, tasks, workers, scheduler, description=description)
    ]
    best = max(runs, key=lambda r: (r["value"], r["other"]))
    empty = np.zeros(0, np.int64)
    result = LongestResult(
        width, height, k, "anneal", False, sum(r["tried"] for r in runs), -1, -1, 0, 0, [], [],
        empty, empty, chunks=chains,
    )  # fmt: skip
    winners = []
    if best["value"] >= 0:
        player, box, goal = best["placement"]
        winners = [Winner(tuple(best["obstacles"]), player, box, goal, best["value"])]
    if metric == "moves":
        result.best_moves, result.moves_ties, result.moves_winners = best["value"], 1, winners
    else:
        result.best_pushes, result.pushes_ties, result.pushes_winners = best["value"], 1, winners
    result.seconds = time.perf_counter() - started
    return result


def iter_layouts(width: int, height: int, k: int) -> Iterator[tuple[int, ...]]:
    """Every canonical layout, slowly, in Python (for tests and small rooms)."""
    perms = symmetries(width, height)
    import itertools

    for combo in itertools.combinations(range(width * height), k):
        if all(tuple(sorted(int(p[c]) for c in combo)) >= combo for p in perms):
            yield combo

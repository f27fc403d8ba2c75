"""Benchmark the Gymnasium environment and print tables.

    .venv/bin/python benchmarks/bench_env.py                        # all sections
    .venv/bin/python benchmarks/bench_env.py --sections steps --steps 200000
    .venv/bin/python benchmarks/bench_env.py --gym-python /tmp/gymvenv/bin/python

Sections:

- ``steps``: steps per second on Boxoban 10 x 10 (``../shared/levels/boxoban/hard_000.txt``)
  with random actions, one core, side by side in one run: our single environment (``grid``
  observations, the deadlock check after every push, resets included), our vector
  environment with N = 1, 64 and 1,024 boards (``grid`` and ``index``; auto-reset included;
  ``copy=False`` takes the environment's own arrays, ``copy=True`` a copy a step), and
  gym-sokoban 0.0.6 in its own observation modes (``tiny_rgb_array``, its fastest, and
  ``rgb_array``), run by ``--gym-python`` (a scratch venv
  with gym-sokoban installed; it is not a project dependency). gym-sokoban's steps are timed
  after one reset (its reset generates a room, seconds each), with its step limit lifted.
- ``reset``: seconds per reset by level source: a Boxoban file, a collection (Microban), and
  the generator per difficulty band (10 x 10, 4 boxes).
- ``distance``: ``info["pushes_to_go"]`` latency (A* within the default 0.1 s, a fresh cache)
  on positions of Boxoban hard levels reached by random walks: p50, p95, and how many came
  back ``None`` (dead by the cheap check, or out of time).
- ``memory``: bytes the vector environment holds per 1,024 boards, by array, and its pool.

The machine is shared: figures are noisy, compare the ratios measured side by side.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
LEVELS = HERE.parents[1] / "shared" / "levels"
BOXOBAN_HARD = LEVELS / "boxoban" / "hard_000.txt"
MICROBAN = LEVELS / "microban.xsb"
console = Console(width=150)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _single(steps: int, seed: int) -> float:
    from sokoban.env import SokobanEnv

    env = SokobanEnv(path=BOXOBAN_HARD)
    actions = np.random.default_rng(seed).integers(4, size=steps)
    env.reset(seed=seed)
    for a in actions[:100]:  # load the kernels
        env.step(int(a))
    env.reset(seed=seed)
    start = time.perf_counter()
    for a in actions:
        _, _, terminated, truncated, _ = env.step(int(a))
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def _vector(n: int, steps: int, seed: int, observation: str, copy: bool) -> float:
    from sokoban.env import VectorSokobanEnv

    envs = VectorSokobanEnv(path=BOXOBAN_HARD, num_envs=n, observation=observation, copy=copy)
    rounds = max(20, steps // n)
    actions = np.random.default_rng(seed).integers(4, size=(rounds, n))
    envs.reset(seed=seed)
    envs.step(actions[0])
    start = time.perf_counter()
    for a in actions:
        envs.step(a)
    return rounds * n / (time.perf_counter() - start)


# Run by the scratch venv's python: gym-sokoban's steps per second in one observation mode.
_GYM_SCRIPT = r"""
import json, sys, time, random
import numpy as np
import gym, gym_sokoban
steps, seed, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
random.seed(seed); np.random.seed(seed)
env = gym.make("Sokoban-v0").unwrapped
env.reset()
env.max_steps = 10**12
actions = np.random.default_rng(seed).integers(1, 9, size=steps)
start = time.perf_counter()
for a in actions:
    env.step(int(a), observation_mode=mode)
seconds = time.perf_counter() - start
print(json.dumps({"steps_per_second": steps / seconds}))
"""


def _gym(python: str, steps: int, seed: int, mode: str) -> float | str:
    try:
        out = subprocess.run(
            [python, "-c", _GYM_SCRIPT, str(steps), str(seed), mode],
            capture_output=True,
            text=True,
            timeout=600,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"did not run: {error}"
    if out.returncode != 0:
        return f"did not run: {out.stderr.strip()[-200:]}"
    return float(json.loads(out.stdout.strip().splitlines()[-1])["steps_per_second"])


def steps_section(steps: int, seed: int, gym_python: str) -> None:
    table = Table(title="steps per second, Boxoban hard 10x10, random actions, one core")
    for column in (
        "environment",
        "observation",
        "boards",
        "steps/s",
        "vs gym-sokoban tiny_rgb_array",
    ):
        table.add_column(column, justify="right" if column != "environment" else "left")
    rows: list[tuple[str, str, str, float | str]] = []
    rows.append(("SokobanEnv", "grid", "1", _single(min(steps, 50_000), seed)))
    for n in (1, 64, 1024):
        budget = steps if n > 1 else min(steps, 100_000)
        for observation in ("grid", "index"):
            for copy in (False, True):
                rows.append(
                    (
                        f"VectorSokobanEnv copy={copy}",
                        observation,
                        str(n),
                        _vector(n, budget, seed, observation, copy),
                    )
                )
    gym_rows: dict[str, float | str] = {}
    if Path(gym_python).exists():
        for mode in ("tiny_rgb_array", "rgb_array"):
            gym_rows[mode] = _gym(gym_python, min(steps, 20_000), seed, mode)
            rows.append(("gym-sokoban 0.0.6", mode, "1", gym_rows[mode]))
    else:
        console.print(f"[yellow]gym-sokoban skipped: no {gym_python}")
    base = gym_rows.get("tiny_rgb_array")
    for name, observation, n, rate in rows:
        if isinstance(rate, str):
            table.add_row(name, observation, n, rate, "")
            continue
        ratio = f"{rate / base:.0f}x" if isinstance(base, float) else ""
        table.add_row(name, observation, n, f"{rate:,.0f}", ratio)
    console.print(table)


def reset_section(count: int, seed: int) -> None:
    from sokoban.env import SokobanEnv

    table = Table(title="seconds per reset, by level source (one core)")
    for column in ("source", "resets", "median ms", "p95 ms"):
        table.add_column(column)
    sources: list[tuple[str, dict[str, object], int]] = [
        ("Boxoban file (hard_000.txt)", {"path": BOXOBAN_HARD}, count),
        ("collection (microban.xsb)", {"source": "collection", "path": MICROBAN}, count),
    ]
    for band in ("easy", "medium", "hard", "expert"):
        sources.append((f"generated 10x10, 4 boxes, {band}", {"band": band}, max(5, count // 20)))
    for name, kwargs, n in sources:
        env = SokobanEnv(**kwargs)  # type: ignore[arg-type]
        env.reset(seed=seed)
        times = []
        for _ in range(n):
            start = time.perf_counter()
            env.reset()
            times.append(time.perf_counter() - start)
        table.add_row(
            name,
            str(n),
            f"{1000 * statistics.median(times):.2f}",
            f"{1000 * _pct(times, 0.95):.2f}",
        )
    console.print(table)


def distance_section(count: int, seed: int) -> None:
    from sokoban.env import SokobanEnv

    env = SokobanEnv(path=BOXOBAN_HARD, pushes_to_go=False, max_steps=None)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    env.distance()  # load the kernels
    times: list[float] = []
    dead = timed_out = 0
    for _ in range(count):
        env.reset()
        for a in rng.integers(4, size=int(rng.integers(0, 30))):
            env.step(int(a))
        env._distances.clear()
        start = time.perf_counter()
        found = env.distance()
        times.append(time.perf_counter() - start)
        dead += env._dead
        timed_out += found is None and not env._dead
    table = Table(
        title=f"pushes_to_go on {count} Boxoban hard positions (random walks of 0-29 steps)"
    )
    for column in (
        "positions",
        "p50 ms",
        "p95 ms",
        "max ms",
        "None: dead by the check",
        "None: unsolvable or out of time",
    ):
        table.add_column(column)
    table.add_row(
        str(count),
        f"{1000 * _pct(times, 0.5):.1f}",
        f"{1000 * _pct(times, 0.95):.1f}",
        f"{1000 * max(times):.1f}",
        str(dead),
        str(timed_out),
    )
    console.print(table)


def memory_section() -> None:
    from sokoban.env import VectorSokobanEnv

    table = Table(title="bytes held by a vector environment of 1,024 Boxoban boards")
    for column in ("observation", "per-board arrays", "bytes per board", "pool (1,000 levels)"):
        table.add_column(column)
    for observation in ("grid", "index"):
        envs = VectorSokobanEnv(path=BOXOBAN_HARD, num_envs=1024, observation=observation)
        boards = sum(
            getattr(envs, name).nbytes
            for name in (
                "_index",
                "_grid",
                "_player",
                "_off",
                "_steps",
                "_pending",
                "_level_of",
                "_rewards",
                "_terminated",
                "_truncated",
                "_pushed",
            )
        )
        pool = envs._levels.nbytes + envs._level_player.nbytes + envs._level_off.nbytes
        stream = envs._stream.nbytes
        table.add_row(
            observation,
            f"{boards:,} (+ {stream:,} stream)",
            f"{boards / 1024:.0f}",
            f"{pool:,}",
        )
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default="steps,reset,distance,memory")
    parser.add_argument("--steps", type=int, default=1_000_000, help="steps per vector row")
    parser.add_argument("--resets", type=int, default=200)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gym-python", default="/tmp/gymvenv/bin/python")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if "steps" in sections:
        steps_section(args.steps, args.seed, args.gym_python)
    if "reset" in sections:
        reset_section(args.resets, args.seed)
    if "distance" in sections:
        distance_section(args.positions, args.seed)
    if "memory" in sections:
        memory_section()


if __name__ == "__main__":
    main()

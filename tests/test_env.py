"""The Gymnasium environment: the API checker on every id and mode, transitions equal to
:class:`sokoban.Game`'s (single and vector, board by board), seeding, the expert, the
level sources, info, rendering and the dataset command."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

gymnasium = pytest.importorskip("gymnasium", reason="the rl extra (gymnasium) is not installed")

import sokoban.env  # noqa: E402  (registers the ids)
from sokoban import DIRECTIONS, Direction, Game, Level, xsb  # noqa: E402
from sokoban.cli import main  # noqa: E402
from sokoban.env import (  # noqa: E402
    Curriculum,
    LevelFiles,
    SokobanEnv,
    VectorSokobanEnv,
    actions_of,
    expert_actions,
)
from sokoban.env.encoding import encode  # noqa: E402
from sokoban.errors import SokobanError  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
BOXOBAN = DATA / "boxoban"
TINY = DATA / "tiny.xsb"
#: Boxoban's push actions by direction (its moves are these plus 4).
BOXOBAN_PUSH = {Direction.UP: 1, Direction.DOWN: 2, Direction.LEFT: 3, Direction.RIGHT: 4}


def _levels() -> list[Level]:
    """Our tiny levels and the Boxoban sample, of several sizes."""
    return list(xsb.load(TINY)) + LevelFiles(BOXOBAN).levels().levels


def _grid(level: Level, shape: tuple[int, int]) -> np.ndarray:
    """The ``grid`` observation of a position, made from scratch (not by the kernel)."""
    index = encode(level, shape).index
    return np.stack(
        [
            index == 0,
            index != 0,
            np.isin(index, (2, 4, 6)),
            np.isin(index, (3, 4)),
            np.isin(index, (5, 6)),
        ]
    ).astype(np.uint8)


# --- the API checker ------------------------------------------------------------------------

KWARGS = {
    "sokoban/Boxoban-v0": {"path": str(BOXOBAN)},
    "sokoban/Collection-v0": {"path": str(TINY)},
    "sokoban/Generated-v0": {"size": (6, 6), "boxes": 1},
}


@pytest.mark.parametrize("env_id", list(sokoban.env.IDS))
@pytest.mark.parametrize("observation", ["grid", "rgb", "index"])
@pytest.mark.parametrize("action_mode", ["moves", "boxoban"])
def test_check_env_passes(env_id: str, observation: str, action_mode: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(
        env_id,
        observation=observation,
        action_mode=action_mode,
        render_mode="rgb_array",
        cell=8,
        **KWARGS[env_id],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning of the checker is a failure here
        check_env(env.unwrapped)
    observation_, info = env.reset(seed=3)
    assert env.observation_space.contains(observation_)
    assert isinstance(env.unwrapped.level, Level)
    assert {"deadlock", "level_id", "title"} <= set(info)
    env.close()


@pytest.mark.parametrize("observation", ["grid", "index"])
def test_vector_env_spaces(observation: str) -> None:
    envs = VectorSokobanEnv(path=BOXOBAN, num_envs=5, observation=observation)
    observations, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(observations)
    observations, rewards, terminated, truncated, _ = envs.step(envs.action_space.sample())
    assert envs.observation_space.contains(observations)
    assert rewards.shape == terminated.shape == truncated.shape == (5,)


def test_make_vec_makes_the_vector_env_of_file_sources() -> None:
    envs = gymnasium.make_vec("sokoban/Boxoban-v0", num_envs=3, path=str(BOXOBAN))
    assert isinstance(envs, VectorSokobanEnv) and envs.num_envs == 3
    observations, _ = envs.reset(seed=0)
    assert observations.shape == (3, 5, 10, 10)
    envs = gymnasium.make_vec("sokoban/Generated-v0", num_envs=2, size=(6, 6), boxes=1)
    assert not isinstance(envs, VectorSokobanEnv)
    assert envs.reset(seed=0)[0].shape == (2, 5, 6, 6)


# --- transitions against Game ---------------------------------------------------------------


def _expected_reward(before: Level, after: Level) -> float:
    on = len(after.boxes & after.goals) - len(before.boxes & before.goals)
    reward = -0.1 + (1.0 if on > 0 else -1.0 if on < 0 else 0.0)
    return reward + (10.0 if after.is_solved else 0.0)


def _play(game: Game, action: int, action_mode: str) -> None:
    """What ``action`` does to ``game`` in an action mode, by Game's rules."""
    if action_mode == "moves":
        game.move(DIRECTIONS[action])
        return
    if action == 0:
        return
    direction = {a: d for d, a in BOXOBAN_PUSH.items()}[(action - 1) % 4 + 1]
    if action >= 5:  # a move that never pushes
        target = game.position.neighbour(game.player, direction)
        if target in game.position.boxes:
            return
    game.move(direction)


@settings(max_examples=40, deadline=None)
@given(
    level_number=st.integers(0, 10),
    action_mode=st.sampled_from(["moves", "boxoban"]),
    actions=st.lists(st.integers(0, 8), min_size=1, max_size=60),
)
def test_steps_equal_games(level_number: int, action_mode: str, actions: list[int]) -> None:
    levels = _levels()
    level = levels[level_number % len(levels)]
    env = SokobanEnv(levels=levels, action_mode=action_mode, max_steps=None)
    env.reset(seed=0, options={"level": level})
    game = Game(level)
    shape = env.shape
    for action in actions:
        action %= int(env.action_space.n)
        before = game.position
        _play(game, action, action_mode)
        observation, reward, terminated, truncated, info = env.step(action)
        assert env.unwrapped.position == game.position
        assert np.array_equal(observation, _grid(game.position, shape))
        assert reward == pytest.approx(_expected_reward(before, game.position))
        assert terminated == game.is_solved and not truncated
        if terminated:
            break


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    num_envs=st.integers(1, 6),
    max_steps=st.integers(1, 12),
    steps=st.integers(1, 40),
)
def test_vector_steps_equal_games_board_by_board(
    seed: int, num_envs: int, max_steps: int, steps: int
) -> None:
    # Levels solved in one push, so that boards end often and start again.
    levels = [
        Level.from_xsb("#####\n#@$.#\n#####"),
        Level.from_xsb("#####\n#.$@#\n#####"),
        Level.from_xsb("####\n#@ #\n#$ #\n#. #\n####"),
    ] + _levels()[:4]
    envs = VectorSokobanEnv(levels=levels, num_envs=num_envs, max_steps=max_steps)
    envs.reset(seed=seed)
    games = [Game(envs.level(i)) for i in range(num_envs)]
    ended = [False] * num_envs
    taken = [0] * num_envs  # steps, blocked ones included (Game counts the moves made)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = rng.integers(4, size=num_envs)
        observations, rewards, terminated, truncated, _ = envs.step(actions)
        for i in range(num_envs):
            if ended[i]:
                # The step after an end starts a new level: reward 0, neither flag.
                games[i] = Game(envs.level(i))
                ended[i] = False
                taken[i] = 0
                assert rewards[i] == 0 and not terminated[i] and not truncated[i]
            else:
                before = games[i].position
                games[i].move(DIRECTIONS[actions[i]])
                taken[i] += 1
                assert rewards[i] == pytest.approx(_expected_reward(before, games[i].position))
                assert terminated[i] == games[i].is_solved
                assert truncated[i] == (not games[i].is_solved and taken[i] >= max_steps)
                ended[i] = bool(terminated[i] or truncated[i])
            assert envs.position(i) == games[i].position
            assert np.array_equal(observations[i], _grid(games[i].position, envs.shape))


def test_moves_count_towards_max_steps_even_when_blocked() -> None:
    env = SokobanEnv(levels=[Level.from_xsb("#####\n#@$.#\n#####")], max_steps=3)
    env.reset(seed=0)
    results = [env.step(0)[2:4] for _ in range(3)]  # into the wall
    assert results == [(False, False), (False, False), (False, True)]


# --- seeding ------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", list(sokoban.env.IDS))
def test_the_same_seed_gives_the_same_levels(env_id: str) -> None:
    def run(seed: int) -> list[tuple[str, bytes]]:
        env = gymnasium.make(env_id, **KWARGS[env_id])
        seen = []
        observation, info = env.reset(seed=seed)
        seen.append((info["level_id"], observation.tobytes()))
        for _ in range(3):
            observation, info = env.reset()
            seen.append((info["level_id"], observation.tobytes()))
        return seen

    assert run(5) == run(5)
    if env_id != "sokoban/Collection-v0":  # three tiny levels: seeds may well agree
        assert run(5) != run(6)


def test_vector_seeding() -> None:
    def run(seed: int) -> tuple[list[int], bytes]:
        envs = VectorSokobanEnv(path=BOXOBAN, num_envs=8, max_steps=5)
        observations, _ = envs.reset(seed=seed)
        starts = envs.level_indices.tolist()
        rng = np.random.default_rng(0)
        for _ in range(12):  # past the ends: the new levels come from the seed too
            observations, *_ = envs.step(rng.integers(4, size=8))
        return starts + envs.level_indices.tolist(), observations.tobytes()

    assert run(1) == run(1)
    assert run(1) != run(2)


# --- the expert ---------------------------------------------------------------------------


def test_expert_actions_are_optimal_on_microban(public_levels) -> None:
    rows = [r for r in public_levels.optima() if r["file"] == "microban.xsb"]
    numbers = [n for n in public_levels.numbers("microban.xsb") if n <= 12]
    chosen = [r for r in rows if int(r["level"]) in numbers][:6]
    assert chosen
    for row in chosen:
        level = public_levels.level("microban.xsb", int(row["level"]))
        for action_mode in ("moves", "boxoban"):
            env = SokobanEnv(levels=[level], action_mode=action_mode, max_steps=None)
            env.reset(seed=0)
            pushes = 0
            terminated = False
            for action in expert_actions(level, action_mode):
                before = env.position.boxes
                _, _, terminated, _, _ = env.step(action)
                pushes += env.position.boxes != before
            assert terminated and env.position.is_solved, row["level"]
            assert pushes == int(row["pushes"]), row["level"]


def test_actions_of_lurd() -> None:
    assert actions_of("luRD") == [0, 1, 2, 3]
    assert actions_of("luRD", "boxoban") == [7, 5, 4, 2]
    with pytest.raises(SokobanError, match="action_mode"):
        actions_of("l", "nine")


# --- level sources ------------------------------------------------------------------------


def test_boxoban_files_load_with_their_level_count(public_levels) -> None:
    assert len(LevelFiles(BOXOBAN)) == 8
    assert len(LevelFiles(BOXOBAN / "000.txt")) == 5
    assert LevelFiles(BOXOBAN).shape == (10, 10)
    hard = public_levels.path("boxoban/hard_000.txt")
    expected = 3 if public_levels.is_sample else 1000
    assert len(LevelFiles(hard)) == expected
    env = gymnasium.make("sokoban/Boxoban-v0", path=str(hard))
    _, info = env.reset(seed=0)
    assert info["level_id"].startswith("hard_000.txt:")


def test_a_source_without_a_path_is_refused() -> None:
    with pytest.raises(SokobanError, match="needs path="):
        gymnasium.make("sokoban/Boxoban-v0")
    with pytest.raises(SokobanError, match="no such file"):
        SokobanEnv("boxoban", path=DATA / "absent")
    with pytest.raises(SokobanError, match="observation="):
        SokobanEnv(path=TINY, observation="pixels")


def test_collection_levels_are_padded_to_the_largest() -> None:
    env = SokobanEnv(path=TINY, observation="index")
    assert env.observation_space.shape == env.shape == (5, 6)
    for seed in range(6):
        observation, _ = env.reset(seed=seed)
        level = env.level
        assert (observation[level.height :, :] == 0).all()
        assert (observation[:, level.width :] == 0).all()


# --- info, termination and rendering ------------------------------------------------------


def test_deadlock_info_and_termination() -> None:
    level = Level.from_xsb("######\n#@   #\n# $ .#\n#    #\n######")
    for terminate in (False, True):
        env = SokobanEnv(levels=[level], terminate_on_deadlock=terminate, max_steps=None)
        _, info = env.reset(seed=0)
        assert not info["deadlock"]
        env.step(3)  # down, beside the box
        _, _, terminated, _, info = env.step(2)  # push it right: not dead
        assert not info["deadlock"] and not terminated
        env.step(3)
        env.step(2)  # under the box
        _, _, terminated, _, info = env.step(1)  # push it against the top wall: dead
        assert info["deadlock"] and terminated == terminate


def test_pushes_to_go() -> None:
    level = Level.from_xsb("#######\n#@ $ .#\n#######")
    env = SokobanEnv(levels=[level], pushes_to_go=True, max_steps=None)
    _, info = env.reset(seed=0)
    assert info["pushes_to_go"] == 2
    _, _, _, _, info = env.step(2)
    assert info["pushes_to_go"] == 2  # walked: the same region, from the cache
    _, _, _, _, info = env.step(2)
    assert info["pushes_to_go"] == 1
    dead = Level.from_xsb("#####\n#@  #\n# $ #\n#  .#\n#####")
    env = SokobanEnv(levels=[dead.moved(boxes=[8])], pushes_to_go=True)
    _, info = env.reset(seed=0)
    assert info["deadlock"] and info["pushes_to_go"] is None


def test_render_modes() -> None:
    level = Level.from_xsb("#####\n#@$.#\n#####")
    env = SokobanEnv(levels=[level], render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == level.xsb()
    env = SokobanEnv(levels=[level], render_mode="rgb_array", cell=10)
    env.reset(seed=0)
    picture = env.render()
    assert picture.shape == (30, 50, 3) and picture.dtype == np.uint8
    assert len({tuple(p) for p in picture.reshape(-1, 3)}) > 4  # walls, floor, box, player
    env = SokobanEnv(levels=[level], observation="rgb", cell=10)
    observation, _ = env.reset(seed=0)
    assert np.array_equal(observation, picture)


def test_render_human_prints_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    level = Level.from_xsb("#####\n#@$.#\n#####")
    env = SokobanEnv(levels=[level], render_mode="human")
    env.reset(seed=0)
    assert level.xsb() in capsys.readouterr().out


def test_bad_actions_are_refused() -> None:
    env = SokobanEnv(path=TINY)
    env.reset(seed=0)
    with pytest.raises(SokobanError, match="action 4"):
        env.step(4)
    envs = VectorSokobanEnv(path=TINY, num_envs=2)
    envs.reset(seed=0)
    with pytest.raises(SokobanError, match="outside 0..3"):
        envs.step([0, 9])
    with pytest.raises(SokobanError, match="one action a board"):
        envs.step([0])


# --- the curriculum -----------------------------------------------------------------------


def test_curriculum_moves_up_the_bands() -> None:
    env = gymnasium.make("sokoban/Generated-v0")
    curriculum = Curriculum(env, threshold=0.8, window=4)
    assert env.unwrapped.source.band == "easy"
    moves = [curriculum(solved) for solved in [True] * 3 + [False] + [True] * 4]
    assert moves == [None] * 7 + ["medium"]  # 3 of the last 4 is below 0.8
    moves = [curriculum(True) for _ in range(12)]
    assert moves.count("hard") == 1 and moves.count("expert") == 1
    assert curriculum.band == "expert" and all(m is None for m in moves[8:])
    env = gymnasium.make("sokoban/Generated-v0")
    Curriculum(env, bands=["medium", "hard"])
    _, info = env.reset(seed=0)
    assert info["level_id"].startswith("generated:")
    assert "(medium)" in dict(env.unwrapped.level.metadata)["Difficulty"]


def test_small_generated_boards_say_which_bands_they_miss() -> None:
    env = gymnasium.make("sokoban/Generated-v0", size=(7, 7), boxes=2, band="expert")
    with pytest.raises(SokobanError, match="no expert level of 7x7 with 2 boxes"):
        env.reset(seed=0)


# --- the dataset command ------------------------------------------------------------------


def test_dataset_command(tmp_path: Path) -> None:
    out = tmp_path / "data.npz"
    args = ["dataset", "--source", f"boxoban:{BOXOBAN}", "-n", "3", "--seed", "2", "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "--json", "-w", "0"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    data = _npz(out)
    assert summary["episodes"] == len(data["level_id"]) == 3
    starts = data["starts"]
    assert starts[-1] == summary["steps"] == len(data["actions"]) == len(data["observations"])
    levels = dict(zip(*_boxoban_ids(), strict=True))
    for e, level_id in enumerate(data["level_id"]):
        a, b = starts[e], starts[e + 1]
        game = Game(levels[str(level_id)])
        for t in range(a, b):
            assert np.array_equal(data["observations"][t], _grid(game.position, (10, 10)))
            game.move(DIRECTIONS[data["actions"][t]])
        assert (
            game.is_solved and game.pushes == data["optimal_pushes"][e] == data["pushes_to_go"][a]
        )
        assert data["returns"][a] == pytest.approx(data["rewards"][a:b].sum(), abs=1e-4)
        assert (np.diff(data["pushes_to_go"][a:b]) <= 0).all()
    again = tmp_path / "again.npz"
    args[-1] = str(again)
    assert CliRunner().invoke(main, [*args, "-q", "-w", "0"]).exit_code == 0
    assert np.array_equal(_npz(again)["actions"], data["actions"])


def _npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return dict(data)


def _boxoban_ids() -> tuple[list[str], list[Level]]:
    pool = LevelFiles(BOXOBAN).levels()
    return pool.ids, pool.levels


def test_dataset_refuses_a_bad_source(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["dataset", "--source", "pictures:x", "-o", str(tmp_path / "d.npz")]
    )
    assert result.exit_code == 2 and "is not boxoban:PATH" in result.output
    assert not (tmp_path / "d.npz").exists()


# --- the documentation --------------------------------------------------------------------

DOC = Path(__file__).resolve().parents[1] / "docs" / "env.md"


def test_the_examples_of_the_docs_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    monkeypatch.chdir(DOC.parents[1])  # the examples use paths from the repository's root
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 5
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})
    printed = capsys.readouterr().out
    assert "20 episodes" in printed and "training accuracy" in printed


def test_the_docs_name_every_argument() -> None:
    import inspect

    text = DOC.read_text(encoding="utf-8")
    for cls in (SokobanEnv, VectorSokobanEnv):
        for name in inspect.signature(cls).parameters:
            if name not in ("source", "path", "levels", "size", "boxes", "band", "num_envs"):
                assert f"`{name}" in text, f"docs/env.md does not describe {name}"


def test_datasets_of_generated_levels_are_the_same_on_workers() -> None:
    from sokoban.env.dataset import collect
    from sokoban.env.sources import parse_source

    source = parse_source("generated:6x6:1")
    here = collect(source, 3, seed=4, workers=0).arrays()
    there = collect(source, 3, seed=4, workers=1).arrays()
    assert list(here["level_id"]) == list(there["level_id"])
    assert all(i.startswith("generated:") for i in here["level_id"])
    assert np.array_equal(here["actions"], there["actions"]) and len(here["actions"]) > 0


def test_dataset_on_a_local_dask_cluster(tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    args = ["dataset", "--source", f"boxoban:{BOXOBAN}", "-n", "3", "--seed", "5", "-q"]
    here, there = tmp_path / "here.npz", tmp_path / "there.npz"
    assert CliRunner().invoke(main, [*args, "-w", "0", "-o", str(here)]).exit_code == 0
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        result = CliRunner().invoke(
            main, [*args, "--scheduler", cluster.scheduler_address, "-o", str(there)]
        )
    assert result.exit_code == 0, result.output
    a, b = _npz(here), _npz(there)
    assert list(a["level_id"]) == list(b["level_id"])
    assert np.array_equal(a["observations"], b["observations"])
    assert np.array_equal(a["actions"], b["actions"])


def test_rewards_can_be_changed() -> None:
    level = Level.from_xsb("######\n#@$ .#\n######")
    env = SokobanEnv(
        levels=[level], reward_step=-1.0, reward_box_on=5.0, reward_box_off=-5.0, reward_solved=2.0
    )
    env.reset(seed=0)
    assert env.step(2)[1] == -1.0  # a push, not onto the goal
    assert env.step(2)[1] == -1.0 + 5.0 + 2.0  # onto the goal: solved

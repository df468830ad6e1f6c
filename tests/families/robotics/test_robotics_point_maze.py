"""PointMaze (cpp/mujoco/robotics/point_maze.h) against gymnasium-robotics 1.4.2's
PointMazeEnv on mujoco 3.17.

Fidelity: our env runs with ``report_draws=True`` (each reset's and step's random draws,
in the reference's call order: the goal cell index, its two noise draws, the reset cell
indices, their noise; a continuing task's new goals). Before each of the reference's
reset() and step() we give it a stand-in for ``np_random`` returning exactly those values
(and checking it asks for as many, of the same kinds), then compare, step for step over
random and goal-seeking actions: observation, achieved and desired goal (bit-equal: the
same arithmetic in the same order, though we skip the reference's redundant mj_forward),
reward, terminated and info ``success`` (equal). The reference needs no patch for PointMaze.

Distributions: our draws come from our own generator; the replay checks each draw lies in
the range the reference asks for, and test_reset_cells checks the cells drawn cover the
maze's goal and reset cells.
"""

from __future__ import annotations

import tempfile
import warnings

import numpy as np
import pytest

import envpool

pytest.importorskip("gymnasium_robotics")
from _robotics_reference import replay as _replay  # noqa: E402
from gymnasium_robotics.envs.maze import maps  # noqa: E402
from gymnasium_robotics.envs.maze.point_maze import PointMazeEnv  # noqa: E402

TOL = 0.0  # bit-equal: the same arithmetic, in the same order


@pytest.fixture(autouse=True)
def _reference_xml_in_tmp_path(tmp_path, monkeypatch):
    # The reference writes each maze's model to the parent of a TemporaryDirectory and never
    # deletes it: keep those files in pytest's own folder, not in /tmp.
    folder = tmp_path / "reference-xml"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))


MAZES = {
    "PointMaze_UMaze": "U_MAZE",
    "PointMaze_Open": "OPEN",
    "PointMaze_Open_Diverse_G": "OPEN_DIVERSE_G",
    "PointMaze_Open_Diverse_GR": "OPEN_DIVERSE_GR",
    "PointMaze_Medium": "MEDIUM_MAZE",
    "PointMaze_Medium_Diverse_G": "MEDIUM_MAZE_DIVERSE_G",
    "PointMaze_Medium_Diverse_GR": "MEDIUM_MAZE_DIVERSE_GR",
    "PointMaze_Large": "LARGE_MAZE",
    "PointMaze_Large_Diverse_G": "LARGE_MAZE_DIVERSE_G",
    "PointMaze_Large_Diverse_GR": "LARGE_MAZE_DIVERSE_GR",
}
IDS = [
    (f"{name}{suffix}-v3", maze, reward)
    for name, maze in MAZES.items()
    for suffix, reward in (("", "sparse"), ("Dense", "dense"))
]
STEPS = {"U_MAZE": 300, "OPEN": 300, "MEDIUM": 600, "LARGE": 800}


def _check_obs(obs, r_obs, what: str) -> None:
    for key in ("observation", "achieved_goal", "desired_goal"):
        np.testing.assert_allclose(obs[key][0], r_obs[key], rtol=0, atol=TOL, err_msg=f"{what}: {key}")


def run_replayed(task: str, maze: str, reward: str, steps: int, seed: int, **kwargs) -> dict:
    """Steps our env and the reference (fed our draws); returns counts of what happened."""
    ours = envpool.make(task, env_type="gymnasium", num_envs=1, seed=seed, report_draws=True, **kwargs)
    ref_kwargs = {k: v for k, v in kwargs.items() if k in ("continuing_task", "reset_target")}
    ref = PointMazeEnv(maze_map=getattr(maps, maze), reward_type=reward, **ref_kwargs)
    limit = ours.spec.max_episode_steps
    rng = np.random.default_rng(seed)
    seen = {"episodes": 0, "success": 0, "terminated": 0, "goal_moves": 0}
    obs, info = ours.reset()
    r_obs, r_info = _replay(ref, info, lambda: ref.reset())
    _check_obs(obs, r_obs, f"{task} reset")
    assert bool(info["success"][0]) == r_info["success"]
    t = 0
    for step in range(steps):
        if rng.random() < 0.5:
            act = rng.uniform(-1.3, 1.3, size=2).astype(np.float32)  # beyond the bounds too: clipped
        else:  # towards the goal, to reach it now and then
            delta = obs["desired_goal"][0] - obs["achieved_goal"][0]
            act = np.clip(2.0 * delta - 0.3 * obs["observation"][0, 2:], -1, 1).astype(np.float32)
        obs, rew, term, trunc, info = ours.step(act[None])
        r_obs, r_rew, r_term, r_trunc, r_info = _replay(ref, info, lambda: ref.step(act))
        t += 1
        what = f"{task} seed {seed} step {step}"
        _check_obs(obs, r_obs, what)
        # the reward is float32 on the pool (EnvPool's), float64 in the reference
        assert rew[0] == np.float32(r_rew), what
        assert bool(term[0]) == r_term, what
        assert bool(info["success"][0]) == r_info["success"], what
        assert bool(trunc[0]) == (t >= limit and not r_term), what
        seen["success"] += r_info["success"]
        seen["goal_moves"] += int(info["num_draws"][0]) > 0
        if term[0] or trunc[0]:
            seen["episodes"] += 1
            seen["terminated"] += bool(term[0])
            t = 0
            obs, info = ours.reset()
            r_obs, r_info = _replay(ref, info, lambda: ref.reset())
            _check_obs(obs, r_obs, f"{what} reset")
    ours.close()
    return seen


@pytest.mark.parametrize("task,maze,reward", IDS)
def test_matches_reference(task: str, maze: str, reward: str) -> None:
    """Every id, several episodes (episode length cut to 60 steps), the registered options."""
    seen = run_replayed(task, maze, reward, steps=240, seed=len(task), max_episode_steps=60)
    assert seen["episodes"] >= 3


@pytest.mark.parametrize(
    "maze",
    [
        "OPEN",
        pytest.param("U_MAZE", marks=pytest.mark.slow),
        pytest.param("MEDIUM_MAZE_DIVERSE_GR", marks=pytest.mark.slow),
    ],
)
@pytest.mark.parametrize("reward", ["sparse", "dense"])
def test_options_match_reference(maze: str, reward: str) -> None:
    """continuing_task=False (terminates at the goal) and reset_target=True (a reached
    goal is redrawn in the step, from the replayed draws): both reached in the open maze."""
    task = "PointMaze_UMaze-v3" if reward == "sparse" else "PointMaze_UMazeDense-v3"
    seen = run_replayed(task, maze, reward, steps=400, seed=3, maze_map=maze, continuing_task=False)
    if maze == "OPEN":  # the goal-seeking actions reach the goal where no wall is in the way
        assert seen["terminated"] >= 1
    seen = run_replayed(task, maze, reward, steps=400, seed=4, maze_map=maze, reset_target=True)
    assert seen["terminated"] == 0
    if maze == "OPEN":
        assert seen["goal_moves"] >= 1


def test_registered_lengths_and_spaces() -> None:
    for task, maze, _ in IDS:
        spec = envpool.make_spec(task)
        assert (
            spec.max_episode_steps
            == STEPS[maze.split("_DIVERSE")[0].replace("_MAZE", "") if maze != "U_MAZE" else "U_MAZE"]
        )
        space = spec.observation_space
        assert set(space.spaces) == {"observation", "achieved_goal", "desired_goal"}
        assert space["observation"].shape == (4,) and space["desired_goal"].shape == (2,)
        assert spec.action_space.shape == (2,)
        np.testing.assert_array_equal(spec.action_space.low, [-1, -1])


def test_maze_map_as_lists_equals_name() -> None:
    custom = [[1, 1, 1, 1, 1], [1, "c", 0, "c", 1], [1, 1, 1, 1, 1]]
    run_replayed("PointMaze_UMaze-v3", "U_MAZE", "sparse", steps=1, seed=0)  # warm
    a = envpool.make("PointMaze_UMaze-v3", env_type="gymnasium", num_envs=2, seed=1, maze_map=maps.U_MAZE)
    b = envpool.make("PointMaze_UMaze-v3", env_type="gymnasium", num_envs=2, seed=1, maze_map="U_MAZE")
    oa, _ = a.reset()
    ob, _ = b.reset()
    np.testing.assert_array_equal(oa["desired_goal"], ob["desired_goal"])
    c = envpool.make("PointMaze_UMaze-v3", env_type="gymnasium", num_envs=1, maze_map=custom)
    obs, _ = c.reset()
    # the ball and goal are in the two 'c' cells (x = -1 or 1, y = 0), with noise <= 0.25
    assert abs(abs(obs["achieved_goal"][0, 0]) - 1) <= 0.25 and abs(obs["achieved_goal"][0, 1]) <= 0.25
    for env in (a, b, c):
        env.close()


def test_reset_cells() -> None:
    """Goals and starts are drawn from every free cell of the maze (U_MAZE: 7 cells)."""
    env = envpool.make("PointMaze_UMaze-v3", env_type="gymnasium", num_envs=8, seed=0)
    cells_goal, cells_start = set(), set()
    for _ in range(20):
        obs, _ = env.reset()
        cells_goal |= {tuple(np.floor(g).astype(int)) for g in obs["desired_goal"] + 2.5}
        cells_start |= {tuple(np.floor(g).astype(int)) for g in obs["achieved_goal"] + 2.5}
    env.close()
    assert len(cells_goal) == 7 and len(cells_start) == 7


def test_compute_reward_equals_reference() -> None:
    """The pool's compute_reward on a batch (HER relabelling) equals the reference's."""
    rng = np.random.default_rng(0)
    ag, dg = rng.uniform(-2, 2, size=(2, 64, 2))
    dg[:8] = ag[:8] + rng.uniform(-0.3, 0.3, size=(8, 2))  # some within the threshold
    for task, reward in (("PointMaze_UMaze-v3", "sparse"), ("PointMaze_UMazeDense-v3", "dense")):
        ref = PointMazeEnv(reward_type=reward)
        for env_type in ("gymnasium", "gym", "dm"):
            env = envpool.make(task, env_type=env_type, num_envs=2)
            got = env.compute_reward(ag, dg, {})
            want = ref.compute_reward(ag, dg, {})
            assert got.dtype == want.dtype and got.shape == (64,)
            np.testing.assert_array_equal(got, want)
            assert 0 < want.sum() < 64 if reward == "sparse" else True
            env.close()
    mixed = envpool.make(
        "PointMaze_UMaze-v3", env_type="gymnasium", num_envs=2, env_options=[{}, {"reward_type": "dense"}]
    )
    with pytest.raises(ValueError, match="reward_type"):
        mixed.compute_reward(ag, dg, {})
    mixed.close()


def test_dict_observation_on_every_interface() -> None:
    for env_type in ("gymnasium", "gym"):
        env = envpool.make("PointMaze_OpenDense-v3", env_type=env_type, num_envs=3, seed=5)
        obs = env.reset()[0] if env_type == "gymnasium" else env.reset()
        obs = obs[0] if isinstance(obs, tuple) else obs
        assert set(obs) == {"observation", "achieved_goal", "desired_goal"}
        assert obs["observation"].shape == (3, 4) and obs["observation"].dtype == np.float64
        env.close()
    dm = envpool.make("PointMaze_OpenDense-v3", env_type="dm", num_envs=3, seed=5)
    ts = dm.reset()
    assert ts.observation.desired_goal.shape == (3, 2)
    dm.close()


def test_per_env_seeds_and_env_options() -> None:
    a = envpool.make("PointMaze_Open-v3", env_type="gymnasium", num_envs=2, seed=[7, 8])
    b = envpool.make("PointMaze_Open-v3", env_type="gymnasium", num_envs=2, seed=[8, 7])
    oa, _ = a.reset()
    ob, _ = b.reset()
    np.testing.assert_array_equal(oa["desired_goal"][0], ob["desired_goal"][1])
    c = envpool.make(
        "PointMaze_Open-v3",
        env_type="gymnasium",
        num_envs=2,
        env_options=[{"maze_map": "U_MAZE"}, {"maze_map": "LARGE_MAZE", "continuing_task": False}],
    )
    obs, _ = c.reset()
    assert np.all(np.abs(obs["achieved_goal"][0]) < 2.5) and np.any(np.abs(obs["achieved_goal"]) > 0)
    for env in (a, b, c):
        env.close()


def test_model_parameters() -> None:
    """get_model/set_model and per-episode model randomization (docs/model_parameters.md)."""
    env = envpool.make("PointMaze_Open-v3", env_type="gymnasium", num_envs=2, seed=0)
    env.reset()
    damping = env.get_model("dof_damping")
    np.testing.assert_array_equal(damping[0], [1.0, 1.0])
    env.set_model("dof_damping", np.array([[1.0, 1.0], [50.0, 50.0]]))
    act = np.ones((2, 2), np.float32)
    for _ in range(5):
        obs = env.step(act)[0]
    assert obs["observation"][1, 2] < obs["observation"][0, 2]  # the damped ball is slower
    env.close()
    rnd = envpool.make(
        "PointMaze_Open-v3",
        env_type="gymnasium",
        num_envs=2,
        seed=0,
        model_randomization={"dof_damping": ("scale", 0.5, 2.0)},
        model_info=True,
    )
    _, info = rnd.reset()
    d = info["model_dof_damping"]
    assert d.shape == (2, 2) and np.all((d >= 0.5) & (d <= 2.0)) and not np.array_equal(d[0], d[1])
    rnd.close()


@pytest.mark.parametrize(
    "options,match",
    [
        ({"maze_map": [[1, 1, 1], [1, "x", 1], [1, 1, 1]]}, "unknown cell"),
        ({"maze_map": [[1, 1], [1]]}, "same length"),
        ({"maze_map": "NO_SUCH_MAZE"}, "unknown map name"),
        ({"maze_map": [[1, 1, 1], [1, 0, 1], [1, 1, 1]]}, "reset cell"),
        ({"maze_map": [[1, 1, 1], [1, 1, 1]]}, "no free cell"),
        ({"reward_type": "shaped"}, "reward_type"),
        ({"maze_size_scaling": -1.0}, "positive"),
        ({"position_noise_range": -0.1}, "position_noise_range"),
        ({"no_such_option": 1}, "no_such_option"),
        ({"from_pixels": True}, "from_pixels"),
    ],
)
def test_bad_options_are_value_errors(options: dict, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match) as e:
        envpool.make("PointMaze_UMaze-v3", env_type="gymnasium", num_envs=1, **options)
    if "no_such_option" not in options:
        assert e.type is ValueError or issubclass(e.type, ValueError)


def test_non_finite_actions_match_reference() -> None:
    """NaN and inf actions: clipped as the reference clips (inf to the bound); a NaN reaches
    MuJoCo, which zeroes that step's ctrl (with a warning) in both. The pool stays usable."""
    ours = envpool.make("PointMaze_Open-v3", env_type="gymnasium", num_envs=1, seed=2, report_draws=True)
    ref = PointMazeEnv(maze_map=maps.OPEN)
    obs, info = ours.reset()
    _replay(ref, info, lambda: ref.reset())
    for a in ([np.inf, -np.inf], [np.nan, 0.5], [0.2, np.nan], [0.3, 0.3], [np.nan, np.nan]):
        act = np.array(a, np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            obs, rew, term, trunc, info = ours.step(act[None])
            r_obs, r_rew, *_ = _replay(ref, info, lambda: ref.step(act))
        _check_obs(obs, r_obs, f"action {a}")
        assert np.isfinite(obs["observation"]).all() and rew[0] == np.float32(r_rew)
    ours.close()

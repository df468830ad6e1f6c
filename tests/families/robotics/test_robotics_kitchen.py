"""FrankaKitchen-v1 (cpp/mujoco/robotics/kitchen.h) against gymnasium-robotics 1.4.2's
KitchenEnv on mujoco 3.17.

Fidelity: the observation noise draws (59 per reset and per step: the robot's, then the
objects') are reported (``report_draws=True``) and replayed into the reference's
``robot_env.np_random``; the noisy joint positions feed the next ctrl, so the replay also
keeps the dynamics equal. Step for step over random actions (a little beyond the Box:
clipped) the observation and each task's achieved/desired goal agree to 1e-9 (the same
arithmetic; 1e-9 leaves room for libm), the reward (tasks completed this step) and
``terminated`` are equal, and the info masks equal the reference's lists of names. Random
actions complete no task in a short episode, so one test turns gravity towards the kettle's
goal (the same change in both) to make the kettle and slide cabinet tasks complete.
The reference runs with gymnasium-robotics' mujoco_utils patch (_robotics_reference.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import envpool

pytest.importorskip("gymnasium_robotics")
from _robotics_reference import Replay, patch_mujoco_utils  # noqa: E402

from envpool.tasks.robotics import KITCHEN_GOAL_SLICES, KITCHEN_TASKS  # noqa: E402

TOL = 1e-9
# Pulls the kettle to its goal and the slide cabinet open within a few steps.
GRAVITY = [10.0, 9.81, -9.81]
TASK_DIMS = {
    "bottom burner": 2,
    "top burner": 2,
    "light switch": 2,
    "slide cabinet": 1,
    "hinge cabinet": 2,
    "microwave": 1,
    "kettle": 7,
}


def _reference(**kwargs):
    patch_mujoco_utils()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from gymnasium_robotics.envs.franka_kitchen.kitchen_env import KitchenEnv
    return KitchenEnv(**kwargs)


def _replay(ref, info, fn):
    rep = Replay(info["draws"][0], int(info["num_draws"][0]))
    ref.robot_env._np_random = rep
    out = fn()
    rep.check_all_used()
    return out


def _mask(names) -> np.ndarray:
    return np.array([t in names for t in KITCHEN_TASKS], np.int32)


def _check(obs, info, r_obs, r_info, what: str) -> None:
    np.testing.assert_allclose(obs["observation"][0], r_obs["observation"], rtol=0, atol=TOL, err_msg=what)
    for t in r_obs["achieved_goal"]:
        s = KITCHEN_GOAL_SLICES[t]
        np.testing.assert_allclose(
            obs["achieved_goal"][0][s], r_obs["achieved_goal"][t], rtol=0, atol=TOL, err_msg=what
        )
        np.testing.assert_array_equal(obs["desired_goal"][0][s], r_obs["desired_goal"][t], err_msg=what)
    for k in ("tasks_to_complete", "step_task_completions", "episode_task_completions"):
        np.testing.assert_array_equal(info[k][0], _mask(r_info[k]), err_msg=f"{what} {k}")


def run(episodes: int, steps: int, seed: int, gravity=None, actions=None, **options) -> int:
    """Returns the number of task completions seen (so a test can insist on some)."""
    ours = envpool.make(
        "FrankaKitchen-v1",
        env_type="gymnasium",
        num_envs=1,
        seed=seed,
        report_draws=True,
        max_episode_steps=steps,
        **options,
    )
    ref = _reference(**options)
    if gravity is not None:
        ours.set_model("opt.gravity", np.array(gravity))
        ref.model.opt.gravity[:] = gravity
    rng = np.random.default_rng(seed)
    completions = 0
    for ep in range(episodes):
        obs, info = ours.reset()
        r_obs, r_info = _replay(ref, info, lambda: ref.reset())
        _check(obs, info, r_obs, r_info, f"episode {ep} reset")
        for t in range(steps):
            act = rng.uniform(-1.2, 1.2, size=9).astype(np.float32) if actions is None else actions(t)
            obs, rew, term, trunc, info = ours.step(act[None])
            r_obs, r_rew, r_term, _, r_info = _replay(ref, info, lambda: ref.step(act))
            what = f"episode {ep} step {t}"
            _check(obs, info, r_obs, r_info, what)
            assert float(rew[0]) == r_rew, what
            assert bool(term[0]) == r_term, what
            completions += int(r_rew)
            if r_term:
                break
            assert bool(trunc[0]) == (t == steps - 1), what
    ours.close()
    return completions


def test_matches_reference_default_options() -> None:
    run(episodes=2, steps=15, seed=3)


def test_matches_reference_with_tasks_completing() -> None:
    """Gravity along +x and +y slides the kettle to its goal and opens the slide cabinet:
    both tasks complete in one step (reward 2) and end the episode, as in the reference."""
    n = run(episodes=2, steps=12, seed=1, gravity=GRAVITY, tasks_to_complete=["kettle", "slide cabinet"])
    assert n >= 4


def test_non_finite_actions_match_reference() -> None:
    """inf clips to the bound; a NaN reaches the ctrl (MuJoCo zeroes the ctrl, with a warning)
    in both; the pool stays usable."""

    def actions(t: int) -> np.ndarray:
        a = np.full(9, 0.3, np.float32)
        a[t % 9] = (np.inf, -np.inf, np.nan)[t % 3]
        return a

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        run(episodes=1, steps=6, seed=0, actions=actions)


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [
        {"tasks_to_complete": ["kettle", "slide cabinet", "microwave"], "remove_task_when_completed": False},
        {"tasks_to_complete": ["kettle", "slide cabinet"], "terminate_on_tasks_completed": False},
        {"tasks_to_complete": [], "robot_noise_ratio": 0.0},
        {"tasks_to_complete": ["microwave", "light switch"], "robot_noise_ratio": 0.1, "object_noise_ratio": 0.0},
    ],
)
def test_matches_reference_options(options: dict) -> None:
    run(episodes=2, steps=30, seed=5, gravity=GRAVITY, **options)


def test_spaces_and_layout() -> None:
    spec = envpool.make_spec("FrankaKitchen-v1")
    assert spec.max_episode_steps == 280
    space = envpool.make("FrankaKitchen-v1", env_type="gymnasium", num_envs=1).observation_space
    assert space["observation"].shape == (59,)
    assert space["achieved_goal"].shape == space["desired_goal"].shape == (17,)
    assert [KITCHEN_GOAL_SLICES[t].stop - KITCHEN_GOAL_SLICES[t].start for t in KITCHEN_TASKS] == [
        TASK_DIMS[t] for t in KITCHEN_TASKS
    ]
    assert spec.action_space.shape == (9,)
    # the dm interface's namedtuple too
    dm = envpool.make("FrankaKitchen-v1", env_type="dm", num_envs=1)
    ts = dm.reset()
    assert ts.observation.achieved_goal.shape == (1, 17) and ts.observation.tasks_to_complete.shape == (1, 7)
    dm.close()


def test_compute_reward_equals_reference() -> None:
    """On random goal dicts around the goals (some tasks within 0.3): the pool's count,
    from the (…, 17) arrays or from the reference's dicts, is the reference's."""
    tasks = ["kettle", "microwave", "light switch"]
    ref = _reference(tasks_to_complete=tasks)
    env = envpool.make("FrankaKitchen-v1", env_type="gymnasium", num_envs=1, tasks_to_complete=tasks)
    rng = np.random.default_rng(0)
    desired = np.concatenate([ref.goal.get(t, np.zeros(TASK_DIMS[t])) for t in KITCHEN_TASKS])
    achieved = desired + rng.uniform(-0.25, 0.25, size=(64, 17))
    want = [ref.compute_reward({t: row[KITCHEN_GOAL_SLICES[t]] for t in tasks}, ref.goal, {}) for row in achieved]
    got = env.compute_reward(achieved, np.broadcast_to(desired, achieved.shape), {})
    np.testing.assert_array_equal(got, want)
    assert 0 < got.min() < got.max() == 3
    by_task = {t: achieved[:, KITCHEN_GOAL_SLICES[t]] for t in tasks}
    np.testing.assert_array_equal(env.compute_reward(by_task, ref.goal, None), want)
    # info's mask (the tasks still to complete) restricts the count per row
    mask = np.zeros((64, 7), np.int32)
    mask[:, KITCHEN_TASKS.index("kettle")] = 1
    kettle = [float(np.linalg.norm(r[KITCHEN_GOAL_SLICES["kettle"]] - ref.goal["kettle"]) < 0.3) for r in achieved]
    np.testing.assert_array_equal(env.compute_reward(achieved, desired, {"tasks_to_complete": mask}), kettle)
    env.close()


@pytest.mark.parametrize(
    "options,match",
    [
        ({"tasks_to_complete": ["oven"]}, "unknown task"),
        ({"tasks_to_complete": "kettle,oven"}, "unknown task"),
        ({"robot_noise_ratio": -0.1}, "robot_noise_ratio"),
        ({"object_noise_ratio": float("nan")}, "object_noise_ratio"),
    ],
)
def test_bad_options_are_value_errors(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        envpool.make("FrankaKitchen-v1", env_type="gymnasium", num_envs=1, **options)

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

from envpool.tasks.robotics import KITCHEN_TASKS  # noqa: E402

TOL = 1e-9
# Pulls the kettle to its goal and the slide cabinet open within a few steps.
GRAVITY = [10.0, 9.81, -9.81]
TASK_DIMS = {"bottom burner": 2, "top burner": 2, "light switch": 2, "slide cabinet": 1,
             "hinge cabinet": 2, "microwave": 1, "kettle": 7}


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
    for t in KITCHEN_TASKS:
        if t in r_obs["achieved_goal"]:
            np.testing.assert_allclose(obs[f"achieved_goal:{t}"][0], r_obs["achieved_goal"][t], rtol=0, atol=TOL)
            np.testing.assert_array_equal(obs[f"desired_goal:{t}"][0], r_obs["desired_goal"][t])
    for k in ("tasks_to_complete", "step_task_completions", "episode_task_completions"):
        np.testing.assert_array_equal(info[k][0], _mask(r_info[k]), err_msg=f"{what} {k}")


def run(episodes: int, steps: int, seed: int, gravity=None, **options) -> int:
    """Returns the number of task completions seen (so a test can insist on some)."""
    ours = envpool.make(
        "FrankaKitchen-v1", env_type="gymnasium", num_envs=1, seed=seed, report_draws=True,
        max_episode_steps=steps, **options
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
            act = rng.uniform(-1.2, 1.2, size=9).astype(np.float32)
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
    for t in KITCHEN_TASKS:
        assert space[f"achieved_goal:{t}"].shape == (TASK_DIMS[t],)
        assert space[f"desired_goal:{t}"].shape == (TASK_DIMS[t],)
    assert spec.action_space.shape == (9,)


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

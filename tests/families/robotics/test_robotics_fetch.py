"""Fetch (cpp/mujoco/robotics/fetch.h) against gymnasium-robotics 1.4.2's MujocoFetch*Env
on mujoco 3.17.

Fidelity: our env runs with ``report_draws=True`` (each reset's draws in the reference's
order: the block's x/y offsets until it lies 0.1 from the gripper, the goal's offsets, the
in-the-air coin and height). The reference gets a stand-in ``np_random`` replaying them and
checking their ranges; then, step for step over random actions (a little beyond the Box:
clipped), the observation, achieved and desired goal agree to 1e-9 (the Jacobian-times-qvel
velocities sum in another order than numpy's matmul; everything else is the same
arithmetic), the reward equals the reference's (as float32, the pool's reward type) and
``is_success`` is equal. The reference is patched for mujoco 3.17 (_robotics_reference.
patch_mujoco_utils; docs/differences.md).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import envpool

pytest.importorskip("gymnasium_robotics")
from _robotics_reference import patch_mujoco_utils  # noqa: E402
from _robotics_reference import replay as _replay  # noqa: E402

TOL = 1e-9
TASKS = ("FetchReach", "FetchPush", "FetchSlide", "FetchPickAndPlace")
IDS = [(f"{t}{suffix}-v4", t, reward) for t in TASKS for suffix, reward in (("", "sparse"), ("Dense", "dense"))]


def _reference(task: str, reward: str):
    patch_mujoco_utils()
    from gymnasium_robotics.envs.fetch import pick_and_place, push, reach, slide

    cls = {
        "FetchReach": reach.MujocoFetchReachEnv,
        "FetchPush": push.MujocoFetchPushEnv,
        "FetchSlide": slide.MujocoFetchSlideEnv,
        "FetchPickAndPlace": pick_and_place.MujocoFetchPickAndPlaceEnv,
    }[task]
    return cls(reward_type=reward)


def _check_obs(obs, r_obs, what: str) -> None:
    for key in ("observation", "achieved_goal", "desired_goal"):
        assert obs[key][0].shape == r_obs[key].shape, f"{what}: {key}"
        np.testing.assert_allclose(obs[key][0], r_obs[key], rtol=0, atol=TOL, err_msg=f"{what}: {key}")


def run_replayed(task_id: str, task: str, reward: str, episodes: int, seed: int, actions=None, **kwargs) -> dict:
    ours = envpool.make(task_id, env_type="gymnasium", num_envs=1, seed=seed, report_draws=True, **kwargs)
    ref = _reference(task, reward)
    rng = np.random.default_rng(seed)
    seen = {"success": 0, "steps": 0}
    limit = ours.spec.max_episode_steps
    for ep in range(episodes):
        obs, info = ours.reset()
        r_obs, _ = _replay(ref, info, lambda: ref.reset())
        _check_obs(obs, r_obs, f"{task_id} episode {ep} reset")
        for t in range(limit):
            act = rng.uniform(-1.2, 1.2, size=4).astype(np.float32) if actions is None else actions(t)
            obs, rew, term, trunc, info = ours.step(act[None])
            r_obs, r_rew, r_term, r_trunc, r_info = _replay(ref, info, lambda: ref.step(act))
            what = f"{task_id} episode {ep} step {t}"
            _check_obs(obs, r_obs, what)
            assert rew[0] == np.float32(r_rew), what
            assert bool(info["is_success"][0]) == bool(r_info["is_success"]), what
            assert not term[0] and not r_term, what
            assert bool(trunc[0]) == (t == limit - 1), what
            seen["success"] += bool(r_info["is_success"])
            seen["steps"] += 1
        assert trunc[0]
    ours.close()
    return seen


@pytest.mark.parametrize("task_id,task,reward", IDS)
def test_matches_reference(task_id: str, task: str, reward: str) -> None:
    """Every v4 id: 3 episodes of 50 random actions each."""
    seen = run_replayed(task_id, task, reward, episodes=3, seed=len(task_id))
    assert seen["steps"] == 150


def test_reach_successes_match() -> None:
    """Towards the goal: is_success turns on (and the sparse reward to 0) in both."""
    ours_goal = {}

    def towards(t):
        return np.append(np.clip(20 * (ours_goal["g"] - ours_goal["p"]), -1, 1), 0.0).astype(np.float32)

    ours = envpool.make("FetchReach-v4", env_type="gymnasium", num_envs=1, seed=3, report_draws=True)
    ref = _reference("FetchReach", "sparse")
    obs, info = ours.reset()
    _replay(ref, info, lambda: ref.reset())
    successes = 0
    for t in range(50):
        ours_goal["g"], ours_goal["p"] = obs["desired_goal"][0], obs["achieved_goal"][0]
        act = towards(t)
        obs, rew, _, _, info = ours.step(act[None])
        r_obs, r_rew, _, _, r_info = _replay(ref, info, lambda: ref.step(act))
        _check_obs(obs, r_obs, f"step {t}")
        assert rew[0] == r_rew and bool(info["is_success"][0]) == bool(r_info["is_success"])
        successes += bool(r_info["is_success"])
    assert successes > 10
    ours.close()


def test_v1_ids_run_the_v4_env() -> None:
    """EnvPool 1.2.5's v1 ids (mujoco-py's, which does not run on mujoco 3) are the v4 env."""
    for task in TASKS:
        a = envpool.make(f"{task}-v1", env_type="gymnasium", num_envs=2, seed=4)
        b = envpool.make(f"{task}-v4", env_type="gymnasium", num_envs=2, seed=4)
        oa, _ = a.reset()
        ob, _ = b.reset()
        act = np.full((2, 4), 0.3, np.float32)
        oa = a.step(act)[0]
        ob = b.step(act)[0]
        for k in oa:
            np.testing.assert_array_equal(oa[k], ob[k])
        a.close()
        b.close()


def test_spaces_and_lengths() -> None:
    for task_id, task, _ in IDS:
        spec = envpool.make_spec(task_id)
        assert spec.max_episode_steps == 50
        assert spec.observation_space["observation"].shape == ((10,) if task == "FetchReach" else (25,))
        assert spec.observation_space["desired_goal"].shape == (3,)
        assert spec.action_space.shape == (4,)
        np.testing.assert_array_equal(spec.action_space.low, -np.ones(4, np.float32))


def test_compute_reward_equals_reference() -> None:
    rng = np.random.default_rng(1)
    ag = rng.uniform(1.0, 1.5, size=(32, 3))
    dg = ag + rng.uniform(-0.06, 0.06, size=(32, 3))
    for task_id, task, reward in IDS[:2] + IDS[-2:]:
        ref = _reference(task, reward)
        want = ref.compute_reward(ag, dg, {})
        for env_type in ("gymnasium", "gym", "dm"):
            env = envpool.make(task_id, env_type=env_type, num_envs=2)
            got = env.compute_reward(ag, dg, {})
            assert got.dtype == want.dtype and got.shape == (32,)
            np.testing.assert_array_equal(got, want)
            env.close()
        if reward == "sparse":
            assert 0 < (want == 0).sum() < 32
    env = envpool.make("FetchPush-v4", env_type="gymnasium", num_envs=1, distance_threshold=0.01)
    assert (env.compute_reward(ag, dg, {}) == -(np.linalg.norm(ag - dg, axis=-1) > 0.01).astype(np.float32)).all()
    env.close()


def test_distance_threshold_option() -> None:
    """distance_threshold sets is_success and the sparse reward (a huge one: always reached)."""
    env = envpool.make("FetchReach-v4", env_type="gymnasium", num_envs=2, distance_threshold=10.0)
    env.reset()
    _, rew, _, _, info = env.step(np.zeros((2, 4), np.float32))
    assert (info["is_success"] == 1).all() and (rew == 0).all()
    env.close()


def test_per_env_seeds_env_options_and_model() -> None:
    a = envpool.make("FetchPush-v4", env_type="gymnasium", num_envs=2, seed=[5, 6])
    b = envpool.make("FetchPush-v4", env_type="gymnasium", num_envs=2, seed=[6, 5])
    oa, _ = a.reset()
    ob, _ = b.reset()
    np.testing.assert_array_equal(oa["desired_goal"][0], ob["desired_goal"][1])
    # the weld's zeroed relative pose is the env's own model (reset_mocap_welds)
    eq = a.get_model("eq_data")
    np.testing.assert_array_equal(eq[0, 0, :7], [0, 0, 0, 0, 0, 0, 1])
    a.set_model("opt.timestep", np.array([0.002, 0.001]))
    obs = a.step(np.full((2, 4), 0.5, np.float32))[0]
    assert not np.array_equal(obs["observation"][0], obs["observation"][1])
    c = envpool.make("FetchPush-v4", env_type="gymnasium", num_envs=2, env_options=[{}, {"reward_type": "dense"}])
    c.reset()
    rew = c.step(np.zeros((2, 4), np.float32))[1]
    assert rew[0] in (-1.0, 0.0) and -1 < rew[1] < 0
    r = envpool.make(
        "FetchPickAndPlace-v4",
        env_type="gymnasium",
        num_envs=2,
        model_randomization={"body_mass": ("scale", 0.8, 1.2)},
        model_info=True,
    )
    _, info = r.reset()
    assert info["model_body_mass"].shape[0] == 2 and not np.array_equal(*info["model_body_mass"])
    for env in (a, b, c, r):
        env.close()


@pytest.mark.parametrize(
    "options,match",
    [
        ({"distance_threshold": -0.01}, "distance_threshold"),
        ({"reward_type": "shaped"}, "reward_type"),
        ({"target_offset": [0.0, 1.0]}, "target_offset"),
        ({"obj_range": 0.0}, "obj_range"),
        ({"from_pixels": True}, "from_pixels"),
    ],
)
def test_bad_options_are_value_errors(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        envpool.make("FetchPush-v4", env_type="gymnasium", num_envs=1, **options)


def test_unknown_option_is_refused() -> None:
    with pytest.raises((ValueError, TypeError), match="no_such_option"):
        envpool.make("FetchReach-v4", env_type="gymnasium", num_envs=1, no_such_option=1)


@pytest.mark.parametrize("task", ["FetchReach", "FetchPickAndPlace"])
def test_non_finite_actions_match_reference(task: str) -> None:
    """NaN and inf actions pass the reference's clip as they pass ours (inf to the bound, NaN
    as NaN). A NaN moves the mocap to NaN; MuJoCo then finds the accelerations bad and
    resets the simulation with a warning, in both. The pool stays usable."""
    acts = [[np.inf, -np.inf, 0.1, np.inf], [np.nan, 0.0, 0.0, 0.5], [0.1, 0.2, 0.3, np.nan], [0.2, 0.2, 0.2, 0.2]]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        run_replayed(
            f"{task}-v4",
            task,
            "sparse",
            episodes=1,
            seed=1,
            actions=lambda t: np.array(acts[t % 4], np.float32),
            max_episode_steps=8,
        )

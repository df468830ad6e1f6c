"""Shadow Hand (cpp/mujoco/robotics/hand.h) against gymnasium-robotics 1.4.2's
MujocoHandReachEnv and MujocoHand{Block,Egg,Pen}[TouchSensors]Env on mujoco 3.17.

Fidelity: our env runs with ``report_draws=True`` (each reset's draws in the reference's
order: HandReach's finger, meeting-point noise and keep-the-pose coin; the manipulate
tasks' initial turn and shift of the object, again on each retry when it fell off the
palm, then the goal's offsets, angle, axis or parallel face). The reference gets a stand-in
``np_random`` replaying them (checking their ranges); then, step for step over random
actions a little beyond the Box (clipped), the observation, achieved and desired goal
agree to 1e-9 (the same MuJoCo calls and arithmetic; the norms sum in order where numpy's
dot may pair them), the reward equals the reference's (as float32, the pool's reward type)
and ``is_success`` is equal. The reference is built from gymnasium-robotics' own registry
entry of each id (its kwargs), with mujoco_utils patched for mujoco 3.17
(_robotics_reference.patch_mujoco_utils; docs/differences.md).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import envpool
from envpool.registration import list_all_envs

pytest.importorskip("gymnasium_robotics")
from _robotics_reference import patch_mujoco_utils  # noqa: E402
from _robotics_reference import replay as _replay  # noqa: E402

TOL = 1e-9
HAND_IDS = sorted(e for e in list_all_envs() if e.startswith(("HandReach", "HandManipulate")))
# the mujoco-bindings ids; v0 (mujoco-py's) runs the same env
MUJOCO_IDS = [e for e in HAND_IDS if not e.endswith("-v0")]


def _reference(task_id: str, **options):
    patch_mujoco_utils()
    import gymnasium
    import gymnasium_robotics  # noqa: F401  (registers the ids)

    spec = gymnasium.spec(task_id)
    module, name = spec.entry_point.split(":")
    cls = getattr(__import__(module, fromlist=[name]), name)
    return cls(**{**spec.kwargs, **options})


def _check_obs(obs, r_obs, what: str) -> None:
    for key in ("observation", "achieved_goal", "desired_goal"):
        assert obs[key][0].shape == r_obs[key].shape, f"{what}: {key}"
        np.testing.assert_allclose(obs[key][0], r_obs[key], rtol=0, atol=TOL, err_msg=f"{what}: {key}")


def run_replayed(task_id: str, episodes: int, steps: int, seed: int, actions=None, **options) -> dict:
    ours = envpool.make(
        task_id, env_type="gymnasium", num_envs=1, seed=seed, report_draws=True, max_episode_steps=steps, **options
    )
    ref = _reference(task_id, **options)
    rng = np.random.default_rng(seed)
    seen = {"success": 0, "steps": 0}
    for ep in range(episodes):
        obs, info = ours.reset()
        r_obs, _ = _replay(ref, info, lambda: ref.reset())
        _check_obs(obs, r_obs, f"{task_id} episode {ep} reset")
        for t in range(steps):
            act = rng.uniform(-1.2, 1.2, size=20).astype(np.float32) if actions is None else actions(t)
            obs, rew, term, trunc, info = ours.step(act[None])
            r_obs, r_rew, r_term, _, r_info = _replay(ref, info, lambda: ref.step(act))
            what = f"{task_id} episode {ep} step {t}"
            _check_obs(obs, r_obs, what)
            assert rew[0] == np.float32(r_rew), what
            assert bool(info["is_success"][0]) == bool(r_info["is_success"]), what
            assert not term[0] and not r_term, what
            assert bool(trunc[0]) == (t == steps - 1), what
            seen["success"] += bool(r_info["is_success"])
            seen["steps"] += 1
    ours.close()
    return seen


def test_ids_are_envpool_125s() -> None:
    """EnvPool 1.2.5's 112 Shadow Hand ids: 4 HandReach, 108 HandManipulate."""
    assert len(HAND_IDS) == 112
    assert sum(e.startswith("HandReach") for e in HAND_IDS) == 4
    assert "HandManipulateBlockRotateParallel_ContinuousTouchSensorsDense-v0" in HAND_IDS
    assert "HandManipulatePenFull_BooleanTouchSensors-v1" not in HAND_IDS


@pytest.mark.parametrize("task_id", ["HandReach-v3", "HandManipulateBlockRotateParallelDense-v1"])
def test_representative_ids_match_reference(task_id: str) -> None:
    """Two episodes each, one full HandReach episode length."""
    seen = run_replayed(task_id, episodes=2, steps=25, seed=7)
    assert seen["steps"] == 50


@pytest.mark.parametrize(
    "task_id,options",
    [
        ("HandReach-v3", {"distance_threshold": 0.1}),
        ("HandManipulatePenRotate-v1", {"rotation_threshold": 1.0}),
    ],
)
def test_thresholds_and_successes_match(task_id: str, options: dict) -> None:
    """The reference's threshold keywords, loose enough that is_success (and the sparse
    reward) turns on and off within the episodes, in both."""
    seen = run_replayed(task_id, episodes=2, steps=20, seed=3, **options)
    assert 0 < seen["success"] < seen["steps"], seen


@pytest.mark.slow
@pytest.mark.parametrize("task_id", MUJOCO_IDS)
def test_every_id_matches_reference(task_id: str) -> None:
    """Every id (v1/v3; v0 is the same env, below): 2 short episodes."""
    run_replayed(task_id, episodes=2, steps=8, seed=len(task_id))


def test_v0_ids_run_the_mujoco_env() -> None:
    for v0, v1 in (("HandReachDense-v0", "HandReachDense-v3"), ("HandManipulateEgg_BooleanTouchSensors-v0", None)):
        v1 = v1 or v0.replace("-v0", "-v1")
        a = envpool.make(v0, env_type="gymnasium", num_envs=1, seed=4)
        b = envpool.make(v1, env_type="gymnasium", num_envs=1, seed=4)
        a.reset()
        b.reset()
        act = np.full((1, 20), 0.3, np.float32)
        oa, ob = a.step(act)[0], b.step(act)[0]
        for k in oa:
            np.testing.assert_array_equal(oa[k], ob[k])
        a.close()
        b.close()


def test_spaces_and_lengths() -> None:
    for task_id, obs_size, goal_size, steps in (
        ("HandReach-v3", 63, 15, 50),
        ("HandManipulateBlock-v1", 61, 7, 100),
        ("HandManipulatePenRotate_ContinuousTouchSensors-v1", 153, 7, 100),
    ):
        spec = envpool.make_spec(task_id)
        assert spec.max_episode_steps == steps
        assert spec.observation_space["observation"].shape == (obs_size,)
        assert spec.observation_space["desired_goal"].shape == (goal_size,)
        assert spec.action_space.shape == (20,)


def test_compute_reward_equals_reference() -> None:
    """The pool's batched compute_reward against the reference's, on goals near and far
    (position within 0.02, rotations small and large), on every interface."""
    rng = np.random.default_rng(1)
    reach_ag = rng.uniform(0.8, 1.1, size=(32, 15))
    reach_dg = reach_ag + rng.uniform(-0.004, 0.004, size=(32, 15))
    pos = rng.uniform(0.9, 1.1, size=(32, 3))
    quat = rng.normal(size=(32, 4))
    quat /= np.linalg.norm(quat, axis=-1, keepdims=True)
    turn = quat + rng.normal(scale=np.where(np.arange(32) < 16, 0.02, 1.0)[:, None], size=(32, 4))
    turn /= np.linalg.norm(turn, axis=-1, keepdims=True)
    man_ag = np.concatenate([pos, quat], axis=-1)
    man_dg = np.concatenate([pos + rng.uniform(-0.012, 0.012, size=(32, 3)), turn], axis=-1)
    cases = [("HandReach-v3", reach_ag, reach_dg), ("HandReachDense-v3", reach_ag, reach_dg)]
    for task in ("HandManipulateBlock", "HandManipulateBlockRotateZ", "HandManipulatePen"):
        cases += [(f"{task}-v1", man_ag, man_dg), (f"{task}Dense-v1", man_ag, man_dg)]
    for task_id, ag, dg in cases:
        want = _reference(task_id).compute_reward(ag, dg, {})
        for env_type in ("gymnasium", "dm"):
            env = envpool.make(task_id, env_type=env_type, num_envs=1)
            got = env.compute_reward(ag, dg, {})
            assert got.dtype == want.dtype and got.shape == (32,), task_id
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=task_id)
            env.close()
        if "Dense" not in task_id:
            assert 0 < (want == 0).sum() < 32, task_id


@pytest.mark.parametrize(
    "task_id,options,match",
    [
        ("HandReach-v3", {"distance_threshold": -0.01}, "distance_threshold"),
        ("HandReach-v3", {"reward_type": "shaped"}, "reward_type"),
        ("HandManipulateBlock-v1", {"target_rotation": "fixed"}, "target_rotation"),
        ("HandManipulateBlock-v1", {"target_position": "far"}, "target_position"),
        ("HandManipulateBlock-v1", {"touch_get_obs": "boolean"}, "touch"),
        ("HandManipulateEgg_BooleanTouchSensors-v1", {"touch_get_obs": "bits"}, "touch_get_obs"),
        ("HandManipulateBlock-v1", {"target_position_range": [0.0, 1.0]}, "target_position_range"),
        ("HandManipulateBlock-v1", {"from_pixels": True}, "from_pixels"),
    ],
)
def test_bad_options_are_value_errors(task_id: str, options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        envpool.make(task_id, env_type="gymnasium", num_envs=1, **options)


def test_non_finite_actions_match_reference() -> None:
    """NaN and inf actions (inf clipped to the bound as the reference clips; NaN passes
    the clip and makes the ctrl NaN, which MuJoCo zeroes with a warning, in both): the
    episodes stay equal, and the pool resets and steps on."""
    acts = [np.inf, -np.inf, np.nan, 0.1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        run_replayed(
            "HandManipulateBlock-v1", episodes=2, steps=4, seed=3, actions=lambda t: np.full(20, acts[t], np.float32)
        )


def test_a_palm_that_cannot_hold_the_object_is_an_error_not_a_hang() -> None:
    # The reference retries the manipulate reset for ever (none of 360 sampled resets needed a
    # second try). With gravity throwing the object off the palm and pressing it below the
    # reference's 0.04 m "on the palm" height we refuse after HandManipulate::kResetAttempts
    # tries, and the pool stays usable.
    env = envpool.make("HandManipulateBlock-v1", env_type="gymnasium", num_envs=2, seed=3)
    env.reset()
    env.set_model("opt.gravity", np.array([[0.0, 0.0, -9.81], [0.0, -100.0, -500.0]]))
    with pytest.raises(RuntimeError, match="fell off the palm in 100 reset attempts") as e:
        env.reset()
    assert list(e.value.failed_env_ids) == [1]
    env.set_model("opt.gravity", np.array([0.0, 0.0, -9.81]))
    obs, _ = env.reset()
    assert np.isfinite(obs["observation"]).all()
    env.close()

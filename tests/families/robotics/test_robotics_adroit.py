"""Adroit (cpp/mujoco/robotics/adroit.h) against gymnasium-robotics 1.4.2's AdroitHand*Env
on mujoco 3.17.

Fidelity: our env reports each reset's draws (``report_draws=True``: the door's position,
the nail board's height, the pen target's two angles, the ball's and target's positions) and
the reference replays them (a stand-in ``np_random`` checking each range); then, step for step
over random actions (a little beyond the Box: clipped), the observation agrees to 1e-9 (the
hammer's reward takes a BLAS norm of qvel, summed in another order; all else is the same
arithmetic), the reward equals the reference's as float32 (the pool's reward type) and info
``success`` is equal. The edited model (the servo gains, the randomized body or site) equals
the reference's. The reference needs no patch for Adroit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import envpool

pytest.importorskip("gymnasium_robotics")
from _robotics_reference import replay as _replay  # noqa: E402

TOL = 1e-9
TASKS = ("Door", "Hammer", "Pen", "Relocate")
IDS = [
    (f"AdroitHand{t}{suffix}-v1", t, reward) for t in TASKS for suffix, reward in (("", "dense"), ("Sparse", "sparse"))
]
BODY = {"Door": "frame", "Hammer": "nail_board", "Pen": "target", "Relocate": "Object"}


def _reference(task: str, reward: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from gymnasium_robotics.envs.adroit_hand import adroit_door, adroit_hammer, adroit_pen, adroit_relocate

    cls = {
        "Door": adroit_door.AdroitHandDoorEnv,
        "Hammer": adroit_hammer.AdroitHandHammerEnv,
        "Pen": adroit_pen.AdroitHandPenEnv,
        "Relocate": adroit_relocate.AdroitHandRelocateEnv,
    }[task]
    return cls(reward_type=reward)


def run_replayed(task_id: str, task: str, reward: str, episodes: int, steps: int, seed: int, actions=None) -> None:
    ours = envpool.make(
        task_id, env_type="gymnasium", num_envs=1, seed=seed, report_draws=True, max_episode_steps=steps
    )
    ref = _reference(task, reward)
    rng = np.random.default_rng(seed)
    nu = ours.action_space.shape[0]
    for ep in range(episodes):
        obs, info = ours.reset()
        r_obs, _ = _replay(ref, info, lambda: ref.reset())
        np.testing.assert_allclose(obs[0], r_obs, rtol=0, atol=TOL, err_msg=f"{task_id} episode {ep} reset")
        for name in ("body_pos", "body_quat", "site_pos", "actuator_gainprm", "actuator_biasprm"):
            np.testing.assert_array_equal(ours.get_model(name)[0], getattr(ref.model, name), err_msg=name)
        for t in range(steps):
            act = rng.uniform(-1.2, 1.2, size=nu).astype(np.float32) if actions is None else actions(t, nu)
            obs, rew, term, trunc, info = ours.step(act[None])
            r_obs, r_rew, r_term, _, r_info = _replay(ref, info, lambda: ref.step(act))
            what = f"{task_id} episode {ep} step {t}"
            np.testing.assert_allclose(obs[0], r_obs, rtol=0, atol=TOL, err_msg=what)
            assert abs(float(rew[0]) - float(np.float32(r_rew))) <= 1e-6 * max(1.0, abs(r_rew)), what
            assert bool(info["success"][0]) == bool(r_info["success"]), what
            assert not term[0] and not r_term
            assert bool(trunc[0]) == (t == steps - 1), what
    ours.close()


@pytest.mark.parametrize("task_id,task,reward", IDS)
def test_matches_reference(task_id: str, task: str, reward: str) -> None:
    """Every id: 3 episodes of 40 random actions (the episode length cut from 200)."""
    run_replayed(task_id, task, reward, episodes=3, steps=40, seed=len(task_id))


def test_spaces_and_lengths() -> None:
    sizes = {"Door": (39, 28), "Hammer": (46, 26), "Pen": (45, 24), "Relocate": (39, 30)}
    for task_id, task, _ in IDS:
        spec = envpool.make_spec(task_id)
        assert spec.max_episode_steps == 200
        assert spec.observation_space.shape == (sizes[task][0],)
        assert spec.action_space.shape == (sizes[task][1],)
        np.testing.assert_array_equal(spec.action_space.high, np.ones(sizes[task][1], np.float32))


def test_reset_randomizes_per_env_model() -> None:
    """Each env's randomized body is its own (the model copy per env), per episode."""
    env = envpool.make("AdroitHandDoor-v1", env_type="gymnasium", num_envs=2, seed=0)
    env.reset()
    frame = envpool.make("AdroitHandDoor-v1", env_type="gymnasium", num_envs=1)
    frame.close()
    a = env.get_model("body_pos").copy()
    env.reset()
    b = env.get_model("body_pos")
    assert not np.array_equal(a[0], a[1]) and not np.array_equal(a[0], b[0])
    env.close()


@pytest.mark.parametrize(
    "options,match", [({"reward_type": "shaped"}, "reward_type"), ({"adroit_task": "cup"}, "adroit_task")]
)
def test_bad_options_are_value_errors(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        envpool.make("AdroitHandDoor-v1", env_type="gymnasium", num_envs=1, **options)


def test_reward_type_is_read_in_either_case() -> None:
    """The reference lower-cases reward_type: "Sparse" is the sparse reward."""
    env = envpool.make("AdroitHandDoor-v1", env_type="gymnasium", num_envs=1, reward_type="Sparse")
    env.reset()
    assert env.step(np.zeros((1, 28), np.float32))[1][0] == np.float32(-0.1)
    env.close()


def test_non_finite_actions_match_reference() -> None:
    """inf clips to the bound; a NaN becomes a NaN ctrl, which MuJoCo zeroes (with a
    warning) in both; the pool stays usable."""

    def actions(t: int, nu: int) -> np.ndarray:
        a = np.full(nu, 0.3, np.float32)
        a[t % nu] = (np.inf, -np.inf, np.nan)[t % 3]
        return a

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        run_replayed("AdroitHandRelocate-v1", "Relocate", "dense", episodes=1, steps=6, seed=0, actions=actions)

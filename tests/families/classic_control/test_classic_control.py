"""Classic control against gymnasium's own envs, state for state.

Each test puts gymnasium's env into our env's exact float64 state (exposed
with expose_state=True) at the start of every episode, then steps both with
the same actions and compares every step without re-syncing. Our C++
follows gymnasium's operation order and NumPy's type promotion, so the
float64 states agree to 1e-9 (in practice bit for bit; libm vs NumPy's
SIMD sin/cos may differ in the last ulp), observations are the float32
casts of those states (compared to 1e-6), and rewards and termination are
equal.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from _registry import missing, tasks

import envpool

TASKS = tasks("classic_control")


def _ref_id(task: str) -> str:
    """The gymnasium env whose dynamics a task runs: EnvPool 1.2.5's Pendulum-v0 and phys2d/
    ids run Pendulum-v1 and CartPole (gymnasium's phys2d/ ids are its JAX functional envs)."""
    return envpool.registration.lookup(task).gymnasium_id


def _set_state(ref, task: str, state: np.ndarray) -> None:
    env = ref.unwrapped
    if hasattr(env, "steps_beyond_terminated"):
        env.steps_beyond_terminated = None  # what gymnasium's reset does
    if task.startswith("MountainCarContinuous"):
        env.state = np.array(state, dtype=np.float64)
    elif task.startswith("Acrobot") and np.all(state == state.astype(np.float32)):
        env.state = state.astype(np.float32)  # gymnasium keeps its reset state as float32
    else:
        env.state = np.array(state, dtype=np.float64)


def _actions(space: gymnasium.Space, n: int, rng: np.random.Generator) -> np.ndarray:
    if isinstance(space, gymnasium.spaces.Discrete):
        return rng.integers(0, space.n, size=n).astype(np.int32)
    # Beyond the bounds too, to exercise the clipping paths.
    return rng.uniform(space.low * 1.5, space.high * 1.5, size=(n, *space.shape)).astype(np.float32)


@pytest.mark.parametrize("task", TASKS)
def test_alignment_with_gymnasium(task: str) -> None:
    steps = 2000
    ours = envpool.make(task, env_type="gymnasium", num_envs=1, seed=3, expose_state=True)
    ref = gymnasium.make(_ref_id(task))
    ref.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = _actions(ours.single_action_space, steps, rng)
    obs, info = ours.reset()
    _set_state(ref, task, info["state"][0])
    episodes = 0
    limit = ours.spec.max_episode_steps
    for t in range(steps):
        obs, rew, term, trunc, info = ours.step(actions[t : t + 1])
        if info["elapsed_step"][0] == 0:  # NEXT_STEP autoreset: a fresh episode begins
            episodes += 1
            _set_state(ref, task, info["state"][0])
            assert rew[0] == 0.0 and not term[0] and not trunc[0]
            continue
        r_obs, r_rew, r_term, _, _ = ref.unwrapped.step(actions[t] if actions.ndim > 1 else int(actions[t]))
        np.testing.assert_allclose(info["state"][0], np.asarray(ref.unwrapped.state, np.float64), rtol=0, atol=1e-9)
        np.testing.assert_allclose(obs[0], r_obs, rtol=0, atol=1e-6)
        assert obs.dtype == r_obs.dtype == np.float32
        assert rew[0] == pytest.approx(float(r_rew), abs=1e-9)
        assert bool(term[0]) == bool(r_term), f"step {t}"
        assert bool(trunc[0]) == (not r_term and info["elapsed_step"][0] >= limit)
    # Enough episodes to cover resets, except where random play never ends one.
    if _ref_id(task).startswith(("CartPole", "Acrobot", "Pendulum", "MountainCar-")):
        assert episodes >= 2
    ours.close()


@pytest.mark.parametrize("task", TASKS)
def test_spaces_match_gymnasium(task: str) -> None:
    ours = envpool.make_spec(task)
    ref = gymnasium.make(_ref_id(task))
    assert ours.observation_space == ref.observation_space
    if isinstance(ref.action_space, gymnasium.spaces.Discrete):
        assert ours.action_space.n == ref.action_space.n
    else:
        assert ours.action_space == ref.action_space
    assert ours.max_episode_steps == ref.spec.max_episode_steps
    assert ours.reward_threshold == ref.spec.reward_threshold


# Per task: (state index, low, high) of gymnasium's uniform reset distributions.
RESET_RANGES = {
    "CartPole-v0": [(slice(0, 4), -0.05, 0.05)],
    "CartPole-v1": [(slice(0, 4), -0.05, 0.05)],
    "Pendulum-v1": [(slice(0, 1), -np.pi, np.pi), (slice(1, 2), -1.0, 1.0)],
    "MountainCar-v0": [(slice(0, 1), -0.6, -0.4)],
    "MountainCarContinuous-v0": [(slice(0, 1), -0.6, -0.4)],
    "Acrobot-v1": [(slice(0, 4), -0.1, 0.1)],
}


def test_every_task_has_its_reset_ranges() -> None:
    assert not missing(RESET_RANGES, map(_ref_id, TASKS)), "classic-control tasks with no RESET_RANGES entry"


@pytest.mark.parametrize(
    ("task", "index", "low", "high"), [(t, *r) for t in TASKS for r in RESET_RANGES.get(_ref_id(t), [])]
)
def test_reset_distribution_is_uniform(task: str, index: slice, low: float, high: float) -> None:
    n = 4000
    env = envpool.make(task, env_type="gymnasium", num_envs=n, seed=11, expose_state=True)
    _, info = env.reset()
    x = info["state"][:, index].ravel()
    assert x.min() >= low and x.max() <= high
    # Uniform on [low, high]: mean and variance within ~5 standard errors,
    # and a Kolmogorov-Smirnov distance below the 1e-3 critical value.
    u = (np.sort(x) - low) / (high - low)
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / len(u))
    assert abs(u.var() - 1 / 12) < 0.01
    ks = np.max(np.abs(u - (np.arange(1, len(u) + 1) / len(u))))
    assert ks < 1.95 / np.sqrt(len(u))
    env.close()


def test_mountain_car_velocity_starts_at_zero() -> None:
    env = envpool.make("MountainCar-v0", env_type="gymnasium", num_envs=16, expose_state=True)
    _, info = env.reset()
    assert np.all(info["state"][:, 1] == 0.0)


def test_acrobot_info_state_is_envpools_angles() -> None:
    """EnvPool 1.2.5's Acrobot info["state"]: float32 [theta1, theta2] (gymnasium's info is
    empty); expose_state=True gives the whole float64 state under that key instead."""
    ours = envpool.make("Acrobot-v1", env_type="gymnasium", num_envs=3, seed=5)
    full = envpool.make("Acrobot-v1", env_type="gymnasium", num_envs=3, seed=5, expose_state=True)
    (_, info), (_, info_full) = ours.reset(), full.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        assert info["state"].dtype == np.float32 and info["state"].shape == (3, 2)
        np.testing.assert_array_equal(info["state"], info_full["state"][:, :2].astype(np.float32))
        a = rng.integers(0, 3, size=3).astype(np.int32)
        info, info_full = ours.step(a)[-1], full.step(a)[-1]
    assert np.abs(info_full["state"][:, :2]).max() > 0.5  # the links swung
    assert "state" in envpool.make("Acrobot-v1", env_type="dm", num_envs=1).observation_spec()._fields

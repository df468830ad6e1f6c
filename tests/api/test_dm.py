"""The dm_env interface (``env_type="dm"``): batched TimeSteps, discounts, specs, seeds, actions."""

from __future__ import annotations

import threading

import dm_env
import numpy as np
import pytest
from _isolated import run_python
from _pools import N
from _pools import make_pool as _make
from gymnasium.vector import AutoresetMode

import envpool


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, "same_step", "SameStep"])
def test_dm_refuses_same_step_autoreset(mode) -> None:
    """dm_env has no form for same_step (a LAST step followed by a FIRST is next_step's
    sequence): make says so instead of a LAST that carries the next episode's observation."""
    before = threading.active_count()
    with pytest.raises(ValueError, match="same_step.*dm_env"):
        envpool.make("CartPole-v1", env_type="dm", num_envs=2, autoreset_mode=mode)
    assert threading.active_count() == before
    env = envpool.make("CartPole-v1", env_type="dm", num_envs=2, autoreset_mode="disabled")
    assert env.reset().first().all()
    env.close()


def test_dm_interface() -> None:
    env = envpool.make("CartPole-v1", env_type="dm", num_envs=3, max_episode_steps=2)
    assert isinstance(env, dm_env.Environment)
    ts = env.reset()
    np.testing.assert_array_equal(ts.step_type, dm_env.StepType.FIRST)
    assert ts.observation.obs.shape == (3, 4)
    np.testing.assert_array_equal(ts.observation.env_id, [0, 1, 2])
    spec = env.observation_spec()
    assert spec.obs.shape == (4,) and spec.obs.dtype == np.float32
    assert env.action_spec().num_values == 2
    ts = env.step(np.zeros(3, np.int32))
    np.testing.assert_array_equal(ts.step_type, dm_env.StepType.MID)
    np.testing.assert_array_equal(ts.discount, 1.0)
    ts = env.step(np.zeros(3, np.int32))
    np.testing.assert_array_equal(ts.step_type, dm_env.StepType.LAST)
    np.testing.assert_array_equal(ts.discount, 1.0)  # truncation keeps discount 1
    ts = env.step(np.zeros(3, np.int32))
    np.testing.assert_array_equal(ts.step_type, dm_env.StepType.FIRST)


def test_dm_discount_zero_on_termination() -> None:
    env = envpool.make("CartPole-v1", env_type="dm", num_envs=1, seed=0)
    env.reset()
    for _ in range(500):
        ts = env.step(np.ones(1, np.int32))  # always push right: falls quickly
        if ts.step_type[0] == dm_env.StepType.LAST:
            break
    assert ts.step_type[0] == dm_env.StepType.LAST
    assert ts.discount[0] == 0.0


def test_dm_states_and_specs_pickle_into_a_fresh_interpreter() -> None:
    """EnvPool's State namedtuple is made at run time; pickle could not find it by name."""
    import pickle

    env = envpool.make("CartPole-v1", env_type="dm", num_envs=2)
    ts = env.reset()
    back = pickle.loads(pickle.dumps((env.observation_spec(), ts)))
    assert type(back[1].observation) is type(ts.observation) is env.State
    np.testing.assert_array_equal(back[1].observation.obs, ts.observation.obs)
    np.testing.assert_array_equal(back[1].observation.players.env_id, [0, 1])
    code = f"""
        import pickle
        spec, ts = pickle.loads({pickle.dumps((env.observation_spec(), ts))!r})
        assert type(spec).__name__ == "State" and spec.obs.shape == (4,), spec
        assert ts.observation.obs.shape == (2, 4) and list(ts.observation.players.env_id) == [0, 1], ts
        assert ts.observation._fields == {ts.observation._fields!r}
    """
    run_python(code)


def test_dm_bounded_array_bounds_as_envpool() -> None:
    # EnvPool gives BoundedArray even where a bound is infinite (CartPole's velocities).
    obs = _make("dm").observation_spec().obs
    assert isinstance(obs, dm_env.specs.BoundedArray)
    assert np.isinf(obs.minimum[1]) and obs.minimum[0] == np.float32(-4.8)
    env_id = _make("dm").observation_spec().env_id
    assert env_id.minimum == np.iinfo(np.int32).min and env_id.maximum == np.iinfo(np.int32).max


def test_dm_seed_reseeds_at_next_reset() -> None:
    a = _make("dm", seed=7)
    b = _make("dm", seed=0)
    b.seed(7)
    np.testing.assert_array_equal(a.reset().observation.obs, b.reset().observation.obs)


def test_dm_dict_actions() -> None:
    env = _make("dm")
    ref = _make("dm")
    env.reset(), ref.reset()
    act = np.array([1, 0, 1, 1], np.int32)
    ts = env.step(
        {"action": act, "env_id": np.arange(N, dtype=np.int32), "players.env_id": np.arange(N, dtype=np.int32)}
    )
    np.testing.assert_array_equal(ts.observation.obs, ref.step(act).observation.obs)
    ts = env.step({"action": act[:2], "env_id": np.array([3, 1], np.int32)})
    assert list(ts.observation.env_id) == [3, 1]

"""The gym interface (``env_type="gym"``): EnvPool's classic interface, gym 0.26's tuples and
entries, a gymnasium VectorEnv too."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from _pools import N
from _pools import make_pool as _make
from gymnasium.vector import AutoresetMode

import envpool


def test_gym_same_step_autoreset_gives_gym_026_final_entries() -> None:
    """The gym interface in same_step mode: gym 0.26's vector entries (its SyncVectorEnv's
    keys and kinds: object arrays of the final observation and info dict, None elsewhere,
    and their masks); the final observation is next_step mode's done observation."""
    gym = pytest.importorskip("gym")
    config = dict(num_envs=3, seed=4, max_episode_steps=3)
    same = envpool.make("CartPole-v1", env_type="gym", autoreset_mode="same_step", **config)
    nxt = envpool.make("CartPole-v1", env_type="gym", **config)
    same.reset()
    nxt.reset()
    a = np.array([0, 1, 0])
    for _ in range(3):
        obs, _, term, trunc, info = same.step(a)
        want, _, _, _, _ = nxt.step(a)
        done = term | trunc
        np.testing.assert_array_equal(info["_final_observation"], done)
        np.testing.assert_array_equal(info["_final_info"], done)
        assert info["final_observation"].dtype == object and info["final_info"].dtype == object
        for i in range(3):
            if done[i]:
                np.testing.assert_array_equal(info["final_observation"][i], want[i])
                assert info["final_info"][i]["elapsed_step"] == 3
            else:
                assert info["final_observation"][i] is None and info["final_info"][i] is None
    assert done.all() and np.all(np.abs(obs) <= 0.05)  # the rows are new episodes
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    ref = gym.vector.SyncVectorEnv([lambda: gym.wrappers.TimeLimit(gym.make("CartPole-v1").unwrapped, 3)] * 3)
    ref.reset(seed=0)
    for _ in range(3):
        ref_info = ref.step(a)[-1]
    for key in ("final_observation", "_final_observation", "final_info", "_final_info"):
        assert key in ref_info and type(info[key]) is type(ref_info[key]), key
        assert info[key].dtype == ref_info[key].dtype, key
    same.close()
    nxt.close()
    ref.close()


def test_gym_interface_without_old_gym() -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=2)
    assert env.observation_space.shape == (4,)  # single-env spaces
    assert env.action_space.n == 2
    obs, info = env.reset()
    obs, rew, term, trunc, info = env.step(np.zeros(2, np.int32))
    assert obs.shape == (2, 4)
    env.num_envs = 2  # older scripts assign attributes
    env.is_vector_env = True


def test_gym_legacy_four_tuple(monkeypatch: pytest.MonkeyPatch) -> None:
    import envpool.gym_env as gym_env

    monkeypatch.setattr(gym_env, "_legacy_api", lambda gym: True)
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=2, max_episode_steps=2)
    obs = env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (2, 4)
    env.step(np.zeros(2, np.int32))
    obs, rew, done, info = env.step(np.zeros(2, np.int32))
    assert done.all() and info["TimeLimit.truncated"].all()


def test_gym_seed_applies_at_next_reset() -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=2, seed=3)
    first, _ = env.reset()
    env.step(np.zeros(2, np.int32))
    env.seed(3)
    again, _ = env.reset()
    np.testing.assert_array_equal(first, again)


def test_gym_reset_return_info() -> None:
    env = _make("gym")  # default True (gym >= 0.26 or no gym installed): (obs, info)
    obs, info = env.reset()
    assert obs.shape == (N, 4) and list(info["env_id"]) == list(range(N))
    env = _make("gym", gym_reset_return_info=False)  # EnvPool's old behaviour: obs only
    obs = env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (N, 4)
    with pytest.raises(ValueError, match="gym_reset_return_info"):
        _make("gymnasium", gym_reset_return_info=False)


def test_gym_pool_is_a_gymnasium_env_and_wraps() -> None:
    env = _make("gym")
    assert isinstance(env, gymnasium.Env)
    wrapped = gymnasium.Wrapper(env)
    obs, info = wrapped.reset()
    assert obs.shape == (N, 4)
    out = wrapped.step(np.zeros(N, np.int32))
    assert out[0].shape == (N, 4)


@pytest.mark.parametrize("env_type", ["gym", "gymnasium"])
def test_gym_and_gymnasium_pools_are_env_and_vector_env(env_type: str) -> None:
    # EnvPool 1.2's gym/gymnasium pool is both a gymnasium.vector.VectorEnv and a gymnasium.Env.
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = _make(env_type)
    assert isinstance(env, gymnasium.Env) and isinstance(env, gymnasium.vector.VectorEnv)
    assert env.single_observation_space == env.observation_space
    assert env.single_action_space == env.action_space
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    wrapped = gymnasium.Wrapper(env)
    assert wrapped.reset()[0].shape == (N, 4)
    assert wrapped.step(np.zeros(N, np.int32))[0].shape == (N, 4)
    stats = RecordEpisodeStatistics(env)
    stats.reset()
    assert stats.step(np.zeros(N, np.int32))[0].shape == (N, 4)
    assert env.is_vector_env is True  # EnvPool 1.2.5's flag, gym pools included
    # CleanRL's envpool scripts assign these themselves
    env.single_action_space = env.action_space
    env.single_observation_space = env.observation_space

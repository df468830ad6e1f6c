"""The gymnasium interface (``env_type="gymnasium"``): a gymnasium VectorEnv, its autoreset
modes, reset seeds and masks, env ids, spaces."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from _pools import N
from _pools import make_pool as _make
from gymnasium.vector import AutoresetMode, VectorEnv

import envpool


def test_gymnasium_is_a_vector_env() -> None:
    default = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=1)
    assert isinstance(default, VectorEnv)
    assert default.observation_space.shape == (4,)  # EnvPool 1.2's single-env spaces by default
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=1, batched_spaces=True)
    assert isinstance(env, VectorEnv)
    assert env.num_envs == 4
    assert env.single_observation_space.shape == (4,)
    assert env.observation_space.shape == (4, 4)
    assert env.single_action_space == gymnasium.spaces.Discrete(2)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([2, 2, 2, 2])
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = env.reset()
    assert obs.shape == (4, 4) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(info["env_id"], np.arange(4))
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    obs, rew, term, trunc, info = env.step(env.action_space.sample())
    assert rew.dtype == np.float32 and term.dtype == np.bool_ and trunc.dtype == np.bool_
    np.testing.assert_array_equal(rew, 1.0)
    np.testing.assert_array_equal(info["elapsed_step"], 1)
    env.close()
    assert env.closed


def test_gymnasium_next_step_autoreset() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2, max_episode_steps=3)
    env.reset()
    a = np.zeros(2, np.int32)
    for t in range(1, 4):
        obs, rew, term, trunc, info = env.step(a)
        np.testing.assert_array_equal(info["elapsed_step"], t)
    assert trunc.all() and not term.any()
    obs, rew, term, trunc, info = env.step(a)  # the reset step: action ignored, reward 0
    np.testing.assert_array_equal(rew, 0.0)
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    assert not (term | trunc).any()
    assert np.all(np.abs(obs) <= 0.05)  # a fresh initial state


def test_gymnasium_same_step_autoreset() -> None:
    env = envpool.make(
        "CartPole-v1",
        env_type="gymnasium",
        num_envs=3,
        max_episode_steps=3,
        autoreset_mode="same_step",
        expose_state=True,
    )
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    env.reset()
    a = np.zeros(3, np.int32)
    env.step(a)
    _, _, _, _, info = env.step(a)
    assert not info["_final_obs"].any()
    before = info["state"].astype(np.float32)
    obs, rew, term, trunc, info = env.step(a)
    assert trunc.all()
    np.testing.assert_array_equal(rew, 1.0)
    assert info["_final_obs"].all() and info["_final_info"].all()
    final = np.stack(info["final_obs"])
    assert final.shape == (3, 4)
    # The final observation is one step on from the previous one; obs is a new episode.
    assert not np.allclose(final, before)
    assert np.all(np.abs(obs) <= 0.05)
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    np.testing.assert_array_equal(info["final_info"]["elapsed_step"], 3)
    _, rew, _, _, info = env.step(a)  # no reward-0 step in this mode
    np.testing.assert_array_equal(rew, 1.0)
    np.testing.assert_array_equal(info["elapsed_step"], 1)


def test_gymnasium_reset_seed_reseeds() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=3, seed=5)
    first, _ = env.reset()
    again, _ = env.reset(seed=5)
    np.testing.assert_array_equal(first, again)
    other, _ = env.reset(seed=6)
    assert not np.array_equal(first, other)
    # seed + i per env: env 0 with seed 6 starts where env 1 with seed 5 did.
    np.testing.assert_array_equal(other[0], first[1])
    listed, _ = env.reset(seed=[5, 6, 7])
    np.testing.assert_array_equal(listed, first)


def test_gymnasium_reset_mask() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=3, seed=0)
    env.reset()
    for _ in range(3):
        obs, *_ = env.step(np.ones(3, np.int32))
    mask = np.array([False, True, False])
    new, info = env.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(new[[0, 2]], obs[[0, 2]])
    assert not np.array_equal(new[1], obs[1])
    np.testing.assert_array_equal(info["_elapsed_step"], mask)
    _, _, _, _, info = env.step(np.ones(3, np.int32))
    np.testing.assert_array_equal(info["elapsed_step"], [4, 1, 4])
    # An int seed reseeds each masked env i with seed + i, as a full reset does.
    seeded, _ = env.reset(seed=5, options={"reset_mask": mask})
    fresh, _ = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=3).reset(seed=5)
    np.testing.assert_array_equal(seeded[1], fresh[1])


def test_masked_reset_before_a_full_reset_changes_nothing() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3)
    with pytest.raises(RuntimeError, match="full reset"):
        env.reset(options={"reset_mask": np.array([True, False, False, False])})
    ref = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3)
    np.testing.assert_array_equal(env.reset()[0], ref.reset()[0])


def test_masked_reset_after_a_partial_send_returns_the_right_envs() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3)
    obs, _ = env.reset()
    env.send(np.zeros(2, np.int64), [1, 0])  # a partial send still in flight
    mask = np.array([False, False, True, True])
    fresh, info = env.reset(seed=[10, 11], options={"reset_mask": mask})
    ref = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=0)
    ref_obs, _ = ref.reset(seed=[0, 0, 10, 11])
    np.testing.assert_array_equal(fresh[2:], ref_obs[2:])
    np.testing.assert_array_equal(fresh[:2], obs[:2])
    np.testing.assert_array_equal(info["_env_id"], mask)
    np.testing.assert_array_equal(info["env_id"][2:], [2, 3])
    # The in-flight envs are untouched and still come back.
    _, _, _, _, info = env.recv()
    np.testing.assert_array_equal(info["env_id"], [1, 0])
    # Naming an env in flight is refused before anything is reset.
    env.send(np.zeros(1, np.int64), [3])
    with pytest.raises(ValueError, match="in flight"):
        env.reset(options={"reset_mask": np.array([False, False, True, True])})
    env.recv()


def test_masked_reset_in_async_mode_is_refused_cleanly() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, batch_size=2)
    env.async_reset()
    env.recv()
    with pytest.raises(ValueError, match="sync"):
        env.reset(options={"reset_mask": np.array([True, False, False, False])})
    env.recv()  # the other two envs are still there


def test_masked_reset_after_partial_batches_merges_every_env() -> None:
    """recv() of a partial send, step(a, env_id) and EnvPool's dict action with env ids
    all update the rows a later masked reset merges into; no copy per step."""
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=1)
    obs, _ = env.reset()
    env.send(np.zeros(2, np.int64), [0, 1])
    o01 = env.recv()[0].copy()
    o3 = env.step(np.zeros(1, np.int64), [3])[0].copy()
    o2 = env.step({"action": np.ones(1, np.int64), "env_id": np.array([2])})[0].copy()
    full, info = env.reset(options={"reset_mask": np.array([False, False, False, False])})
    assert full.shape == (4, 4)
    np.testing.assert_array_equal(full[[0, 1]], o01)
    np.testing.assert_array_equal(full[2], o2[0])
    np.testing.assert_array_equal(full[3], o3[0])


def test_masked_reset_after_an_unordered_full_reset_keeps_its_rows() -> None:
    """With no full picture yet (a pool reopened by reset() after close()), a reset of
    every env in another order becomes the picture, and rows of earlier partial batches
    must not be merged over it (found by the call-sequence fuzz: seed 1000, call 288)."""
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=3, seed=1)
    env.reset()
    env.close()
    env.reset(env_id=[1, 0])  # reopens the pool; a partial batch
    env.step(np.array([1, 0]), env_id=[1, 0])
    obs, _ = env.reset(env_id=[0, 2, 1])
    obs = obs.copy()
    full, _ = env.reset(options={"reset_mask": np.array([False, True, True])})
    np.testing.assert_array_equal(full[0], obs[0])
    env.close()


def test_gymnasium_env_id_reset_and_step_return_those_rows() -> None:
    env = _make("gymnasium", seed=3)
    ref = _make("gymnasium", seed=3)
    ref_obs, _ = ref.reset()
    obs, info = env.reset(np.array([2, 0]))
    assert obs.shape == (2, 4)
    assert list(info["env_id"]) == [2, 0]
    np.testing.assert_array_equal(obs, ref_obs[[2, 0]])
    obs, rew, term, trunc, info = env.step(np.array([1, 0], np.int32), np.array([2, 0]))
    assert obs.shape == (2, 4) and rew.shape == (2,) and list(info["env_id"]) == [2, 0]
    ref_step = ref.step(np.array([0, 0, 1, 0], np.int32))[0]
    np.testing.assert_array_equal(obs, ref_step[[2, 0]])
    obs, info = env.reset(env_id=[1])  # keyword too, as Tianshou calls it
    assert obs.shape == (1, 4) and list(info["env_id"]) == [1]


def test_gymnasium_reset_mask_still_returns_full_batch() -> None:
    env = _make("gymnasium")
    env.reset()
    mask = np.array([True, False, False, True])
    obs, info = env.reset(options={"reset_mask": mask})
    assert obs.shape == (N, 4)
    np.testing.assert_array_equal(info["_env_id"], mask)
    with pytest.raises(ValueError, match="not both"):
        env.reset([0], options={"reset_mask": mask})


def test_gymnasium_spaces_single_by_default_batched_as_option() -> None:
    env = _make("gymnasium")
    assert env.observation_space.shape == (4,)
    assert env.action_space == gymnasium.spaces.Discrete(2)
    assert env.single_action_space == env.action_space
    assert env.single_observation_space == env.observation_space
    assert env.action_space.sample().shape == ()
    batched = _make("gymnasium", batched_spaces=True)
    assert batched.observation_space.shape == (N, 4)
    assert batched.action_space == gymnasium.spaces.MultiDiscrete([2] * N)
    assert batched.single_action_space == gymnasium.spaces.Discrete(2)


def test_autoreset_mode_accepts_gymnasium_enum() -> None:
    env = _make("gymnasium", autoreset_mode=AutoresetMode.SAME_STEP)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.config["autoreset_mode"] == "same_step"
    assert (
        envpool.make_spec("CartPole-v1", autoreset_mode=AutoresetMode.NEXT_STEP).config["autoreset_mode"] == "next_step"
    )
    assert (
        envpool.make_spec("CartPole-v1", autoreset_mode=AutoresetMode.DISABLED).config["autoreset_mode"] == "disabled"
    )

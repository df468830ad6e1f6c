"""dm_env: the single-env view passes dm_env's own conformance mixin; the
batched pool keeps dm_env's conventions."""

from __future__ import annotations

import unittest

import dm_env
import numpy as np
import pytest
from absl.testing import absltest
from dm_env import test_utils

import envpool
from envpool.integrations.dm_single import DmSingleEnv


class CartPoleSingleEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):
    """Constant action 0 ends a CartPole episode in ~10 steps: the sequence
    crosses several LAST -> FIRST boundaries (terminations)."""

    def make_object_under_test(self):
        return DmSingleEnv(envpool.make("CartPole-v1", env_type="dm", num_envs=1, seed=3))

    def make_action_sequence(self):
        for _ in range(60):
            yield np.int32(0)


class PendulumTruncationSingleEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):
    """Continuous actions, and episodes cut by max_episode_steps (truncation)."""

    def make_object_under_test(self):
        return DmSingleEnv("Pendulum-v1", seed=0, max_episode_steps=7)

    def make_action_sequence(self):
        for i in range(30):
            yield np.array([np.sin(i)], dtype=np.float32)


def _run_episode_boundaries(env: DmSingleEnv, action, n: int):
    """Yield the LAST steps seen in n steps after a reset."""
    env.reset()
    for _ in range(n):
        ts = env.step(action)
        if ts.last():
            yield ts


def test_single_view_discount_on_termination_and_truncation():
    env = DmSingleEnv("CartPole-v1", seed=1)
    lasts = list(_run_episode_boundaries(env, np.int32(0), 40))
    assert lasts and all(ts.discount == 0.0 for ts in lasts)  # terminated
    env.close()
    env = DmSingleEnv("Pendulum-v1", seed=1, max_episode_steps=5)
    lasts = list(_run_episode_boundaries(env, np.zeros(1, np.float32), 12))
    assert len(lasts) == 2 and all(ts.discount == 1.0 for ts in lasts)  # truncated
    assert all(int(ts.observation.elapsed_step) == 5 for ts in lasts)
    env.close()


def test_single_view_rejects_batches():
    pool = envpool.make("CartPole-v1", env_type="dm", num_envs=2)
    with pytest.raises(ValueError, match="num_envs=2"):
        DmSingleEnv(pool)
    pool.close()
    pool = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=1)
    with pytest.raises(TypeError, match="envpool dm pool.*got GymnasiumEnvPool"):
        DmSingleEnv(pool)
    pool.close()


def test_batched_pool_fields_are_batched():
    pool = envpool.make("CartPole-v1", env_type="dm", num_envs=4, seed=0)
    ts = pool.reset()
    assert ts.step_type.shape == (4,) and (ts.step_type == dm_env.StepType.FIRST).all()
    assert ts.observation.obs.shape == (4, 4)
    assert list(ts.observation.env_id) == [0, 1, 2, 3]
    ts = pool.step(np.zeros(4, np.int32))
    assert (ts.step_type == dm_env.StepType.MID).all()
    assert ts.reward.shape == (4,) and ts.discount.shape == (4,)
    # a subset of envs by env_id
    ts = pool.step(np.zeros(2, np.int32), np.array([1, 3], np.int32))
    assert list(ts.observation.env_id) == [1, 3]
    pool.close()


def test_batched_pool_discount_dtype_matches_its_spec():
    pool = envpool.make("CartPole-v1", env_type="dm", num_envs=2, seed=0)
    ts = pool.step(np.zeros(2, np.int32))
    assert ts.discount.dtype == pool.discount_spec().dtype
    assert ts.reward.dtype == pool.reward_spec().dtype
    pool.close()


ATARI = "Breakout-v5" in envpool.list_all_envs()


@unittest.skipUnless(ATARI, "no Atari tasks in this build")
class BreakoutSingleEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):
    """Image observations (uint8 frame stack) and the Atari info fields."""

    def make_object_under_test(self):
        return DmSingleEnv("Breakout-v5", seed=0, max_episode_steps=30)

    def make_action_sequence(self):
        for i in range(70):
            yield np.int32(i % 4)

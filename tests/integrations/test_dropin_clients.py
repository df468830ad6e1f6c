"""Real runs with the libraries written for EnvPool 1.2 (issue 17): TorchRL's
MultiThreadedEnv and Tianshou's EnvPoolFactory / Atari factory / Collector.

Slow (they import torch-based libraries); skipped where a client is not installed
(the ``test`` extra installs them).
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("task", ["CartPole-v1", "Pendulum-v1", "HalfCheetah-v4", "LunarLanderContinuous-v3"])
def test_torchrl_multithreaded_env_rollout(task: str) -> None:
    pytest.importorskip("torchrl")
    pytest.importorskip("treevalue")
    pytest.importorskip("gym")  # TorchRL's envpool wrapper builds its specs with the gym backend
    from torchrl.envs import MultiThreadedEnv
    from torchrl.envs.utils import check_env_specs

    env = MultiThreadedEnv(4, task, create_env_kwargs={"seed": 3})
    check_env_specs(env)
    td = env.rollout(max_steps=30, break_when_any_done=False)
    assert td.batch_size == (4, 30)
    assert td["next", "reward"].dtype.is_floating_point
    assert td["next", "observation"].shape[:2] == (4, 30)
    # a partial reset (TorchRL's "_reset" mask), including an all-False mask
    import torch

    env.reset()
    td = env.reset(env.reset().set("_reset", torch.tensor([True, False, False, True])))
    td = env.reset(td.set("_reset", torch.zeros(4, dtype=torch.bool)))
    # reseeding rebuilds the pool (TorchRL recreates EnvPool to set a seed)
    env.set_seed(7)
    env.rollout(max_steps=3)
    env.close()


@pytest.mark.parametrize("task", ["FrozenLake-v1", "Taxi-v3", "CliffWalking-v1", "NChain-v0"])
def test_torchrl_multithreaded_env_with_a_discrete_observation(task: str) -> None:
    """Toy text: the observation is int32, as EnvPool 1.2.5's, under gymnasium's Discrete space
    (int64), from which TorchRL makes its spec: rollouts run, check_env_specs refuses the dtype."""
    pytest.importorskip("torchrl")
    pytest.importorskip("treevalue")
    pytest.importorskip("gym")
    import torch
    from torchrl.envs import MultiThreadedEnv
    from torchrl.envs.utils import check_env_specs

    import envpool

    n = envpool.make_spec(task).observation_space.n
    env = MultiThreadedEnv(4, task, create_env_kwargs={"seed": 3})
    td = env.rollout(max_steps=30, break_when_any_done=False)
    obs = td["next", "observation"]
    assert obs.shape == (4, 30) and obs.dtype == torch.int32 and 0 <= int(obs.min()) <= int(obs.max()) < n
    assert env.observation_spec["observation"].dtype == torch.int64
    with pytest.raises(AssertionError, match="dtypes of the real and fake tensordict don't match"):
        check_env_specs(env)
    env.close()


def _random_policy(action_space):
    from tianshou.algorithm.algorithm_base import RandomActionPolicy

    return RandomActionPolicy(action_space)


def test_tianshou_envpool_factory_collector() -> None:
    pytest.importorskip("tianshou")
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.highlevel.env import EnvMode, EnvPoolFactory

    env = EnvPoolFactory().create_venv("CartPole-v1", num_envs=4, mode=EnvMode.TRAINING, seed=0, kwargs={})
    assert len(env) == 4 and not env.is_async
    assert env.observation_space.shape == (4,)  # Tianshou sizes its networks from this
    collector = Collector(_random_policy(env.action_space), env, VectorReplayBuffer(2000, 4))
    collector.reset()
    stats = collector.collect(n_step=400, random=True)
    assert stats.n_collected_steps >= 400
    assert stats.n_collected_episodes > 0
    # a DQN policy whose network is sized from the pool's (single-env) spaces, as
    # Tianshou's examples build it
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.utils.net.common import Net

    net = Net(state_shape=env.observation_space.shape, action_shape=env.action_space.n, hidden_sizes=[32])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_inference=0.1)
    collector = Collector(policy, env, VectorReplayBuffer(2000, 4))
    collector.reset()
    stats = collector.collect(n_episode=6)
    assert stats.n_collected_episodes >= 6
    assert np.all(np.asarray(stats.lens) > 0)


def test_tianshou_atari_envpool_factory() -> None:
    pytest.importorskip("tianshou")
    from tianshou.data import Collector
    from tianshou.env.atari.atari_wrapper import AtariEnvFactory
    from tianshou.highlevel.env import EnvMode

    factory = AtariEnvFactory("PongNoFrameskip-v4", frame_stack=4)
    env = factory.envpool_factory.create_venv("PongNoFrameskip-v4", 2, EnvMode.TRAINING, 0, {})
    assert env.observation_space.shape == (4, 84, 84)
    assert env.spec.config["episodic_life"] and env.spec.config["reward_clip"]
    collector = Collector(_random_policy(env.action_space), env)
    collector.reset()
    stats = collector.collect(n_step=200, random=True)
    assert stats.n_collected_steps >= 200

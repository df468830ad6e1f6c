"""The calls Sample Factory's sf_examples/envpool makes on a pool (Sample Factory
itself pins gymnasium < 1.0, so its wrapper's calls are replayed here)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import envpool


class _ResetFix(gymnasium.Wrapper):
    """The calls Sample Factory's EnvPoolResetFixWrapper makes: reset the done envs
    with reset(ids) after every step (often with no ids), writing into obs."""

    def step(self, actions):
        obs, reward, terminated, truncated, info = self.env.step(actions)
        needs_reset = np.nonzero(terminated | truncated)[0]
        obs[needs_reset], _ = self.env.reset(needs_reset)
        return obs, reward, terminated, truncated, info

    def reset(self, **kwargs):
        kwargs.pop("seed", None)
        kwargs.pop("options", None)
        return self.env.reset(**kwargs)


@pytest.mark.parametrize(
    "task, kwargs",
    [
        ("Pong-v5", dict(reward_clip=True, episodic_life=True, frame_skip=4, max_episode_steps=100, seed=0)),
        ("HalfCheetah-v4", dict(batch_size=4, num_threads=2, thread_affinity_offset=-1, seed=0)),
    ],
)
def test_sample_factory_envpool_calls(task: str, kwargs: dict) -> None:
    env = envpool.make(task, env_type="gym", num_envs=4, **kwargs)
    env = _ResetFix(env)
    obs, infos = env.reset()
    assert obs.shape[0] == 4
    space = env.action_space
    ends = 0
    for _ in range(120):
        act = np.stack([space.sample() for _ in range(4)])
        obs, rew, term, trunc, infos = env.step(act)
        assert obs.shape[0] == 4
        ends += int(np.sum(term | trunc))
        if task == "Pong-v5":  # reward_clip: the reward's sign; info keeps the game's reward
            np.testing.assert_array_equal(rew, np.sign(infos["reward"]))
    # Pong's episodes end at max_episode_steps=100 (each env once in 120 steps), and
    # the wrapper's reset(ids) of those envs is taken: the pool keeps stepping them.
    assert ends == (4 if task == "Pong-v5" else 0), ends

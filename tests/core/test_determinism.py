"""Same seeds give the same per-env trajectories whatever the scheduling."""

from __future__ import annotations

import pytest
from _trajectories import assert_same, collect

TASKS = ["CartPole-v1", "Pendulum-v1", "MountainCarContinuous-v0", "Acrobot-v1"]


@pytest.mark.parametrize("task", TASKS)
def test_same_trajectories_across_threads_and_modes(task: str) -> None:
    base = collect(task, 300, num_envs=6, num_threads=1, seed=7, max_episode_steps=50)
    for config in [
        dict(num_threads=2),
        dict(num_threads=3, batch_size=2),
        dict(num_threads=2, batch_size=5),
        dict(num_threads=1, batch_size=1),
    ]:
        assert_same(base, collect(task, 300, num_envs=6, seed=7, max_episode_steps=50, **config))


def test_different_seeds_differ() -> None:
    a = collect("CartPole-v1", 5, num_envs=2, seed=1)
    b = collect("CartPole-v1", 5, num_envs=2, seed=2)
    with pytest.raises(AssertionError):
        assert_same(a, b)

"""Same seeds give the same per-env trajectories whatever the scheduling, for
one task of every registered family (so a new family is covered at once)."""

from __future__ import annotations

import pytest
from _registry import kind, one_per_family, tasks
from _trajectories import assert_same, collect

from envpool import _envpool

# Every kind but the engine's test-only families (their actions are instructions).
KINDS = sorted({m["kind"] for m in _envpool.families().values()} - {"testing"})
FAMILY_TASKS = one_per_family(t for k in KINDS for t in tasks(k))
# Classic control in the fast suite; the heavier families' sweep is slow (each
# family's own tests check its determinism in the fast suite on a few tasks).
CASES = [t if kind(t) == "classic_control" else pytest.param(t, marks=pytest.mark.slow) for t in FAMILY_TASKS]
CONFIGS = [
    dict(num_threads=2),
    dict(num_threads=3, batch_size=2),
    dict(num_threads=2, batch_size=5),
    dict(num_threads=1, batch_size=1),
]


@pytest.mark.parametrize("task", CASES)
def test_same_trajectories_across_threads_and_modes(task: str) -> None:
    steps = 300 if kind(task) == "classic_control" else 60  # past an autoreset (50-step episodes) either way
    base = collect(task, steps, num_envs=6, num_threads=1, seed=7, max_episode_steps=50)
    for config in CONFIGS:
        assert_same(base, collect(task, steps, num_envs=6, seed=7, max_episode_steps=50, **config))


def test_different_seeds_differ() -> None:
    a = collect("CartPole-v1", 5, num_envs=2, seed=1)
    b = collect("CartPole-v1", 5, num_envs=2, seed=2)
    with pytest.raises(AssertionError):
        assert_same(a, b)

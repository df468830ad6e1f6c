"""Per-env trajectories under any mode, for determinism tests of every family."""

from __future__ import annotations

from typing import Any

import numpy as np

import envpool


def action_for(space: Any, env_id: int, t: int) -> np.ndarray:
    """An action that depends only on (env, step): scheduling can't change it."""
    rng = np.random.default_rng(env_id * 100_003 + t)
    if hasattr(space, "n"):
        return np.asarray(rng.integers(0, space.n), dtype=np.int32)
    return rng.uniform(space.low, space.high).astype(space.dtype)


def collect(task: str, steps: int, **config: Any) -> dict[int, list[tuple]]:
    """Run every env for `steps` steps; return env_id -> [(obs, reward, term, trunc)] (obs a dict of arrays for dict observations)."""
    env = envpool.make(task, env_type="gymnasium", **config)
    n = env.num_envs
    traj: dict[int, list[tuple]] = {i: [] for i in range(n)}
    space = env.single_action_space

    def record(obs: Any, rew: Any, term: Any, trunc: Any, info: dict) -> np.ndarray:
        ids = info["env_id"]
        for row, i in enumerate(ids):
            o = {k: np.array(v[row]) for k, v in obs.items()} if isinstance(obs, dict) else np.array(obs[row])
            traj[int(i)].append((o, float(rew[row]), bool(term[row]), bool(trunc[row])))
        return ids

    if env.is_async:
        env.async_reset()
        while min(len(v) for v in traj.values()) < steps + 1:
            obs, rew, term, trunc, info = env.recv()
            ids = record(obs, rew, term, trunc, info)
            env.send(np.stack([action_for(space, int(i), len(traj[int(i)]) - 1) for i in ids]), ids)
    else:
        obs, info = env.reset()
        record(obs, np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), info)
        for t in range(steps):
            acts = np.stack([action_for(space, i, t) for i in range(n)])
            record(*env.step(acts))
    env.close()
    return {i: v[: steps + 1] for i, v in traj.items()}


def assert_same(a: dict[int, list[tuple]], b: dict[int, list[tuple]]) -> None:
    assert a.keys() == b.keys()
    for i in a:
        for t, (x, y) in enumerate(zip(a[i], b[i])):
            if isinstance(x[0], dict):  # dict observations (dm_control's named arrays)
                assert x[0].keys() == y[0].keys(), f"env {i} step {t}"
                for k in x[0]:
                    np.testing.assert_array_equal(x[0][k], y[0][k], err_msg=f"env {i} step {t} obs {k}")
            else:
                np.testing.assert_array_equal(x[0], y[0], err_msg=f"env {i} step {t}")
            assert x[1:] == y[1:], f"env {i} step {t}"

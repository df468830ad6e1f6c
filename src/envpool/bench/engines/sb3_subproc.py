"""``sb3-subproc``: Stable-Baselines3's ``SubprocVecEnv`` (one process per env, pipes and pickles)
over the env the ``gymnasium-*`` engines step; SB3's own autoreset, its default start method."""

from __future__ import annotations

from . import Engine, _common
from . import gymnasium_vector as _vector


def available(task, case) -> str | None:
    return _common.missing("stable_baselines3", purpose="SB3's SubprocVecEnv") or _vector.available(task, case)


def run(spec: dict) -> dict:
    import numpy as np
    from stable_baselines3.common.vec_env import SubprocVecEnv

    n, b = spec["num_envs"], spec["batch_size"]
    if b != n:
        raise _common.Unavailable("no batch_size < num_envs mode")
    env = SubprocVecEnv([_vector._env_fn(spec)] * n)
    try:
        acts = _common.action_batches(env.action_space, n, spec["seed"])
        if hasattr(env.action_space, "n"):
            acts = [a.astype(np.int64) for a in acts]
        k = len(acts)
        env.seed(spec["seed"])
        env.reset()
        step = env.step
        return _common.time_loop(lambda i: step(acts[i % k]), n, spec["warmup"], spec["seconds"])
    finally:
        env.close()


ENGINES = (
    Engine(
        "sb3-subproc",
        "stable_baselines3 SubprocVecEnv: one process per env (pipes and pickles)",
        run,
        available,
        order=12,
    ),
)

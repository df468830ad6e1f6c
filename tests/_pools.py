"""A small pool for API tests: ``make_pool(env_type)`` is N envs of CartPole-v1."""

from __future__ import annotations

from typing import Any

import envpool

N = 4


def make_pool(env_type: str, task: str = "CartPole-v1", **config: Any) -> Any:
    return envpool.make(task, env_type=env_type, num_envs=config.pop("num_envs", N), **config)

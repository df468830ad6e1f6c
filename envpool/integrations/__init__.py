"""Adapters that plug envpool pools into other RL stacks.

Each adapter lives in its own module and imports its stack lazily, so none of
them is a dependency of envpool itself:

* :mod:`envpool.integrations.sb3` -- :class:`SB3VecEnv`, a Stable-Baselines3
  ``VecEnv`` (needs ``stable-baselines3>=2``).
* :mod:`envpool.integrations.dm_single` -- :class:`DmSingleEnv`, a single-env
  ``dm_env.Environment`` view of a ``num_envs=1`` dm pool.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SB3VecEnv", "DmSingleEnv"]


def __getattr__(name: str) -> Any:
    if name == "SB3VecEnv":
        from envpool.integrations.sb3 import SB3VecEnv

        return SB3VecEnv
    if name == "DmSingleEnv":
        from envpool.integrations.dm_single import DmSingleEnv

        return DmSingleEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

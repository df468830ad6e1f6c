"""Adapters that plug envpool pools into other RL stacks.

Each adapter lives in its own module and imports its stack lazily, so none of
them is a dependency of envpool itself:

* :mod:`envpool.integrations.sb3` -- :class:`SB3VecEnv`, a Stable-Baselines3
  ``VecEnv`` (needs ``stable-baselines3>=2``).
* :mod:`envpool.integrations.dm_single` -- :class:`DmSingleEnv`, a single-env
  ``dm_env.Environment`` view of a ``num_envs=1`` dm pool.
* :mod:`envpool.integrations.gymnasium_single` -- :class:`GymnasiumSingleEnv`, a
  single-env ``gymnasium.Env`` view (what ``gymnasium.make("envpool/<task id>")``
  returns).
* :mod:`envpool.integrations.gymnasium_registry` -- every task in gymnasium's
  registry as ``envpool/<task id>`` (done when envpool is imported).
* :mod:`envpool.integrations.rllib` -- the same ids in Ray Tune's registry, for
  RLlib's env runners (done once both envpool and Ray Tune are loaded; envpool
  never imports Ray itself).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SB3VecEnv", "DmSingleEnv", "GymnasiumSingleEnv"]


def __getattr__(name: str) -> Any:
    if name == "SB3VecEnv":
        from envpool.integrations.sb3 import SB3VecEnv

        return SB3VecEnv
    if name == "DmSingleEnv":
        from envpool.integrations.dm_single import DmSingleEnv

        return DmSingleEnv
    if name == "GymnasiumSingleEnv":
        from envpool.integrations.gymnasium_single import GymnasiumSingleEnv

        return GymnasiumSingleEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

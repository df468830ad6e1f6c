"""The dm_env interface: batched ``dm_env.TimeStep``s."""

from __future__ import annotations

import collections
from typing import Any

import dm_env
import numpy as np
from dm_env import specs as dm_specs

from envpool._pool import PoolBase
from envpool._spec import ArraySpecTuple, bounds, is_discrete


def _dm_spec(spec: ArraySpecTuple, name: str) -> dm_specs.Array:
    _, dtype_name, shape, low, high = spec
    dtype = np.dtype(dtype_name)
    if is_discrete(spec):
        return dm_specs.DiscreteArray(int(high[0] - low[0] + 1), dtype=dtype, name=name)
    if np.all(np.isfinite(low)) and np.all(np.isfinite(high)):
        return dm_specs.BoundedArray(shape, dtype, bounds(low, shape, dtype), bounds(high, shape, dtype), name=name)
    return dm_specs.Array(shape, dtype, name=name)


_LAST = int(dm_env.StepType.LAST)


class DmEnvPool(PoolBase, dm_env.Environment):
    """A batch of envs behind dm_env's API; every TimeStep field is batched.

    The observation is a namedtuple of the observation keys and the info
    keys (env_id, elapsed_step, the env's own). step_type is FIRST after a
    reset, LAST when an episode ends; discount is 0 on termination and 1 on
    truncation.
    """

    def __init__(self, task_id: str, **config: Any) -> None:
        PoolBase.__init__(self, task_id, **config)
        obs = [s for s in self.spec.state_spec if s[0] == "obs" or s[0].startswith("obs:")]
        info = [s for s in self.spec.state_spec if s[0].startswith("info:")]
        self._fields = [("obs" if s[0] == "obs" else s[0][4:]) for s in obs] + self.spec.info_keys
        self._specs = obs + info
        self._obs_keys = [s[0] for s in obs]
        self.State = collections.namedtuple("State", self._fields)  # type: ignore[misc]
        self.num_envs = self._num_envs

    def observation_spec(self) -> Any:
        """Single-env specs of every observation field."""
        return self.State(*(_dm_spec(s, f) for s, f in zip(self._specs, self._fields)))

    def action_spec(self) -> Any:
        """Single-env action spec (a dict for multi-key actions)."""
        specs = self.spec.action_spec
        if len(specs) == 1 and specs[0][0] == "action":
            return _dm_spec(specs[0], "action")
        return {s[0][7:]: _dm_spec(s, s[0][7:]) for s in specs}

    def discount_spec(self) -> dm_specs.BoundedArray:
        """Discounts are float32 in [0, 1]."""
        return dm_specs.BoundedArray((), np.float32, 0.0, 1.0, name="discount")

    def reset(self, env_id: Any = None, seed: int | list[int] | None = None) -> dm_env.TimeStep:
        """Reset envs (all by default); reseeds when given a seed."""
        return self._package(self._pool.reset(env_id, seed))

    def step(self, action: Any, env_id: Any = None) -> dm_env.TimeStep:
        """Step the given envs (default: all in sync mode, the last batch in async)."""
        return self._package(self._pool.step(action, env_id))

    def recv(self) -> dm_env.TimeStep:
        """Wait for the next batch of results."""
        return self._package(self._pool.recv())

    def _package(self, result: tuple) -> dm_env.TimeStep:
        obs, reward, terminated, truncated, discount, info, _ = result
        # FIRST = 0 at a reset, LAST = 2 at the end of an episode, else MID = 1.
        step_type = (info["elapsed_step"] != 0).view(np.int8).astype(np.int32)
        step_type[terminated | truncated] = _LAST
        if isinstance(obs, dict):
            values = [obs[k[4:]] for k in self._obs_keys]
        else:
            values = [obs]
        values += [info[f] for f in self._fields[len(self._obs_keys) :]]
        return dm_env.TimeStep(step_type, reward, discount, self.State(*values))

"""The dm_env interface: batched ``dm_env.TimeStep``s."""

from __future__ import annotations

from typing import Any

import dm_env
import numpy as np
from dm_env import specs as dm_specs

from envpool import _keys
from envpool._interfaces import Action, DMEnvPoolMixin, EnvIds, Seed, TaskId
from envpool._pool import Batch, PoolBase
from envpool._spec import _Players, obs_fields, observation_spec

_LAST = int(dm_env.StepType.LAST)


class DmEnvPool(PoolBase, DMEnvPoolMixin, dm_env.Environment):
    """A batch of envs behind dm_env's API; every TimeStep field is batched.

    The observation is a namedtuple ``State`` laid out as EnvPool's: ``env_id``,
    ``players`` (a namedtuple with ``env_id``), the observation key(s), then
    ``elapsed_step`` and the task's info keys. step_type is FIRST after a reset,
    LAST when an episode ends; discount is 0 on termination and 1 on truncation.
    Actions may be arrays or EnvPool's dicts (``{"action": a, "env_id": ids}``).
    """

    def __init__(self, task_id: TaskId, **config: Any) -> None:
        PoolBase.__init__(self, task_id, **config)
        self.State = type(self._obs_spec)
        fields = obs_fields(self.spec)
        # Where each State field (but players) comes from: ("obs", key) or ("info", key).
        self._sources = [_keys.split(s[0]) for _, s in fields]
        self.num_envs = self._num_envs

    def _check_spec(self, spec: Any) -> None:
        PoolBase._check_spec(self, spec)
        if spec.config.get("autoreset_mode") == "same_step":
            # dm_env has no place for a final observation beside the next episode's
            # first: a LAST step would hide one or the other, and no FIRST would follow.
            raise ValueError(
                "autoreset_mode='same_step' has no dm_env form (LAST then FIRST is next_step's sequence): use "
                "autoreset_mode='next_step' (the default) or 'disabled' with the dm interface, or same_step with "
                "env_type='gymnasium' or 'gym'"
            )
        self._obs_spec = observation_spec(spec)  # refuses what dm_env cannot describe (a tuple observation)

    def observation_spec(self) -> Any:
        """Single-env specs of every observation field (EnvPool's ``State`` namedtuple)."""
        return self._obs_spec

    def action_spec(self) -> Any:
        """Single-env action spec (a dict for multi-key actions)."""
        return self.spec.action_spec()

    def reward_spec(self) -> dm_specs.Array:
        """Rewards are float32 scalars per env."""
        return dm_specs.Array((), np.float32, name="reward")

    def discount_spec(self) -> dm_specs.BoundedArray:
        """Discounts are float32 in [0, 1]."""
        return dm_specs.BoundedArray((), np.float32, 0.0, 1.0, name="discount")

    def reset(self, env_id: EnvIds = None, seed: Seed = None) -> dm_env.TimeStep:  # type: ignore[override]
        """Reset envs (all by default); reseeds when given a seed (or after seed())."""
        try:
            result = self._raw_reset(env_id, seed)
        except Exception as e:
            self._repackage(e, self._package)
            raise
        return self._package(result)

    def step(self, action: Action, env_id: EnvIds = None) -> dm_env.TimeStep:  # type: ignore[override]
        """Step the given envs (default: all in sync mode, the last batch in async)."""
        try:
            result = self._raw_step(action, env_id)
        except Exception as e:
            self._repackage(e, self._package)
            raise
        return self._package(result)

    def recv(self) -> dm_env.TimeStep:
        """Wait for the next batch of results."""
        try:
            result = self._raw_recv()
        except Exception as e:
            self._repackage(e, self._package)
            raise
        return self._package(result)

    def _xla_package(self, result: Batch) -> dm_env.TimeStep:
        """_package with JAX arrays (no in-place assignment)."""
        import jax.numpy as jnp

        obs, reward, terminated, truncated, discount, info, _ = result
        step_type = jnp.where(terminated | truncated, _LAST, (info["elapsed_step"] != 0).astype(jnp.int32))
        return self._timestep(step_type, reward, discount, obs, info)

    def _package(self, result: Batch) -> dm_env.TimeStep:
        obs, reward, terminated, truncated, discount, info = (
            result.obs,
            result.reward,
            result.terminated,
            result.truncated,
            result.discount,
            result.info,
        )
        # FIRST = 0 at a reset, LAST = 2 at the end of an episode, else MID = 1.
        step_type = (info["elapsed_step"] != 0).view(np.int8).astype(np.int32)
        step_type[terminated | truncated] = _LAST
        return self._timestep(step_type, reward, discount, obs, info)

    def _timestep(self, step_type: Any, reward: Any, discount: Any, obs: Any, info: dict[str, Any]) -> dm_env.TimeStep:
        values = [
            (obs[key] if isinstance(obs, dict) else obs) if kind == "obs" else info[key] for kind, key in self._sources
        ]
        return dm_env.TimeStep(step_type, reward, discount, self.State(values[0], _Players(values[0]), *values[1:]))

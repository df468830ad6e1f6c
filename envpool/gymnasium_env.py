"""The gymnasium interface: the pool is a ``gymnasium.vector.VectorEnv``."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envpool._pool import PoolBase, env_ids_from_mask

_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}


class GymnasiumEnvPool(PoolBase, VectorEnv):
    """A batch of envs stepped in C++, behind gymnasium's VectorEnv API.

    In sync mode (batch_size == num_envs) every call returns all envs in env
    order. In async mode ``recv()`` returns the first batch_size envs to
    finish, and ``info["env_id"]`` says which.
    """

    def __init__(self, task_id: str, **config: Any) -> None:
        PoolBase.__init__(self, task_id, **config)
        self.num_envs = self._num_envs
        self.single_observation_space = self.spec.observation_space
        self.single_action_space = self.spec.action_space
        self.observation_space = batch_space(self.single_observation_space, self._batch_size)
        self.action_space = batch_space(self.single_action_space, self._batch_size)
        self.metadata = {"autoreset_mode": _MODES[self.config["autoreset_mode"]]}
        self._last_obs: Any = None

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every env (or those in ``options["reset_mask"]``), reseeding when given a seed.

        An int seed gives env i the seed ``seed + i``; a list gives one seed per env.
        """
        options = options or {}
        if "reset_mask" in options:
            ids = env_ids_from_mask(options["reset_mask"], self._num_envs)
            obs, _, _, _, _, info, _ = self._pool.reset(ids, seed)
            return self._merge_masked(ids, obs, info)
        obs, _, _, _, _, info, _ = self._pool.reset(None, seed)
        self._last_obs = obs
        return obs, info

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every env (or, in async mode, the envs of the last batch)."""
        return self._package(self._pool.step(actions, None))

    def recv(self) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Wait for the next batch of results."""
        return self._package(self._pool.recv())

    def _package(self, result: tuple) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, reward, terminated, truncated, _, info, final = result
        if final is not None:
            _add_final(info, final, terminated | truncated)
        self._last_obs = obs
        return obs, reward, terminated, truncated, info

    def _merge_masked(self, ids: np.ndarray, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Full-batch obs after a masked reset: fresh rows for ids, last rows elsewhere."""
        if self._last_obs is None:
            raise RuntimeError("reset with a reset_mask needs a full reset() first")
        if isinstance(obs, dict):
            merged = {k: np.array(v) for k, v in self._last_obs.items()}
            for k, v in obs.items():
                merged[k][ids] = v
        else:
            merged = np.array(self._last_obs)
            merged[ids] = obs
        full_info: dict[str, Any] = {}
        mask = np.zeros(self._num_envs, dtype=bool)
        mask[ids] = True
        for k, v in info.items():
            arr = np.zeros((self._num_envs, *v.shape[1:]), dtype=v.dtype)
            arr[ids] = v
            full_info[k] = arr
            full_info[f"_{k}"] = mask
        self._last_obs = merged
        return merged, full_info

    def close_extras(self, **kwargs: Any) -> None:
        PoolBase.close(self)

    def close(self, **kwargs: Any) -> None:
        """Close the pool (gymnasium's close, which calls close_extras)."""
        VectorEnv.close(self, **kwargs)


def _add_final(info: dict[str, Any], final: tuple, done: np.ndarray) -> None:
    """Same-step autoreset: gymnasium's final_obs / final_info entries."""
    final_obs, final_info = final
    n = len(done)
    obs_arr = np.full(n, None, dtype=object)
    if done.any():
        for i in np.flatnonzero(done):
            obs_arr[i] = {k: v[i] for k, v in final_obs.items()} if isinstance(final_obs, dict) else final_obs[i]
    info["final_obs"] = obs_arr
    info["_final_obs"] = done.copy()
    info["final_info"] = {**final_info, **{f"_{k}": done for k in final_info}}
    info["_final_info"] = done.copy()

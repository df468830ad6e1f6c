"""What all three interfaces share: the engine pool and its bookkeeping."""

from __future__ import annotations

from typing import Any

import numpy as np

from envpool import _envpool
from envpool._spec import EnvSpec
from envpool.registration import lookup

# Keys a task registration may carry that are not engine config.
_METADATA_KEYS = ("reward_threshold",)


def make_pool_spec(task_id: str, config: dict[str, Any]) -> EnvSpec:
    """Resolve a task id and user config into a validated EnvSpec."""
    task = lookup(task_id)
    merged = {**task.config, **config}
    metadata = {k: merged.pop(k) for k in _METADATA_KEYS if k in merged}
    full, state_spec, action_spec = _envpool.make_spec(task.family, merged)
    return EnvSpec(task_id, task.family, {**full, **metadata}, state_spec, action_spec)


class PoolBase:
    """Owns one engine pool; subclasses shape its results for one API."""

    def __init__(self, task_id: str, **config: Any) -> None:
        self.spec = make_pool_spec(task_id, config)
        engine_config = {k: v for k, v in self.spec.config.items() if k not in _METADATA_KEYS}
        self._pool = _envpool.Pool(self.spec.family, engine_config)
        self.config = self.spec.config
        self._num_envs = int(self.config["num_envs"])
        self._batch_size = int(self.config["batch_size"]) or self._num_envs
        self.is_async = self._batch_size < self._num_envs

    # -- the engine's own calls, shared verbatim by every interface ---------
    def send(self, action: Any, env_id: Any = None) -> None:
        """Queue one step for each env in ``env_id`` (default: the last batch)."""
        self._pool.send(action, env_id)

    def async_reset(self) -> None:
        """Queue a reset of every env without waiting for the results."""
        self._pool.send_reset(None, None)

    def close(self) -> None:
        """Stop the worker threads; later calls raise. Idempotent."""
        self._pool.close()

    @property
    def closed(self) -> bool:
        """Whether close() has been called."""
        return self._pool.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        # gymnasium's VectorEnv.close() records closing by assignment; the
        # engine pool is the single source of truth.
        if value:
            self._pool.close()

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.close()

    def __len__(self) -> int:
        return self._num_envs

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec.task_id!r}, num_envs={self._num_envs}, batch_size={self._batch_size})"


def env_ids_from_mask(mask: Any, num_envs: int) -> np.ndarray:
    """Env ids selected by a boolean mask of length num_envs."""
    mask = np.asarray(mask)
    if mask.dtype != np.bool_ or mask.shape != (num_envs,):
        raise ValueError(f"reset_mask must be a bool array of shape ({num_envs},), got {mask.dtype} {mask.shape}")
    return np.flatnonzero(mask).astype(np.int32)

"""The gymnasium interface: the pool is a ``gymnasium.vector.VectorEnv``."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from envpool._config import autoreset_member
from envpool._interfaces import Action, EnvIds, GymnasiumEnvPoolMixin, Obs, ResetResult, Seed, StepResult, TaskId
from envpool._pool import Batch, PoolBase, add_players, env_ids_from_mask
from envpool._tree import rows_where, tree_map


class GymnasiumEnvPool(PoolBase, GymnasiumEnvPoolMixin, VectorEnv[Obs, Action, np.ndarray], gymnasium.Env[Obs, Action]):  # type: ignore[misc, override]  # gymnasium's Env and VectorEnv disagree on np_random_seed; EnvPool's spec, render() and read-only render_mode differ from gymnasium's by design (EnvPool 1.2's API)
    """A batch of envs stepped in C++, behind gymnasium's VectorEnv API.

    Like EnvPool 1.2's, the pool is also a ``gymnasium.Env`` (so ``gymnasium.Wrapper``
    can wrap it).

    In sync mode (batch_size == num_envs) every call returns all envs in env
    order. In async mode ``recv()`` returns the first batch_size envs to
    finish, and ``info["env_id"]`` says which.

    As in EnvPool 1.2, ``observation_space`` / ``action_space`` are the
    single-env spaces (the same objects as ``single_*``); ``batched_spaces=True``
    gives gymnasium's batched ones instead.
    """

    _WITH_DISCOUNT = False

    def __init__(self, task_id: TaskId, **config: Any) -> None:
        PoolBase.__init__(self, task_id, **config)
        self.num_envs = self._num_envs
        self.single_observation_space = self.spec.observation_space
        self.single_action_space = self.spec.action_space
        if self.config["batched_spaces"]:
            self.observation_space = batch_space(self.single_observation_space, self._batch_size)
            self.action_space = batch_space(self.single_action_space, self._batch_size)
        else:
            self.observation_space = self.single_observation_space
            self.action_space = self.single_action_space
        self.metadata = {"autoreset_mode": autoreset_member(self.config["autoreset_mode"]), **self._render_metadata()}
        self._last_obs: Any = None
        self._partial: list[tuple[np.ndarray, Any]] = []
        self._all_ids = np.arange(self._num_envs)

    def _check_spec(self, spec: Any) -> None:
        PoolBase._check_spec(self, spec)
        if not spec.config["gym_reset_return_info"]:
            raise ValueError("gym_reset_return_info=False: a gymnasium pool's reset() always returns (obs, info)")

    def reset(
        self,
        env_id: EnvIds = None,
        *,
        seed: Seed = None,
        options: dict[str, Any] | None = None,
    ) -> ResetResult:
        """Reset every env, or those in ``env_id`` (returning only their rows, in that
        order, as EnvPool), or those in ``options["reset_mask"]`` (returning the full
        batch, gymnasium's way); reseeds when given a seed.

        An int seed gives env i the seed ``seed + i``; a list gives one seed per env reset.
        """
        options = options or {}
        if "reset_mask" in options:
            if env_id is not None:
                raise ValueError("pass either env_id or options['reset_mask'], not both")
            ids = env_ids_from_mask(options["reset_mask"], self._num_envs)
            if self.is_async:
                raise ValueError(
                    "options['reset_mask'] needs a sync pool (a full batch to merge into); "
                    "in async mode reset(env_id=ids) or send/recv"
                )
            if self._last_obs is None:
                raise RuntimeError("reset with a reset_mask needs a full reset() first")
            if self._xla_slot is not None:
                raise RuntimeError(
                    "options['reset_mask'] merges the reset rows into the last observations of the Python "
                    "calls, which XLA steps bypass: once xla() is in use, reset(env_id=ids) (only those rows)"
                )
            # Its own batch: exactly these envs, whatever else is in flight.
            package: Any = lambda r: self._merge_masked(ids, r.obs, r.info)  # noqa: E731
            try:
                return package(self._raw_reset(ids, seed, own_batch=True, options=options))
            except Exception as e:
                self._repackage(e, package)
                raise
        try:
            result = self._raw_reset(env_id, seed, options=options)
        except Exception as e:
            self._repackage(e, lambda r: self._reset_result(r, env_id is None))
            raise
        return self._reset_result(result, env_id is None)

    def step(self, actions: Action, env_id: EnvIds = None) -> StepResult:  # type: ignore[override]
        """Step every env (or, in async mode, the envs of the last batch), or the envs in
        ``env_id``, returning only their rows in that order."""
        # Every env, in env order: a sync step naming no envs (EnvPool's dict
        # actions may name them inside).
        try:
            if env_id is None and self._direct and type(actions) is not dict:
                full = True
                result = self._pool.step(actions, None)
            else:
                full = env_id is None and not (isinstance(actions, dict) and actions.get("env_id") is not None)
                result = self._raw_step(actions, env_id)
        except Exception as e:
            self._repackage(e, lambda r: self._package(r, full))
            raise
        return self._package(result, full)

    def recv(self) -> StepResult:
        """Wait for the next batch of results."""
        try:
            result = self._raw_recv()
        except Exception as e:
            self._repackage(e, lambda r: self._package(r, False))
            raise
        return self._package(result, False)

    def _reset_result(self, result: Batch, full: bool) -> tuple[Any, dict[str, Any]]:
        obs, info = result.obs, result.info
        self._remember(obs, info, full)
        return obs, info

    def _remember(self, obs: Any, info: dict[str, Any], full: bool) -> None:
        """Track the latest observation of every env, for reset_mask resets (sync mode
        only): a full batch replaces it; partial batches are kept as (ids, obs) views
        and merged in only when a masked reset needs them (no copy per step)."""
        if self.is_async:
            return
        if full:  # the common case first: a sync step of every env
            self._last_obs = obs
            if self._partial:
                self._partial = []
            return
        ids = info["env_id"]
        if len(ids) == self._num_envs:
            # Every env in one batch (a recv() after async_reset() or a full
            # send(), or a step naming every env), in env order or not.
            if (ids == self._all_ids).all():
                self._last_obs, self._partial = obs, []
                return
            if self._last_obs is None:
                # Every env's latest row: earlier partial batches are older.
                self._last_obs, self._partial = _scatter(obs, ids), []
                return
        if len(ids):
            self._partial.append((ids, obs))
            if len(self._partial) >= 16:  # bound the views kept alive
                self._last_obs, self._partial = self._latest_obs(), []

    def _latest_obs(self) -> Any:
        """The last full batch with every later partial batch's rows merged in."""
        base = self._last_obs
        if base is None or not self._partial:
            return base
        merged = _copy(base)
        for ids, obs in self._partial:
            _put(merged, ids, obs)
        return merged

    def _package(self, result: Batch, full: bool) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, reward, terminated, truncated, info, final = (
            result.obs,
            result.reward,
            result.terminated,
            result.truncated,
            result.info,
            result.final,
        )
        if final is not None:
            _add_final(info, final, terminated | truncated)
        if full and not self._partial and not self.is_async:
            self._last_obs = obs  # _remember's common case, inline: the hot path
        else:
            self._remember(obs, info, full)
        return obs, reward, terminated, truncated, info

    def _xla_package(self, result: Batch) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """_package with JAX arrays. Same-step autoreset: info["final_obs"] holds the final
        observations as an array (zero rows where no episode ended), as JAX arrays
        cannot hold Python's None."""
        obs, reward, terminated, truncated, _, info, final = result
        if final is not None:
            done = terminated | truncated
            final_obs, final_info = final
            info["final_obs"] = final_obs
            info["_final_obs"] = done
            info["final_info"] = {**final_info, **{f"_{k}": done for k in final_info}}
            info["_final_info"] = done
        return obs, reward, terminated, truncated, info

    def _merge_masked(self, ids: np.ndarray, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Full-batch obs after a masked reset: fresh rows for ids, last rows elsewhere."""
        merged = _copy(self._latest_obs())
        _put(merged, ids, obs)
        full_info: dict[str, Any] = {}
        mask = np.zeros(self._num_envs, dtype=bool)
        mask[ids] = True
        for k, v in info.items():
            if k == "players":
                continue  # rebuilt below from the merged env_id
            arr = np.zeros((self._num_envs, *v.shape[1:]), dtype=v.dtype)
            arr[ids] = v
            full_info[k] = arr
            full_info[f"_{k}"] = mask
        self._last_obs, self._partial = merged, []
        return merged, add_players(full_info)

    def close_extras(self, **kwargs: Any) -> None:
        PoolBase.close(self)
        # A rebuilt pool's envs start afresh: a masked reset needs a full reset first.
        self._last_obs, self._partial = None, []

    def close(self, **kwargs: Any) -> None:
        """Close the pool (gymnasium's close, which calls close_extras)."""
        VectorEnv.close(self, **kwargs)


def _scatter(obs: Any, ids: np.ndarray) -> Any:
    """Rows given in ``ids`` order, put in env order."""

    def one(rows: np.ndarray) -> np.ndarray:
        out = np.empty_like(rows)
        out[ids] = rows
        return out

    return tree_map(one, obs)


def _copy(obs: Any) -> Any:
    return tree_map(np.array, obs)


def _put(dst: Any, ids: np.ndarray, rows: Any) -> None:
    """dst[ids] = rows, for each array of the observation (an array, a dict or a tuple of them)."""
    if isinstance(dst, dict):
        for k, v in rows.items():
            dst[k][ids] = v
    elif isinstance(dst, tuple):
        for d, v in zip(dst, rows):
            d[ids] = v
    else:
        dst[ids] = rows


def _add_final(info: dict[str, Any], final: tuple, done: np.ndarray) -> None:
    """Same-step autoreset: gymnasium's final_obs / final_info entries."""
    final_obs, final_info = final
    info["final_obs"] = rows_where(final_obs, done)
    info["_final_obs"] = done.copy()
    info["final_info"] = {**final_info, **{f"_{k}": done for k in final_info}}
    info["_final_info"] = done.copy()

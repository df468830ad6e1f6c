"""EnvPool's ``frame_stack`` option of the MuJoCo tasks (gymnasium's and the dm_control
suite's), done in Python: observations of shape ``(frame_stack, *obs_shape)``, oldest
first, a reset filling every slot with the first observation; pixel observations
(``from_pixels``, channel first) stack along the channels, ``(frame_stack * C, H, W)``.

The tasks hand these functions to the registry in their :class:`~envpool.registration.PythonSide`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from envpool import _envpool, _keys

Batch = _envpool.Batch

DEFAULTS = {"frame_stack": 1}


def check(options: dict[str, Any]) -> None:
    """``frame_stack``: an int >= 1."""
    k = options["frame_stack"]
    if not isinstance(k, (int, np.integer)) or isinstance(k, (bool, np.bool_)):
        raise TypeError(f"config 'frame_stack' must be an int, got {k!r}")
    if k < 1:
        raise ValueError(f"frame_stack must be >= 1, got {k}")
    options["frame_stack"] = int(k)


def _stacked(spec: tuple, k: int, channels: bool) -> tuple:
    name, dtype, shape, low, high = spec
    n = int(np.prod(shape)) if shape else 1
    low = list(low) * (k if len(low) == n and n > 1 else 1)
    high = list(high) * (k if len(high) == n and n > 1 else 1)
    return (name, dtype, (k * shape[0], *shape[1:]) if channels else (k, *shape), low, high)


def state_spec(specs: list[tuple], config: Mapping[str, Any]) -> list[tuple]:
    """The specs of stacked observations: a new first axis, or k times the channels."""
    k = int(config.get("frame_stack", 1))
    if k == 1:
        return specs
    channels = bool(config.get("from_pixels"))
    return [_stacked(s, k, channels) if _keys.in_group(s[0], _keys.OBS) else s for s in specs]


def results(spec: Any, num_envs: int) -> Callable[[Any], Any] | None:
    """A pool's stacking of each batch's observations (None: frame_stack=1)."""
    k = int(spec.config.get("frame_stack", 1))
    if k == 1:
        return None
    obs_specs = [s for s in spec.state_spec if _keys.in_group(s[0], _keys.OBS)]
    return FrameStack(k, num_envs, obs_specs, bool(spec.config.get("from_pixels"))).apply


class FrameStack:
    """The last ``k`` observations of each env (specs: the stacked ones)."""

    def __init__(self, k: int, num_envs: int, obs_specs: list[tuple], channels: bool = False) -> None:
        self.k = k
        self.channels = channels
        shape = (lambda s: (k, s[0] // k, *s[1:])) if channels else (lambda s: s)
        self.buf = {s[0]: np.zeros((num_envs, *shape(s[2])), dtype=s[1]) for s in obs_specs}

    def _out(self, rows: np.ndarray) -> np.ndarray:
        return rows.reshape(rows.shape[0], -1, *rows.shape[3:]) if self.channels else rows

    def _one(self, key: str, ids: np.ndarray, obs: np.ndarray, first: np.ndarray) -> np.ndarray:
        buf = self.buf[key]
        rows = buf[ids]
        rows[:, :-1] = rows[:, 1:]
        rows[:, -1] = obs
        rows[first] = obs[first][:, None]
        buf[ids] = rows
        return self._out(rows)

    def _final(self, key: str, ids: np.ndarray, final: np.ndarray) -> np.ndarray:
        rows = np.array(self.buf[key][ids])
        rows[:, :-1] = rows[:, 1:]
        rows[:, -1] = final
        return self._out(rows)

    def _each(self, obs: Any, one: Callable[[str, np.ndarray], np.ndarray]) -> Any:
        if isinstance(obs, dict):
            return {k: one(_keys.name(_keys.OBS, k), v) for k, v in obs.items()}
        return one(_keys.OBS, obs)

    def apply(self, result: Any) -> Any:
        obs, info, final = result.obs, result.info, result.final
        ids = np.asarray(info["env_id"])
        first = np.asarray(info["elapsed_step"]) == 0
        if final is not None:  # same-step autoreset: stack the final obs onto the old frames first
            fobs, finfo = final
            final = (self._each(fobs, lambda key, v: self._final(key, ids, v)), finfo)
        obs = self._each(obs, lambda key, v: self._one(key, ids, v, first))
        return Batch((obs, result.reward, result.terminated, result.truncated, result.discount, info, final))

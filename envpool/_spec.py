"""Spaces and spec objects derived from the engine's array specs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

# One engine array spec: (name, dtype, shape, low, high).
ArraySpecTuple = tuple[str, str, tuple[int, ...], list[float], list[float]]


def bounds(values: list[float], shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An array spec's low or high as a full array of its dtype (ints clipped to range)."""
    arr = np.asarray(values, dtype=np.float64)
    if dtype.kind in "iub":
        info = np.iinfo(dtype) if dtype.kind in "iu" else None
        if info is not None:
            arr = np.clip(np.nan_to_num(arr, posinf=info.max, neginf=info.min), info.min, info.max)
    out = np.broadcast_to(arr, shape) if arr.size == 1 else arr.reshape(shape)
    return out.astype(dtype)


def is_discrete(spec: ArraySpecTuple) -> bool:
    """A scalar integer array with finite bounds is a discrete choice."""
    _, dtype, shape, low, high = spec
    return np.dtype(dtype).kind in "iu" and shape == () and np.isfinite(low[0]) and np.isfinite(high[0])


def to_space(spec: ArraySpecTuple) -> spaces.Space:
    """The gymnasium space of one array spec."""
    _, dtype_name, shape, low, high = spec
    dtype = np.dtype(dtype_name)
    if is_discrete(spec):
        return spaces.Discrete(int(high[0] - low[0] + 1), start=int(low[0]))
    if dtype == np.bool_:
        return spaces.MultiBinary(shape if shape else 1)
    return spaces.Box(bounds(low, shape, dtype), bounds(high, shape, dtype), shape=shape, dtype=dtype)


def group_space(specs: list[ArraySpecTuple], prefix: str) -> spaces.Space:
    """The space of the arrays named ``prefix`` or ``prefix:<key>``."""
    mine = [s for s in specs if s[0] == prefix or s[0].startswith(prefix + ":")]
    if len(mine) == 1 and mine[0][0] == prefix:
        return to_space(mine[0])
    return spaces.Dict({s[0][len(prefix) + 1 :]: to_space(s) for s in mine})


@dataclass(frozen=True)
class EnvSpec:
    """What :func:`envpool.make_spec` returns: a task's config and spaces."""

    task_id: str
    family: str
    config: dict[str, Any]
    state_spec: list[ArraySpecTuple]
    action_spec: list[ArraySpecTuple]

    @property
    def observation_space(self) -> spaces.Space:
        """The single-env observation space."""
        return group_space(self.state_spec, "obs")

    @property
    def action_space(self) -> spaces.Space:
        """The single-env action space."""
        return group_space(self.action_spec, "action")

    @property
    def info_keys(self) -> list[str]:
        """Info entries every step returns (besides the engine's)."""
        return [s[0][5:] for s in self.state_spec if s[0].startswith("info:")]

    @property
    def max_episode_steps(self) -> int:
        return int(self.config["max_episode_steps"])

    @property
    def reward_threshold(self) -> float | None:
        return self.config.get("reward_threshold")

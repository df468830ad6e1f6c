"""The types of envpool's pools, for annotations and ``isinstance``: every pool is an
:class:`EnvPool`, the gymnasium and gym pools are :class:`GymnasiumEnvPool`\\ s (gymnasium
``VectorEnv``\\ s), the dm_env pools :class:`DMEnvPool`\\ s.

They keep EnvPool 1.2's class names (``EnvPoolMixin``, ...), which its module paths
(:mod:`envpool.compat`, the compatibility package, importable as ``envpool.python``)
re-export from here.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np

# What the pools take and return, for annotations (gymnasium's VectorEnv is generic in its
# observation, action and array types: VectorEnv[Obs, Action, np.ndarray]).
# An observation batch: one array (batch first), or a dict / named tuple of them
# (nested Dict spaces, EnvPool's dm observations).
Obs: TypeAlias = np.ndarray | dict[str, Any] | tuple
# An action batch: one array (batch first), or EnvPool's dict of arrays
# ({"action": a, "env_id": ids, ...}).
Action: TypeAlias = np.ndarray | dict[str, Any]
# What make() takes as its task: a registered id, a multi-task list or {id: count}, a
# Python env's factory (a callable returning a gymnasium.Env) or "gymnasium:<id>".
TaskId: TypeAlias = str | Sequence[str] | Mapping[str, int] | Callable[[], Any]
# A call's env ids: an int, a sequence or array of ints, or None (the call's default).
EnvIds: TypeAlias = int | np.integer | list[int] | np.ndarray | None
# A reset's seed: an int (env i gets seed + i), one per env, or None.
Seed: TypeAlias = int | list[int] | None
# gymnasium's step result: (obs, reward, terminated, truncated, info).
StepResult: TypeAlias = tuple[Obs, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]
# gymnasium's reset result: (obs, info).
ResetResult: TypeAlias = tuple[Obs, dict[str, Any]]


class EnvPoolMixin(ABC):  # noqa: B024 - a marker base, as in EnvPool
    """Base class of every envpool pool (EnvPool 1.2's name; ``envpool.EnvPool``).

    Clients check ``isinstance(env, envpool.python.envpool.EnvPoolMixin)`` (TorchRL's
    ``MultiThreadedEnvWrapper``); every pool that :func:`envpool.make` returns passes."""


class GymnasiumEnvPoolMixin:
    """Base of the gymnasium and gym pools (EnvPool 1.2's name; ``envpool.GymnasiumEnvPool``)."""

    # EnvPool 1.2.5's flag for older vector-aware wrappers; a class attribute, as
    # older scripts assign it (CleanRL's envs.is_vector_env = True).
    is_vector_env: bool = True


class DMEnvPoolMixin:
    """Base of the dm_env pools (EnvPool 1.2's name; ``envpool.DMEnvPool``)."""


EnvPool = EnvPoolMixin
GymnasiumEnvPool = GymnasiumEnvPoolMixin
DMEnvPool = DMEnvPoolMixin

__all__ = [
    "Action",
    "EnvIds",
    "Obs",
    "ResetResult",
    "Seed",
    "StepResult",
    "TaskId",
    "DMEnvPool",
    "DMEnvPoolMixin",
    "EnvPool",
    "EnvPoolMixin",
    "GymnasiumEnvPool",
    "GymnasiumEnvPoolMixin",
]

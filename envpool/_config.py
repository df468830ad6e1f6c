"""How a make's config is resolved: the layers, in order, in one place.

A pool's config is made of these layers, each overriding the ones before it:

1. the engine's options, with their defaults (``num_envs=1``, ``batch_size=0``,
   ``num_threads=0``, ``thread_affinity_offset=-1``, ``seed=42``,
   ``max_episode_steps=0``, ``autoreset_mode="next_step"``; C++, ``EngineDefaults``);
2. the family's own options, with their defaults (C++, ``Family.defaults``;
   1 and 2 together: ``_envpool.family_defaults(family)``);
3. the options every pool handles in Python (:data:`PY_DEFAULTS`);
4. the task's options handled in Python (``TaskSpec.python.defaults``, e.g.
   ``frame_stack=1``, given by its module in :mod:`envpool.tasks`);
5. the task's registration (``TaskSpec.config``: overrides of any of the above, and
   its metadata, :data:`METADATA_KEYS`);
6. the user's options (``envpool.make(task_id, **options)``).

:func:`resolve` merges 3-6 and splits the result: the Python options (layers 3 and 4,
checked here), the metadata, and the engine config; the task's ``prepare`` hook then
completes the engine config (e.g. a model file built from the options) and the engine applies
layers 1 and 2 to it, refusing unknown keys (``_envpool.make_spec``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from envpool.registration import TaskSpec

# Registered task metadata, kept in the config but never passed to the engine:
# reward_threshold, and render_fps (gymnasium's metadata["render_fps"]).
METADATA_KEYS = ("reward_threshold", "render_fps")

# EnvPool config keys handled in Python (never passed to the engine), with their
# defaults. gym_reset_return_info: whether a gym pool's reset() returns (obs, info)
# (EnvPool 1.2's default, True) or obs only; max_num_players: EnvPool's multi-player
# bound (our families are single-player: only 1 is accepted); base_path: EnvPool's
# asset folder (kept in the config; our tasks find their assets themselves);
# batched_spaces: gymnasium pools only, batched observation_space / action_space as
# gymnasium's VectorEnv (default: the single-env spaces, as EnvPool 1.2);
# render_mode: None or "rgb_array" (render() then returns frames of the envs in
# render_env_ids, default [0]).
PY_DEFAULTS: dict[str, Any] = {
    "gym_reset_return_info": True,
    "max_num_players": 1,
    "base_path": os.path.dirname(os.path.abspath(__file__)),
    "batched_spaces": False,
    "render_mode": None,
    "render_env_ids": None,
}


@dataclass(frozen=True)
class Resolved:
    """A make's config, split: what goes to the engine, the Python options (layers 3
    and 4, checked) and the task's metadata."""

    engine: dict[str, Any]
    python: dict[str, Any]
    metadata: dict[str, Any]


def python_keys(task: TaskSpec) -> tuple[str, ...]:
    """The config keys of ``task`` that never reach the engine."""
    return (*METADATA_KEYS, *PY_DEFAULTS, *task.python.defaults)


def python_option_keys(task: TaskSpec) -> tuple[str, ...]:
    """The Python options of ``task`` (layers 3 and 4): a multi-task pool's tasks must agree on them."""
    return (*PY_DEFAULTS, *task.python.defaults)


def resolve(task: TaskSpec, user: Mapping[str, Any]) -> Resolved:
    """Layers 3-6 of ``task`` and the user's options, split and checked (see the module)."""
    merged = {**task.config, **user}
    metadata = {k: merged.pop(k) for k in METADATA_KEYS if k in merged}
    python = {k: merged.pop(k, v) for k, v in {**PY_DEFAULTS, **task.python.defaults}.items()}
    _check_py_options(python)
    if task.python.check is not None:
        task.python.check(python)
    if "autoreset_mode" in merged:
        merged["autoreset_mode"] = _autoreset_mode(merged["autoreset_mode"])
    if task.python.prepare is not None:
        task.python.prepare(merged, user)
    return Resolved(merged, python, metadata)


def engine_config(task: TaskSpec, config: Mapping[str, Any]) -> dict[str, Any]:
    """A pool's resolved config without the keys that never reach the engine."""
    skip = python_keys(task)
    return {k: v for k, v in config.items() if k not in skip}


def registered_engine_config(task: TaskSpec) -> dict[str, Any]:
    """The task's registered overrides as a make with no options gives them to the
    engine, metadata included (what envpool-bench reads without making a pool)."""
    config = dict(task.config)
    if task.python.prepare is not None:
        task.python.prepare(config, {})
    return config


def _autoreset_mode(value: Any) -> Any:
    """A gymnasium AutoresetMode member as the engine's string."""
    try:
        from gymnasium.vector import AutoresetMode
    except ImportError:  # pragma: no cover - gymnasium is a dependency
        return value
    if isinstance(value, AutoresetMode):
        names = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step"}
        if value not in names:
            raise ValueError(f"autoreset_mode must be NEXT_STEP or SAME_STEP, got {value}")
        return names[value]
    return value


def _check_py_options(opts: dict[str, Any]) -> None:
    def is_bool(v: Any) -> bool:
        return isinstance(v, (bool, np.bool_))

    def is_int(v: Any) -> bool:
        return isinstance(v, (int, np.integer)) and not is_bool(v)

    for key in ("gym_reset_return_info", "batched_spaces"):
        if not is_bool(opts[key]):
            raise TypeError(f"config '{key}' must be a bool, got {type(opts[key]).__name__} {opts[key]!r}")
    if not is_int(opts["max_num_players"]):
        raise TypeError(f"config 'max_num_players' must be an int, got {opts['max_num_players']!r}")
    if opts["max_num_players"] != 1:
        raise ValueError(f"max_num_players must be 1 (every task here is single-player), got {opts['max_num_players']}")
    if not isinstance(opts["base_path"], (str, os.PathLike)):
        raise TypeError(f"config 'base_path' must be a str, got {opts['base_path']!r}")
    opts["base_path"] = os.fspath(opts["base_path"])
    if opts["render_mode"] not in (None, "rgb_array"):
        raise ValueError(f"render_mode must be None or 'rgb_array', got {opts['render_mode']!r}")
    ids = opts["render_env_ids"]
    if ids is not None:
        ids = [ids] if is_int(ids) else list(ids) if isinstance(ids, (list, tuple, range, np.ndarray)) else None
        if ids is None or not all(is_int(i) for i in ids):
            raise TypeError(f"render_env_ids must be a list of env ids, got {opts['render_env_ids']!r}")
        opts["render_env_ids"] = [int(i) for i in ids]
    opts["max_num_players"] = int(opts["max_num_players"])
    for key in ("gym_reset_return_info", "batched_spaces"):
        opts[key] = bool(opts[key])

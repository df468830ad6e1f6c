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
:func:`make_pool_spec` does it all for a task id (or a multi-task pool's ids) and
returns the pool's :class:`~envpool._spec.EnvSpec`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from envpool import _envpool, _keys
from envpool._spec import Config, EnvSpec
from envpool.registration import TaskSpec, lookup

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


# Task ids that are not registry entries, as (claims(task_id), spec(task_id, config))
# pairs tried in order (envpool.python_env adds a user's env_fn and "gymnasium:<id>"
# when it is imported).
SPEC_RESOLVERS: list[tuple[Callable[[Any], bool], Callable[[Any, dict[str, Any]], EnvSpec]]] = []
# The families whose pools' specs come from SPEC_RESOLVERS (they have no registered task).
POOL_SPEC_FAMILIES: set[str] = set()


def make_pool_spec(task_id: Any, config: dict[str, Any]) -> EnvSpec:
    """Resolve a task id (or a list / dict of them: a multi-task pool) and user config
    into a validated EnvSpec."""
    for claims, spec_of in SPEC_RESOLVERS:
        if claims(task_id):
            return spec_of(task_id, config)
    if isinstance(task_id, (list, tuple, dict)):
        return _multi_task_spec(task_id, config)
    if "task_options" in config:
        raise TypeError("task_options is for multi-task pools: make([task_id, ...], ...)")
    task = lookup(task_id)
    resolved = resolve(task, config)
    full, state_spec, action_spec = _envpool.make_spec(task.family, resolved.engine)
    if full.get("batch_size") == 0:
        full["batch_size"] = full["num_envs"]  # EnvPool's config reports the resolved batch size
    config = Config({**full, **resolved.python, **resolved.metadata})
    if task.python.state_spec is not None:
        state_spec = task.python.state_spec(state_spec, config)
    return EnvSpec(task_id, task.family, config, state_spec, action_spec)


def task_of(spec: EnvSpec) -> TaskSpec:
    """The registered task of a pool's spec (a multi-task pool: its first task); a spec
    that a SPEC_RESOLVERS entry made (no registered task) has a bare one."""
    if spec.family in POOL_SPEC_FAMILIES:
        return TaskSpec(str(spec.task_id), spec.family)
    return lookup(spec.task_ids[0] if spec.task_ids else spec.task_id)


def _multi_task_spec(tasks: Any, config: dict[str, Any]) -> EnvSpec:
    """A pool whose envs run different tasks: round-robin over a list (env i runs
    tasks[i % len(tasks)]), or a dict {task_id: count} (envs in blocks, in dict order).
    Common options apply to every task, ``task_options={task_id: {...}}`` to one. Every
    task must have the same observation and action arrays."""
    config = dict(config)
    task_options = config.pop("task_options", None) or {}
    if isinstance(tasks, dict):
        counts = {str(t): int(n) for t, n in tasks.items()}
        if any(n < 0 for n in counts.values()):
            raise ValueError(f"task counts must be >= 0, got {tasks}")
        ids = list(counts)
        env_task = [i for i, n in enumerate(counts.values()) for _ in range(n)]
        if config.setdefault("num_envs", len(env_task)) != len(env_task):
            raise ValueError(f"num_envs={config['num_envs']} but the task counts add up to {len(env_task)}")
    else:
        ids = [str(t) for t in tasks]
        n = config.setdefault("num_envs", len(ids))
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"num_envs must be a positive int, got {n!r}")
        env_task = [i % max(len(ids), 1) for i in range(int(n))]
    if not ids:
        raise ValueError("a multi-task pool needs at least one task id")
    if len(set(ids)) != len(ids):
        raise ValueError(f"task ids repeat in {ids}: use a dict {{task_id: count}} for several envs of one task")
    unknown = set(task_options) - set(ids)
    if unknown:
        raise ValueError(f"task_options names tasks not in the pool: {sorted(unknown)}")
    subs = [make_pool_spec(t, {**config, **task_options.get(t, {})}) for t in ids]
    first = subs[0]
    for other in subs[1:]:
        _check_same_arrays(first, other)
        keys = dict.fromkeys((*python_option_keys(lookup(first.task_id)), *python_option_keys(lookup(other.task_id))))
        for key in keys:
            if first.config.get(key) != other.config.get(key):
                raise ValueError(
                    f"tasks {first.task_id!r} and {other.task_id!r} differ in {key!r}: "
                    f"{first.config.get(key)!r} vs {other.config.get(key)!r}"
                )
    task_key = (_keys.name(_keys.INFO, "task_id"), "int32", (), [0.0], [float(len(ids) - 1)])
    return EnvSpec(
        "+".join(ids),
        first.family,
        first.config,
        [*first.state_spec, task_key],
        first.action_arrays,
        task_ids=tuple(ids),
        task_families=tuple(s.family for s in subs),
        task_configs=tuple(engine_config(lookup(s.task_id), s.config) for s in subs),
        env_task=tuple(env_task),
    )


def _check_same_arrays(a: EnvSpec, b: EnvSpec) -> None:
    """A ValueError naming the first array where two tasks differ."""
    fields = ("dtype", "shape", "low", "high")
    for kind, xs, ys in (
        ("observation/info", a.state_spec, b.state_spec),
        ("action", a.action_arrays, b.action_arrays),
    ):
        names_a, names_b = [x[0] for x in xs], [y[0] for y in ys]
        if names_a != names_b:
            only_a = [n for n in names_a if n not in names_b]
            only_b = [n for n in names_b if n not in names_a]
            if only_a or only_b:
                owner, name = (a.task_id, only_a[0]) if only_a else (b.task_id, only_b[0])
                what = f"only {owner!r} has the {kind} array {name!r}"
            else:
                what = f"their {kind} arrays come in another order"
            raise ValueError(f"tasks {a.task_id!r} and {b.task_id!r} differ: {what}")
        for x, y in zip(xs, ys, strict=True):
            for i, field in enumerate(fields, start=1):
                same = x[i] == y[i] if field == "dtype" else list(np.ravel(x[i])) == list(np.ravel(y[i]))
                if not same:
                    hint = ""
                    if kind == "action" and a.family == b.family:
                        hint = lookup(a.task_id).python.action_mismatch_hint
                    raise ValueError(
                        f"tasks {a.task_id!r} and {b.task_id!r} differ in {x[0]!r}: {field} {x[i]!r} vs {y[i]!r}{hint}"
                    )


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

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

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from envpool import _envpool, _keys
from envpool._spec import Config, EnvSpec
from envpool.registration import MakeError, TaskSpec, lookup, make_errors

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13

# The engine's options, which every family takes (layer 1 below; C++, EngineDefaults:
# the one list of them).
ENGINE_KEYS: tuple[str, ...] = tuple(_envpool.engine_defaults())

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
    resized = task.family not in POOL_SPEC_FAMILIES and _frames_of_fixed_size(task.family)
    return (*METADATA_KEYS, *PY_DEFAULTS, *task.python.defaults, *(_RESIZED_FRAME_KEYS if resized else ()))


# EnvPool 1.2.5's render size where render() resizes the frames (a family of fixed frame
# size) rather than the engine drawing them at that size.
_RESIZED_FRAME_KEYS = ("render_width", "render_height")


@functools.cache
def _frames_of_fixed_size(family: str) -> bool:
    """Whether a registered family draws its frames at one size (its table's sized_frames is false)."""
    return not _envpool.families()[family]["sized_frames"]


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
    _envpool_125_render_keywords(task, merged, python)
    if task.python.prepare is not None:
        task.python.prepare(merged, user)
    return Resolved(merged, python, metadata)


# EnvPool 1.2.5's render keywords, for the tasks whose families take gymnasium's names
# for them (width, height and camera_id: a frame size and camera of their own).
_RENDER_ALIASES = {"render_width": "width", "render_height": "height", "render_camera_id": "camera_id"}


def _envpool_125_render_keywords(task: TaskSpec, merged: dict[str, Any], python: dict[str, Any]) -> None:
    """EnvPool 1.2.5's render keywords: its size and camera as gymnasium's names, and
    ``from_pixels=False`` (its default) dropped where the family has no pixel observations.
    A family whose frames have a fixed size (not ``sized_frames``) draws them at that size, and
    render() resizes them to ``render_width`` x ``render_height`` (Python options), as
    EnvPool 1.2.5 resizes its frames; such frames have no camera to choose."""
    given = [k for k in _RENDER_ALIASES if k in merged]
    if task.family in POOL_SPEC_FAMILIES or not (given or merged.get("from_pixels") is False):
        return
    if merged.get("from_pixels") is False and "from_pixels" not in _envpool.family_defaults(task.family):
        del merged["from_pixels"]
    if given and _frames_of_fixed_size(task.family):
        if "render_camera_id" in given:
            raise TypeError(
                f"'render_camera_id' (EnvPool 1.2.5's camera) is not an option of {task.family}: its frames have no camera"
            )
        for key in given:
            size = merged.pop(key)
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
                raise TypeError(
                    f"{key} must be an int (the frame size in pixels; 0 or less: the task's own), got {size!r}"
                )
            python[key] = int(size)
        return
    for old in given:
        new = _RENDER_ALIASES[old]
        if new in merged:
            raise MakeError(f"pass either {new} or {old} (EnvPool 1.2.5's name), not both")
        merged[new] = merged.pop(old)


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
# pairs tried in order (see add_spec_resolver).
SPEC_RESOLVERS: list[tuple[Callable[[Any], bool], Callable[[Any, dict[str, Any]], EnvSpec]]] = []
# The families whose pools' specs come from SPEC_RESOLVERS (they have no registered task).
POOL_SPEC_FAMILIES: set[str] = set()


def add_spec_resolver(
    family: str, claims: Callable[[Any], bool], spec_of: Callable[[Any, dict[str, Any]], EnvSpec]
) -> None:
    """make() takes the task ids that ``claims`` accepts (no registry entry) and gets their
    pool's spec from ``spec_of(task_id, config)``, a spec of ``family`` (envpool.python_env
    adds a user's env_fn and ``"gymnasium:<id>"`` this way when it is imported)."""
    SPEC_RESOLVERS.append((claims, spec_of))
    POOL_SPEC_FAMILIES.add(family)


def make_pool_spec(task_id: Any, config: dict[str, Any]) -> EnvSpec:
    """Resolve a task id (or a list / dict of them: a multi-task pool) and user config
    into a validated EnvSpec."""
    config = _envpool_125_keywords(dict(config))
    # A seed per env: the pool is specified without it (its envs are alike) and
    # config["seed"] reports the list, checked by the engine's rules.
    seeds = config.pop("seed") if is_seed_list(config.get("seed")) else None
    env_options = config.pop("env_options", None)
    spec = _pool_spec(task_id, config, env_options)
    if seeds is not None:
        n = int(spec.config["num_envs"])
        with make_errors():
            spec.config["seed"] = list(_envpool.check_seeds(seeds, list(range(n)), n))
    return spec


def _envpool_125_keywords(config: dict[str, Any]) -> dict[str, Any]:
    """EnvPool 1.2.5's make keywords that have another name here: ``env_seed`` (one seed
    per env: ``seed=[...]``, over an int ``seed`` as in 1.2.5) and ``render_env_id``
    (``render_env_ids``, which takes one id too)."""
    if "env_seed" in config:
        seeds = config.pop("env_seed")
        if not is_seed_list(seeds):
            raise TypeError(f"env_seed must be a list of one seed per env, got {type(seeds).__name__}")
        if is_seed_list(config.get("seed")):
            raise MakeError("pass either seed=[...] or env_seed (EnvPool 1.2.5's name), not both")
        config["seed"] = seeds
    if "render_env_id" in config:
        if "render_env_ids" in config:
            raise MakeError("pass either render_env_ids or render_env_id (EnvPool 1.2.5's name), not both")
        config["render_env_ids"] = config.pop("render_env_id")
    return config


def is_seed_list(seed: Any) -> TypeIs[Sequence[int] | np.ndarray]:
    """Whether make's ``seed`` is one seed per env (a sequence) rather than an int."""
    return isinstance(seed, (list, tuple, range, np.ndarray))


def split_seeds(engine: dict[str, Any]) -> tuple[dict[str, Any], list[int] | None]:
    """An engine config without a per-env seed list, and the list (None for an int
    seed): the engine pool takes the list apart from its config."""
    if not is_seed_list(engine.get("seed")):
        return engine, None
    engine = dict(engine)
    return engine, [int(s) for s in engine.pop("seed")]


def _pool_spec(task_id: Any, config: dict[str, Any], env_options: Any) -> EnvSpec:
    for claims, spec_of in SPEC_RESOLVERS:
        if claims(task_id):
            if env_options is not None:
                raise MakeError("env_options: the envs of a pool of Python envs all take the pool's options")
            return spec_of(task_id, config)
    if isinstance(task_id, (list, tuple, dict)):
        return _multi_task_spec(task_id, config, env_options)
    if "task_options" in config:
        raise TypeError("task_options is for multi-task pools: make([task_id, ...], ...)")
    base = _task_spec(task_id, config)
    if env_options is None:
        return base
    return _configs_spec([str(task_id)], [base], [config], [0] * int(base.config["num_envs"]), env_options, False)


def _task_spec(task_id: Any, config: dict[str, Any]) -> EnvSpec:
    """One registered task's spec, every env alike."""
    task = lookup(task_id)
    with make_errors():  # the task's, the engine's and the family's checks of the values
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


def _multi_task_spec(tasks: Any, config: dict[str, Any], env_options: Any) -> EnvSpec:
    """A pool whose envs run different tasks: round-robin over a list (env i runs
    tasks[i % len(tasks)]), or a dict {task_id: count} (envs in blocks, in dict order).
    Common options apply to every task, ``task_options={task_id: {...}}`` to one. Every
    task must have the same observation and action arrays."""
    config = dict(config)
    task_options = config.pop("task_options", None) or {}
    if isinstance(tasks, dict):
        counts = {str(t): int(n) for t, n in tasks.items()}
        if any(n < 0 for n in counts.values()):
            raise MakeError(f"task counts must be >= 0, got {tasks}")
        ids = list(counts)
        env_task = [i for i, n in enumerate(counts.values()) for _ in range(n)]
        if config.setdefault("num_envs", len(env_task)) != len(env_task):
            raise MakeError(f"num_envs={config['num_envs']} but the task counts add up to {len(env_task)}")
    else:
        ids = [str(t) for t in tasks]
        n = config.setdefault("num_envs", len(ids))
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise MakeError(f"num_envs must be a positive int, got {n!r}")
        env_task = [i % max(len(ids), 1) for i in range(int(n))]
    if not ids:
        raise MakeError("a multi-task pool needs at least one task id")
    if len(set(ids)) != len(ids):
        raise MakeError(f"task ids repeat in {ids}: use a dict {{task_id: count}} for several envs of one task")
    unknown = set(task_options) - set(ids)
    if unknown:
        raise MakeError(f"task_options names tasks not in the pool: {sorted(unknown)}")
    configs = [{**config, **task_options.get(t, {})} for t in ids]
    subs = [make_pool_spec(t, c) for t, c in zip(ids, configs, strict=True)]
    first = subs[0]
    for other in subs[1:]:
        _check_same_arrays(first, other)
        keys = dict.fromkeys((*python_option_keys(lookup(first.task_id)), *python_option_keys(lookup(other.task_id))))
        for key in keys:
            if first.config.get(key) != other.config.get(key):
                raise MakeError(
                    f"tasks {first.task_id!r} and {other.task_id!r} differ in {key!r}: "
                    f"{first.config.get(key)!r} vs {other.config.get(key)!r}"
                )
    return _configs_spec(ids, subs, configs, env_task, env_options, True)


# Options of the pool as a whole, never of one env (env_options refuses them): the
# engine's, but the episode length.
POOL_KEYS = tuple(k for k in ENGINE_KEYS if k != "max_episode_steps")


def env_options_list(env_options: Any, num_envs: int) -> list[dict[str, Any]]:
    """make's ``env_options`` (a list of one dict per env, or ``{env_id: {...}}``) as one
    dict per env (``{}``: the pool's options)."""
    if isinstance(env_options, Mapping):
        out: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        for env_id, opts in env_options.items():
            if not isinstance(env_id, (int, np.integer)) or isinstance(env_id, bool) or not 0 <= env_id < num_envs:
                raise MakeError(f"env_options names env {env_id!r}, not an env id in [0, {num_envs})")
            out[int(env_id)] = opts
    elif isinstance(env_options, (list, tuple)):
        if len(env_options) != num_envs:
            raise MakeError(f"env_options has {len(env_options)} entries for {num_envs} envs (one dict per env)")
        out = list(env_options)
    else:
        raise TypeError(
            f"env_options must be a list of one dict per env or a dict {{env_id: dict}}, got {type(env_options).__name__}"
        )
    for i, opts in enumerate(out):
        if opts is None:
            out[i] = {}
        elif not isinstance(opts, Mapping):
            raise TypeError(f"env_options of env {i} must be a dict of options, got {type(opts).__name__}")
    return [dict(o) for o in out]


def _configs_spec(
    ids: list[str],
    bases: list[EnvSpec],
    configs: list[dict[str, Any]],
    env_task: list[int],
    env_options: Any,
    multi: bool,
) -> EnvSpec:
    """The spec of a pool whose envs differ in config: tasks (``multi``: env i runs
    task ``env_task[i]``, ``bases[t]`` its spec from ``configs[t]``) and per-env options
    over them. Each distinct (task, options) pair is one engine config; options that
    would change the spaces are refused, naming them and the envs."""
    per_env = [{} for _ in env_task] if env_options is None else env_options_list(env_options, len(env_task))
    for i, opts in enumerate(per_env):
        task = lookup(ids[env_task[i]])
        for key in opts:
            if key in POOL_KEYS or key in python_keys(task):
                raise MakeError(
                    f"env_options of env {i}: {key!r} is an option of the whole pool, not of one env "
                    "(per env: the task's own options and max_episode_steps)"
                )
    bases, configs, per_env = _hoist_common_options(ids, bases, configs, env_task, per_env)
    # The engine's configs: every task's own first (their index is the task's), then
    # one per distinct (task, options) pair that env_options adds.
    specs, config_task = list(bases), list(range(len(bases)))
    opts_of: list[dict[str, Any]] = [{} for _ in bases]
    groups: dict[Any, int] = {(t, _frozen({})): t for t in range(len(bases))}
    env_config = []
    for i, opts in enumerate(per_env):
        t = env_task[i]
        group = (t, _frozen(opts))
        if group not in groups:
            try:
                spec = _task_spec(ids[t], {**configs[t], **opts})
            except (TypeError, ValueError) as e:  # an unknown key, a bad value: say whose
                raise type(e)(f"env_options of env {i}: {e}") from e
            groups[group] = len(specs)
            specs.append(spec)
            config_task.append(t)
            opts_of.append(opts)
        env_config.append(groups[group])
    envs_of = [[i for i, g in enumerate(env_config) if g == c] for c in range(len(specs))]
    for c in range(len(bases), len(specs)):
        t = config_task[c]
        others = envs_of[t]
        who = f"envs {envs_of[c]} with env_options {sorted(opts_of[c])} and " + (
            f"envs {others} with the pool's options" if others else "the pool's options"
        )
        _check_same_arrays(specs[c], bases[t], who, " (options that change the spaces must agree across envs)")
    first = bases[0]
    if len(specs) == 1 and not multi:
        return first
    state_spec = first.state_spec
    if multi:
        state_spec = [*state_spec, (_keys.name(_keys.INFO, "task_id"), "int32", (), [0.0], [float(len(ids) - 1)])]
    return EnvSpec(
        "+".join(ids) if multi else first.task_id,
        first.family,
        first.config,
        state_spec,
        first.action_arrays,
        task_ids=tuple(ids) if multi else (),
        env_task=tuple(env_task) if multi else (),
        task_families=tuple(s.family for s in specs),
        task_configs=tuple(engine_config(lookup(s.task_id), s.config) for s in specs),
        config_task=tuple(config_task),
        env_config=tuple(env_config),
    )


def _hoist_common_options(
    ids: list[str], bases: list[EnvSpec], configs: list[dict[str, Any]], env_task: list[int], per_env: list[dict]
) -> tuple[list[EnvSpec], list[dict[str, Any]], list[dict]]:
    """env_options that every env of a task gives alike (e.g. each env map_name="8x8")
    are that task's options: moved into its config, so that no config that no env runs
    is checked against the others' spaces. Each env's options over its task's config
    stay what they were."""
    bases, configs, per_env = list(bases), list(configs), [dict(o) for o in per_env]
    for t in range(len(bases)):
        envs = [i for i, task in enumerate(env_task) if task == t]
        if not envs:
            continue
        common = {
            k: v
            for k, v in per_env[envs[0]].items()
            if all(k in per_env[i] and _frozen(per_env[i][k]) == _frozen(v) for i in envs[1:])
        }
        if not common:
            continue
        try:
            bases[t] = _task_spec(ids[t], {**configs[t], **common})
        except (TypeError, ValueError) as e:  # an unknown key, a bad value: say whose
            raise type(e)(f"env_options of envs {envs}: {e}") from e
        configs[t] = {**configs[t], **common}
        for i in envs:
            per_env[i] = {k: v for k, v in per_env[i].items() if k not in common}
    return bases, configs, per_env


def _frozen(value: Any) -> Any:
    """A hashable stand-in for an option value (dicts, lists and arrays included):
    envs whose options freeze alike share one engine config."""
    if isinstance(value, Mapping):
        return ("dict", tuple(sorted((str(k), _frozen(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(_frozen(v) for v in value))
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    try:
        hash(value)
    except TypeError:
        return ("object", id(value))
    return (type(value).__name__, value)


def _check_same_arrays(a: EnvSpec, b: EnvSpec, who: str = "", why: str = "") -> None:
    """A ValueError naming the first array where two tasks (or ``who``: two groups of
    envs) differ, ``why`` appended."""
    who = who or f"tasks {a.task_id!r} and {b.task_id!r}"
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
                owner = repr(owner) if a.task_id != b.task_id else "one"
                what = f"only {owner} has the {kind} array {name!r}"
            else:
                what = f"their {kind} arrays come in another order"
            raise MakeError(f"{who} differ: {what}{why}")
        for x, y in zip(xs, ys, strict=True):
            for i, field in enumerate(fields, start=1):
                same = x[i] == y[i] if field == "dtype" else list(np.ravel(x[i])) == list(np.ravel(y[i]))
                if not same:
                    hint = ""
                    if kind == "action" and a.family == b.family:
                        hint = lookup(a.task_id).python.action_mismatch_hint
                    raise MakeError(f"{who} differ in {x[0]!r}: {field} {x[i]!r} vs {y[i]!r}{hint}{why}")


# autoreset_mode: gymnasium's AutoresetMode values and ours (the engine's, which the
# config reports).
_AUTORESET_MODES = {"NextStep": "next_step", "SameStep": "same_step", "Disabled": "disabled"}


def _autoreset_mode(value: Any) -> Any:
    """A gymnasium AutoresetMode member or value string as the engine's string."""
    from gymnasium.vector import AutoresetMode

    if isinstance(value, AutoresetMode):
        value = value.value
    return _AUTORESET_MODES.get(value, value) if isinstance(value, str) else value


def autoreset_member(mode: str) -> Any:
    """The gymnasium AutoresetMode member of the engine's mode string (metadata)."""
    from gymnasium.vector import AutoresetMode

    return AutoresetMode({ours: theirs for theirs, ours in _AUTORESET_MODES.items()}[mode])


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
        raise MakeError(f"max_num_players must be 1 (every task here is single-player), got {opts['max_num_players']}")
    if not isinstance(opts["base_path"], (str, os.PathLike)):
        raise TypeError(f"config 'base_path' must be a str, got {opts['base_path']!r}")
    opts["base_path"] = os.fspath(opts["base_path"])
    if opts["render_mode"] not in (None, "rgb_array"):
        raise MakeError(f"render_mode must be None or 'rgb_array', got {opts['render_mode']!r}")
    ids = opts["render_env_ids"]
    if ids is not None:
        ids = [ids] if is_int(ids) else list(ids) if isinstance(ids, (list, tuple, range, np.ndarray)) else None
        if ids is None or not all(is_int(i) for i in ids):
            raise TypeError(f"render_env_ids must be a list of env ids, got {opts['render_env_ids']!r}")
        opts["render_env_ids"] = [int(i) for i in ids]
    opts["max_num_players"] = int(opts["max_num_players"])
    for key in ("gym_reset_return_info", "batched_spaces"):
        opts[key] = bool(opts[key])

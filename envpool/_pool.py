"""What all three interfaces share: the engine pool and its bookkeeping."""

from __future__ import annotations

import collections.abc
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from envpool import _envpool
from envpool._spec import Config, EnvSpec
from envpool.python.envpool import EnvPoolMixin
from envpool.registration import lookup

# What every engine call returns: a named tuple (struct sequence) with the
# fields obs, reward, terminated, truncated, discount, info, final.
Batch = _envpool.Batch

# Keys a task registration may carry that are not engine config.
# Registered task metadata, kept in the config but never passed to the engine:
# reward_threshold, and render_fps (gymnasium's metadata["render_fps"]).
_METADATA_KEYS = ("reward_threshold", "render_fps")

# EnvPool config keys handled here in Python (never passed to the engine),
# with their defaults. gym_reset_return_info: whether a gym pool's reset()
# returns (obs, info) (EnvPool 1.2's default, True) or obs only;
# max_num_players: EnvPool's multi-player bound (our families are
# single-player: only 1 is accepted); base_path: EnvPool's asset folder
# (kept in the config; our tasks find their assets themselves);
# batched_spaces: gymnasium pools only, batched observation_space /
# action_space as gymnasium's VectorEnv (default: the single-env spaces, as
# EnvPool 1.2).
_PY_DEFAULTS: dict[str, Any] = {
    "gym_reset_return_info": True,
    "max_num_players": 1,
    "base_path": os.path.dirname(os.path.abspath(__file__)),
    "batched_spaces": False,
    # render_mode: None or "rgb_array" (render() then returns frames of the
    # envs in render_env_ids, default [0]).
    "render_mode": None,
    "render_env_ids": None,
}

# Task options handled here in Python, with their defaults: frame_stack
# (EnvPool's observation stacking) for the MuJoCo tasks (those registered
# with an assets_dir: gymnasium's; or a model_dir: the dm_control suite's).
_PY_TASK_KEYS = ("frame_stack",)


def _task_py_defaults(task: Any) -> dict[str, Any]:
    return {"frame_stack": 1} if "assets_dir" in task.config or "model_dir" in task.config else {}


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
    if "frame_stack" in opts:
        if not is_int(opts["frame_stack"]):
            raise TypeError(f"config 'frame_stack' must be an int, got {opts['frame_stack']!r}")
        if opts["frame_stack"] < 1:
            raise ValueError(f"frame_stack must be >= 1, got {opts['frame_stack']}")
        opts["frame_stack"] = int(opts["frame_stack"])
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


_CAMERA_INT_KEYS = ("type", "fixedcamid", "trackbodyid", "orthographic")


def _camera_keys(merged: dict[str, Any]) -> None:
    """MuJoCo's render keys in the engine's terms: gymnasium's None for camera_id /
    camera_name / default_camera_config / visual_options is -1 / "" / "" / "", a
    default_camera_config dict (mjvCamera attribute -> value) becomes the engine's text,
    "key=value;...", with lookat's three numbers comma separated, and a visual_options
    dict (mjtVisFlag -> bool) "flag=0|1;...". render_processes: True / False / None are
    "on" / "off" / "auto"."""
    if "camera_id" in merged and merged["camera_id"] is None:
        merged["camera_id"] = -1
    if "camera_name" in merged and merged["camera_name"] is None:
        merged["camera_name"] = ""
    cfg = merged.get("default_camera_config", "")
    if cfg is None:
        merged["default_camera_config"] = ""
    elif isinstance(cfg, collections.abc.Mapping):

        def text(key: str, value: Any) -> str:
            if key == "lookat":
                return ",".join(repr(float(x)) for x in np.ravel(value))
            if key in _CAMERA_INT_KEYS and float(value).is_integer():
                return str(int(value))
            return repr(float(value))

        try:
            merged["default_camera_config"] = ";".join(f"{k}={text(str(k), v)}" for k, v in cfg.items())
        except (TypeError, ValueError) as e:
            raise TypeError(f"default_camera_config values must be numbers (lookat: 3 numbers), got {cfg!r}") from e
    vis = merged.get("visual_options", "")
    if vis is None:
        merged["visual_options"] = ""
    elif isinstance(vis, collections.abc.Mapping):
        try:
            merged["visual_options"] = ";".join(f"{int(k)}={int(bool(v))}" for k, v in vis.items())
        except (TypeError, ValueError) as e:
            raise TypeError(f"visual_options must map mjtVisFlag indices to bools, got {vis!r}") from e
    procs = merged.get("render_processes", "auto")
    if procs is None or isinstance(procs, (bool, np.bool_)):
        merged["render_processes"] = "auto" if procs is None else ("on" if procs else "off")


class Frames(np.ndarray):
    """What render() returns: uint8 frames, batch first (n, height, width, 3). A NumPy
    array that also counts as a Sequence, as gymnasium's vector RecordVideo requires."""


collections.abc.Sequence.register(Frames)


def _stack_spec(spec: tuple, k: int, channels: bool = False) -> tuple:
    """The spec of k stacked observations: a new first axis, or with ``channels`` (pixel
    observations, channel first) k times the channels, as EnvPool stacks frames."""
    name, dtype, shape, low, high = spec
    n = int(np.prod(shape)) if shape else 1
    low = list(low) * (k if len(low) == n and n > 1 else 1)
    high = list(high) * (k if len(high) == n and n > 1 else 1)
    return (name, dtype, (k * shape[0], *shape[1:]) if channels else (k, *shape), low, high)


def make_pool_spec(task_id: Any, config: dict[str, Any]) -> EnvSpec:
    """Resolve a task id (or a list / dict of them: a multi-task pool) and user config
    into a validated EnvSpec."""
    from envpool import python_env  # your own Python envs, in worker processes

    if python_env.is_python_task(task_id):
        return python_env.make_pool_spec(task_id, config)
    if isinstance(task_id, (list, tuple, dict)):
        return _multi_task_spec(task_id, config)
    if "task_options" in config:
        raise TypeError("task_options is for multi-task pools: make([task_id, ...], ...)")
    task = lookup(task_id)
    merged = {**task.config, **config}
    metadata = {k: merged.pop(k) for k in _METADATA_KEYS if k in merged}
    py_opts = {k: merged.pop(k, v) for k, v in _PY_DEFAULTS.items()}
    py_opts.update({k: merged.pop(k, v) for k, v in _task_py_defaults(task).items()})
    _check_py_options(py_opts)
    if "autoreset_mode" in merged:
        merged["autoreset_mode"] = _autoreset_mode(merged["autoreset_mode"])
    if "assets_dir" in task.config:  # the MuJoCo tasks
        _camera_keys(merged)
    if task.prepare is not None:
        task.prepare(merged, config)
    full, state_spec, action_spec = _envpool.make_spec(task.family, merged)
    if full.get("batch_size") == 0:
        full["batch_size"] = full["num_envs"]  # EnvPool's config reports the resolved batch size
    k = py_opts.get("frame_stack", 1)
    if k > 1:
        channels = bool(full.get("from_pixels"))
        state_spec = [
            _stack_spec(s, k, channels) if s[0] == "obs" or s[0].startswith("obs:") else s for s in state_spec
        ]
    return EnvSpec(task_id, task.family, Config({**full, **py_opts, **metadata}), state_spec, action_spec)


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
        for key in (*_PY_DEFAULTS, *_PY_TASK_KEYS):
            if first.config.get(key) != other.config.get(key):
                raise ValueError(
                    f"tasks {first.task_id!r} and {other.task_id!r} differ in {key!r}: "
                    f"{first.config.get(key)!r} vs {other.config.get(key)!r}"
                )
    task_key = ("info:task_id", "int32", (), [0.0], [float(len(ids) - 1)])
    return EnvSpec(
        "+".join(ids),
        first.family,
        first.config,
        [*first.state_spec, task_key],
        first.action_arrays,
        task_ids=tuple(ids),
        task_families=tuple(s.family for s in subs),
        task_configs=tuple(_engine_config(s) for s in subs),
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
                    if kind == "action" and a.family == "Atari" == b.family:
                        hint = " (pass full_action_space=True: every game then has the same 18 actions)"
                    raise ValueError(
                        f"tasks {a.task_id!r} and {b.task_id!r} differ in {x[0]!r}: {field} {x[i]!r} vs {y[i]!r}{hint}"
                    )


def _engine_config(spec: EnvSpec) -> dict[str, Any]:
    skip = (*_METADATA_KEYS, *_PY_DEFAULTS, *_PY_TASK_KEYS)
    return {k: v for k, v in spec.config.items() if k not in skip}


class _FrameStack:
    """EnvPool's MuJoCo ``frame_stack``: obs of shape (frame_stack, *obs_shape), oldest
    first; a reset fills every slot with the first observation. With ``channels`` (pixel
    observations, (C, H, W)) the frames are stacked along the channels: (frame_stack * C,
    H, W), oldest first."""

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

    def apply(self, result: Batch) -> Batch:
        obs, info, final = result.obs, result.info, result.final
        ids = np.asarray(info["env_id"])
        first = np.asarray(info["elapsed_step"]) == 0
        if final is not None:  # same-step autoreset: stack the final obs onto the old frames first
            fobs, finfo = final
            if isinstance(fobs, dict):
                fobs = {k: self._final("obs:" + k, ids, v) for k, v in fobs.items()}
            else:
                fobs = self._final("obs", ids, fobs)
            final = (fobs, finfo)
        if isinstance(obs, dict):
            obs = {k: self._one("obs:" + k, ids, v, first) for k, v in obs.items()}
        else:
            obs = self._one("obs", ids, obs, first)
        return Batch((obs, result.reward, result.terminated, result.truncated, result.discount, info, final))


class PoolBase(EnvPoolMixin):
    """Owns one engine pool; subclasses shape its results for one API.

    The engine calls used: ``_envpool.Pool(family, config, with_discount)``, ``.reset(env_id, seed)``,
    ``.send_reset(env_id, seed)``, ``.step(action, env_id)``, ``.send(action, env_id)``,
    ``.recv()`` (each result a :data:`Batch`: fields obs, reward, terminated,
    truncated, discount, info, final; discount is None unless the interface asks for
    it with ``_WITH_DISCOUNT``), ``.close()`` and ``.closed``.
    """

    # Only the dm interface hands out discounts; the others save a view per call.
    _WITH_DISCOUNT = True

    def __init__(self, task_id: str, **config: Any) -> None:
        self.spec = make_pool_spec(task_id, config)
        self._pool = self._new_pool()
        self.config = self.spec.config
        self._num_envs = int(self.config["num_envs"])
        bad = [i for i in self.config.get("render_env_ids") or [] if not 0 <= i < self._num_envs]
        if bad:
            raise ValueError(f"render_env_ids holds {bad[0]}, not an env id in [0, {self._num_envs})")
        self._batch_size = int(self.config["batch_size"]) or self._num_envs
        self.is_async = self._batch_size < self._num_envs
        self._next_seed: int | list[int] | None = None
        k = int(self.config.get("frame_stack", 1))
        obs_specs = [s for s in self.spec.state_spec if s[0] == "obs" or s[0].startswith("obs:")]
        channels = bool(self.config.get("from_pixels"))
        self._stack = _FrameStack(k, self._num_envs, obs_specs, channels) if k > 1 else None
        # step() of the default envs with an array action goes straight to the
        # engine when nothing is added in Python (saves a call per step).
        self._direct = self._stack is None
        self._xla_slot: Any = None  # this pool's place in the XLA registry, once xla() is called

    def _new_pool(self) -> Any:
        if self.spec.family == "PyProc":
            from envpool.python_env import new_pool

            return new_pool(self.spec, self._WITH_DISCOUNT)
        if self.spec.task_ids:
            spec = self.spec
            return _envpool.Pool(
                list(spec.task_families), list(spec.task_configs), list(spec.env_task), self._WITH_DISCOUNT
            )
        return _envpool.Pool(self.spec.family, _engine_config(self.spec), self._WITH_DISCOUNT)

    @property
    def task_ids(self) -> list[str]:
        """The tasks of the pool: ``info["task_id"]`` indexes this list (multi-task pools;
        a single-task pool lists its one task)."""
        return list(self.spec.task_ids) or [self.spec.task_id]

    # -- the engine's calls, with EnvPool's conveniences ----------------------
    def _resetting(self, seed: Any, call: Callable[[Any], Any], resets_envs: bool = True) -> Any:
        """Runs a reset ``call(seed)``. EnvPool rebuilds a closed pool on reset(): so do
        we (fresh envs, the pool's seeds). The pending seed() seed applies when no seed
        is given. A call refused for its arguments leaves everything as it was (the pool
        closed, the pending seed pending); one where envs failed did reset the others."""
        old = None
        if self._pool.closed:
            old, self._pool = self._pool, self._new_pool()
            self._xla_rebind()
        # A reset of no envs (reset([]) each step, as Sample Factory does) keeps it.
        pending = resets_envs and seed is None and self._next_seed is not None
        try:
            result = call(self._next_seed if pending else seed)
        except Exception as e:
            if not hasattr(e, "failed_env_ids"):
                if old is not None:
                    self._pool.close()
                    self._pool = old
                    self._xla_rebind()
                raise
            if pending:
                self._next_seed = None
            raise
        if pending:
            self._next_seed = None
        return result

    def _split_action(self, action: Any, env_id: Any) -> tuple[Any, Any]:
        """EnvPool's dict actions: ``{"action": a, "env_id": ids, "players.env_id": ...}``."""
        if not isinstance(action, dict):
            return action, env_id
        action = dict(action)
        ids = action.pop("env_id", None)
        action.pop("players.env_id", None)
        players = action.pop("players", None)
        if isinstance(players, dict):
            players.pop("env_id", None)
        if env_id is None:
            env_id = ids
        names = [s[0] for s in self.spec.action_arrays]
        if names == ["action"] and set(action) == {"action"}:
            return action["action"], env_id
        return action, env_id

    # The engine calls behind every interface. Each returns the engine's
    # Batch (obs, reward, terminated, truncated, discount, info, final); the
    # interface shapes it with its own _package. When envs threw, the
    # exception (ValueError, IndexError or RuntimeError, as the env threw it)
    # carries ``env_ids`` (every env of the batch: all may be sent again),
    # ``failed_env_ids`` and ``result``: the whole batch, which the interface
    # packages like a normal return (see _repackage; failed rows are zeroed
    # with terminated set).
    def _raw_reset(self, env_id: Any, seed: Any, own_batch: bool = False) -> Batch:
        if _is_empty(env_id):
            return self._resetting(seed, lambda s: self._empty_result(), resets_envs=False)
        return self._resetting(seed, lambda s: self._post(self._pool.reset(env_id, s, own_batch)))

    def _raw_step(self, action: Any, env_id: Any) -> Batch:
        if env_id is not None or isinstance(action, dict):
            action, env_id = self._split_action(action, env_id)
            if _is_empty(env_id):
                return self._empty_result()
        result = self._pool.step(action, env_id)
        return result if self._stack is None else self._stack.apply(result)  # _post, inline: the hot path

    def _raw_recv(self) -> Batch:
        result = self._pool.recv()
        return result if self._stack is None else self._stack.apply(result)

    def _repackage(self, error: BaseException, package: Callable[[Batch], Any]) -> None:
        """Gives an env error's ``result`` (the engine's batch) this interface's shape."""
        batch = getattr(error, "result", None)
        if isinstance(batch, Batch):
            error.result = package(self._post(batch))  # type: ignore[attr-defined]

    def _post(self, result: Batch) -> Batch:
        if self._stack is not None:
            result = self._stack.apply(result)
        return result

    def _empty_result(self) -> Batch:
        """A batch of no envs, shaped from the spec (what EnvPool returns for env_id=[])."""

        def empty(spec: tuple) -> np.ndarray:
            return np.zeros((0, *spec[2]), dtype=spec[1])

        specs = self.spec.state_spec
        obs_specs = [s for s in specs if s[0] == "obs" or s[0].startswith("obs:")]
        if len(obs_specs) == 1 and obs_specs[0][0] == "obs":
            obs: Any = empty(obs_specs[0])
        else:
            obs = {s[0][4:]: empty(s) for s in obs_specs}
        info = {s[0][5:]: empty(s) for s in specs if s[0].startswith("info:")}
        common = {s[0]: empty(s) for s in specs if ":" not in s[0]}
        final = None
        if self.config.get("autoreset_mode") == "same_step":
            final = (obs, {k: v for k, v in info.items() if k not in ("env_id", "elapsed_step")})
        add_players(info)  # as the engine's batches have it
        return Batch(
            (obs, common["reward"], common["terminated"], common["truncated"], common["discount"], info, final)
        )

    def send(self, action: Any, env_id: Any = None) -> None:
        """Queue one step for each env in ``env_id`` (default: the last batch)."""
        action, env_id = self._split_action(action, env_id)
        if _is_empty(env_id):
            return
        self._pool.send(action, env_id)

    def async_reset(self) -> None:
        """Queue a reset of every env without waiting for the results."""
        self._resetting(None, lambda s: self._pool.send_reset(None, s))

    def xla(self) -> tuple[Any, Callable, Callable, Callable]:
        """``(handle, recv, send, step)``: this pool's calls as JAX functions for jitted
        programs (EnvPool's API; see :mod:`envpool.xla`). Needs JAX
        (``pip install "envpool[jax]"``)."""
        from envpool.xla import make_xla

        return make_xla(self)

    def _xla_bind(self) -> Any:
        """This pool's XLA registry slot (made once): the handle's id, bound to the
        current engine pool and rebound when reset() rebuilds a closed one."""
        if self._xla_slot is None:
            self._xla_slot = _envpool.XlaSlot(self._pool._engine())
        return self._xla_slot

    def _xla_rebind(self) -> None:
        if self._xla_slot is not None:
            self._xla_slot.bind(self._pool._engine())

    def _xla_package(self, result: tuple) -> Any:
        """The interface's result of an XLA recv/step, from the engine's 7-tuple of JAX
        arrays (the counterpart of the interface's _package)."""
        raise NotImplementedError

    def seed(self, seed: int | list[int] | None = None) -> None:
        """Reseed at the next reset() that is given no seed: env i gets ``seed + i``
        (EnvPool 1.2 ignores this call with a warning)."""
        self._next_seed = seed

    def _render_metadata(self) -> dict[str, Any]:
        """gymnasium's render metadata: the render modes and the task's frame rate."""
        meta: dict[str, Any] = {"render_modes": ["rgb_array"]}
        if self.config.get("render_fps") is not None:
            meta["render_fps"] = self.config["render_fps"]
        return meta

    @property
    def render_mode(self) -> str | None:
        """``"rgb_array"`` when made with ``render_mode="rgb_array"``, else None."""
        return self.config.get("render_mode")

    def render(self, env_ids: Any = None) -> Frames:
        """Frames of the envs in ``env_ids`` (default: ``render_env_ids`` of make, else env
        0) as uint8 ``(n, height, width, 3)``, rendered on the stepping threads. The envs
        must not be in flight (async mode: recv() them first)."""
        if self.render_mode != "rgb_array":
            raise RuntimeError(
                f"render() needs a pool made with render_mode='rgb_array' (this one has render_mode={self.render_mode!r})"
            )
        if env_ids is None:
            env_ids = self.config.get("render_env_ids") or [0]
        elif isinstance(env_ids, (int, np.integer)):
            env_ids = [env_ids]
        return self._pool.render(env_ids).view(Frames)

    def close(self) -> None:
        """Stop the worker threads; later calls raise until reset() rebuilds the pool. Idempotent."""
        self._pool.close()

    @property
    def closed(self) -> bool:
        """Whether the pool is closed (close() called and no reset() since)."""
        return self._pool.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        # gymnasium's VectorEnv.close() records closing by assignment; the
        # engine pool is the single source of truth.
        if value:
            self._pool.close()

    @property
    def all_env_ids(self) -> np.ndarray:
        """All env ids, int32 (EnvPool's attribute)."""
        return np.arange(self._num_envs, dtype=np.int32)

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.close()

    def __len__(self) -> int:
        return self._num_envs

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec.task_id!r}, num_envs={self._num_envs}, batch_size={self._batch_size})"


def _is_empty(env_id: Any) -> bool:
    """Whether env_id names no env at all (``[]``, an empty array)."""
    if env_id is None or isinstance(env_id, (int, np.integer)):
        return False
    try:
        return len(env_id) == 0
    except TypeError:
        return False


def add_players(info: dict[str, Any]) -> dict[str, Any]:
    """EnvPool's ``info["players"]["env_id"]`` (one player per env here)."""
    if "env_id" in info:
        info["players"] = {"env_id": info["env_id"]}
    return info


def env_ids_from_mask(mask: Any, num_envs: int) -> np.ndarray:
    """Env ids selected by a boolean mask of length num_envs."""
    mask = np.asarray(mask)
    if mask.dtype != np.bool_ or mask.shape != (num_envs,):
        raise ValueError(f"reset_mask must be a bool array of shape ({num_envs},), got {mask.dtype} {mask.shape}")
    return np.flatnonzero(mask).astype(np.int32)

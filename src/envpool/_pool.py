"""What all three interfaces share: the engine pool and its bookkeeping."""

from __future__ import annotations

import collections.abc
import contextlib
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from envpool import _envpool, _keys
from envpool._config import engine_config, make_pool_spec, split_seeds, task_of
from envpool._envpool import Batch
from envpool._frames import resize_linear
from envpool._interfaces import EnvPoolMixin, TaskId
from envpool._model import ModelMixin
from envpool._tree import dotted_leaves

# What every engine call returns (Batch): a named tuple (struct sequence) with the
# fields obs, reward, terminated, truncated, discount, info, final.

# Engine pools made elsewhere than by _envpool.Pool, by family: (spec, with_discount)
# -> pool (see add_pool_maker).
POOL_MAKERS: dict[str, Callable[[Any, bool], Any]] = {}


def add_pool_maker(family: str, maker: Callable[[Any, bool], Any]) -> None:
    """Pools of ``family`` are made by ``maker(spec, with_discount)`` rather than by
    ``_envpool.Pool`` (envpool.python_env adds its worker-process pools this way when it
    is imported)."""
    POOL_MAKERS[family] = maker


class Frames(np.ndarray):
    """What render() returns: uint8 frames, batch first (n, height, width, 3). A NumPy
    array that also counts as a Sequence, as gymnasium's vector RecordVideo requires."""


collections.abc.Sequence.register(Frames)


class PoolBase(ModelMixin, EnvPoolMixin):
    """Owns one engine pool; subclasses shape its results for one API.

    The engine calls used: ``_envpool.Pool(family, config, with_discount)``, ``.reset(env_id, seed)``,
    ``.send_reset(env_id, seed)``, ``.step(action, env_id)``, ``.send(action, env_id)``,
    ``.recv()`` (each result a :data:`Batch`: fields obs, reward, terminated,
    truncated, discount, info, final; discount is None unless the interface asks for
    it with ``_WITH_DISCOUNT``), ``.close()`` and ``.closed``.
    """

    # Only the dm interface hands out discounts; the others save a view per call.
    _WITH_DISCOUNT = True

    def __init__(self, task_id: TaskId, **config: Any) -> None:
        self.spec = make_pool_spec(task_id, config)
        self._check_spec(self.spec)
        self._pool = self._new_pool()
        self.config = self.spec.config
        self._num_envs = int(self.config["num_envs"])
        self._batch_size = int(self.config["batch_size"]) or self._num_envs
        self.is_async = self._batch_size < self._num_envs
        self._next_seed: int | list[int] | None = None
        # The task's own work on each batch in Python (e.g. frame stacking), or None.
        results = task_of(self.spec).python.results
        self._results = results(self.spec, self._num_envs) if results is not None else None
        # A pool of Python envs with a nested Dict/Tuple action space takes gymnasium's
        # nested actions as well as its dotted leaves ("t.0"): those leaves' keys, else None.
        keys = [s[0].split(":", 1)[1] for s in self.spec.action_arrays if ":" in s[0]]
        nested = any("." in k for k in keys) or (bool(keys) and all(k.isdigit() for k in keys))
        self._action_leaves = frozenset(keys) if nested else None
        # step() of the default envs with an array action goes straight to the
        # engine when nothing is added in Python (saves a call per step).
        self._direct = self._results is None and self._action_leaves is None
        self._xla_slot: Any = None  # this pool's place in the XLA registry, once xla() is called
        # The task's own pool methods (PythonSide.methods), bound to this pool.
        for name, method in task_of(self.spec).python.methods.items():
            setattr(self, name, functools.partial(method, self))

    def _check_spec(self, spec: Any) -> None:
        """Refuses what this interface cannot run, before any thread, process or Ray
        actor is started (interfaces add their own refusals)."""
        num_envs = int(spec.config["num_envs"])
        bad = [i for i in spec.config.get("render_env_ids") or [] if not 0 <= i < num_envs]
        if bad:
            raise ValueError(f"render_env_ids holds {bad[0]}, not an env id in [0, {num_envs})")

    def _new_pool(self) -> Any:
        pool = self._engine_pool()
        view_as = getattr(pool, "view_as", None)
        if view_as is not None:
            # Keys the spec gives another dtype of the same size than the engine writes
            # (Taxi's int8 action mask): the binding hands them out as views of it.
            engine = {s[0]: s[1] for s in pool.state_spec}
            for key, dtype, *_ in self.spec.state_spec:
                if key in engine and engine[key] != dtype:
                    view_as(key, np.dtype(dtype))
        return pool

    def _engine_pool(self) -> Any:
        maker = POOL_MAKERS.get(self.spec.family)
        if maker is not None:
            return maker(self.spec, self._WITH_DISCOUNT)
        spec = self.spec
        engine, seeds = split_seeds(engine_config(task_of(spec), spec.config))
        if spec.task_configs:  # envs of different configs: tasks, env_options
            return _envpool.Pool(
                list(spec.task_families),
                list(spec.task_configs),
                list(spec.env_config),
                self._WITH_DISCOUNT,
                seeds=seeds,
                task_ids=list(spec.config_task),
                report_task_id=bool(spec.task_ids),
            )
        return _envpool.Pool(spec.family, engine, self._WITH_DISCOUNT, seeds=seeds)

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
        if self._action_leaves is not None and isinstance(action, tuple):
            action = {str(i): a for i, a in enumerate(action)}  # a Tuple space's batched action
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
        if self._action_leaves is not None:
            action = dotted_leaves(action, self._action_leaves)
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
    def _raw_reset(self, env_id: Any, seed: Any, own_batch: bool = False, options: dict | None = None) -> Batch:
        if _is_empty(env_id):
            return self._resetting(seed, lambda s: self._empty_result(), resets_envs=False)
        handed = self._hand_reset_options(env_id, options)
        try:
            return self._resetting(seed, lambda s: self._post(self._pool.reset(env_id, s, own_batch)))
        except BaseException:
            if handed:  # not left for a later reset (an autoreset's has no options)
                # A worker that cannot be reached (given up, the pool closed) keeps
                # none: the reset's own error is the one raised.
                with contextlib.suppress(RuntimeError):
                    self._pool.access_envs("options", "", (), {}, [None] * self._num_envs)
            raise

    def _hand_reset_options(self, env_id: Any, options: dict | None) -> bool:
        """A pool of Python envs passes reset options (but ``reset_mask``) to the reset
        of each env this reset resets, as gymnasium's vector envs do; the others' envs
        take none. Returns whether it did."""
        extra = {k: v for k, v in (options or {}).items() if k != "reset_mask"}
        access = getattr(self._pool, "access_envs", None)
        if not extra or access is None:
            return False
        n = self._num_envs
        try:
            ids = range(n) if env_id is None else [int(i) for i in np.asarray(env_id).reshape(-1)]
        except (TypeError, ValueError):
            return False  # the engine's reset names what is wrong with them
        if any(not 0 <= i < n for i in ids):
            return False
        values: list[Any] = [None] * n
        for i in ids:
            values[i] = extra
        access("options", "", (), {}, values)
        return True

    def _raw_step(self, action: Any, env_id: Any) -> Batch:
        if env_id is not None or isinstance(action, dict) or self._action_leaves is not None:
            action, env_id = self._split_action(action, env_id)
            if _is_empty(env_id):
                return self._empty_result()
        result = self._pool.step(action, env_id)
        return result if self._results is None else self._results(result)  # _post, inline: the hot path

    def _raw_recv(self) -> Batch:
        result = self._pool.recv()
        return result if self._results is None else self._results(result)

    def _repackage(self, error: BaseException, package: Callable[[Batch], Any]) -> None:
        """Gives an env error's ``result`` (the engine's batch) this interface's shape."""
        batch = getattr(error, "result", None)
        if isinstance(batch, Batch):
            error.result = package(self._post(batch))  # type: ignore[attr-defined]

    def _post(self, result: Batch) -> Batch:
        if self._results is not None:
            result = self._results(result)
        return result

    def _empty_result(self) -> Batch:
        """A batch of no envs, shaped from the spec (what EnvPool returns for env_id=[])."""

        def empty(spec: tuple) -> np.ndarray:
            return np.zeros((0, *spec[2]), dtype=spec[1])

        specs = self.spec.state_spec
        obs: Any = _keys.nest({k: empty(s) for k, s in _keys.select_specs(specs, _keys.OBS)})
        info = {k: empty(s) for k, s in _keys.select_specs(specs, _keys.INFO)}
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

    def _xla_package(self, result: Batch) -> Any:
        """The interface's result of an XLA recv/step, from the engine's 7-tuple of JAX
        arrays (the counterpart of the interface's _package)."""
        raise NotImplementedError

    def seed(self, seed: int | list[int] | None = None) -> None:
        """Reseed at the next reset() that is given no seed: env i gets ``seed + i``
        (EnvPool 1.2 ignores this call with a warning)."""
        self._next_seed = seed

    def _render_metadata(self) -> dict[str, Any]:
        """gymnasium's render metadata: the render modes and the task's frame rate. A task
        that draws no frames (NChain, Catch) lists none, so gymnasium's check_env does not
        try them, unless made with render_mode="rgb_array" (EnvPool takes that at make, and
        gymnasium's checker asks that the mode be listed before render() may raise)."""
        if self.render_mode is None and not self._draws_frames():
            return {"render_modes": []}
        meta: dict[str, Any] = {"render_modes": ["rgb_array"]}
        if self.config.get("render_fps") is not None:
            meta["render_fps"] = self.config["render_fps"]
        return meta

    def _draws_frames(self) -> bool:
        if not hasattr(self._pool, "render_size"):
            return True
        try:
            self._pool.render_size()
        except ValueError:
            return False
        return True

    @property
    def render_mode(self) -> str | None:
        """``"rgb_array"`` when made with ``render_mode="rgb_array"``, else None."""
        return self.config.get("render_mode")

    def render(self, env_ids: Any = None) -> Frames:
        """Frames of the envs in ``env_ids`` (default: ``render_env_ids`` of make, else env
        0) as uint8 ``(n, height, width, 3)``, rendered on the stepping threads. The envs
        must not be in flight (async mode: recv() them first). A task of fixed frame size
        made with EnvPool 1.2.5's ``render_width``/``render_height`` gets its frames
        resized to them (bilinear, as OpenCV's INTER_LINEAR)."""
        if self.render_mode != "rgb_array":
            raise RuntimeError(
                f"render() needs a pool made with render_mode='rgb_array' (this one has render_mode={self.render_mode!r})"
            )
        # Envs that draw no frames (NChain, Catch): as in EnvPool 1.2, render_mode="rgb_array"
        # is taken at make (and listed in the metadata, which gymnasium's checker asks of an
        # env made with it), and render() raises EnvPool's RuntimeError, naming the task.
        if hasattr(self._pool, "render_size"):
            try:
                self._pool.render_size()
            except ValueError as e:
                raise RuntimeError(f"{self.spec.task_id}: {e}") from None
        if env_ids is None:
            env_ids = self.config.get("render_env_ids") or [0]
        elif isinstance(env_ids, (int, np.integer)):
            env_ids = [env_ids]
        frames = self._pool.render(env_ids)
        size = self.config.get("render_height", 0), self.config.get("render_width", 0)
        if size != (0, 0):
            frames = resize_linear(frames, *(s if s > 0 else n for s, n in zip(size, frames.shape[1:3])))
        return frames.view(Frames)

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

    # gymnasium's VectorEnv.call / get_attr / set_attr, on the envs themselves: a
    # local pool of Python envs has them (its envs are objects in its worker
    # processes); for the others they are absent (hasattr is False).
    def _env_access(self, name: str, attr: str | None = None) -> Callable[..., tuple]:
        access = getattr(self._pool, "access_envs", None)
        if access is None:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r}: only a local pool of Python envs "
                f"(envpool.make(env_fn) or 'gymnasium:<id>') has it, not a pool of C++ envs or a Ray pool"
            )
        if attr in ("reset", "step", "close"):  # as gymnasium's workers refuse them
            raise ValueError(
                f"{name}({attr!r}) would {attr} the envs behind the pool's back: call the pool's {attr}() instead"
            )
        return access

    @property
    def call(self) -> Callable[..., tuple]:
        """``call(name, *args, **kwargs)``: each env's attribute ``name`` (as gymnasium's
        ``get_wrapper_attr`` finds it), called with these arguments if callable; a tuple of
        the results in env order. Pools of Python envs only (gymnasium's ``AsyncVectorEnv``'s)."""
        self._env_access("call")

        def call(name: str, *args: Any, **kwargs: Any) -> tuple:
            return self._env_access("call", name)("call", name, args, kwargs, None)

        return call

    @property
    def get_attr(self) -> Callable[[str], tuple]:
        """``get_attr(name)``: ``call(name)``, as gymnasium's (a method is called, with no arguments)."""
        self._env_access("get_attr")

        def get_attr(name: str) -> tuple:
            return self._env_access("get_attr", name)("call", name, (), {}, None)

        return get_attr

    @property
    def set_attr(self) -> Callable[[str, Any], None]:
        """``set_attr(name, values)``: sets the attribute on each env (``set_wrapper_attr``):
        one value per env (a list or tuple of num_envs), or one value for all."""
        self._env_access("set_attr")

        def set_attr(name: str, values: Any) -> None:
            if not isinstance(values, (list, tuple)):
                values = [values] * self._num_envs
            if len(values) != self._num_envs:
                raise ValueError(
                    f"values must be a list or tuple of num_envs={self._num_envs} values (one per env), "
                    f"got {len(values)}"
                )
            self._env_access("set_attr")("set", name, (), {}, list(values))

        return set_attr

    @property
    def all_env_ids(self) -> np.ndarray:
        """All env ids, int32 (EnvPool's attribute)."""
        return np.arange(self._num_envs, dtype=np.int32)

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.close()

    # copy.copy would share the engine and close it when either object is
    # collected; EnvPool 1.2.5's pools refuse copy, deepcopy and pickle alike.
    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(
            f"cannot copy or pickle a {type(self).__name__}: it owns its engine (threads, envs, worker "
            "processes); make another with envpool.make"
        )

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

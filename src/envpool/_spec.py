"""Spaces and spec objects derived from the engine's array specs."""

from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dm_env
import numpy as np
from gymnasium import spaces

from envpool import _envpool, _keys

# One engine array spec: (name, dtype, shape, low, high).
ArraySpecTuple = tuple[str, str, tuple[int, ...], list[float], list[float]]


def bounds(values: list[float], shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An array spec's low or high as a full array of its dtype (ints clipped to range)."""
    arr = np.asarray(values, dtype=np.float64)
    if dtype.kind in "iub":
        info = np.iinfo(dtype) if dtype.kind in "iu" else None
        if info is not None:
            arr = np.clip(np.nan_to_num(arr, posinf=info.max, neginf=info.min), info.min, info.max)
    out = np.broadcast_to(arr.reshape(()), shape) if arr.size == 1 else arr.reshape(shape)
    return out.astype(dtype)


def is_discrete(spec: ArraySpecTuple) -> bool:
    """A scalar non-float array (integer or bool) with finite bounds is a discrete
    choice: the engine's rule (cpp/core/checks.h), which range-checks its actions.
    int8, which the engine has not, is a Python-side view of its uint8 (Taxi's action mask)."""
    if spec[1] == "int8":
        return tuple(spec[2]) == () and bool(np.isfinite(spec[3][0]) and np.isfinite(spec[4][0]))
    return _envpool.is_discrete(tuple(spec))


def to_space(spec: ArraySpecTuple) -> spaces.Space:
    """The gymnasium space of one array spec."""
    _, dtype_name, shape, low, high = spec
    dtype = np.dtype(dtype_name)
    if is_discrete(spec):
        return spaces.Discrete(int(high[0] - low[0] + 1), start=int(low[0]))
    if dtype == np.bool_:  # n as gymnasium's own MultiBinary(3) has it, which its == compares
        return spaces.MultiBinary(int(shape[0]) if len(shape) == 1 else (tuple(shape) or 1))
    return spaces.Box(bounds(low, shape, dtype), bounds(high, shape, dtype), shape=shape, dtype=dtype)


def group_space(specs: list[ArraySpecTuple], prefix: str, as_tuple: bool = False) -> spaces.Space:
    """The space of the arrays named ``prefix`` or ``prefix:<key>``: a ``Dict`` of several, or
    with ``as_tuple`` a ``Tuple`` of keys ``0`` .. ``k-1`` in that order (a task's
    ``tuple_obs``, e.g. Blackjack's)."""
    mine = {key: to_space(s) for key, s in _keys.select_specs(specs, prefix)}
    if list(mine) == [""]:
        return mine[""]
    if as_tuple:
        return spaces.Tuple(list(mine.values()))
    # Key-space pairs, not a dict, which gymnasium's Dict would sort: the space keeps the
    # arrays' order (the task's), which the observations' dicts have too, as in EnvPool.
    return spaces.Dict(list(mine.items()))


class Config(dict):
    """A pool's config: a dict that also allows attribute access (``config.num_envs``),
    as EnvPool's namedtuple config does."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def _asdict(self) -> dict[str, Any]:
        """The config as a plain dict (namedtuple's spelling, as in EnvPool)."""
        return dict(self)

    @property
    def _fields(self) -> tuple[str, ...]:
        """The config keys (namedtuple's spelling, as in EnvPool)."""
        return tuple(self)

    def _replace(self, **changes: Any) -> Config:
        """A copy with some values changed (namedtuple's spelling, as in EnvPool)."""
        unknown = set(changes) - set(self)
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown)}")
        return Config({**self, **changes})


class ArraySpec:
    """EnvPool's ``ArraySpec``: dtype, shape (``-1`` for a per-player dim), minimum, maximum."""

    def __init__(self, dtype: Any, shape: list[int], minimum: Any, maximum: Any, is_discrete: bool = False) -> None:
        self.dtype = np.dtype(dtype)
        self.shape = list(shape)
        self.minimum = minimum
        self.maximum = maximum
        self.is_discrete = is_discrete

    def __repr__(self) -> str:
        return f"ArraySpec(shape={self.shape}, dtype={self.dtype}, minimum={self.minimum}, maximum={self.maximum})"


def _array_spec(spec: ArraySpecTuple) -> ArraySpec:
    _, dtype_name, shape, low, high = spec
    dtype = np.dtype(dtype_name)
    full_lo, full_hi = bounds(low, shape, dtype), bounds(high, shape, dtype)
    lo: np.ndarray | float | bool = full_lo
    hi: np.ndarray | float | bool = full_hi
    if full_lo.size and np.all(full_lo == full_lo.flat[0]) and np.all(full_hi == full_hi.flat[0]):
        lo, hi = full_lo.flat[0].item(), full_hi.flat[0].item()  # uniform bounds: scalars, as EnvPool
    if dtype == np.bool_:
        lo, hi = False, True
    return ArraySpec(dtype, list(shape), lo, hi, is_discrete(spec))


def dm_spec(spec: ArraySpecTuple, name: str) -> dm_env.specs.Array:
    """The dm_env spec of one array spec, as EnvPool gives it: a DiscreteArray
    for a 0-based discrete action, else a BoundedArray (infinite or dtype-range bounds
    where the array is unbounded)."""
    _, dtype_name, shape, low, high = spec
    dtype = np.dtype(dtype_name)
    if is_discrete(spec) and low[0] == 0:
        return dm_env.specs.DiscreteArray(int(high[0] + 1), dtype=dtype, name=name)
    if dtype == np.bool_:
        return dm_env.specs.BoundedArray(shape, dtype, False, True, name=name)
    return dm_env.specs.BoundedArray(shape, dtype, bounds(low, shape, dtype), bounds(high, shape, dtype), name=name)


_INT32 = ("int32", (), [-(2.0**31)], [2.0**31 - 1])


@dataclass(frozen=True)
class EnvSpec:
    """What :func:`envpool.make_spec` returns: a task's config and spaces."""

    task_id: str
    family: str
    config: Config
    state_spec: list[ArraySpecTuple]
    # The engine's action array specs (name, dtype, shape, low, high).
    action_arrays: list[ArraySpecTuple]
    # Multi-task pools only: the task ids and each env's task index (see
    # envpool.make with a list).
    task_ids: tuple[str, ...] = ()
    env_task: tuple[int, ...] = ()
    # Pools whose envs differ in config (multi-task pools, env_options): the
    # engine's configs (each one's family and engine config, and its task's
    # index in task_ids) and each env's config index.
    task_families: tuple[str, ...] = ()
    task_configs: tuple[dict[str, Any], ...] = ()
    config_task: tuple[int, ...] = ()
    env_config: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.config, Config):
            object.__setattr__(self, "config", Config(self.config))

    @property
    def id(self) -> str:
        """The task id (gymnasium's EnvSpec spelling)."""
        return self.task_id

    @property
    def state_array_spec(self) -> dict[str, ArraySpec]:
        """EnvPool's state specs keyed like EnvPool's (``info:env_id``,
        ``info:players.env_id``, ``elapsed_step``, ``done``, ``reward``, ``discount``,
        ``step_type``, ``trunc``, ``obs``/``obs:<key>``, ``info:<key>``)."""
        common = {
            _keys.name(_keys.INFO, "env_id"): _array_spec(("", *_INT32)),
            _keys.name(_keys.INFO, "players.env_id"): _array_spec(("", "int32", (), *_INT32[2:])),
            "elapsed_step": _array_spec(("", *_INT32)),
            "done": ArraySpec(np.bool_, [], False, True),
            "reward": ArraySpec(np.float32, [-1], np.finfo(np.float32).min, np.finfo(np.float32).max),
            "discount": ArraySpec(np.float32, [-1], 0.0, 1.0),
            "step_type": ArraySpec(np.int32, [], 0, 2),
            "trunc": ArraySpec(np.bool_, [], False, True),
        }
        common[_keys.name(_keys.INFO, "players.env_id")].shape = [-1]
        rest = {
            s[0]: _array_spec(s)
            for s in self.state_spec
            if _keys.in_group(s[0], _keys.OBS) or (_keys.in_group(s[0], _keys.INFO) and s[0] not in _ENGINE_INFO)
        }
        return {**common, **rest}

    @property
    def action_array_spec(self) -> dict[str, ArraySpec]:
        """EnvPool's action specs: ``env_id``, ``players.env_id`` and the action key(s)."""
        out = {"env_id": _array_spec(("", *_INT32)), "players.env_id": _array_spec(("", *_INT32))}
        out["players.env_id"].shape = [-1]
        for s in self.action_arrays:
            out[_keys.key_of(s[0], _keys.ACTION) or s[0]] = _array_spec(s)
        return out

    def observation_spec(self) -> Any:
        """dm_env specs of the observation and info keys: a namedtuple ``State`` with
        ``env_id``, ``players`` (a namedtuple holding ``env_id``), the obs key(s) and the info keys."""
        return observation_spec(self)

    def action_spec(self) -> Any:
        """EnvPool's ``action_spec()``: the dm_env spec of the action (a dict for several keys)."""
        specs = self.action_arrays
        if len(specs) == 1 and specs[0][0] == "action":
            return dm_spec(specs[0], "action")
        return {key: dm_spec(s, key) for key, s in _keys.select_specs(specs, _keys.ACTION)}

    @property
    def observation_space(self) -> spaces.Space:
        """The single-env observation space."""
        return group_space(self.state_spec, _keys.OBS, as_tuple=bool(self.config.get("tuple_obs")))

    @property
    def action_space(self) -> spaces.Space:
        """The single-env action space."""
        return group_space(self.action_arrays, _keys.ACTION)

    @property
    def gymnasium_observation_space(self) -> spaces.Space:
        """EnvPool 1.2's name: the single-env observation space as a gymnasium space (a gym
        pool's ``spec.observation_space`` is a ``gym`` space when gym is installed)."""
        return EnvSpec.observation_space.fget(self)  # type: ignore[attr-defined]

    @property
    def gymnasium_action_space(self) -> spaces.Space:
        """EnvPool 1.2's name: the single-env action space as a gymnasium space."""
        return EnvSpec.action_space.fget(self)  # type: ignore[attr-defined]

    @property
    def info_keys(self) -> list[str]:
        """Info entries every step returns (besides the engine's)."""
        return [key for key, _ in _keys.select_specs(self.state_spec, _keys.INFO)]

    @property
    def max_episode_steps(self) -> int:
        return int(self.config["max_episode_steps"])

    @property
    def reward_threshold(self) -> float | None:
        return self.config.get("reward_threshold")


# Engine info keys that EnvPool keeps outside ``info`` (elapsed_step) or
# lists under its own name (env_id).
_ENGINE_INFO = (_keys.name(_keys.INFO, "env_id"), _keys.name(_keys.INFO, "elapsed_step"))


def obs_fields(spec: EnvSpec) -> list[tuple[str, ArraySpecTuple]]:
    """(field name, spec) of every dm observation field but players, in order: env_id,
    the obs key(s), elapsed_step (ours; EnvPool keeps it out of the observation), the
    task's info keys."""
    out: list[tuple[str, ArraySpecTuple]] = [("env_id", (_ENGINE_INFO[0], *_INT32))]
    out += [(key or _keys.OBS, s) for key, s in _keys.select_specs(spec.state_spec, _keys.OBS)]
    out.append(("elapsed_step", (_ENGINE_INFO[1], *_INT32)))
    out += [(key, s) for key, s in _keys.select_specs(spec.state_spec, _keys.INFO) if s[0] not in _ENGINE_INFO]
    return out


def _state_class(names: tuple[str, ...]) -> Any:
    """EnvPool's ``State`` namedtuple of these fields, one class per field list. Its
    instances pickle through _make_state, as the class is made at run time and
    cannot be found by name."""
    cls = _STATE_CLASSES.get(names)
    if cls is None:
        cls = _namedtuple("State", names)
        cls.__reduce__ = lambda self: (_make_state, (type(self)._fields, tuple(self)))
        _STATE_CLASSES[names] = cls
    return cls


def _make_state(names: tuple[str, ...], values: tuple) -> Any:
    return _state_class(tuple(names))(*values)


def _make_players(env_id: Any) -> Any:
    return _Players(env_id)


# namedtuple() as a plain function: mypy's namedtuple special case cannot type classes
# made from run-time field lists, nor EnvPool's lower-case class name "players".
_namedtuple: Callable[..., Any] = collections.namedtuple
_STATE_CLASSES: dict[tuple[str, ...], Any] = {}
_Players = _namedtuple("players", ["env_id"])
_Players.__reduce__ = lambda self: (_make_players, (self.env_id,))


def observation_spec(spec: EnvSpec) -> Any:
    if spec.config.get("tuple_obs"):
        raise ValueError(
            f"{spec.task_id}: the dm_env interface has no tuple observations (tuple_obs=True); "
            "use env_type='gymnasium' or 'gym', or the default observation row"
        )
    fields = obs_fields(spec)
    names = [fields[0][0], "players", *(f for f, _ in fields[1:])]
    state = _state_class(tuple(names))
    specs = [dm_spec(s, f) for f, s in fields]
    return state(specs[0], _Players(dm_spec(fields[0][1], "env_id")), *specs[1:])

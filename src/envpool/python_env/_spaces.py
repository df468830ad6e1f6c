"""gymnasium spaces as the engine's flat arrays, and the shared-memory slot layout.

A space becomes one array per leaf: ``obs`` (``action``) for a plain space, else
``obs:<key>`` with nested ``Dict`` keys and ``Tuple`` indices joined by ``.``
(``Dict(a=Dict(b=Box))`` -> ``obs:a.b``; ``Tuple(Discrete, Discrete)`` -> ``obs:0``,
``obs:1``). The layout rule is the C++ family's (cpp/python_env/proc_env.h).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from envpool import _envpool

# Element types the engine has, and where the others go (widened where that is
# exact; uint64 above 2**63 and float16 precision aside).
_ENGINE_DTYPE = {
    "bool": "bool",
    "uint8": "uint8",
    "int8": "int32",
    "int16": "int32",
    "uint16": "int32",
    "int32": "int32",
    "uint32": "int64",
    "int64": "int64",
    "uint64": "int64",
    "float16": "float32",
    "float32": "float32",
    "float64": "float64",
}

# The shared-memory segment's layout, from the engine (cpp/python_env/segment.h): sizes,
# constants, and each field's byte offset within its struct ("header.epoch",
# "record.gen", "slot.done", ...). Read, never copied: a field moved there moves here.
SEGMENT: dict[str, int] = {str(k): int(v) for k, v in _envpool._segment_layout().items()}
HEADER = SEGMENT["header_bytes"]
WORKER_RECORD = SEGMENT["worker_record_bytes"]
CONTROL = SEGMENT["control_bytes"]
ERROR_BYTES = SEGMENT["error_bytes"]
MAGIC = SEGMENT["magic"]


def word(field: str) -> int:
    """The index of a uint32 field (``"slot.done"``) in a uint32 view of its struct."""
    return SEGMENT[field] // 4


def engine_dtype(dtype: Any, where: str) -> str:
    name = np.dtype(dtype).name
    if name not in _ENGINE_DTYPE:
        raise TypeError(f"{where} has dtype {name}, which a pool cannot carry")
    return _ENGINE_DTYPE[name]


@dataclass
class Leaf:
    """One array of a space: its engine name, dtype, shape and bounds, where it sits
    in the nested value (path of Dict keys / Tuple indices), and its space."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    low: list[float]
    high: list[float]
    path: tuple[Any, ...]
    space: spaces.Space
    kind: str  # box, discrete, multidiscrete, multibinary


def _bounds(values: Any) -> list[float]:
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size and np.all(arr == arr[0]):
        return [float(arr[0])]
    return [float(x) for x in arr]


def flatten(space: spaces.Space, prefix: str) -> list[Leaf]:
    """The leaves of ``space`` (``prefix`` is ``obs`` or ``action``); a TypeError
    naming a space the pool cannot carry (Text, Graph, Sequence, ...)."""
    leaves: list[Leaf] = []

    def walk(s: spaces.Space, path: tuple[Any, ...]) -> None:
        where = prefix + "".join(f"[{p!r}]" for p in path)
        name = prefix if not path else prefix + ":" + ".".join(str(p) for p in path)
        if isinstance(s, spaces.Dict):
            for k, sub in s.spaces.items():
                walk(sub, (*path, k))
        elif isinstance(s, spaces.Tuple):
            for i, sub in enumerate(s.spaces):
                walk(sub, (*path, i))
        elif isinstance(s, spaces.Discrete):
            start = int(s.start)
            leaves.append(
                Leaf(
                    name,
                    "int32" if -(2**31) <= start and start + int(s.n) <= 2**31 else "int64",
                    (),
                    [float(start)],
                    [float(start + int(s.n) - 1)],
                    path,
                    s,
                    "discrete",
                )
            )
        elif isinstance(s, spaces.MultiDiscrete):
            starts = np.broadcast_to(s.start, s.nvec.shape)
            leaves.append(
                Leaf(
                    name,
                    engine_dtype(s.dtype, where),
                    tuple(s.nvec.shape),
                    _bounds(starts),
                    _bounds(starts + s.nvec - 1),
                    path,
                    s,
                    "multidiscrete",
                )
            )
        elif isinstance(s, spaces.MultiBinary):
            n: Any = s.n  # an int or a shape
            shape = (int(n),) if np.isscalar(s.n) else tuple(int(x) for x in n)
            leaves.append(Leaf(name, "bool", shape, [0.0], [1.0], path, s, "multibinary"))
        elif isinstance(s, spaces.Box):
            dt = engine_dtype(s.dtype, where)
            leaves.append(Leaf(name, dt, tuple(s.shape), _bounds(s.low), _bounds(s.high), path, s, "box"))
        else:
            raise TypeError(
                f"{where} is a {type(s).__name__} space ({s}), which a pool cannot carry (it carries Box, "
                "Discrete, MultiDiscrete, MultiBinary, and Dict / Tuple of them): wrap the env to drop or "
                "encode it, e.g. gymnasium.wrappers.FilterObservation"
            )

    walk(space, ())
    if not leaves:
        raise TypeError(f"the {prefix} space {space} has no arrays")
    return leaves


_SKIP_INFO = ("env_id", "elapsed_step", "players", "final_obs", "final_info", "final_observation")


def info_leaves(info: dict[str, Any]) -> list[Leaf]:
    """The reset info entries that become typed batch arrays: numeric scalars and
    numeric arrays (fixed shape: the reset's). Other entries are dropped."""
    out = []
    for key, value in info.items():
        if not isinstance(key, str) or key in _SKIP_INFO or key.startswith("_"):
            continue
        if isinstance(value, (bool, np.bool_)):
            dt = "bool"
        elif isinstance(value, (int, float, np.number, np.ndarray)) and not isinstance(value, complex):
            arr = np.asarray(value)
            if arr.dtype.name not in _ENGINE_DTYPE or arr.dtype.kind == "O":
                continue
            if isinstance(value, int):
                dt = "int64"
            elif isinstance(value, float):
                dt = "float64"
            else:
                dt = _ENGINE_DTYPE[arr.dtype.name]
        else:
            continue
        shape = tuple(np.shape(value))
        out.append(Leaf("info:" + key, dt, shape, [-np.inf], [np.inf], (key,), None, "info"))  # type: ignore[arg-type]
    return out


def spec_text(leaves: list[Leaf]) -> tuple[str, list[float]]:
    """The family's config text for ``leaves`` (see cpp/python_env/proc_env.h) and the bounds."""
    lines, bounds = [], []
    for leaf in leaves:
        lines.append(f"{leaf.name}\t{leaf.dtype}\t{','.join(map(str, leaf.shape))}\t{len(leaf.low)}\t{len(leaf.high)}")
        bounds += leaf.low + leaf.high
    return "\n".join(lines), bounds


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


@dataclass
class Layout:
    """Where everything sits in the segment (the C++ Layout's rule)."""

    action_off: list[int]
    state_off: list[int]
    render_off: int
    error_off: int
    slot_bytes: int
    slots_off: int
    total: int

    @staticmethod
    def of(actions: list[Leaf], states: list[Leaf], render_hw: tuple[int, int], num_envs: int, num_workers: int):
        def nbytes(leaf: Leaf) -> int:
            return int(np.prod(leaf.shape, dtype=np.int64)) * np.dtype(leaf.dtype).itemsize

        off = CONTROL
        a_off, s_off = [], []
        for leaf in actions:
            a_off.append(off)
            off = _align(off + nbytes(leaf), 8)
        for leaf in states:
            s_off.append(off)
            off = _align(off + nbytes(leaf), 8)
        render_off = off
        off = _align(off + render_hw[0] * render_hw[1] * 3, 8)
        error_off = off
        slot_bytes = _align(off + ERROR_BYTES, 64)
        slots_off = HEADER + WORKER_RECORD * num_workers
        return Layout(a_off, s_off, render_off, error_off, slot_bytes, slots_off, slots_off + slot_bytes * num_envs)

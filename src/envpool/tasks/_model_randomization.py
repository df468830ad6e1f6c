"""The MuJoCo families' ``model_randomization`` option, in the engine's terms.

Users give a dict ``{field: (operation, low, high)}``: ``field`` an mjModel array
field by MuJoCo's name (``"body_mass"``, ``"geom_friction"``) or ``"opt.<name>"``,
``operation`` one of ``"scale"`` (base * U(low, high)), ``"add"`` (base + U(low, high))
and ``"uniform"`` (U(low, high)), ``low``/``high`` a number or one number per element of
the field (any shape, read in C order). The engine takes it as text,
``"field:op:lo,...:hi,...;..."`` (cpp/mujoco/model_params.h), which checks the fields,
the element counts and the bounds.
"""

from __future__ import annotations

import collections.abc
from typing import Any

import numpy as np

OPERATIONS = ("scale", "add", "uniform")


def _numbers(field: str, which: str, value: Any) -> str:
    try:
        arr = np.asarray(value, dtype=np.float64).ravel()
    except (TypeError, ValueError) as e:
        raise TypeError(f"model_randomization[{field!r}]: {which} must be a number or numbers, got {value!r}") from e
    if arr.size == 0:
        raise ValueError(f"model_randomization[{field!r}]: {which} is empty")
    return ",".join(repr(float(x)) for x in arr)


def to_text(value: Any) -> str:
    """The engine's text for a ``model_randomization`` dict (text passes as it is)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if not isinstance(value, collections.abc.Mapping):
        raise TypeError(
            f"model_randomization must be a dict {{field: (operation, low, high)}}, got {type(value).__name__}"
        )
    items = []
    for field, rule in value.items():
        if not isinstance(field, str) or not field or any(c in field for c in ":;,"):
            raise TypeError(f"model_randomization: {field!r} is not a model field name")
        if isinstance(rule, (str, bytes)) or not isinstance(rule, collections.abc.Sequence) or len(rule) != 3:
            raise TypeError(f"model_randomization[{field!r}] must be (operation, low, high), got {rule!r}")
        op, low, high = rule
        if op not in OPERATIONS:
            raise ValueError(f"model_randomization[{field!r}]: operation {op!r} is not one of {', '.join(OPERATIONS)}")
        items.append(f"{field}:{op}:{_numbers(field, 'low', low)}:{_numbers(field, 'high', high)}")
    return ";".join(items)


def prepare(merged: dict[str, Any], user: Any = None) -> None:
    """A prepare hook's part: ``merged["model_randomization"]`` as the engine's text."""
    if "model_randomization" in merged:
        merged["model_randomization"] = to_text(merged["model_randomization"])

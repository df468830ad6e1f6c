"""Observations and results as trees: an array, or a dict or tuple of trees."""

from __future__ import annotations

from typing import Any

import numpy as np


def tree_map(fn: Any, tree: Any) -> Any:
    """``fn`` applied to every array of ``tree``, in the same structure (None stays None)."""
    if tree is None:
        return None
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(tree_map(fn, v) for v in tree)
    return fn(tree)


def rows_where(tree: Any, mask: np.ndarray) -> np.ndarray:
    """An object array with row i of ``tree`` where ``mask[i]``, None elsewhere (the
    vector envs' final observations and infos)."""
    out = np.full(len(mask), None, dtype=object)
    for i in np.flatnonzero(mask):
        out[i] = tree_map(lambda v, i=i: v[i], tree)
    return out


def dotted_leaves(action: dict, leaves: frozenset) -> dict:
    """A nested dict/tuple action as a pool's dotted leaves: ``{"t": (a, b)}`` is
    ``{"t.0": a, "t.1": b}``. A value under a leaf's own key is kept as it is (a tuple of
    ints for a Discrete leaf); other keys are left for the engine to name."""
    out: dict = {}

    def walk(value: Any, key: str) -> None:
        if key in leaves or not isinstance(value, (dict, tuple)):
            out[key] = value
        else:
            for k, sub in value.items() if isinstance(value, dict) else enumerate(value):
                walk(sub, f"{key}.{k}")

    for k, v in action.items():
        walk(v, str(k))
    return out

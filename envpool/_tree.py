"""Observations and results as trees: an array, or a dict or tuple of trees."""

from __future__ import annotations

from typing import Any


def tree_map(fn: Any, tree: Any) -> Any:
    """``fn`` applied to every array of ``tree``, in the same structure (None stays None)."""
    if tree is None:
        return None
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(tree_map(fn, v) for v in tree)
    return fn(tree)

"""The task registry: task id -> (C++ family, config overrides)."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TaskSpec:
    """A registered task: which C++ family runs it and its config overrides.

    ``prepare``, when set, completes a make's config before the engine sees it:
    called with the merged config (task defaults and the user's options, changed
    in place) and the user's options alone (e.g. the dm_control tasks derive the
    model XML and the episode length from the options)."""

    task_id: str
    family: str
    config: dict[str, Any] = field(default_factory=dict)
    prepare: Callable[[dict[str, Any], dict[str, Any]], None] | None = None


_REGISTRY: dict[str, TaskSpec] = {}


def register(
    task_id: str, family: str, *, prepare: Callable[[dict[str, Any], dict[str, Any]], None] | None = None, **config: Any
) -> None:
    """Register ``task_id`` as ``family`` with the given config overrides.

    The overrides become the task's defaults; users can still override them
    in :func:`envpool.make`. ``prepare`` (optional) completes each make's config
    (see :class:`TaskSpec`). The task also becomes ``envpool/<task_id>`` in gymnasium's
    registry (see :mod:`envpool.integrations.gymnasium_registry`).
    """
    if task_id in _REGISTRY:
        raise ValueError(f"task {task_id!r} is already registered")
    _REGISTRY[task_id] = TaskSpec(task_id, family, dict(config), prepare)
    # ... and as "envpool/<task id>" in gymnasium's registry (and Ray Tune's, once loaded).
    from envpool.integrations import gymnasium_registry, rllib

    gymnasium_registry.register_task(task_id)
    rllib.on_register(task_id)


def list_all_envs() -> list[str]:
    """All registered task ids, in registration order."""
    return list(_REGISTRY)


def lookup(task_id: str) -> TaskSpec:
    """The TaskSpec of ``task_id``; a ValueError naming close matches if unknown."""
    try:
        return _REGISTRY[task_id]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(str(task_id), list(_REGISTRY), n=5, cutoff=0.5)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"unknown task id {task_id!r}{hint}") from None

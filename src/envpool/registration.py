"""The task registry: task id -> (C++ family, config overrides, Python side).

The registry imports nothing of envpool: integrations (gymnasium's registry, Ray
Tune's) :func:`subscribe` to it, and ``src/envpool/__init__.py`` wires them up.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any


class MakeError(ValueError, AssertionError):
    """A bad task id or ``make()`` argument (an unknown id, ``num_envs``, ``batch_size``,
    ``seed``, ``env_type``, a task option's value, ...), raised before the pool makes its envs.

    A ``ValueError``; also an ``AssertionError``, the type EnvPool 1.2.5 raised for these
    (its registry checks them with ``assert``), so code written for either catches it."""


@contextlib.contextmanager
def make_errors() -> Iterator[None]:
    """Re-raises a ValueError of the checks inside as a :class:`MakeError` (same message)."""
    try:
        yield
    except MakeError:
        raise
    except ValueError as e:
        raise MakeError(str(e)) from None


# What a prepare hook gets: the engine config (changed in place) and the user's options.
Prepare = Callable[[dict[str, Any], Mapping[str, Any]], None]


@dataclass(frozen=True)
class PythonSide:
    """A task's options handled in Python and its hooks into a make (all optional).

    ``defaults``: options that never reach the engine, with their defaults (e.g. a
    ``frame_stack`` done in Python). ``check(options)``: validates and normalises (in place) the
    resolved values of those options. ``prepare(engine_config, user_options)``:
    completes the engine config before the engine sees it (in place). ``state_spec(
    specs, config)``: the pool's state array specs from the engine's (``config``: the
    resolved engine and Python options). ``results(spec, num_envs)``: None, or a
    function a pool applies to every engine batch it returns. ``action_mismatch_hint``:
    added to the error of a multi-task pool whose tasks of this family have different
    action arrays. ``methods``: pool methods the task adds, name -> ``function(pool, *args)``
    (e.g. the goal environments' ``compute_reward``)."""

    defaults: Mapping[str, Any] = field(default_factory=dict)
    check: Callable[[dict[str, Any]], None] | None = None
    prepare: Prepare | None = None
    state_spec: Callable[[list[tuple], Mapping[str, Any]], list[tuple]] | None = None
    results: Callable[[Any, int], Callable[[Any], Any] | None] | None = None
    action_mismatch_hint: str = ""
    methods: Mapping[str, Callable[..., Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskSpec:
    """A registered task: which C++ family runs it, its config overrides, its
    Python side (see :class:`~envpool.registration.PythonSide`) and its reference:
    gymnasium's id of the env it reproduces (``Pong-v5``: ``ALE/Pong-v5``; ``Taxi-v3``,
    EnvPool 1.2.5's id: ``Taxi-v4``), or None where it is the task id or there is none
    (a task with no gymnasium env)."""

    task_id: str
    family: str
    config: dict[str, Any] = field(default_factory=dict)
    python: PythonSide = field(default_factory=PythonSide)
    reference: str | None = None

    @property
    def gymnasium_id(self) -> str:
        """gymnasium's id of the env this task reproduces: its reference, else its own id."""
        return self.reference or self.task_id

    @property
    def prepare(self) -> Prepare | None:
        """The task's prepare hook (``python.prepare``)."""
        return self.python.prepare


_REGISTRY: dict[str, TaskSpec] = {}
# The Python side a task of a family gets when registered without one (set by the
# family's task module): a user's task on a built-in family keeps its Python options.
_FAMILY_PYTHON: dict[str, PythonSide] = {}
_SUBSCRIBERS: list[Callable[[TaskSpec], object]] = []
# Ids a family knows but does not run, with why (make() raises it as a MakeError).
_REFUSED: dict[str, str] = {}


def register(
    task_id: str,
    family: str,
    *,
    prepare: Prepare | None = None,
    python: PythonSide | None = None,
    reference: str | None = None,
    **config: Any,
) -> None:
    """Register ``task_id`` as ``family`` with the given config overrides.

    The overrides become the task's defaults; users can still override them
    in :func:`envpool.make`. ``prepare`` (optional) completes each make's engine config
    (called with it, changed in place, and the user's options: e.g. a task deriving its
    model file and episode length from the options); ``python`` gives the
    task's Python options and hooks (see :class:`~envpool.registration.PythonSide`; ``prepare`` is a shorthand
    for its ``prepare``); ``reference``: gymnasium's id of the env the task reproduces,
    where it is not ``task_id`` (see :class:`~envpool.registration.TaskSpec`). Every :func:`~envpool.registration.subscribe` callback then gets the task (so it
    becomes ``envpool/<task_id>`` in gymnasium's registry).
    """
    if task_id in _REGISTRY:
        raise ValueError(f"task {task_id!r} is already registered")
    side = python or _FAMILY_PYTHON.get(family) or PythonSide()
    if prepare is not None:
        if side.prepare is not None:
            raise TypeError("give prepare either alone or in python=PythonSide(prepare=...), not both")
        side = replace(side, prepare=prepare)
    task = TaskSpec(task_id, family, dict(config), side, reference)
    _REGISTRY[task_id] = task
    for callback in list(_SUBSCRIBERS):
        callback(task)


def refuse(task_id: str, reason: str) -> None:
    """Make ``task_id`` (an id of a reference library that a family does not run) fail at
    make() with ``reason`` instead of "unknown task id". It is not a registered task."""
    if task_id in _REGISTRY:
        raise ValueError(f"task {task_id!r} is registered; it cannot also be refused")
    _REFUSED[task_id] = reason


def set_family_python(family: str, side: PythonSide) -> None:
    """The Python side of every task of ``family`` registered later without ``python=``
    (a task module calls it for its families, so that a user's
    ``register("MyTask-v0", "HalfCheetah-v5", ...)`` gets the family's ``frame_stack``)."""
    _FAMILY_PYTHON[family] = side


def subscribe(callback: Callable[[TaskSpec], object]) -> None:
    """Call ``callback(task)`` for every registered task now, in registration order, and
    for each task registered later. Subscribing the same callback again changes nothing."""
    if callback in _SUBSCRIBERS:
        return
    _SUBSCRIBERS.append(callback)
    for task in list(_REGISTRY.values()):
        callback(task)


def list_all_envs() -> list[str]:
    """All registered task ids, in registration order."""
    return list(_REGISTRY)


def lookup(task_id: str) -> TaskSpec:
    """The TaskSpec of ``task_id``; a MakeError naming close matches if unknown."""
    try:
        return _REGISTRY[task_id]
    except (KeyError, TypeError):
        if isinstance(task_id, str) and task_id in _REFUSED:
            raise MakeError(_REFUSED[task_id]) from None
        close = difflib.get_close_matches(str(task_id), list(_REGISTRY), n=5, cutoff=0.5)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise MakeError(f"unknown task id {task_id!r}{hint}") from None

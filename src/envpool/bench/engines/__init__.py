"""The engines ``envpool-bench`` measures: one ``Engine`` definition each, one file per engine.

An engine is one ``Engine(...)`` in a module of this package, listed in that
module's ``ENGINES`` tuple. The registry finds every module here whose name does
not start with ``_``, so adding an engine is adding one file; nothing else names
engines (``-e NAME``, ``-e all``, the default run, ``--help`` and the table all
read this registry).

An engine module

* imports only the standard library, numpy and this package (relatively:
  ``from . import _common``) at its top: ``worker.py`` loads the module by path
  in a fresh process, possibly under another interpreter (``python:PATH``), and
  ``envpool-bench`` imports every engine module to build the registry. Import
  the library being measured inside ``run`` and ``available``;
* defines ``run(spec) -> dict`` as a module-level function: the worker imports
  it by name (``Engine.runner``) and calls it once, in its own subprocess;
* defines ``available(task, case) -> str | None``: called in the
  ``envpool-bench`` process before anything runs; ``None`` when the engine can
  run ``case`` of ``task``, else the reason it cannot (shown once below the
  table, and in the JSON as ``"status": "n/a"``). Name missing packages with
  ``_common.missing(...)``.

``spec`` (a JSON object) carries ``engine``, ``task``, ``num_envs``,
``batch_size``, ``num_threads``, ``seconds``, ``warmup``, ``seed``, and the
task's ``family``, ``kind`` (the family's kind from ``_envpool.families()``),
``config`` (the registered overrides, the family's own keys only) and
``full_config`` (``make_spec``'s whole config), ``num_workers`` (``--num-workers``, capped at
``num_envs``) and ``gymnasium`` (None, or a ``gymnasium:`` task's id, ``make_id`` and module:
``envpool.bench.gym_tasks``; its ``options`` go to ``gymnasium.make``). ``run`` returns
``_common.time_loop``'s dict (``steps``, ``calls``, ``elapsed``,
``steps_per_s``, ``us_per_call``, ``setup_s``), or raises
``_common.Unavailable`` (shown as n/a) or any other exception (an error row).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any


def _always(task: Any, case: Any) -> str | None:
    return None


@dataclasses.dataclass(frozen=True)
class Engine:
    """One way of stepping environments that ``envpool-bench`` can measure."""

    name: str  # as typed after -e; a parametric engine's name ends in ':' (python:PATH)
    summary: str  # one line for --help and the README
    run: Callable[[dict], dict]  # one measurement, in the worker subprocess (module-level function)
    available: Callable[[Any, Any], str | None] = _always  # (Task, Case) -> None, or why not
    default: bool = False  # part of the no-argument run (must work after pip install 'envpool[bench]')
    order: int = 50  # position in listings and in -e all
    python: str | None = None  # interpreter that runs the worker (None: this one)
    prepare: Callable[[list[str]], dict] | None = None  # once per run, with the task ids; result in the JSON
    bind: Callable[[str], Engine] | None = None  # parametric: name + ARG -> the concrete engine

    def __post_init__(self) -> None:
        name, qual = getattr(self.run, "__name__", ""), getattr(self.run, "__qualname__", "")
        if not name or name != qual or "<" in name:
            raise TypeError(
                f"engine {self.name!r}: run must be a module-level function (the worker imports it by name), got {qual!r}"
            )

    @property
    def runner(self) -> tuple[str, str]:
        """(module of this package, function name) of ``run``, for the worker."""
        return self.run.__module__.rsplit(".", 1)[-1], self.run.__name__

    @property
    def parametric(self) -> bool:
        return self.bind is not None


_REGISTRY: dict[str, Engine] | None = None


def registry() -> dict[str, Engine]:
    """Every engine defined in this package, by name, in ``order``."""
    global _REGISTRY
    if _REGISTRY is None:
        found: dict[str, Engine] = {}
        for info in pkgutil.iter_modules(__path__):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            for engine in getattr(module, "ENGINES", ()):
                if engine.name in found:
                    raise RuntimeError(f"engine {engine.name!r} is defined twice")
                found[engine.name] = engine
        _REGISTRY = dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))
    return _REGISTRY


def get(name: str) -> Engine:
    """The engine called ``name`` (``python:/venv/bin/python`` binds ``python:``); KeyError if none."""
    engines = registry()
    if name in engines and not engines[name].parametric:
        return engines[name]
    for prefix, engine in engines.items():
        if engine.bind is not None and name.startswith(prefix) and len(name) > len(prefix):
            return engine.bind(name[len(prefix) :])
    raise KeyError(name)


def names() -> list[str]:
    """Names of the engines that take no argument (``-e all``)."""
    return [n for n, e in registry().items() if not e.parametric]


def defaults() -> list[str]:
    """The engines of the no-argument run."""
    return [n for n, e in registry().items() if e.default]


__all__ = ["Engine", "defaults", "get", "names", "registry"]

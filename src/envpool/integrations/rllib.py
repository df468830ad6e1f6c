"""RLlib: ``config.environment("envpool/<task id>")`` trains on envpool pools.

>>> import envpool
>>> from ray.rllib.algorithms.ppo import PPOConfig
>>> config = (PPOConfig().environment("envpool/CartPole-v1")
...           .env_runners(num_env_runners=2, num_envs_per_env_runner=8,
...                        gym_env_vectorize_mode="vector_entry_point"))

RLlib's env runners are separate processes that never import envpool, so the
``envpool/`` ids of gymnasium's registry (see
:mod:`envpool.integrations.gymnasium_registry`) are unknown there. RLlib first
looks an env name up in Ray Tune's registry, which every process of a Ray job
shares; so importing envpool also registers every ``envpool/<task id>`` there, with
:func:`env_creator` as the creator (unpickling it in an env runner imports
envpool). That happens as soon as both envpool and ``ray.tune.registry`` (which
RLlib imports) are loaded, in either order: registering costs no pool, and Tune
stores the entries when ``ray.init()`` runs. When Tune is loaded after envpool, a
``sys.meta_path`` entry runs the registration right after ``ray.tune.registry``
finishes importing (and removes itself): gymnasium's registry alone would not do, as
an env runner hands a name Tune lacks to ``gymnasium.make_vec`` in a process that has
not imported envpool. (gymnasium's own form, ``"envpool:envpool/CartPole-v1"``, which
imports envpool wherever it is made, works as well.)

The creator adapts envpool to RLlib's expectations, so user code needs nothing:

* ``gym_env_vectorize_mode="vector_entry_point"`` makes one envpool pool of
  ``num_envs_per_env_runner`` envs per env runner, with gymnasium's batched spaces
  and next-step autoreset (what RLlib's ``SingleAgentEnvRunner`` steps); the
  ``sync`` / ``async`` modes make that many single-env views instead.
* ``env_config`` entries are :func:`envpool.make` options (``episodic_life``,
  ``num_threads``, ``seed``, ...).
* Without a ``seed`` option, each pool (or single-env view) is seeded from fresh
  entropy, as an unseeded gymnasium env is, so env runners do not replay each
  other's episodes (a pool's own default seed is 42 in every process). With
  ``config.debugging(seed=s)`` RLlib reseeds every env at its first reset
  (runner w: ``reset(seed=s + w)``, env i of its pool then gets ``s + w + i``).
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import sys
import warnings
from typing import Any, cast

import numpy as np

_TUNE_REGISTRY = "ray.tune.registry"
_SEED_RANGE = 2**62  # leaves room for seed + env id


def env_creator(task_id: str, env_context: Any) -> Any:
    """RLlib's env creator for ``envpool/<task_id>``: a pool when RLlib passes
    ``num_envs`` (its vector entry point), else a single-env view."""
    from envpool.integrations.gymnasium_registry import make_vector_env
    from envpool.integrations.gymnasium_single import GymnasiumSingleEnv

    options = dict(env_context or {})
    num_envs = options.pop("num_envs", None)
    if "seed" not in options:
        # As an unseeded gymnasium env: fresh entropy (a pool's default seed is 42 in
        # every process, so every env runner would replay the same episodes).
        # (entropy is an int when SeedSequence draws it itself)
        options["seed"] = int(cast(int, np.random.SeedSequence().entropy) % _SEED_RANGE)
    if num_envs is None:  # one of the single-env views of a "sync" / "async" runner
        return GymnasiumSingleEnv(task_id, **options)
    return make_vector_env(task_id, num_envs=int(num_envs), **options)


def register_with_tune(task_ids: list[str] | None = None) -> list[str]:
    """Register envpool tasks (default: every one) in Ray Tune's env registry as
    ``envpool/<task id>`` (done on import, and for each task added later once Tune is
    loaded; call it again after ``ray.tune.registry._unregister_envs()``)."""
    from ray.tune.registry import register_env

    from envpool.integrations.gymnasium_registry import gymnasium_id
    from envpool.registration import list_all_envs

    names = []
    for task_id in list_all_envs() if task_ids is None else task_ids:
        name = gymnasium_id(task_id)
        register_env(name, functools.partial(env_creator, task_id))
        names.append(name)
    return names


_warned = False


def _on_task(task: Any) -> None:
    """One task into Tune's registry (subscribed to the task registry once Tune is loaded)."""
    global _warned
    try:
        register_with_tune([task.task_id])
    except Exception as e:  # never break the user's import of Ray Tune / RLlib, nor a register()
        if not _warned:
            _warned = True
            warnings.warn(f"envpool: could not register its tasks with Ray Tune ({e!r})", RuntimeWarning, stacklevel=2)


def _subscribe() -> None:
    from envpool.registration import subscribe

    subscribe(_on_task)


class _AfterImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Runs a callback once, right after one module (here ``ray.tune.registry``)
    finishes importing; it finds and loads nothing itself."""

    def __init__(self, name: str, callback: Any) -> None:
        self.name = name
        self.callback = callback
        self._loader: Any = None
        self._finding = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name or self._finding:
            return None
        self._finding = True  # the real finders' spec, without coming back here
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is None or spec.loader is None:
            return spec
        # A find_spec() that never loads (importlib.util.find_spec) leaves the hook in place.
        self._loader, spec.loader = spec.loader, self
        return spec

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        module.__loader__ = module.__spec__.loader = self._loader
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        self.callback()


def install() -> None:
    """Registers envpool's tasks with Ray Tune now if it is loaded, else right after it
    is (envpool does not import Ray); from then on, each task added later as well."""
    if _TUNE_REGISTRY in sys.modules:
        _subscribe()
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(_TUNE_REGISTRY, _subscribe))


__all__ = ["env_creator", "register_with_tune", "install"]

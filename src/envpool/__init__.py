"""envpool: batched RL environments stepped by a C++ thread pool.

>>> import envpool
>>> envs = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=8)
>>> obs, info = envs.reset()
"""

from __future__ import annotations

import importlib
from typing import Any

from envpool import _native

# load() imports the extension as the submodule envpool._envpool (typed by _envpool.pyi).
_native.load()
from envpool import _envpool
from envpool import registration as _registration
from envpool._interfaces import DMEnvPool, EnvPool, GymnasiumEnvPool
from envpool._make import make, make_dm, make_gym, make_gymnasium, make_spec
from envpool._spec import EnvSpec
from envpool.compat import module_paths as _module_paths
from envpool.integrations import gymnasium_registry as _gymnasium_registry
from envpool.integrations import rllib as _rllib
from envpool.registration import MakeError, list_all_envs, register

__version__ = "0.1.0"

# Each family compiled in names the module whose import registers its task
# ids (some families are build options).
_task_modules = [m for m in dict.fromkeys(meta["task_module"] for meta in _envpool.families().values()) if m]
for _module in _task_modules:
    importlib.import_module(_module)

# EnvPool 1.2's import paths: envpool.<family>.registration (registering nothing; three hold
# EnvPool's task lists) and
# envpool.registration.make* (python/module_paths.py).
_module_paths.install(_task_modules)
for _name in ("make", "make_gym", "make_dm", "make_gymnasium", "make_spec"):
    setattr(_registration, _name, globals()[_name])

# The one wiring point of the integrations: each subscribes to the registry, which
# hands it every task registered so far and each one registered later.
# gymnasium's registry: "envpool/<task id>" (gymnasium.make_vec / gymnasium.make; a
# dict entry per task, no pool is made).
_registration.subscribe(_gymnasium_registry.on_task)
# ... and Ray Tune's, which RLlib's env runners read (once ray.tune.registry is
# loaded, before or after envpool; envpool never imports Ray).
_rllib.install()


def __getattr__(name: str) -> Any:
    # envpool.ray (pools over Ray actors) imports Ray: only when first used.
    if name == "ray":
        return importlib.import_module("envpool.ray")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "make",
    "make_gymnasium",
    "make_gym",
    "make_dm",
    "make_spec",
    "list_all_envs",
    "register",
    "EnvSpec",
    "EnvPool",
    "DMEnvPool",
    "GymnasiumEnvPool",
    "MakeError",
]

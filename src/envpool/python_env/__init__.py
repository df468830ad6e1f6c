"""Your own Python (gymnasium) environments in a pool: ``envpool.make(env_fn, ...)`` and
``envpool.make("gymnasium:<id>", ...)``.

The envs live in worker processes, a block of envs each; the engine's PythonEnv family
(cpp/python_env) steps each env by handing its action to the env's slot of a shared-memory
segment and waiting for its worker, so the engine schedules these envs as any other
(sync, async first-to-finish, errors, autoreset) and results reach Python in the batch
buffers. See docs/python_envs.md.

Modules: ``_spec`` (make's options, the probe env, the pool's spec), ``_workers`` (the
worker processes and their supervisor), ``_pool`` (the engine pool with its workers),
``_worker`` (a worker process's loop), ``_spaces`` (gymnasium spaces as flat arrays, the
segment's layout). Importing this package (the family's task module) adds these pools
to make(), as a family's task module registers its tasks.
"""

from __future__ import annotations

from envpool._config import add_spec_resolver
from envpool._pool import add_pool_maker
from envpool.python_env._pool import ProcPool, new_pool
from envpool.python_env._spec import FAMILY, KIND, PREFIX, PyEnvSpec, PythonEnv, is_python_task, make_pool_spec
from envpool.python_env._workers import START_ATTEMPTS, Workers

add_spec_resolver(FAMILY, is_python_task, make_pool_spec)
add_pool_maker(FAMILY, new_pool)

__all__ = [
    "FAMILY",
    "KIND",
    "PREFIX",
    "START_ATTEMPTS",
    "ProcPool",
    "PyEnvSpec",
    "PythonEnv",
    "Workers",
    "is_python_task",
    "make_pool_spec",
    "new_pool",
]

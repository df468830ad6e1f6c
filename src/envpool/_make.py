"""make() and its per-interface forms (re-exported by :mod:`envpool`).

Kept apart from ``src/envpool/__init__.py`` so that modules inside the package (the
integrations, :mod:`envpool.ray`) make pools without importing the package root,
which wires them up: no import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, overload

from envpool import _interfaces
from envpool._config import make_pool_spec
from envpool._interfaces import TaskId
from envpool._spec import EnvSpec
from envpool.registration import MakeError

if TYPE_CHECKING:  # `import envpool` imports no pool class (nor gymnasium's vector module)
    from envpool.dm_env_pool import DmEnvPool
    from envpool.gym_env import GymEnvPool
    from envpool.gymnasium_env import GymnasiumEnvPool

_ENV_TYPES = ("gymnasium", "gym", "dm")


@overload
def make(task_id: TaskId, env_type: Literal["gymnasium"], **config: Any) -> GymnasiumEnvPool: ...
@overload
def make(task_id: TaskId, env_type: Literal["gym"], **config: Any) -> GymEnvPool: ...
@overload
def make(task_id: TaskId, env_type: Literal["dm", "dm_env"], **config: Any) -> DmEnvPool: ...
@overload
def make(task_id: TaskId, env_type: str, **config: Any) -> GymnasiumEnvPool | GymEnvPool | DmEnvPool: ...
def make(task_id: TaskId, env_type: str, **config: Any) -> Any:
    """Make a pool of ``num_envs`` envs of ``task_id``.

    Args:
        task_id: a registered id, e.g. ``"CartPole-v1"``, ``"Pong-v5"``; or a list of ids
            (a multi-task pool, env i runs ``task_id[i % len(task_id)]``) or a dict
            ``{id: count}``; ``task_options={id: {...}}`` then sets one task's options.
        env_type: ``"gymnasium"`` (a gymnasium VectorEnv), ``"gym"`` (EnvPool's
            classic interface) or ``"dm"`` (batched dm_env TimeSteps).
        **config: engine options (num_envs, batch_size, num_threads,
            thread_affinity_offset, seed, max_episode_steps, autoreset_mode)
            and the task's own options. ``seed``: an int (env i gets seed + i) or
            one seed per env. ``env_options``: per-env options, a list of one dict per
            env or ``{env_id: {...}}``, over the pool's (docs/options.md).

    Raises:
        MakeError: a bad task id or argument (a ``ValueError``, and an ``AssertionError``
            as EnvPool 1.2.5's were), before the pool makes its envs.
    """
    if env_type == "gymnasium":
        return make_gymnasium(task_id, **config)
    if env_type == "gym":
        return make_gym(task_id, **config)
    if env_type in ("dm", "dm_env"):
        return make_dm(task_id, **config)
    raise MakeError(f"env_type must be one of {_ENV_TYPES}, got {env_type!r}")


# make_*'s return types are EnvPool 1.2.5's (its interface types); make()'s overloads
# name the classes.
def make_gymnasium(task_id: TaskId, **config: Any) -> _interfaces.GymnasiumEnvPool:
    """A :class:`gymnasium.vector.VectorEnv` pool (see :func:`make`)."""
    from envpool.gymnasium_env import GymnasiumEnvPool

    return GymnasiumEnvPool(task_id, **config)


def make_gym(task_id: TaskId, **config: Any) -> _interfaces.GymnasiumEnvPool:
    """A pool with EnvPool's classic gym interface (see :func:`make`); as in EnvPool, also a
    ``envpool.GymnasiumEnvPool`` (a gymnasium VectorEnv whose step returns gym's tuples)."""
    from envpool.gym_env import GymEnvPool

    return GymEnvPool(task_id, **config)


def make_dm(task_id: TaskId, **config: Any) -> _interfaces.DMEnvPool:
    """A pool with the dm_env interface (see :func:`make`)."""
    from envpool.dm_env_pool import DmEnvPool

    return DmEnvPool(task_id, **config)


def make_spec(task_id: TaskId, **config: Any) -> EnvSpec:
    """The config and spaces a pool would have, without making any env."""
    return make_pool_spec(task_id, config)

"""envpool's tasks in gymnasium's registry, under the ``envpool/`` namespace.

Importing envpool registers every task (``envpool/Pong-v5``, ``envpool/CartPole-v1``, ...)
with two entry points:

>>> import gymnasium, envpool
>>> envs = gymnasium.make_vec("envpool/Pong-v5", num_envs=64,
...                           vectorization_mode="vector_entry_point", episodic_life=True)
>>> env = gymnasium.make("envpool/CartPole-v1")       # one env: a gymnasium.Env

* ``vector_entry_point`` (:func:`make_vector_env`): ``gymnasium.make_vec`` returns an
  envpool gymnasium pool; every keyword goes to :func:`envpool.make` (num_threads,
  seed, batch_size, autoreset_mode, the task's own options). As gymnasium's
  ``make_vec`` callers expect, ``observation_space`` / ``action_space`` are the
  batched spaces (``batched_spaces=True``; :func:`envpool.make` keeps EnvPool's
  single-env spaces). RLlib's env runners use this entry point with
  ``gym_env_vectorize_mode="vector_entry_point"``.
* ``entry_point`` (:class:`~envpool.integrations.gymnasium_single.GymnasiumSingleEnv`):
  ``gymnasium.make`` returns a single-env view of a one-env pool.

Time limits are the engine's (the task's ``max_episode_steps``, changed through the
``max_episode_steps`` option of ``make_vec``): the gymnasium specs carry
``max_episode_steps=None`` so that ``gymnasium.make`` adds no ``TimeLimit`` wrapper
on top. (``gymnasium.make(id, max_episode_steps=k)`` is gymnasium's own argument: it
adds gymnasium's ``TimeLimit`` at k, inside the engine's limit.)

Registration is a dictionary entry per task (no pool is made) and skips ids that
gymnasium's registry already holds, so importing envpool again (or after another
package registered the same id) changes nothing. A task added later with
:func:`envpool.register` joins in the same way (:func:`on_task` is subscribed to the
task registry).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from envpool.registration import TaskSpec

NAMESPACE = "envpool"

_SINGLE_ENTRY = "envpool.integrations.gymnasium_single:GymnasiumSingleEnv"
_VECTOR_ENTRY = "envpool.integrations.gymnasium_registry:make_vector_env"


def gymnasium_id(task_id: str) -> str:
    """The gymnasium id of an envpool task: ``"Pong-v5"`` -> ``"envpool/Pong-v5"``."""
    return f"{NAMESPACE}/{task_id}"


def make_vector_env(task_id: str, num_envs: int = 1, **options: Any) -> Any:
    """gymnasium's ``vector_entry_point``: an envpool gymnasium pool of ``num_envs`` envs of
    ``task_id``, with gymnasium's batched spaces unless ``batched_spaces=False`` is given."""
    from envpool._make import make

    options.setdefault("batched_spaces", True)
    return make(task_id, env_type="gymnasium", num_envs=num_envs, **options)


def on_task(task: TaskSpec) -> bool:
    """Register one envpool task in gymnasium's registry (False: the id was taken).
    ``src/envpool/__init__.py`` subscribes this to the task registry."""
    import gymnasium
    from gymnasium.envs.registration import registry

    gym_id = gymnasium_id(task.task_id)
    if gym_id in registry:
        return False
    try:
        gymnasium.register(
            gym_id,
            entry_point=_SINGLE_ENTRY,
            vector_entry_point=_VECTOR_ENTRY,
            reward_threshold=task.config.get("reward_threshold"),
            max_episode_steps=None,  # the engine's own limit applies (no TimeLimit wrapper)
            kwargs={"task_id": task.task_id},
        )
    except gymnasium.error.Error:  # an id gymnasium refuses next to ones registered by others
        return False
    return True


def register_task(task_id: str) -> bool:
    """Register one registered envpool task in gymnasium's registry (False: the id was taken)."""
    from envpool.registration import lookup

    return on_task(lookup(task_id))


def register_envs() -> list[str]:
    """Register every envpool task in gymnasium's registry; returns the ids added.
    (Importing envpool does this, and registers a task added later as it is added.)"""
    from envpool.registration import list_all_envs

    return [gymnasium_id(t) for t in list_all_envs() if register_task(t)]


__all__ = ["NAMESPACE", "gymnasium_id", "make_vector_env", "on_task", "register_envs", "register_task"]

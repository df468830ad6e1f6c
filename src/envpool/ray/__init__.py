"""Pools spread over a Ray cluster: ``envpool.ray.make``.

>>> import ray, envpool
>>> ray.init()                                   # or ray.init(address="auto") on a cluster
>>> envs = envpool.ray.make("Pong-v5", "gymnasium", num_envs=64, num_actors=4)
>>> obs, info = envs.reset()                     # obs.shape == (64, 4, 84, 84)

``num_actors`` Ray actors each hold one local pool of about ``num_envs / num_actors``
envs (actor k: the consecutive global env ids ``offsets[k] .. offsets[k+1] - 1``),
wherever Ray places them. Behind them the caller gets the same interface as
:func:`envpool.make` for all three ``env_type``\\ s: global env ids ``0 .. num_envs-1``,
``step`` / ``reset`` / ``send`` / ``recv`` / ``async_reset``, ``env_id`` arguments,
every autoreset mode, ``frame_stack`` and the options of every task.

* Seeds are a local pool's: env i gets ``seed + i`` (or ``seed[i]`` for a list), at
  creation and on ``reset(seed=s)`` (the actor holding env i seeds it so), so env i
  has the trajectory env i of ``envpool.make(..., num_envs=N)`` has; ``env_options``
  go to the actor holding each env.
* Sync mode (``batch_size`` = ``num_envs``, the default): a step sends each actor
  its envs' actions and returns every row, in env order.
* Async mode (``batch_size`` < ``num_envs``): ``send`` hands each actor its share
  of the envs named (one actor call each) and ``recv`` returns the first
  ``batch_size`` envs to finish across actors: it takes actor results as
  ``ray.wait`` reports them done; rows beyond ``batch_size`` wait for the next
  ``recv``. (Envs finish together per actor call: rows of one call are never
  split in time, only in which ``recv`` returns them.)
* Results travel through Ray's object store; their NumPy arrays are Ray's
  read-only zero-copy views (a batch built from several actor calls is one
  concatenation; it is read-only too, so that every batch behaves the same).
* Engine options (``num_threads``, ``thread_affinity_offset``, the task's options)
  apply to each actor's pool; ``num_threads`` defaults to what the actor's node
  gives a pool of its size. ``placement`` is passed to ``Actor.options`` (e.g.
  ``{"num_cpus": 4}``, ``{"resources": {...}}``, ``{"scheduling_strategy": ...}``),
  or a list with one such dict per actor.
* When an actor dies (its node lost, ``ray.kill``), the call that meets it raises
  :class:`ActorLostError` naming the env ids it held (``lost_env_ids``); calls on
  other actors' envs go on working. ``close()`` ends every actor; ``reset()`` after
  ``close()`` starts new ones (as a local pool rebuilds itself).

``task_id`` and the options go unchanged to :func:`envpool.make` in each actor
(with ``num_envs`` the actor's share and ``seed`` offset to its first env id).

Modules: ``_engine`` (the engine calls over actors), ``_ledger`` (what is in flight),
``_actor`` (what runs in an actor), ``_pools`` (the interfaces), ``_errors``.
"""

from __future__ import annotations

from typing import Any

try:
    import ray  # noqa: F401 - the error below names the extra to install
except ImportError as e:  # pragma: no cover - exercised only without Ray
    raise ImportError("envpool.ray needs Ray: pip install 'envpool[ray]'") from e

from envpool.ray._engine import RayEngine
from envpool.ray._errors import ActorLostError
from envpool.ray._pools import _classes
from envpool.registration import MakeError

_CLASSES: dict[str, type] = {}


def make(
    task_id: Any,
    env_type: str,
    num_envs: int = 1,
    num_actors: int = 2,
    placement: dict[str, Any] | list[dict[str, Any]] | None = None,
    start_timeout: float | None = 300.0,
    **options: Any,
) -> Any:
    """A pool of ``num_envs`` envs of ``task_id`` spread over ``num_actors`` Ray actors.

    Args:
        task_id: a task id, as for :func:`envpool.make` (passed to it unchanged in each
            actor); multi-task lists are not supported here yet.
        env_type: ``"gymnasium"``, ``"gym"`` or ``"dm"``, as for :func:`envpool.make`.
        num_envs: envs in all; actor k holds about ``num_envs / num_actors`` of them.
        num_actors: Ray actors (at most num_envs).
        placement: ``Actor.options`` for every actor (a dict), or one dict per actor.
        start_timeout: seconds to wait for every actor to start (``TimeoutError`` after,
            e.g. when the cluster lacks the CPUs they reserve); None waits for ever.
        **options: :func:`envpool.make` options (batch_size, seed, autoreset_mode,
            num_threads per actor, the task's own options...).

    Ray must be initialized (``ray.init``) or it starts a local instance, as any Ray call.
    """
    if not _CLASSES:
        _CLASSES.update(_classes())
    if env_type not in _CLASSES:
        raise MakeError(f"env_type must be one of ('gymnasium', 'gym', 'dm'), got {env_type!r}")
    if isinstance(task_id, (list, tuple, dict)):
        # Each actor would assign tasks from its own env 0, not from its first global env.
        raise NotImplementedError("multi-task pools over Ray actors are not supported yet: make one per task")
    return _CLASSES[env_type](
        task_id, num_actors=num_actors, placement=placement, start_timeout=start_timeout, num_envs=num_envs, **options
    )


__all__ = ["make", "ActorLostError", "RayEngine"]

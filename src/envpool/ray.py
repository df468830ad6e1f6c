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
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import ray
except ImportError as e:  # pragma: no cover - exercised only without Ray
    raise ImportError("envpool.ray needs Ray: pip install 'envpool[ray]'") from e

from envpool import _envpool
from envpool._config import env_options_list, is_seed_list
from envpool._pool import Batch, add_players
from envpool._tree import tree_map
from envpool.registration import MakeError


class ActorLostError(RuntimeError):
    """An actor of a Ray pool died: its envs (``lost_env_ids``) are gone."""

    def __init__(self, message: str, actor: int, lost_env_ids: np.ndarray) -> None:
        super().__init__(message)
        self.actor = actor
        self.lost_env_ids = lost_env_ids


class _PoolActor:
    """One local pool inside a Ray actor; steps and resets named envs and returns their
    rows (the engine's batch with global env ids) for the driver to assemble."""

    def __init__(
        self, task_id: Any, env_type: str, options: dict[str, Any], offset: int, extensions: dict | None = None
    ) -> None:
        from envpool import cpp_extension
        from envpool._make import make

        # The C++ family modules the driver loaded (and its tasks on them): cpp_extension._state().
        cpp_extension._restore(extensions)
        self.offset = offset
        # The interface is made by envpool.make as anywhere; the actor drives its
        # engine directly (the driver's interface shapes the rows, frame stacks...).
        self.interface = make(task_id, env_type, **options)
        self.engine = self.interface._pool

    def info(self) -> dict[str, Any]:
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "num_threads": int(self.interface.config["num_threads"]),
        }

    def step(self, action: Any, ids: np.ndarray) -> tuple:
        return self._run(lambda: self.engine.step(action, ids))

    def reset(self, ids: np.ndarray, seeds: list[int] | None) -> tuple:
        return self._run(lambda: self.engine.reset(ids, seeds, True))

    def close(self) -> None:
        self.interface.close()

    def _run(self, call: Any) -> tuple:
        try:
            return ("ok", self._rows(call()))
        except Exception as e:
            if not hasattr(e, "failed_env_ids"):
                raise
            what = str(e).split(" failed: ", 1)[-1]
            failed = np.asarray(e.failed_env_ids, dtype=np.int32) + self.offset
            return ("failed", type(e), what, failed, self._rows(e.result))

    def _rows(self, batch: Any) -> tuple:
        obs, reward, terminated, truncated, discount, info, final = batch
        info = {k: v for k, v in info.items() if k != "players"}
        info["env_id"] = info["env_id"] + np.int32(self.offset)
        return (obs, reward, terminated, truncated, discount, info, final)


_RemotePoolActor = ray.remote(_PoolActor)


@dataclass
class _Chunk:
    """The rows of one actor call once received (``failed``: rows whose env threw)."""

    ids: np.ndarray
    rows: tuple
    failed: np.ndarray | None = None
    error: tuple[type, str] | None = None


@dataclass
class _Call:
    ref: Any
    actor: int
    ids: np.ndarray  # global ids, in the order sent


@dataclass
class _Group:
    """A sync-mode send(): its calls, and the order its rows are returned in."""

    calls: list[_Call]
    ids: np.ndarray


class RayEngine:
    """The engine calls of :class:`envpool._pool.PoolBase` (``step``, ``send``, ``recv``,
    ``reset``, ``send_reset``, ``close``, ``closed``, ``in_flight``) over actors."""

    def __init__(
        self,
        task_id: Any,
        env_type: str,
        num_envs: int,
        batch_size: int,
        seed: int | list[int],
        num_actors: int,
        placement: dict[str, Any] | list[dict[str, Any]] | None,
        options: dict[str, Any],
        action_specs: list[tuple],
        start_timeout: float | None = 300.0,
        autoreset_mode: str = "next_step",
    ) -> None:
        if not isinstance(num_actors, (int, np.integer)) or isinstance(num_actors, bool) or num_actors < 1:
            raise MakeError(f"num_actors must be an int >= 1, got {num_actors!r}")
        if num_actors > num_envs:
            raise MakeError(f"num_actors={num_actors} is more than num_envs={num_envs}: every actor needs an env")
        placements = _placements(placement, int(num_actors))
        self.action_specs = list(action_specs)
        self.num_envs = int(num_envs)
        self.batch_size = int(batch_size)
        self.sync = self.batch_size == self.num_envs
        self.num_actors = int(num_actors)
        sizes = [self.num_envs // num_actors + (k < self.num_envs % num_actors) for k in range(num_actors)]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.actor_of = np.repeat(np.arange(num_actors), sizes)
        self.actors = []
        from envpool import cpp_extension

        extensions = cpp_extension._state()
        options = dict(options)
        env_options = options.pop("env_options", None)
        per_env = None if env_options is None else env_options_list(env_options, self.num_envs)
        for k in range(num_actors):
            lo, hi = int(self.offsets[k]), int(self.offsets[k + 1])
            opts = {**options, "num_envs": sizes[k], "seed": seed[lo:hi] if is_seed_list(seed) else int(seed) + lo}
            if per_env is not None:
                opts["env_options"] = per_env[lo:hi]
            self.actors.append(
                _RemotePoolActor.options(**placements[k]).remote(
                    task_id, env_type, opts, int(self.offsets[k]), extensions
                )
            )
        self.dead: set[int] = set()
        self._closed = False
        self._in_flight = np.zeros(self.num_envs, dtype=bool)
        self._pending: list[_Call] = []  # async: calls not yet received
        self._ready: deque[tuple[_Chunk, int]] = deque()  # async: received chunks, rows from an index on
        self._groups: deque[_Group] = deque()  # sync: send()s not yet received
        self._last_ids = np.arange(self.num_envs, dtype=np.int32)
        # autoreset_mode "disabled": the envs that must be reset before they step
        # (the actors' engines refuse them too, but only after other actors stepped).
        self._needs_reset = np.ones(self.num_envs, dtype=bool) if autoreset_mode == "disabled" else None
        try:  # every actor up (its pool made) before the first call; errors surface here
            self.actor_info = ray.get([a.info.remote() for a in self.actors], timeout=start_timeout)
        except BaseException as e:
            self.close()
            if isinstance(e, ray.exceptions.GetTimeoutError):
                raise TimeoutError(
                    f"envpool.ray: {num_actors} actors did not all start within {start_timeout} s; the cluster "
                    f"may lack the resources they ask for (placement={placement!r}): free some, use fewer "
                    "actors or smaller placement options, or pass start_timeout=None to wait for them"
                ) from None
            if isinstance(e, ray.exceptions.RayActorError):
                raise RuntimeError(f"envpool.ray: an actor could not make its pool: {e}") from e
            raise

    # -- the engine interface -------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def in_flight(self) -> int:
        return int(self._in_flight.sum())

    def step(self, action: Any, env_id: Any = None) -> Batch:
        self._check_open()
        ids = self._ids(env_id, default_last=True)
        self._check_steppable(ids)
        if self.sync or len(ids) == 0:
            return self._call("step", ids, action=action)
        available = self._unreserved() + len(ids)
        if available < self.batch_size:
            raise _would_wait(available, self.batch_size)
        self._send("step", ids, action=action)
        return self.recv()

    def send(self, action: Any, env_id: Any = None) -> None:
        self._check_open()
        ids = self._ids(env_id, default_last=True)
        self._check_steppable(ids)
        if len(ids):
            self._send("step", ids, action=action)

    def recv(self) -> Batch:
        self._check_open()
        if self.sync:
            if not self._groups:
                raise RuntimeError("recv() called with nothing in flight: send() first")
            group = self._groups.popleft()
            return self._finish(self._wait_all(group.calls), group.ids)
        if self._unreserved() < self.batch_size:
            raise _would_wait(self._unreserved(), self.batch_size)
        while sum(len(c.ids) - start for c, start in self._ready) < self.batch_size:
            ready, _ = ray.wait([c.ref for c in self._pending], num_returns=1)
            call = next(c for c in self._pending if c.ref == ready[0])
            self._pending.remove(call)
            self._ready.append((self._receive(call), 0))
        return self._take(self.batch_size)

    def reset(self, env_id: Any = None, seed: Any = None, own_batch: bool = False) -> Batch:
        self._check_open()
        ids = self._ids(env_id, default_last=False)
        seeds = self._seeds(seed, ids)
        if self.sync or own_batch or len(ids) == 0:
            return self._call("reset", ids, seeds=seeds)
        available = self._unreserved() + len(ids)
        if available < self.batch_size:
            raise _would_wait(available, self.batch_size)
        self._send("reset", ids, seeds=seeds)
        return self.recv()

    def send_reset(self, env_id: Any = None, seed: Any = None) -> None:
        self._check_open()
        ids = self._ids(env_id, default_last=False)
        seeds = self._seeds(seed, ids)
        if len(ids):
            self._send("reset", ids, seeds=seeds)

    def close(self) -> None:
        """Ends every actor (idempotent)."""
        if self._closed:
            return
        self._closed = True
        for actor in getattr(self, "actors", []):
            try:
                ray.kill(actor, no_restart=True)
            except Exception:  # Ray already shut down, or the actor already gone
                pass
        self._pending, self._groups = [], deque()
        self._ready.clear()
        self._in_flight[:] = False

    # -- sending --------------------------------------------------------------
    def _send(self, kind: str, ids: np.ndarray, action: Any = None, seeds: list[int] | None = None) -> None:
        calls = self._submit(kind, ids, action, seeds)
        if self.sync:
            self._groups.append(_Group(calls, ids))
        else:
            self._pending.extend(calls)

    def _call(self, kind: str, ids: np.ndarray, action: Any = None, seeds: list[int] | None = None) -> Batch:
        """Exactly the rows of ids, in that order, in a batch of their own."""
        if len(ids) == 0:  # an empty batch, shaped by an actor's engine
            empty = np.zeros(0, dtype=np.int32)
            actor = next(k for k in range(self.num_actors) if k not in self.dead)
            if kind == "step":
                ref = self.actors[actor].step.remote(_rows_of(action, empty), empty)
            else:
                ref = self.actors[actor].reset.remote(empty, None)
            return self._finish(self._wait_all([_Call(ref, actor, empty)]), empty)
        calls = self._submit(kind, ids, action, seeds)
        return self._finish(self._wait_all(calls), ids)

    def _submit(self, kind: str, ids: np.ndarray, action: Any, seeds: list[int] | None) -> list[_Call]:
        """One call per actor holding some of ids (all checks first: a refused call
        changes nothing)."""
        busy = ids[self._in_flight[ids]]
        if len(busy):
            raise ValueError(_envpool.in_flight_message(int(busy[0])))
        actors = self.actor_of[ids]
        lost = sorted({int(a) for a in actors} & self.dead)
        if lost:
            raise self._lost_error(lost[0], "was lost earlier")
        if kind == "step":
            # The engine's checks, made before anything is sent: a call refused by one
            # actor would leave the others stepped.
            _envpool.check_action(action, len(ids), self.action_specs)
        calls = []
        for k in dict.fromkeys(actors.tolist()):
            sel = np.flatnonzero(actors == k)
            local = (ids[sel] - self.offsets[k]).astype(np.int32)
            if kind == "step":
                ref = self.actors[k].step.remote(_rows_of(action, sel), local)
            else:
                ref = self.actors[k].reset.remote(local, None if seeds is None else [seeds[i] for i in sel])
            calls.append(_Call(ref, k, ids[sel]))
        self._in_flight[ids] = True
        return calls

    # -- receiving ------------------------------------------------------------
    def _receive(self, call: _Call, out: Any = None) -> _Chunk:
        """The chunk of one finished call (``out``: its result, if already fetched); its
        envs are no longer in flight."""
        try:
            if out is None:
                out = ray.get(call.ref)
        except ray.exceptions.RayActorError:
            self._in_flight[call.ids] = False
            self._lose(call.actor)
            raise self._lost_error(call.actor, "died") from None
        except ray.exceptions.RayTaskError as e:  # refused before stepping: nothing changed
            self._in_flight[call.ids] = False
            raise e.as_instanceof_cause() from None
        self._in_flight[call.ids] = False
        if out[0] == "ok":
            return _Chunk(call.ids, out[1])
        _, exc_type, what, failed, rows = out
        return _Chunk(call.ids, rows, np.isin(call.ids, failed), (exc_type, what))

    def _wait_all(self, calls: list[_Call]) -> list[_Chunk]:
        try:  # the common case: one ray.get for every call
            outs = ray.get([c.ref for c in calls])
        except Exception:
            outs = [None] * len(calls)
        chunks, first_error = [], None
        for call, out in zip(
            calls, outs, strict=True
        ):  # every call received, even after one fails: none stays in flight
            try:
                chunks.append(self._receive(call, out))
            except Exception as e:
                first_error = first_error or e
        if first_error is not None:
            raise first_error
        return chunks

    def _take(self, n: int) -> Batch:
        """The first n buffered rows (async)."""
        parts, ids = [], []
        while n > 0:
            chunk, start = self._ready.popleft()
            stop = min(len(chunk.ids), start + n)
            parts.append((chunk, slice(start, stop)))
            ids.append(chunk.ids[start:stop])
            n -= stop - start
            if stop < len(chunk.ids):
                self._ready.appendleft((chunk, stop))
        return self._assemble(parts, np.concatenate(ids))

    def _finish(self, chunks: list[_Chunk], ids: np.ndarray) -> Batch:
        """Rows of whole chunks, in the order of ids."""
        parts = [(c, slice(0, len(c.ids))) for c in chunks]
        got = np.concatenate([c.ids for c in chunks])
        order = None
        if not np.array_equal(got, ids):
            where = np.empty(self.num_envs, dtype=np.int64)
            where[got] = np.arange(len(got))
            order = where[ids]
        return self._assemble(parts, ids, order)

    def _assemble(self, parts: list[tuple[_Chunk, slice]], ids: np.ndarray, order: np.ndarray | None = None) -> Batch:
        rows = [tree_map(lambda a, s=s: a[s], c.rows) for c, s in parts]
        merged = rows[0] if len(rows) == 1 else _tree_concat(rows)
        if order is not None:
            merged = tree_map(lambda a: a[order], merged)
        merged = tree_map(_read_only, merged)
        obs, reward, terminated, truncated, discount, info, final = merged
        batch = Batch((obs, reward, terminated, truncated, discount, add_players(dict(info)), final))
        self._last_ids = np.asarray(info["env_id"], dtype=np.int32)
        if self._needs_reset is not None:
            self._needs_reset[self._last_ids] = np.asarray(terminated) | np.asarray(truncated)
        failing = [(c, c.ids[s][c.failed[s]]) for c, s in parts if c.failed is not None and c.failed[s].any()]
        if failing:
            # As an engine pool: the failed envs in row order, the exception of the first one's actor
            # call (which reports its own first failed row's).
            failed = self._last_ids[np.isin(self._last_ids, np.concatenate([ids for _, ids in failing]))]
            exc_type, what = next(c.error for c, ids in failing if failed[0] in ids)
            label = "env " if len(failed) == 1 else "envs "
            exc = exc_type(label + ", ".join(map(str, failed)) + " failed: " + what)
            exc.env_ids = self._last_ids.copy()
            exc.failed_env_ids = failed
            exc.result = batch
            raise exc
        return batch

    # -- bookkeeping ----------------------------------------------------------
    def _unreserved(self) -> int:
        return sum(len(c.ids) for c in self._pending) + sum(len(c.ids) - s for c, s in self._ready)

    def _lose(self, actor: int) -> None:
        """Forget a dead actor's calls (their envs are gone)."""
        self.dead.add(actor)
        mine = self.actor_of == actor
        self._in_flight[mine] = False
        self._pending = [c for c in self._pending if c.actor != actor]

    def _lost_error(self, actor: int, how: str) -> ActorLostError:
        lost = np.arange(self.offsets[actor], self.offsets[actor + 1], dtype=np.int32)
        node = self.actor_info[actor]["node_id"] if hasattr(self, "actor_info") else "?"
        return ActorLostError(
            f"envpool.ray: actor {actor} (node {node}) {how}; its envs {lost[0]}..{lost[-1]} "
            f"({len(lost)} envs) are lost: close() the pool and make a new one",
            actor,
            lost,
        )

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this env pool is closed")

    def _ids(self, env_id: Any, default_last: bool) -> np.ndarray:
        if env_id is None:
            if default_last and not self.sync:
                return self._last_ids.copy()
            return np.arange(self.num_envs, dtype=np.int32)
        return _envpool.check_env_ids(env_id, self.num_envs)

    def _check_steppable(self, ids: np.ndarray) -> None:
        if self._needs_reset is not None and self._needs_reset[ids].any():
            raise ValueError(_envpool.needs_reset_message(int(ids[self._needs_reset[ids]][0])))

    def _seeds(self, seed: Any, ids: np.ndarray) -> list[int] | None:
        """One seed per env of ids (an int seed s gives env i the seed s + i)."""
        return _envpool.check_seeds(seed, ids.tolist(), self.num_envs)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


# -- helpers --------------------------------------------------------------------
def _placements(placement: Any, k: int) -> list[dict[str, Any]]:
    if placement is None:
        return [{} for _ in range(k)]
    if isinstance(placement, dict):
        return [dict(placement) for _ in range(k)]
    placements = list(placement)
    if len(placements) != k or not all(isinstance(p, dict) for p in placements):
        raise MakeError(f"placement must be a dict of actor options or a list of {k} such dicts (one per actor)")
    return placements


def _would_wait(available: int, batch_size: int) -> RuntimeError:
    return RuntimeError(_envpool.would_wait_message(available, batch_size))


def _rows_of(action: Any, sel: np.ndarray) -> Any:
    if isinstance(action, dict):
        return {k: np.asarray(v)[sel] for k, v in action.items()}
    return np.asarray(action)[sel]


def _tree_concat(trees: list[Any]) -> Any:
    first = trees[0]
    if first is None:
        return None
    if isinstance(first, dict):
        return {k: _tree_concat([t[k] for t in trees]) for k in first}
    if isinstance(first, tuple):
        return tuple(_tree_concat([t[i] for t in trees]) for i in range(len(first)))
    return np.concatenate(trees)


def _read_only(a: Any) -> Any:
    if isinstance(a, np.ndarray) and a.flags.writeable:
        a.flags.writeable = False
    return a


# -- the three interfaces over actors ------------------------------------------
class _RayPool:
    """Mixin: a pool class of envpool whose engine is a :class:`RayEngine`."""

    _ENV_TYPE = ""

    def __init__(
        self,
        task_id: Any,
        num_actors: int = 2,
        placement: Any = None,
        start_timeout: float | None = 300.0,
        **config: Any,
    ) -> None:
        self._ray_args = (task_id, num_actors, placement, start_timeout, dict(config))
        super().__init__(task_id, **config)  # type: ignore[call-arg]

    def _new_pool(self) -> RayEngine:
        task_id, num_actors, placement, start_timeout, config = self._ray_args
        spec = self.spec  # type: ignore[attr-defined]
        # frame_stack: the driver's interface stacks (the actors' engines give plain rows)
        options = {k: v for k, v in config.items() if k not in ("num_envs", "batch_size", "seed", "frame_stack")}
        return RayEngine(
            task_id,
            self._ENV_TYPE,
            num_envs=int(spec.config["num_envs"]),
            batch_size=int(spec.config["batch_size"]) or int(spec.config["num_envs"]),
            seed=spec.config["seed"],
            num_actors=num_actors,
            placement=placement,
            options=options,
            action_specs=spec.action_arrays,
            start_timeout=start_timeout,
            autoreset_mode=spec.config["autoreset_mode"],
        )

    @property
    def num_actors(self) -> int:
        return self._pool.num_actors  # type: ignore[attr-defined]

    @property
    def actors(self) -> list[Any]:
        """The Ray actor handles, actor k holding env ids ``actor_env_ids[k]``."""
        return list(self._pool.actors)  # type: ignore[attr-defined]

    @property
    def actor_env_ids(self) -> list[np.ndarray]:
        o = self._pool.offsets  # type: ignore[attr-defined]
        return [np.arange(o[k], o[k + 1], dtype=np.int32) for k in range(len(o) - 1)]

    @property
    def actor_nodes(self) -> list[str]:
        """The Ray node id of each actor."""
        return [i["node_id"] for i in self._pool.actor_info]  # type: ignore[attr-defined]


def _classes() -> dict[str, type]:
    from envpool.dm_env_pool import DmEnvPool
    from envpool.gym_env import GymEnvPool
    from envpool.gymnasium_env import GymnasiumEnvPool

    class RayGymnasiumEnvPool(_RayPool, GymnasiumEnvPool):
        """envpool's gymnasium pool (a ``gymnasium.vector.VectorEnv``) over Ray actors."""

        _ENV_TYPE = "gymnasium"

    class RayGymEnvPool(_RayPool, GymEnvPool):
        """envpool's gym pool over Ray actors."""

        _ENV_TYPE = "gym"

    class RayDmEnvPool(_RayPool, DmEnvPool):
        """envpool's dm_env pool over Ray actors."""

        _ENV_TYPE = "dm"

    return {"gymnasium": RayGymnasiumEnvPool, "gym": RayGymEnvPool, "dm": RayDmEnvPool, "dm_env": RayDmEnvPool}


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

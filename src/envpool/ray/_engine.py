"""The engine calls of a pool over Ray actors: each call split into one actor call per
actor holding some of its envs, and the rows of those calls assembled into the
engine's batches (the bookkeeping of what is in flight: :mod:`envpool.ray._ledger`)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
import ray

from envpool import _envpool
from envpool._config import env_options_list, is_seed_list
from envpool._pool import Batch, add_players
from envpool._tree import tree_map
from envpool.ray._actor import RemotePoolActor
from envpool.ray._errors import ActorLostError
from envpool.ray._ledger import Ledger
from envpool.registration import MakeError


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
        self.ledger = Ledger(num_envs, batch_size, autoreset_mode)
        self.num_envs = self.ledger.num_envs
        self.batch_size = self.ledger.batch_size
        self.sync = self.ledger.sync
        self.num_actors = int(num_actors)
        sizes = [self.num_envs // num_actors + (k < self.num_envs % num_actors) for k in range(num_actors)]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.actor_of = np.repeat(np.arange(num_actors), sizes)
        self.actors: list[Any] = []  # Ray actor handles (ray types their methods without .remote)
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
                RemotePoolActor.options(**placements[k]).remote(
                    task_id, env_type, opts, int(self.offsets[k]), extensions
                )
            )
        self.dead: set[int] = set()
        self._closed = False
        self._pending: list[_Call] = []  # async: calls not yet received
        self._ready: deque[tuple[_Chunk, int]] = deque()  # async: received chunks, rows from an index on
        self._groups: deque[_Group] = deque()  # sync: send()s not yet received
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
        return self.ledger.in_flight

    def step(self, action: Any, env_id: Any = None) -> Batch:
        self._check_open()
        ids = self.ledger.ids(env_id, default_last=True)
        # The actors' engines refuse such a step too, but only after other actors stepped.
        self.ledger.check_steppable(ids)
        if self.sync or len(ids) == 0:
            return self._call("step", ids, action=action)
        self.ledger.check_available(self._unreserved() + len(ids))
        self._send("step", ids, action=action)
        return self.recv()

    def send(self, action: Any, env_id: Any = None) -> None:
        self._check_open()
        ids = self.ledger.ids(env_id, default_last=True)
        self.ledger.check_steppable(ids)
        if len(ids):
            self._send("step", ids, action=action)

    def recv(self) -> Batch:
        self._check_open()
        if self.sync:
            if not self._groups:
                raise RuntimeError("recv() called with nothing in flight: send() first")
            group = self._groups.popleft()
            return self._finish(self._wait_all(group.calls), group.ids)
        self.ledger.check_available(self._unreserved())
        while sum(len(c.ids) - start for c, start in self._ready) < self.batch_size:
            ready, _ = ray.wait([c.ref for c in self._pending], num_returns=1)
            call = next(c for c in self._pending if c.ref == ready[0])
            self._pending.remove(call)
            self._ready.append((self._receive(call), 0))
        return self._take(self.batch_size)

    def reset(self, env_id: Any = None, seed: Any = None, own_batch: bool = False) -> Batch:
        self._check_open()
        ids = self.ledger.ids(env_id, default_last=False)
        seeds = self.ledger.seeds(seed, ids)
        if self.sync or own_batch or len(ids) == 0:
            return self._call("reset", ids, seeds=seeds)
        self.ledger.check_available(self._unreserved() + len(ids))
        self._send("reset", ids, seeds=seeds)
        return self.recv()

    def send_reset(self, env_id: Any = None, seed: Any = None) -> None:
        self._check_open()
        ids = self.ledger.ids(env_id, default_last=False)
        seeds = self.ledger.seeds(seed, ids)
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
        self.ledger.clear()

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
        self.ledger.check_free(ids)
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
        self.ledger.sent(ids)
        return calls

    # -- receiving ------------------------------------------------------------
    def _receive(self, call: _Call, out: Any = None) -> _Chunk:
        """The chunk of one finished call (``out``: its result, if already fetched); its
        envs are no longer in flight."""
        try:
            if out is None:
                out = ray.get(call.ref)
        except ray.exceptions.RayActorError:
            self.ledger.received(call.ids)
            self._lose(call.actor)
            raise self._lost_error(call.actor, "died") from None
        except ray.exceptions.RayTaskError as e:  # refused before stepping: nothing changed
            self.ledger.received(call.ids)
            raise e.as_instanceof_cause() from None
        self.ledger.received(call.ids)
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
        self.ledger.returned(info["env_id"], terminated, truncated)
        last = self.ledger.last_ids
        failing = [(c, c.ids[s][c.failed[s]]) for c, s in parts if c.failed is not None and c.failed[s].any()]
        if failing:
            # As an engine pool: the failed envs in row order, the exception of the first one's actor
            # call (which reports its own first failed row's).
            failed = last[np.isin(last, np.concatenate([ids for _, ids in failing]))]
            error = next(c.error for c, ids in failing if failed[0] in ids)
            assert error is not None  # a chunk with failed rows carries its error
            exc_type, what = error
            label = "env " if len(failed) == 1 else "envs "
            exc = exc_type(label + ", ".join(map(str, failed)) + " failed: " + what)
            exc.env_ids = last.copy()
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
        self.ledger.received(np.flatnonzero(self.actor_of == actor))
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

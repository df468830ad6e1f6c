"""A seeded random API-sequence fuzz of the pools (no hypothesis: a plain
driver over numpy's default_rng: each case is a fixed seed and a fixed number of calls).

Each case makes one gymnasium pool (``envpool.make(task, env_type="gymnasium")``)
and draws a fixed number of calls, each through the gymnasium interface or
straight to the engine (``env._pool``, an ``envpool._envpool.Pool``): step,
send, recv, reset (plain, with env ids, with a seed, with
``options["reset_mask"]``, the engine's ``own_batch``), async_reset /
send_reset and close, with valid and invalid env ids, actions and seeds.

The test keeps its own model of the pool (which envs are in flight, in which
sync batch, each env's step count, whether the pool is closed) and predicts
from it, before every call, whether the call works or which documented
exception it raises. After every call:

* a call raised only as predicted, and only ValueError, TypeError,
  IndexError or RuntimeError;
* ``env._pool.in_flight`` equals the model's count (so a call that raised
  changed nothing in flight; a later elapsed_step check catches an env that
  such a call stepped or reset);
* every batch: env ids valid and unique, in the order asked (sync, own
  batches) or batch_size of the envs in flight (async); elapsed_step 0 after
  a reset, +1 per step, 0 again after a done as the autoreset mode defines,
  truncation exactly at max_episode_steps; reward float32 and finite,
  discount 0 exactly on termination; observations (one array, or a dict of
  arrays key by key: MiniGrid's) of the space's shapes and inside it (finite
  where the bounds are infinite); same-step final observations
  and final elapsed_step where an episode ended.

recv() is only called when the model says it can complete (otherwise it
must raise "would wait forever" / "nothing in flight"), so a hang is a bug;
faulthandler ends the process after 60 s to make one visible.

In async mode the draws depend on which envs finish first, so a case's call
sequence can differ between runs; a failure prints the calls that led to it.

Documented behaviour the fuzz relies on:

* NaN / inf actions on a Box space are accepted (as gymnasium's own envs
  accept them); the env's rewards and observations are then not checked for
  finiteness until its next reset.
* A sync gymnasium pool tracks the latest observation of every env for
  ``reset(options={"reset_mask": m})``: a full batch (a sync ``step(a)``
  naming no envs, ``reset()`` naming none) replaces it, partial batches
  (``recv()``, ``step(a, env_id)``, EnvPool's ``{"action": a, "env_id": ids}``)
  are merged in by env id. The masked reset returns all num_envs rows (the
  others as the gymnasium interface last returned them; calls straight to
  the engine are not seen), and raises RuntimeError until a full batch was
  seen (before the engine checks the seed).
* ``reset()`` / ``async_reset()`` of a closed pool rebuild it; a call refused
  for its arguments leaves the pool closed and a pending ``seed()`` pending.
* ``Pool.reset(ids, seed, own_batch=True)`` returns exactly those envs, in
  that order, however many (in async mode, more than batch_size too).
* A sync gymnasium ``recv()`` of every env counts as a full batch; ``close()``
  forgets the remembered observations (a rebuilt pool starts afresh).
"""

from __future__ import annotations

import faulthandler
import itertools
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import _registry
import gymnasium
import numpy as np
import pytest

import envpool
from envpool import _envpool

DOCUMENTED = (ValueError, TypeError, IndexError, RuntimeError)
MAX_STEPS = 20

# Tasks that never terminate (only truncate) within MAX_STEPS steps.
NEVER_TERMINATES = {"Pendulum-v1", "HalfCheetah-v4", "Pong-v5"}


# -- the model ------------------------------------------------------------------------


@dataclass
class Model:
    num_envs: int
    batch_size: int
    same_step: bool
    sync: bool = field(init=False)
    closed: bool = False
    elapsed: list = field(default_factory=list)
    needs_reset: list = field(default_factory=list)
    tainted: list = field(default_factory=list)  # a non-finite Box action since the last reset
    pending: deque = field(default_factory=deque)  # sync: id lists of send()s not yet received
    ring: set = field(default_factory=set)  # async: envs sent, not yet received
    op: dict = field(default_factory=dict)  # env -> (kind, non-finite action) of the work in flight
    last_ids: list = field(default_factory=list)  # the engine's last batch (async default env ids)
    gym_last_obs: bool = False  # the gymnasium pool saw a full batch of obs (reset_mask needs one)
    gym_obs: dict = field(default_factory=dict)  # sync: env -> its row the gymnasium interface last returned

    def __post_init__(self) -> None:
        self.sync = self.batch_size == self.num_envs
        self.rebuild()

    def rebuild(self) -> None:
        """A fresh engine pool (after make, or reset() of a closed pool)."""
        n = self.num_envs
        self.closed = False
        self.elapsed = [0] * n
        self.needs_reset = [True] * n
        self.tainted = [False] * n
        self.pending = deque()
        self.ring = set()
        self.op = {}
        self.last_ids = list(range(n))

    def in_flight(self) -> int:
        return sum(len(b) for b in self.pending) + len(self.ring)

    def busy(self) -> set:
        return set(self.op)

    def free(self) -> list:
        return [i for i in range(self.num_envs) if i not in self.op]


@dataclass
class Ids:
    """An env_id argument: its value, the ids it means (None: the call's default),
    and the error converting it must raise (None: it converts)."""

    value: Any
    ids: list | None
    error: tuple | None = None
    empty: bool = False


@dataclass
class Arg:
    value: Any
    error: tuple | None = None
    nonfinite: bool = False


class Fuzzer:
    def __init__(self, task: str, num_envs: int, batch_size: int, mode: str, seed: int) -> None:
        self.task = task
        self.rng = np.random.default_rng(seed)
        self.env = envpool.make(
            task,
            env_type="gymnasium",
            num_envs=num_envs,
            batch_size=batch_size,
            max_episode_steps=MAX_STEPS,
            autoreset_mode=mode,
            seed=seed,
        )
        self.m = Model(num_envs, batch_size, mode == "same_step")
        aspace = self.env.single_action_space
        self.discrete = hasattr(aspace, "n")
        self.num_actions = int(aspace.n) if self.discrete else 0
        self.act_shape = () if self.discrete else tuple(aspace.shape)
        self.act_low = None if self.discrete else np.asarray(aspace.low)
        self.act_high = None if self.discrete else np.asarray(aspace.high)
        ospace = self.env.single_observation_space
        spaces = ospace.spaces if isinstance(ospace, gymnasium.spaces.Dict) else {None: ospace}
        # key (None: the one array) -> (shape, dtype, low, high) of its rows
        self.obs_spec = {k: self.leaf_spec(k, space) for k, space in spaces.items()}
        self.log: list[str] = []
        self.step_rows = 0  # step results checked
        self.episode_ends = 0  # of them, ends of an episode

    def leaf_spec(self, key: str | None, space: Any) -> tuple:
        # A Discrete observation is the engine's int32 (docs/toy_text.md), not the space's int64.
        if hasattr(space, "n"):  # Discrete (toy text, MiniGrid's direction): start .. start + n - 1
            dtype = self.env.spec.state_array_spec["obs" if key is None else f"obs:{key}"].dtype
            return (), dtype, np.asarray(space.start), np.asarray(space.start + space.n - 1)
        return tuple(space.shape), space.dtype, np.asarray(space.low), np.asarray(space.high)

    # -- argument generators --------------------------------------------------------

    def choice(self, options: list) -> Any:
        return options[int(self.rng.integers(len(options)))]

    def valid_ids(self, pool: list | None = None, min_len: int = 1) -> list:
        pool = self.m.free() if pool is None else pool
        if not pool:
            return []
        k = int(self.rng.integers(min(min_len, len(pool)), len(pool) + 1))
        return [int(i) for i in self.rng.permutation(pool)[:k]]

    def gen_ids(self, allow_none: bool = True, valid_only: bool = False) -> Ids:
        n = self.m.num_envs
        kinds = (
            ["none", "list", "list", "array", "array", "scalar", "all"]
            if allow_none
            else ["list", "list", "array", "array", "scalar", "all"]
        )
        kinds = kinds * 2
        if not valid_only:
            kinds += ["repeated", "range", "negative", "huge", "dtype", "empty", "inflight"]
        kind = self.choice(kinds)
        if kind == "none":
            return Ids(None, None)
        if kind in ("list", "array", "all"):
            ids = list(range(n)) if kind == "all" else self.valid_ids()
            if not ids:
                return Ids([], [], empty=True)
            dtype = self.choice([np.int32, np.int64, np.uint8, np.int16, np.uint64])
            return Ids(np.array(ids, dtype) if kind != "list" else ids, ids)
        if kind == "scalar":
            free = self.m.free()
            i = int(self.choice(free)) if free else 0
            return Ids(self.choice([i, np.int32(i), np.int64(i)]), [i])
        if kind == "repeated":
            i = int(self.rng.integers(n))
            return Ids(np.array([i, i], np.int32), [i, i])  # refused by the engine's check
        if kind == "range":
            bad = self.choice([n, n + 1, 1000])
            return Ids(self.choice([[0, bad], np.array([bad], np.int64), bad]), None, (ValueError,))
        if kind == "negative":
            return Ids(self.choice([[-1], np.array([0, -5], np.int32), -1, np.int64(-2)]), None, (ValueError,))
        if kind == "huge":
            return self.choice(
                [
                    Ids(2**31, None, (ValueError,)),
                    Ids(2**70, None, (ValueError,)),
                    Ids(np.array([2**40], np.int64), None, (ValueError,)),
                    Ids(np.array([2**63 + 5], np.uint64), None, (ValueError,)),
                    Ids(np.array([2**64 - 1], np.uint64), None, (ValueError,)),
                    Ids(np.array([2**32 + 1], np.int64), None, (ValueError,)),  # must not wrap to env 1
                    Ids([2**70], None, (ValueError, TypeError)),  # an object array
                ]
            )
        if kind == "dtype":
            return self.choice(
                [
                    Ids(np.array([0.0, 1.0]), None, (TypeError,)),
                    Ids(np.array([True, False]), None, (TypeError,)),
                    Ids(["a"], None, (TypeError,)),
                    Ids(np.zeros((1, 1), np.int32), None, (TypeError,)),
                    Ids(1.0, None, (TypeError,)),
                    Ids(True, None, (TypeError,)),
                ]
            )
        if kind == "empty":
            return Ids(self.choice([[], np.array([], np.int32), np.zeros(0)]), [], empty=True)
        # inflight: names an env that is in flight (or, when none is, a valid one)
        busy = sorted(self.m.busy())
        if not busy:
            ids = self.valid_ids()
            return Ids(ids, ids, empty=not ids)
        ids = self.valid_ids(min_len=0) + [int(self.choice(busy))]
        return Ids(np.array(ids, np.int64), ids)

    def valid_action(self, k: int) -> Arg:
        if self.discrete:
            a = self.rng.integers(0, self.num_actions, k)
            forms = [a.astype(np.int64), a.astype(np.int32), a.astype(np.uint8)]
            if k:
                forms.append(a.tolist())  # ([] would be a float64 array)
            return Arg(self.choice(forms))
        a = self.rng.uniform(self.act_low, self.act_high, (k, *self.act_shape))
        if self.rng.random() < 0.1:
            return Arg(np.zeros((k, *self.act_shape), np.int32))  # ints cast to the float spec
        if self.rng.random() < 0.1:
            return Arg((a * 3).astype(np.float32))  # out of the Box: accepted (the env clips)
        return Arg(a.astype(self.choice([np.float32, np.float64])))

    def gen_action(self, k: int, gym: bool, valid_only: bool = False) -> Arg:
        kinds = ["valid"] * 10
        if not valid_only:
            kinds += ["shape", "dtype", "dict"] + (["range", "range"] if self.discrete else ["nan"])
        kind = self.choice(kinds)
        if kind == "valid":
            arg = self.valid_action(k)
            if gym and self.rng.random() < 0.15:
                arg.value = {"action": arg.value}  # EnvPool's dict action
            return arg
        if kind == "shape":
            return Arg(
                self.choice(
                    [
                        np.zeros((k + 1, *self.act_shape), np.int32),
                        np.zeros((k, *self.act_shape, 2), np.int32),
                        np.zeros((k, 3) if not self.discrete else (k, 1), np.int32),
                    ]
                    + ([] if self.discrete else [np.zeros(k, np.float32)])
                ),
                (ValueError,),
            )
        if kind == "dtype":
            shape = (k, *self.act_shape)
            # (bools are taken as 0 and 1, as EnvPool 1.2.5 takes them)
            bad = [np.zeros(shape, "m8[s]"), np.full(shape, "a"), None, np.zeros(shape, np.complex64)]
            if self.discrete:
                bad.append(np.zeros(shape, np.float32))  # float actions on a Discrete space
            return Arg(self.choice(bad), (TypeError,))
        if kind == "dict":
            a = self.valid_action(k).value
            return Arg(self.choice([{"act": a}, {"action": a, "other": a}]), (TypeError,))
        if kind == "range":
            a = self.rng.integers(0, self.num_actions, k).astype(np.int64)
            if k == 0:
                return Arg(a)
            row = int(self.rng.integers(k))
            bad = self.choice([2**32 + 1, -1, self.num_actions, 2**31, -(2**32) + 1])
            a[row] = bad
            if self.rng.random() < 0.3 and bad >= 0:
                a = a.astype(np.uint64)
            return Arg(a, (ValueError,))
        # nan: non-finite floats on a Box space are accepted
        a = self.valid_action(k).value
        a = np.array(a, np.float32)
        if k:
            a.reshape(k, -1)[int(self.rng.integers(k)), 0] = self.choice([np.nan, np.inf, -np.inf])
        return Arg(a, None, nonfinite=True)

    def gen_seed(self, m: int, valid_only: bool = False) -> Arg:
        kinds = ["none", "none", "int", "list", "array"]
        if not valid_only:
            kinds += ["negative", "large", "len", "float", "str", "listbad"]
        kind = self.choice(kinds)
        top = 2**63 - 1 - self.m.num_envs
        if kind == "none":
            return Arg(None)
        if kind == "int":
            return Arg(self.choice([int(self.rng.integers(0, 1000)), np.int64(7), top, 0]))
        if kind == "list":
            return Arg([int(s) for s in self.rng.integers(0, 10**6, m)])
        if kind == "array":
            return Arg(self.rng.integers(0, 10**6, m).astype(self.choice([np.int64, np.uint32])))
        if kind == "negative":
            return Arg(self.choice([-1, np.int64(-5)]), (ValueError,))
        if kind == "large":
            return Arg(self.choice([top + 1, 2**63, 2**64, 2**100]), (ValueError,))
        if kind == "len":
            return Arg(list(range(m + 1)), (ValueError,))
        if kind == "float":
            return Arg(self.choice([1.5, np.float32(2.0)]), (TypeError,))
        if kind == "str":
            return Arg("seed", (TypeError,))
        if m == 0:
            return Arg([])
        bad: list = [0] * m
        value = self.choice([-1, 2**64, 0.5])
        bad[int(self.rng.integers(m))] = value
        return Arg(bad, (TypeError,) if isinstance(value, float) else (ValueError,))

    # -- running one call ----------------------------------------------------------

    def pool(self) -> Any:
        return self.env._pool

    def run(self, what: str, call: Callable[[], Any], expected: tuple | None, on_ok: Callable[[Any], None]) -> None:
        """Runs a call predicted to raise `expected` (None: to work) and checks it."""
        self.log.append(what)
        before = self.m.in_flight()
        try:
            out = call()
        except Exception as e:  # noqa: BLE001
            assert isinstance(e, DOCUMENTED), f"{what}: undocumented exception {type(e).__name__}: {e}"
            assert not hasattr(e, "failed_env_ids"), f"{what}: an env failed: {e}"
            assert expected is not None, f"{what}: raised {type(e).__name__}: {e}, predicted to work"
            assert isinstance(e, expected), f"{what}: raised {type(e).__name__}: {e}, predicted {expected}"
            # A refused call changes nothing in flight.
            if not self.m.closed:
                assert self.pool().in_flight == before, f"{what} raised but in_flight changed"
            # A refused reset of a closed pool leaves it closed.
            assert self.pool().closed == self.m.closed, f"{what} raised, closed={self.pool().closed}"
            return
        assert expected is None, f"{what}: worked, predicted to raise {expected}"
        on_ok(out)
        assert self.pool().closed == self.m.closed, what
        if self.m.sync and hasattr(self.env, "_last_obs"):
            assert (self.env._last_obs is not None) == self.m.gym_last_obs, f"{what}: remembered obs"

    def check_in_flight(self) -> None:
        if self.m.closed:
            return  # what a closed pool reports in flight is not specified; reset() rebuilds it
        assert self.pool().in_flight == self.m.in_flight(), (
            f"in_flight {self.pool().in_flight} != model {self.m.in_flight()} after {self.log[-1]}"
        )

    # -- checking a batch ------------------------------------------------------------

    def check_batch(
        self,
        what: str,
        obs: Any,
        info: dict,
        reward: Any = None,
        terminated: Any = None,
        truncated: Any = None,
        discount: Any = None,
        order: list | None = None,
        among: set | None = None,
        rows: int | None = None,
        final: tuple | None = None,
        gym_final: bool = False,
    ) -> None:
        """Checks a batch against the model and advances the model. order: the env
        ids the rows must be, in that order; among: the envs the rows may be (async)."""
        m = self.m
        ids = np.asarray(info["env_id"])
        assert ids.dtype == np.int32, what
        ids = ids.tolist()
        if order is not None:
            assert ids == list(order), f"{what}: rows {ids}, asked {order}"
        if among is not None:
            assert set(ids) <= among, f"{what}: rows {ids} not all in flight ({sorted(among)})"
        if rows is not None:
            assert len(ids) == rows, f"{what}: {len(ids)} rows, want {rows}"
        assert len(set(ids)) == len(ids), f"{what}: repeated rows {ids}"
        assert all(0 <= i < m.num_envs for i in ids), f"{what}: bad env ids {ids}"
        self.check_layout(obs, len(ids), what)
        elapsed = np.asarray(info["elapsed_step"])
        assert elapsed.dtype == np.int32 and elapsed.shape == (len(ids),), what
        if reward is not None:
            assert reward.dtype == np.float32 and reward.shape == (len(ids),), what
            assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_, what
        if discount is not None:
            assert discount.dtype == np.float32, what
        if final is not None:
            final_obs, final_info = final
            final_elapsed = np.asarray(final_info["elapsed_step"])
        if gym_final:
            assert m.same_step and "_final_obs" in info, what
            assert "elapsed_step" in info["final_info"], what
        for r, e in enumerate(ids):
            assert e in m.op, f"{what}: env {e} came back but was not in flight"
            kind, nonfinite = m.op.pop(e)
            row = f"{what}: env {e} (row {r})"
            step_tainted = m.tainted[e]
            # needs_reset None: unknown (a step whose terminated flag nobody saw, see below)
            if m.needs_reset[e] is None:
                m.needs_reset[e] = bool(elapsed[r] == 0)
            if kind == "reset" or m.needs_reset[e]:
                assert elapsed[r] == 0, f"{row}: elapsed_step {elapsed[r]} after a reset"
                if reward is not None:
                    assert reward[r] == 0 and not terminated[r] and not truncated[r], f"{row}: reset row"
                if discount is not None:
                    assert discount[r] == 1, row
                m.elapsed[e], m.needs_reset[e], m.tainted[e] = 0, False, False
                done = False
            elif reward is None:
                # A step's row in a reset()'s batch (async: the next batch, EnvPool's way):
                # obs and info only, so termination is seen only through elapsed_step.
                new = m.elapsed[e] + 1
                step_tainted = step_tainted or nonfinite
                if m.same_step:
                    done = new >= MAX_STEPS or elapsed[r] == 0
                    want = 0 if done else new
                    assert elapsed[r] == want, f"{row}: elapsed_step {elapsed[r]}, want {want}"
                    m.elapsed[e], m.needs_reset[e], m.tainted[e] = want, False, step_tainted and not done
                else:
                    done = new >= MAX_STEPS
                    assert elapsed[r] == new, f"{row}: elapsed_step {elapsed[r]}, want {new}"
                    m.elapsed[e], m.tainted[e] = new, step_tainted
                    m.needs_reset[e] = True if done else (False if self.task in NEVER_TERMINATES else None)
                done = done and m.same_step
            else:
                new = m.elapsed[e] + 1
                step_tainted = step_tainted or nonfinite
                term, trunc = bool(terminated[r]), bool(truncated[r])
                done = term or trunc
                self.step_rows += 1
                self.episode_ends += done
                assert trunc == (new >= MAX_STEPS), f"{row}: step {new}, truncated={trunc}"
                if self.task in NEVER_TERMINATES:
                    assert not term, f"{row}: terminated"
                if discount is not None:
                    assert discount[r] == (0 if term else 1), f"{row}: discount {discount[r]}, terminated={term}"
                if not step_tainted:
                    assert np.isfinite(reward[r]), f"{row}: reward {reward[r]}"
                if done and m.same_step:
                    assert elapsed[r] == 0, f"{row}: same-step done, elapsed_step {elapsed[r]}"
                    if final is not None:
                        assert final_elapsed[r] == new, f"{row}: final elapsed_step {final_elapsed[r]}, want {new}"
                        if not step_tainted:
                            self.check_obs(_rows(final_obs, slice(r, r + 1)), f"{row} final obs")
                    if gym_final:
                        assert info["_final_obs"][r] and info["final_obs"][r] is not None, row
                        assert info["final_info"]["elapsed_step"][r] == new, row
                        if not step_tainted:
                            self.check_obs(_batch_of_one(info["final_obs"][r]), f"{row} final obs")
                    m.elapsed[e], m.needs_reset[e], m.tainted[e] = 0, False, False
                else:
                    assert elapsed[r] == new, f"{row}: elapsed_step {elapsed[r]}, want {new}"
                    m.elapsed[e] = new
                    m.needs_reset[e] = done and not m.same_step
                    m.tainted[e] = step_tainted
            if m.same_step and not done:
                if final is not None:
                    assert final_elapsed[r] == 0, f"{row}: final row not cleared"
                if gym_final:
                    assert not info["_final_obs"][r] and info["final_obs"][r] is None, row
            if not m.tainted[e]:
                self.check_obs(_rows(obs, slice(r, r + 1)), row)

    def check_layout(self, obs: Any, rows: int, what: str) -> None:
        """A batch of `rows` observations: one array, or a dict of them (MiniGrid's), each of its
        space's shape and the engine's dtype."""
        assert isinstance(obs, dict) == (None not in self.obs_spec), f"{what}: obs {type(obs).__name__}"
        leaves = _leaves(obs)
        assert set(leaves) == set(self.obs_spec), f"{what}: obs keys {sorted(leaves, key=str)}"
        for k, (shape, dtype, _, _) in self.obs_spec.items():
            v = leaves[k]
            assert isinstance(v, np.ndarray) and v.shape == (rows, *shape), f"{what}: obs {k} shape"
            assert v.dtype == dtype, f"{what}: obs {k} dtype {v.dtype}, want {dtype}"

    def check_obs(self, obs: Any, what: str) -> None:
        leaves = _leaves(obs)
        for k, (_, _, low, high) in self.obs_spec.items():
            v = np.asarray(leaves[k])
            if v.dtype.kind == "f":
                assert np.isfinite(v).all(), f"{what}: non-finite obs {k} {v}"
            assert ((v >= low) & (v <= high)).all(), f"{what}: obs {k} out of the space {v}"

    # -- helpers for sends -------------------------------------------------------------

    def queue(self, ids: list, kind: str, nonfinite_rows: set | None = None) -> None:
        for i, e in enumerate(ids):
            self.m.op[e] = (kind, bool(nonfinite_rows) and i in nonfinite_rows)

    def engine_id_error(self, ids: list, fresh: bool = False) -> tuple | None:
        """The engine's checks of env ids that converted: repeated, or in flight
        (nothing is in flight in a freshly rebuilt pool)."""
        if len(set(ids)) != len(ids) or (not fresh and any(i in self.m.op for i in ids)):
            return (ValueError,)
        return None

    def nonfinite_rows(self, action: Any) -> set:
        a = np.asarray(action["action"] if isinstance(action, dict) else action, dtype=np.float64)
        return {i for i in range(len(a)) if not np.isfinite(a[i]).all()}

    def resolve(self, ids: Ids, default: list) -> list:
        return list(default) if ids.ids is None else ids.ids

    # -- the calls ---------------------------------------------------------------------

    def op_step(self, gym: bool, send_only: bool, valid: bool = False) -> None:
        m = self.m
        ids = self.gen_ids(valid_only=valid)
        default = list(range(m.num_envs)) if m.sync else list(m.last_ids)
        target = self.resolve(ids, default) if ids.error is None else []
        act = self.gen_action(len(target), gym, valid_only=valid)
        action = act.value
        env_id = ids.value
        if gym and isinstance(action, dict) and ids.value is not None and self.rng.random() < 0.5:
            # EnvPool's {"action": a, "env_id": ids}: a partial batch, like step(a, ids).
            action, env_id = {**action, "env_id": ids.value}, None
        raw_dict = not gym and isinstance(action, dict)
        n = len(target)
        if ids.error:
            expected = ids.error
        elif gym and ids.empty:
            expected = None  # an empty env_id: an empty batch, nothing checked
        elif act.error or raw_dict:
            expected = act.error or (TypeError,)
        elif m.closed:
            expected = (RuntimeError,)
        elif send_only:
            expected = self.engine_id_error(target)
        elif n == 0:
            expected = None
        elif not m.sync and len(m.ring) + n < m.batch_size:
            expected = (RuntimeError,)  # would wait forever
        else:
            expected = self.engine_id_error(target)
        rows_nf = self.nonfinite_rows(action) if act.nonfinite and expected is None else set()
        call_name = f"{'gym' if gym else 'raw'}.{'send' if send_only else 'step'}"
        name = f"{call_name}(ids={ids.value!r}, action={_short(action)})"

        if send_only:

            def call() -> Any:
                return self.env.send(action, env_id) if gym else self.pool().send(action, env_id)

            def ok(_: Any) -> None:
                if gym and ids.empty:
                    return
                if m.sync:
                    m.pending.append(list(target))
                else:
                    m.ring.update(target)
                self.queue(target, "step", rows_nf)

            self.run(name, call, expected, ok)
            return

        def call() -> Any:
            return self.env.step(action, env_id) if gym else self.pool().step(action, env_id)

        def ok(out: Any) -> None:
            if gym and ids.empty:
                obs, rew, term, trunc, info = out
                assert len(info["env_id"]) == 0 and _num_rows(obs) == 0, name
                return
            self.queue(target, "step", rows_nf)
            if m.sync or n == 0:
                order, among, rows = target, None, None
            else:
                m.ring.update(target)
                order, among, rows = None, set(m.ring), m.batch_size
            self.deliver(name, out, gym, order, among, rows)
            if gym and m.sync and ids.value is None:
                m.gym_last_obs = True  # a full batch (a step naming no envs, not even in the dict)

        self.run(name, call, expected, ok)

    def deliver(self, name: str, out: Any, gym: bool, order: list | None, among: set | None, rows: int | None) -> None:
        """Checks a step/recv batch; removes its envs from the async ring."""
        m = self.m
        if gym:
            obs, rew, term, trunc, info = out
            self.check_batch(
                name, obs, info, rew, term, trunc, order=order, among=among, rows=rows, gym_final=m.same_step
            )
            self.remember_gym(obs, info)
        else:
            obs, rew, term, trunc, disc, info, final = out
            assert (final is not None) == m.same_step, name
            self.check_batch(name, obs, info, rew, term, trunc, disc, order=order, among=among, rows=rows, final=final)
        got = np.asarray(info["env_id"]).tolist()
        m.ring.difference_update(got)
        m.last_ids = got

    def remember_gym(self, obs: np.ndarray, info: dict) -> None:
        """The rows a sync gymnasium call returned: what a masked reset must return for
        the envs it does not reset (copies, so a recycled buffer would show)."""
        if self.m.sync:
            ids = np.asarray(info["env_id"]).tolist()
            for r, e in enumerate(ids):
                self.m.gym_obs[e] = _row_copy(obs, r)
            if sorted(ids) == list(range(self.m.num_envs)):
                self.m.gym_last_obs = True  # rows of every env, in any order: a full picture

    def op_recv(self, gym: bool) -> None:
        m = self.m
        if m.closed:
            expected = (RuntimeError,)
        elif m.sync:
            expected = None if m.pending else (RuntimeError,)
        else:
            expected = None if len(m.ring) >= m.batch_size else (RuntimeError,)
        name = f"{'gym' if gym else 'raw'}.recv()"

        def ok(out: Any) -> None:
            if m.sync:
                order = m.pending.popleft()
                self.deliver(name, out, gym, order, None, None)
                if gym and sorted(order) == list(range(m.num_envs)):
                    m.gym_last_obs = True  # a recv() of every env is a full batch too
            else:
                self.deliver(name, out, gym, None, set(m.ring), m.batch_size)

        self.run(name, self.env.recv if gym else self.pool().recv, expected, ok)

    def closed_valid_only(self) -> bool:
        """Whether a gymnasium reset of a closed pool gets valid arguments only: mostly,
        since a refused one still builds (and closes) a whole pool (slow for Atari)."""
        return self.m.closed and bool(self.rng.random() < 0.6)

    def op_reset(self, gym: bool) -> None:
        m = self.m
        if gym and not m.sync and self.rng.random() < 0.1 or gym and m.sync and self.rng.random() < 0.3:
            return self.op_masked_reset()
        valid_only = gym and self.closed_valid_only()
        ids = self.gen_ids(valid_only=valid_only)
        target = self.resolve(ids, list(range(m.num_envs))) if ids.error is None else []
        seed = self.gen_seed(len(target), valid_only=valid_only)
        own = (not gym) and bool(self.rng.random() < 0.4)  # any number of envs, async too
        n = len(target)
        # gym reset() of a closed pool rebuilds it, unless refused (then it stays closed).
        rebuild = gym and m.closed
        closed = m.closed and not rebuild
        if ids.error:
            expected = ids.error
        elif gym and ids.empty:
            expected = None
        elif seed.error:
            expected = seed.error
        elif closed:
            expected = (RuntimeError,)
        elif own or n == 0 or m.sync:
            expected = self.engine_id_error(target, fresh=rebuild)
        elif (0 if rebuild else len(m.ring)) + n < m.batch_size:
            expected = (RuntimeError,)
        else:
            expected = self.engine_id_error(target, fresh=rebuild)
        name = f"{'gym' if gym else 'raw'}.reset(ids={ids.value!r}, seed={seed.value!r}, own={own})"

        def call() -> Any:
            if gym:
                return self.env.reset(ids.value, seed=seed.value)
            return self.pool().reset(ids.value, seed.value, own)

        def ok(out: Any) -> None:
            if rebuild:
                m.rebuild()
            if gym and ids.empty:
                obs, info = out
                assert _num_rows(obs) == 0 and len(info["env_id"]) == 0, name
                return
            self.queue(target, "reset")
            if own or n == 0 or m.sync:
                order, among, rows = target, None, None
            else:
                m.ring.update(target)
                order, among, rows = None, set(m.ring), m.batch_size
            if gym:
                obs, info = out
                self.check_batch(name, obs, info, order=order, among=among, rows=rows)
                self.remember_gym(obs, info)
                got = np.asarray(info["env_id"]).tolist()
                if m.sync and ids.value is None:
                    m.gym_last_obs = True
            else:
                obs, rew, term, trunc, disc, info, final = out
                self.check_batch(
                    name, obs, info, rew, term, trunc, disc, order=order, among=among, rows=rows, final=final
                )
                got = np.asarray(info["env_id"]).tolist()
            m.ring.difference_update(got)
            m.last_ids = got

        self.run(name, call, expected, ok)

    def op_masked_reset(self) -> None:
        m = self.m
        n = m.num_envs
        kind = self.choice(["ok", "ok", "ok", "empty", "badmask", "with_ids", "inflight"])
        if kind in ("ok", "inflight"):
            mask = np.zeros(n, bool)
            pick = self.valid_ids() if kind == "ok" else self.valid_ids(list(range(n)))
            mask[pick] = True
        elif kind == "empty":
            mask = np.zeros(n, bool)
        elif kind == "badmask":
            mask = self.choice([np.ones(n + 1, bool), np.ones(n, np.int32), [1] * n, np.ones((n, 1), bool)])
        else:
            mask = np.ones(n, bool)
        target = np.flatnonzero(mask).tolist() if kind != "badmask" else []
        seed = self.gen_seed(len(target), valid_only=self.closed_valid_only())
        env_id = [0] if kind == "with_ids" else None
        rebuild = False
        if kind == "with_ids" or kind == "badmask":
            expected = (ValueError,)
        elif not m.sync:
            expected = (ValueError,)
        elif not m.gym_last_obs:
            expected = (RuntimeError,)  # checked before the seed
        else:
            rebuild = m.closed  # past the option checks, reset() reopens a closed pool
            if not target:
                expected = None
            elif seed.error:
                expected = seed.error
            else:
                expected = self.engine_id_error(target, fresh=rebuild)
        name = f"gym.reset(mask={_short(mask)}, seed={seed.value!r})"

        def call() -> Any:
            return self.env.reset(env_id, seed=seed.value, options={"reset_mask": mask})

        def ok(out: Any) -> None:
            if rebuild:
                m.rebuild()
            obs, info = out
            self.check_layout(obs, n, name)
            # The envs not reset: their latest rows, from full and partial batches alike.
            for e in range(n):
                if e not in target:
                    _assert_equal(_rows(obs, e), m.gym_obs[e], f"{name}: env {e} not its latest obs")
            if not target:
                return
            self.queue(target, "reset")
            np.testing.assert_array_equal(info["_env_id"], mask, err_msg=name)
            sub = {k: np.asarray(info[k])[target] for k in ("env_id", "elapsed_step")}
            self.check_batch(name, _rows(obs, target), sub, order=target)
            for e in target:
                m.gym_obs[e] = _row_copy(obs, e)

        self.run(name, call, expected, ok)

    def op_async_reset(self, gym: bool) -> None:
        m = self.m
        if gym:
            rebuild = m.closed
            seed = self.gen_seed(m.num_envs, valid_only=self.closed_valid_only())
            ids = Ids(None, None)
        else:
            rebuild = False
            ids = self.gen_ids()
            seed = self.gen_seed(len(self.resolve(ids, list(range(m.num_envs)))) if ids.error is None else 0)
        target = self.resolve(ids, list(range(m.num_envs))) if ids.error is None else []
        if ids.error:
            expected = ids.error
        elif seed.error:
            expected = seed.error
        elif m.closed and not rebuild:
            expected = (RuntimeError,)
        elif rebuild:
            expected = None
        else:
            expected = self.engine_id_error(target)
        name = f"{'gym.async_reset' if gym else 'raw.send_reset'}(ids={ids.value!r}, seed={seed.value!r})"

        def call() -> Any:
            if gym:
                if seed.value is not None:
                    self.env.seed(seed.value)  # applies at this reset
                return self.env.async_reset()
            return self.pool().send_reset(ids.value, seed.value)

        def ok(_: Any) -> None:
            if rebuild:
                m.rebuild()
            if m.sync:
                m.pending.append(list(target))
            else:
                m.ring.update(target)
            self.queue(target, "reset")

        self.run(name, call, expected, ok)
        if gym and expected is not None:
            if seed.value is not None:
                assert self.env._next_seed is seed.value, f"{name}: refused, but the seed() seed was used up"
            self.env.seed(None)  # the refused call's seed must not linger

    def op_close(self, gym: bool) -> None:
        def ok(_: Any) -> None:
            self.m.closed = True  # in flight stays as it was until a reset() rebuilds the pool
            if gym:
                self.m.gym_last_obs = False  # gymnasium close() forgets the remembered obs

        self.run(f"{'gym' if gym else 'raw'}.close()", self.env.close if gym else self.pool().close, None, ok)

    # -- the driver ----------------------------------------------------------------------

    def op_burst(self) -> None:
        """A run of valid steps (sync) or recv/send rounds (async), so episodes reach
        their ends (and autoreset) between the random calls."""
        rounds = int(self.rng.integers(5, 30))
        if not self.m.sync:  # a recv/send round steps only batch_size envs
            rounds *= max(1, self.m.num_envs // (2 * self.m.batch_size))
        for _ in range(rounds):
            gym = bool(self.rng.random() < 0.5)
            if self.m.sync or len(self.m.ring) < self.m.batch_size and self.m.free():
                self.op_step(gym, send_only=not self.m.sync, valid=True)
            else:
                self.op_recv(gym)
            self.check_in_flight()

    def step_once(self) -> None:
        gym = bool(self.rng.random() < 0.6)
        r = self.rng.random()
        if self.m.closed and self.rng.random() < 0.7:
            r = 0.75 + 0.23 * self.rng.random()  # mostly reopen: reset() / async_reset()
        if r < 0.10:
            self.op_burst()
        elif r < 0.32:
            self.op_step(gym, send_only=False)
        elif r < 0.50:
            self.op_step(gym, send_only=True)
        elif r < 0.75:
            self.op_recv(gym)
        elif r < 0.88:
            self.op_reset(gym)
        elif r < 0.98:
            self.op_async_reset(gym)
        else:
            self.op_close(gym)
        self.check_in_flight()


# -- observations: one array, or a dict of arrays (MiniGrid's image, direction, mission) --


def _leaves(obs: Any) -> dict:
    """A batch's arrays by key (None: the one array of a Box or Discrete observation)."""
    return obs if isinstance(obs, dict) else {None: obs}


def _rows(obs: Any, rows: Any) -> Any:
    """Rows (an index, slice or list) of a batch, in the batch's form."""
    if isinstance(obs, dict):
        return {k: np.asarray(v)[rows] for k, v in obs.items()}
    return np.asarray(obs)[rows]


def _row_copy(obs: Any, r: int) -> Any:
    if isinstance(obs, dict):
        return {k: np.array(v[r]) for k, v in obs.items()}
    return np.array(obs[r])


def _batch_of_one(row: Any) -> Any:
    """One env's observation (a same-step final_obs entry) as a batch of one."""
    if isinstance(row, dict):
        return {k: np.asarray(v)[None] for k, v in row.items()}
    return np.asarray(row)[None]


def _num_rows(obs: Any) -> int:
    return len(next(iter(_leaves(obs).values())))


def _assert_equal(a: Any, b: Any, what: str) -> None:
    la, lb = _leaves(a), _leaves(b)
    assert set(la) == set(lb), what
    for k in la:
        np.testing.assert_array_equal(la[k], lb[k], err_msg=f"{what} ({k})")


def _short(x: Any) -> str:
    s = repr(x).replace("\n", "")
    return s if len(s) < 80 else s[:77] + "..."


# -- the cases --------------------------------------------------------------------------


# Tasks with dict observations fuzzed besides (flat dicts of Box / Discrete arrays, which the
# model checks key by key): MiniGrid's (image, direction, mission bytes) and a BabyAI level's,
# whose resets build levels by rejection sampling. dm_control's and the goal environments' dict
# observations are left to their own tests.
DICT_TASKS = ("MiniGrid-DoorKey-5x5-v0", "BabyAI-BossLevel-v0")


def _fuzz_tasks() -> list[str]:
    """From the registry (so a new kind of env is fuzzed at once): for each kind, the
    first family's task with a discrete action and the first with a continuous one,
    among families whose observation is one array; then DICT_TASKS (where registered)."""
    out = []
    for k in sorted({m["kind"] for m in _envpool.families().values()} - {"testing", "python_env"}):
        found: dict[bool, str] = {}
        for task in _registry.one_per_family(_registry.tasks(k)):
            spec = envpool.make_spec(task)
            if not isinstance(spec.observation_space, (gymnasium.spaces.Box, gymnasium.spaces.Discrete)):
                continue
            found.setdefault(hasattr(spec.action_space, "n"), task)
            if len(found) == 2:
                break
        out += found.values()
    registered = set(envpool.list_all_envs())
    return out + [t for t in DICT_TASKS if t in registered]


TASKS = _fuzz_tasks()
CALLS = 500
ATARI_FAST_CALLS = 200


# Kinds whose steps cost tens of microseconds and more (an emulator, a physics engine,
# procgen's renderer): of their four cases one runs in the fast suite, a different one for
# each task in turn, so that the fast suite still has every scheduling and mode.
HEAVY_KINDS = ("atari", "mujoco", "robotics", "metaworld", "dmc", "procgen")


def _cases() -> list:
    cases = []
    for t, task in enumerate(TASKS):
        for c, (async_, mode) in enumerate(itertools.product((False, True), ("next_step", "same_step"))):
            seed = zlib.crc32(task.encode()) % 1000 * 1000 + 10 * async_ + (mode == "same_step")
            rng = np.random.default_rng(seed)
            num_envs = int(rng.integers(2, 7))
            batch = int(rng.integers(1, num_envs)) if async_ else num_envs
            # Atari's emulator makes its cases the slowest (~7 CPU-s for CALLS calls): its
            # fast case makes ATARI_FAST_CALLS calls.
            atari = _registry.kind(task) == "atari"
            heavy = _registry.kind(task) in HEAVY_KINDS and c != t % 4
            cases.append(
                pytest.param(
                    task,
                    num_envs,
                    batch,
                    mode,
                    seed,
                    ATARI_FAST_CALLS if atari and not heavy else CALLS,
                    id=f"{task}-{'async' if async_ else 'sync'}-{mode}-n{num_envs}b{batch}",
                    marks=pytest.mark.slow if heavy else (),
                )
            )
    return cases


@pytest.fixture(autouse=True)
def _no_hang(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working directory
    # A hang ends the process with every thread's traceback; 600 s, not a case's
    # usual seconds: a loaded machine (or pytest-xdist's other worker) slows a case
    # several times over, and a 60 s limit ended the worker mid-case there.
    faulthandler.dump_traceback_later(600, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.mark.parametrize(("task", "num_envs", "batch_size", "mode", "seed", "calls"), _cases())
def test_fuzz_api_sequence(task: str, num_envs: int, batch_size: int, mode: str, seed: int, calls: int) -> None:
    fz = Fuzzer(task, num_envs, batch_size, mode, seed)
    try:
        for _ in range(calls):
            fz.step_once()
    except AssertionError as e:
        raise AssertionError(f"{e}\nlast calls:\n  " + "\n  ".join(fz.log[-12:])) from None
    finally:
        fz.env.close()
    # Some of each kind of call ran (the fuzz is not stuck on one path).
    kinds = {c.split("(")[0] for c in fz.log}
    assert {"gym.step", "raw.step", "gym.send", "raw.send", "gym.recv", "raw.recv"} <= kinds, kinds
    assert fz.episode_ends > 0 and fz.step_rows > 100, (fz.episode_ends, fz.step_rows)

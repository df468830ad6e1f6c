"""``pool.xla()``: send/recv/step as XLA FFI calls, inside jitted JAX programs.

The reference is always the Python path of the same interface: two pools with the
same config and seed, the same actions, and results compared bit for bit (after
JAX's 64 -> 32-bit narrowing when jax_enable_x64 is off).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import envpool  # noqa: E402
from envpool import _envpool  # noqa: E402

STEPS = 40


def _register(task_id: str, family: str, **config: Any) -> str:
    if task_id not in envpool.list_all_envs():
        envpool.register(task_id, family, **config)
    return task_id


ECHO = _register("EchoXla-v0", "Echo")  # dict observation, dict action, a way to fail (NaN)
BUSY = _register("BusyXla-v0", "Busy")  # int64 observation; actions -1/-2/-3 throw


# -- helpers ----------------------------------------------------------------------


def _action_table(pool: Any, num_envs: int, steps: int, seed: int = 0) -> np.ndarray:
    """actions[env, k]: env's action at its k-th step (independent of scheduling)."""
    rng = np.random.default_rng(seed)
    space = pool.spec.action_space
    if hasattr(space, "n"):
        return rng.integers(0, int(space.n), size=(num_envs, steps)).astype(np.int32)
    return rng.uniform(space.low, space.high, size=(num_envs, steps, *space.shape)).astype(space.dtype)


def _leaves(result: Any) -> list[np.ndarray]:
    return [np.asarray(x) for x in jax.tree.leaves(result)]


def _assert_bits(expected: np.ndarray, got: Any, what: str) -> None:
    """``got`` (a JAX result) is ``expected`` (the Python path's) bit for bit, after
    JAX's dtype canonicalization (float64 -> float32, int64 -> int32 without x64)."""
    got = np.asarray(got)
    want = np.asarray(expected).astype(jax.dtypes.canonicalize_dtype(np.asarray(expected).dtype))
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    if got.tobytes() != want.tobytes():
        np.testing.assert_array_equal(got, want, err_msg=what)
        raise AssertionError(f"{what}: equal values but different bits")


def _assert_same_result(expected: Any, got: Any, what: str) -> None:
    # By text: each dm pool has a State namedtuple type of its own.
    assert str(jax.tree.structure(expected)) == str(jax.tree.structure(got)), f"{what}: structure differs"
    for i, (e, g) in enumerate(zip(_leaves(expected), _leaves(got))):
        _assert_bits(e, g, f"{what}, leaf {i}")


def _env_ids(result: Any) -> np.ndarray:
    if isinstance(result, tuple) and isinstance(result[-1], dict):
        return np.asarray(result[-1]["env_id"])
    return np.asarray(result.observation.env_id)  # dm TimeStep


def _make(task: str, env_type: str, **config: Any) -> Any:
    return envpool.make(task, env_type=env_type, **config)


def _reset_obs(pool: Any, env_type: str) -> Any:
    out = pool.reset()
    return out[0] if env_type != "dm" and isinstance(out, tuple) else out


# -- sync: a jitted lax.scan of step() == Python step() -----------------------------------


def _check_sync_scan(task: str, env_type: str, steps: int, **config: Any) -> None:
    config = dict(num_envs=4, seed=5, **config)
    py, xp = _make(task, env_type, **config), _make(task, env_type, **config)
    acts = _action_table(py, config["num_envs"], steps)
    _reset_obs(py, env_type)
    expected = [py.step(acts[:, t]) for t in range(steps)]

    handle, recv, send, step = xp.xla()
    _reset_obs(xp, env_type)

    def body(h: Any, a: Any) -> tuple[Any, Any]:
        h, result = step(h, a)
        return h, result

    handle, results = jax.jit(lambda h, a: jax.lax.scan(body, h, a))(handle, jnp.asarray(np.swapaxes(acts, 0, 1)))
    if env_type == "dm":
        assert type(results.observation) is xp.State  # the pool's own observation type
    else:
        assert list(results[-1]) == sorted(results[-1])  # info keys in JAX's pytree order
    for t in range(steps):
        _assert_same_result(expected[t], jax.tree.map(lambda x: x[t], results), f"{task} {env_type} step {t}")
    # the pool goes on from Python where the program left it
    a = acts[:, 0]
    for e, g in zip(_leaves(py.step(a)), _leaves(xp.step(a))):
        assert e.dtype == g.dtype and e.tobytes() == g.tobytes(), f"{task} {env_type} Python step after the scan"
    py.close()
    xp.close()


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_sync_scan_matches_python_cartpole(env_type: str) -> None:
    _check_sync_scan("CartPole-v1", env_type, STEPS, max_episode_steps=15)


@pytest.mark.slow
@pytest.mark.parametrize("task", ["Pong-v5", "HalfCheetah-v4"])
def test_sync_scan_matches_python(task: str) -> None:
    if task not in envpool.list_all_envs():
        pytest.skip(f"{task} not in this build")
    _check_sync_scan(task, "gymnasium", 64, max_episode_steps=25)


@pytest.mark.slow
def test_sync_scan_matches_python_float64_with_x64() -> None:
    """With jax_enable_x64, HalfCheetah's float64 observations and infos come through
    unnarrowed, bit for bit."""
    if "HalfCheetah-v4" not in envpool.list_all_envs():
        pytest.skip("no MuJoCo in this build")
    prev = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        _check_sync_scan("HalfCheetah-v4", "gymnasium", 16)
        pool = _make("HalfCheetah-v4", "gymnasium", num_envs=2, seed=1)
        handle, recv, send, step = pool.xla()
        pool.reset()
        _, (obs, reward, _, _, info) = step(handle, np.zeros((2, 6), np.float32))
        assert obs.dtype == jnp.float64 and info["x_position"].dtype == jnp.float64
        pool.close()
    finally:
        jax.config.update("jax_enable_x64", prev)


# -- async: recv/send in a scan, per-env trajectories == Python's -------------------------


def _per_env(records: list[tuple[np.ndarray, list[np.ndarray]]]) -> dict[int, list[list[np.ndarray]]]:
    out: dict[int, list[list[np.ndarray]]] = {}
    for ids, leaves in records:
        for row, i in enumerate(ids):
            out.setdefault(int(i), []).append([x[row] for x in leaves])
    return out


# Envs each result of both paths must hold, compared step by step.
_MIN_RESULTS = 3
# How long an env may stay away before it counts as lost: far beyond any
# scheduling delay, so only an engine that drops an env gets there.
_COMEBACK_S = 60.0


def _check_async_scan(task: str, env_type: str, recvs: int, **config: Any) -> None:
    """Runs recvs (and more, in rounds of recvs, until every env has _MIN_RESULTS
    results) on both paths and compares each env's results in order.

    Which envs a batch holds depends on which finish first, so on the OS: a worker
    thread preempted while it holds an env's step (a loaded machine can take its core
    for milliseconds, while the other envs run dozens of batches) keeps that env out
    of every batch meanwhile, which is what first-to-finish batches mean (docs/async.md).
    So the number of results per env is not bounded in recvs; what the engine promises
    is that every env comes back, and each env's own sequence of results is the same
    on both paths (its k-th action is table[env, k])."""
    config = dict(num_envs=8, batch_size=4, num_threads=2, seed=9, **config)
    n = config["num_envs"]
    py, xp = _make(task, env_type, **config), _make(task, env_type, **config)
    width = recvs + 1
    table = _action_table(py, n, width)  # the k-th action of an env is table[env, k % width]

    # Python: recv the first b finished envs, send each its next action.
    counts = np.zeros(n, np.int64)
    records = []
    py.async_reset()
    deadline = time.monotonic() + _COMEBACK_S
    while len(records) < recvs or counts.min() < _MIN_RESULTS:
        assert time.monotonic() < deadline, f"Python path: an env never came back: results per env {counts}"
        result = py.recv()
        ids = _env_ids(result)
        counts[ids] += 1
        records.append((ids.copy(), [np.array(x) for x in _leaves(result)]))
        py.send(table[ids, (counts[ids] - 1) % width], ids)
    expected = _per_env(records)

    handle, recv, send, step = xp.xla()
    xp.async_reset()
    table_j = jnp.asarray(table)

    def body(carry: Any, _: Any) -> tuple[Any, Any]:
        h, counts = carry
        h, result = recv(h)
        ids = _env_ids_jax(result)
        h = send(h, table_j[ids, counts[ids] % width], ids)
        return (h, counts.at[ids].add(1)), result

    scan = jax.jit(lambda h, c: jax.lax.scan(body, (h, c), None, length=recvs))
    carry, records = (handle, jnp.zeros(n, jnp.int32)), []
    deadline = time.monotonic() + _COMEBACK_S
    while not records or int(carry[1].min()) < _MIN_RESULTS:
        assert time.monotonic() < deadline, f"XLA path: an env never came back: results per env {carry[1]}"
        carry, results = scan(*carry)
        leaves = _leaves(results)
        ids_t = np.asarray(_env_ids_jax(results))
        records += [(ids_t[t], [x[t] for x in leaves]) for t in range(recvs)]
    got = _per_env(records)
    assert set(expected) == set(got) == set(range(n))
    for i in range(n):
        for k in range(min(len(expected[i]), len(got[i]))):  # _MIN_RESULTS or more
            for j, (e, g) in enumerate(zip(expected[i][k], got[i][k])):
                _assert_bits(e, g, f"{task} {env_type} env {i} result {k} leaf {j}")
    py.close()
    xp.close()


def _env_ids_jax(result: Any) -> Any:
    if isinstance(result, tuple) and isinstance(result[-1], dict):
        return result[-1]["env_id"]
    return result.observation.env_id


@pytest.mark.parametrize("env_type", ["gymnasium", "dm"])
def test_async_scan_matches_python_cartpole(env_type: str) -> None:
    _check_async_scan("CartPole-v1", env_type, 48, max_episode_steps=10)


@pytest.mark.slow
@pytest.mark.parametrize("task", ["Pong-v5", "HalfCheetah-v4"])
def test_async_scan_matches_python(task: str) -> None:
    if task not in envpool.list_all_envs():
        pytest.skip(f"{task} not in this build")
    _check_async_scan(task, "gymnasium", 48, max_episode_steps=12)


def test_async_step_with_env_ids_in_a_scan() -> None:
    """step(handle, action, env_id) in async mode: send to the last batch's envs, then
    receive the next batch (every env keeps being stepped)."""
    pool = _make("CartPole-v1", "gymnasium", num_envs=6, batch_size=3, num_threads=2, seed=0)
    handle, recv, send, step = pool.xla()
    pool.async_reset()
    handle, first = recv(handle)

    def body(carry: Any, _: Any) -> tuple[Any, Any]:
        h, ids = carry
        h, result = step(h, jnp.zeros(3, jnp.int32), ids)
        return (h, result[-1]["env_id"]), result[-1]["env_id"]

    (handle, _), ids = jax.jit(lambda h, i: jax.lax.scan(body, (h, i), None, length=20))(handle, first[-1]["env_id"])
    ids = np.asarray(ids)
    assert ids.shape == (20, 3)
    assert sorted(set(ids.ravel().tolist())) == list(range(6))
    pool.close()


# -- other loops, eager calls, mixing with Python -----------------------------------------


def test_fori_loop_and_while_loop() -> None:
    config = dict(num_envs=3, seed=2, max_episode_steps=7)
    py, xp = _make("CartPole-v1", "gymnasium", **config), _make("CartPole-v1", "gymnasium", **config)
    handle, recv, send, step = xp.xla()
    act = np.array([1, 0, 1], np.int32)
    py_obs, _ = py.reset()
    xp.reset()

    def fori_body(i: Any, carry: Any) -> Any:
        h, _ = carry
        h, (obs, *_rest) = step(h, jnp.asarray(act))
        return h, obs

    handle, obs = jax.jit(lambda h, o: jax.lax.fori_loop(0, 5, fori_body, (h, o)))(handle, jnp.asarray(py_obs))
    for _ in range(5):
        py_obs = py.step(act)[0]
    _assert_bits(py_obs, obs, "fori_loop, 5 steps")

    # while_loop: step until an episode ends (max_episode_steps=7 truncates at step 7 at the latest)
    def cond(carry: Any) -> Any:
        return ~carry[2]

    def while_body(carry: Any) -> Any:
        h, t, _, _ = carry
        h, (obs, _, term, trunc, _) = step(h, jnp.asarray(act))
        return h, t + 1, (term | trunc).any(), obs

    init = (handle, jnp.int32(0), jnp.bool_(False), jnp.asarray(py_obs))
    handle, t, _, obs = jax.jit(lambda c: jax.lax.while_loop(cond, while_body, c))(init)
    py_t = 0
    while True:
        py_obs, _, term, trunc, _ = py.step(act)
        py_t += 1
        if (term | trunc).any():
            break
    assert int(t) == py_t
    _assert_bits(py_obs, obs, "while_loop")
    py.close()
    xp.close()


def test_eager_calls_mix_with_python_calls() -> None:
    """Called eagerly, and interleaved with the pool's own send/recv/step."""
    config = dict(num_envs=4, seed=11, max_episode_steps=9)
    ref, pool = _make("CartPole-v1", "gymnasium", **config), _make("CartPole-v1", "gymnasium", **config)
    handle, recv, send, step = pool.xla()
    acts = _action_table(ref, 4, 12)
    ref.reset()
    pool.reset()
    for t in range(12):
        a = acts[:, t]
        expected = ref.step(a)
        if t % 4 == 0:  # Python step
            got = pool.step(a)
        elif t % 4 == 1:  # XLA step
            handle, got = step(handle, a)
        elif t % 4 == 2:  # XLA send, Python recv
            handle = send(handle, jnp.asarray(a))
            got = pool.recv()
        else:  # Python send, XLA recv
            pool.send(a)
            handle, got = recv(handle)
        _assert_same_result(expected, got, f"step {t}")
    ref.close()
    pool.close()


def test_bool_actions_step_as_zero_and_one() -> None:
    """As the binding (and EnvPool 1.2.5) takes them: CartPole's discrete and Pendulum's float actions."""
    for task in ("CartPole-v1", "Pendulum-v1"):
        ref, pool = (_make(task, "gymnasium", num_envs=4, seed=5) for _ in range(2))
        handle, _, _, step = pool.xla()
        jstep = jax.jit(step)
        ref.reset()
        pool.reset()
        shape = (4,) if task == "CartPole-v1" else (4, 1)
        for t, a in enumerate(np.random.default_rng(0).integers(0, 2, (10, *shape)).astype(bool)):
            expected = ref.step(a.astype(ref.action_space.dtype))
            handle, got = jstep(handle, jnp.asarray(a))
            _assert_same_result(expected, got, f"{task} step {t}")
        ref.close()
        pool.close()


def test_handle_is_a_jax_array_and_each_call_returns_a_new_one() -> None:
    pool = _make("CartPole-v1", "gymnasium", num_envs=2, seed=0)
    handle, recv, send, step = pool.xla()
    assert isinstance(handle, jax.Array) and handle.dtype == jnp.uint8 and handle.shape == (8,)
    pool.reset()
    h1 = send(handle, np.zeros(2, np.int32))
    h2, _ = recv(h1)
    assert isinstance(h1, jax.Array) and isinstance(h2, jax.Array)
    np.testing.assert_array_equal(np.asarray(h2), np.asarray(handle))
    # xla() again: the same pool, the same handle, working functions
    handle2, _, _, step2 = pool.xla()
    np.testing.assert_array_equal(np.asarray(handle2), np.asarray(handle))
    _, (obs, *_rest) = step2(handle2, np.zeros(2, np.int32))
    assert obs.shape == (2, 4)
    pool.close()


def test_dict_observation_and_dict_action() -> None:
    config = dict(num_envs=3, seed=4)
    py, xp = _make(ECHO, "gymnasium", **config), _make(ECHO, "gymnasium", **config)
    handle, recv, send, step = xp.xla()
    py.reset()
    xp.reset()
    for t in range(3):
        action = {"move": np.full((3, 2), 0.25 * t, np.float32), "pick": np.array([0, 1, 2], np.int32)}
        expected = py.step(action)
        handle, got = jax.jit(step)(handle, jax.tree.map(jnp.asarray, action))
        assert isinstance(got[0], dict) and set(got[0]) == {"pos", "last_pick"}
        _assert_same_result(expected, got, f"Echo step {t}")
    # EnvPool's dict form, {"action"-keys..., "env_id": ids}
    action = {"move": np.zeros((3, 2), np.float32), "pick": np.array([3, 3, 3], np.int32), "env_id": np.arange(3)}
    _assert_same_result(py.step(dict(action)), step(handle, dict(action))[1], "Echo step with env_id in the dict")
    py.close()
    xp.close()


@pytest.mark.parametrize(("env_type", "key"), [("gymnasium", "final_obs"), ("gym", "final_observation")])
def test_same_step_autoreset_final_observations(env_type: str, key: str) -> None:
    """Same-step autoreset: info["final_obs"] (gym: "final_observation") is an array (zero
    rows where no episode ended), the rows that ended equal the Python path's final
    observations; final_info is a dict of arrays."""
    config = dict(num_envs=3, seed=6, max_episode_steps=4, autoreset_mode="same_step")
    py, xp = _make("CartPole-v1", env_type, **config), _make("CartPole-v1", env_type, **config)
    handle, recv, send, step = xp.xla()
    py.reset()
    xp.reset()
    act = np.ones(3, np.int32)
    for t in range(6):
        obs, reward, term, trunc, info = py.step(act)
        handle, (xobs, xreward, xterm, xtrunc, xinfo) = step(handle, act)
        for want, got, name in ((obs, xobs, "obs"), (reward, xreward, "reward"), (term, xterm, "terminated")):
            _assert_bits(want, got, f"step {t} {name}")
        done = term | trunc
        _assert_bits(done, xinfo["_" + key], f"step {t} _{key}")
        final = np.asarray(xinfo[key])
        for i in range(3):
            if done[i]:
                _assert_bits(info[key][i], final[i], f"step {t} {key}[{i}]")
            else:
                assert not final[i].any()
        if env_type == "gym":  # gym's own: an object array of per-env dicts, None where not done
            want = np.array([d["elapsed_step"] if d is not None else 0 for d in info["final_info"]], np.int32)
            _assert_bits(want, np.where(done, xinfo["final_info"]["elapsed_step"], 0), f"step {t}")
        else:
            _assert_bits(info["final_info"]["elapsed_step"], xinfo["final_info"]["elapsed_step"], f"step {t}")
    py.close()
    xp.close()


def test_int64_results_are_narrowed_like_jax_narrows_inputs() -> None:
    pool = _make(BUSY, "gymnasium", num_envs=2, seed=0)
    handle, recv, send, step = pool.xla()
    pool.reset()
    _, (obs, *_rest) = step(handle, np.zeros(2, np.int32))
    assert obs.dtype == jnp.int32
    np.testing.assert_array_equal(np.asarray(obs), [[0, 1, 1], [1, 1, 1]])  # env id, steps, resets
    pool.close()


def test_xla_calls_from_another_thread_keep_recv_errors_raising() -> None:
    """XLA may run the calls on threads of its own: they must not make the pool wait,
    as it does once several Python threads use it, where a recv can never complete."""
    pool = _make("CartPole-v1", "gymnasium", num_envs=4, batch_size=2, num_threads=2, seed=0)
    handle, recv, send, step = pool.xla()
    pool.async_reset()
    out: dict[str, Any] = {}

    def other() -> None:
        h, result = recv(handle)
        h, result = recv(h)
        out["ids"] = np.asarray(result[-1]["env_id"])

    t = threading.Thread(target=other)
    t.start()
    t.join(60)
    assert "ids" in out
    # From this (the first calling) thread; were the XLA calls counted as a second
    # caller, recv() would wait for a send: a watchdog closes the pool then.
    watchdog = threading.Timer(10, pool.close)
    watchdog.start()
    try:
        with pytest.raises(RuntimeError) as info:
            pool.recv()
    finally:
        watchdog.cancel()
    assert "would wait forever" in str(info.value), str(info.value)
    pool.close()


# -- errors: the Python path's messages, no abort, the pool usable after -------------------


def _python_error(call: Any) -> BaseException:
    with pytest.raises(Exception) as info:
        call()
    return info.value


def _same_error(python_call: Any, xla_eager: Any, xla_jitted: Any) -> None:
    """The Python path's exception; eagerly the same type and message (twice); under
    jit a JaxRuntimeError carrying the message (a ValueError from jit's C++ dispatch
    path)."""
    expected = _python_error(python_call)
    for _ in range(2):
        got = _python_error(xla_eager)
        assert type(got) is type(expected) and str(got) == str(expected), (got, expected)
    with pytest.raises((jax.errors.JaxRuntimeError, ValueError)) as info:
        jax.block_until_ready(xla_jitted())
    assert str(expected) in str(info.value)


def test_calls_carry_no_jax_effect_so_jit_dispatches_from_cpp() -> None:
    """No JAX effect on the calls (a JAX effect sends every call of the jitted function
    through Python, ~100 us), yet XLA never drops one: a send whose returned handle
    goes unused still runs. After a successful call the jitted function is dispatched
    from C++; an error there is a ValueError with the message, and eagerly still the
    Python path's type."""
    pool = _make("CartPole-v1", "gymnasium", num_envs=4, batch_size=2, num_threads=2, seed=0)
    handle, recv, send, step = pool.xla()
    a = np.zeros(2, np.int32)
    for fn, args in ((step, (handle, a, np.array([0, 1]))), (send, (handle, a, np.array([0, 1]))), (recv, (handle,))):
        assert not jax.make_jaxpr(fn)(*args).effects
    pool.async_reset()

    def unused_send(h, ids):
        send(h, a, ids)  # its handle is dropped: the call must still happen
        return recv(h)

    jitted = jax.jit(unused_send)
    handle, first = recv(handle)
    for _ in range(3):
        ids = first[-1]["env_id"]
        handle, first = jitted(handle, ids)
        assert sorted(np.asarray(first[-1]["env_id"]).tolist()) in ([0, 1], [2, 3], [0, 2], [0, 3], [1, 2], [1, 3])
    handle, last = recv(handle)  # nothing left in flight
    handle = send(handle, a, last[-1]["env_id"])
    jrecv = jax.jit(recv)
    handle, _ = jrecv(handle)  # a successful call: from now on dispatched from C++
    with pytest.raises(ValueError, match="recv\\(\\) would wait forever"):
        jax.block_until_ready(jrecv(handle))
    with pytest.raises(RuntimeError, match="recv\\(\\) would wait forever"):
        recv(handle)
    pool.close()


def test_without_jax_dce_rules_the_calls_carry_an_effect_and_step_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """A JAX whose private dce_rules moved: the calls fall back to jax.ffi.ffi_call with a
    JAX effect (dispatched through Python), with the same results."""
    import envpool.xla as xla_module

    def run() -> tuple[np.ndarray, bool]:
        pool = _make("CartPole-v1", "gymnasium", num_envs=4, seed=3)
        handle, recv, send, step = pool.xla()
        pool.reset()
        acts = jnp.asarray(np.arange(24).reshape(6, 4) % 2, jnp.int32)
        has_effect = bool(jax.make_jaxpr(step)(handle, acts[0]).effects)
        scan = jax.jit(lambda h: jax.lax.scan(lambda c, a: (lambda r: (r[0], r[1][0]))(step(c, a)), h, acts))
        _, obs = scan(handle)
        pool.close()
        return np.asarray(obs), has_effect

    obs, effect = run()
    monkeypatch.setattr(xla_module, "_dce_rules", None)
    fallback_obs, fallback_effect = run()
    assert not effect and fallback_effect
    np.testing.assert_array_equal(obs, fallback_obs)


def test_calls_under_disable_jit_step_like_python() -> None:
    """With jax.disable_jit() the primitive is evaluated on its own (its impl) and steps
    as the Python path does."""
    a = np.array([0, 1, 1, 0], np.int32)
    pools = [_make("CartPole-v1", "gymnasium", num_envs=4, seed=5) for _ in range(2)]
    for p in pools:
        p.reset()
    handle, recv, send, step = pools[0].xla()
    with jax.disable_jit():
        for _ in range(3):
            handle, (obs, *_rest) = step(handle, a)
            np.testing.assert_array_equal(np.asarray(obs), pools[1].step(a)[0])
    for p in pools:
        p.close()


def test_trace_time_errors_match_python_messages() -> None:
    pool = _make("CartPole-v1", "gymnasium", num_envs=4, seed=0)
    handle, recv, send, step = pool.xla()
    pool.reset()
    cases = [
        np.zeros(3, np.int32),  # wrong batch
        np.zeros((4, 2), np.int32),  # wrong rank
        np.zeros(4, np.float32),  # float for a discrete action
        np.zeros(4, np.complex64),
        {"action": np.zeros(4, np.int32), "other": np.zeros(4, np.int32)},  # a dict for an array action
    ]
    for bad in cases:
        expected = _python_error(lambda: pool.step(bad))
        for call in (lambda: step(handle, bad), lambda: jax.jit(step)(handle, bad), lambda: send(handle, bad)):
            got = _python_error(call)
            assert type(got) is type(expected) and str(got) == str(expected), (bad, got, expected)
    # env_id not 1-D / not integers
    for bad_ids in (np.zeros((2, 2), np.int32), np.zeros(4, np.float32)):
        expected = _python_error(lambda: pool.step(np.zeros(4, np.int32), bad_ids))
        got = _python_error(lambda: step(handle, np.zeros(4, np.int32), bad_ids))
        assert type(got) is type(expected) and str(got) == str(expected)
    # XLA-only: a call steps exactly batch_size envs
    with pytest.raises(ValueError, match="exactly batch_size=4 envs, but env_id names 2"):
        step(handle, np.zeros(2, np.int32), np.array([0, 1]))
    # dict-action envs: the dict checks
    echo = _make(ECHO, "gymnasium", num_envs=2, seed=0)
    eh, _, _, estep = echo.xla()
    echo.reset()
    for bad in (np.zeros(2), {"move": np.zeros((2, 2), np.float32)}, {"move": np.zeros((2, 2)), "x": np.zeros(2)}):
        expected = _python_error(lambda: echo.step(bad))
        got = _python_error(lambda: estep(eh, bad))
        assert type(got) is type(expected) and str(got) == str(expected), (got, expected)
    # the pools still work
    assert step(handle, np.zeros(4, np.int32))[1][0].shape == (4, 4)
    echo.close()
    pool.close()


def test_runtime_errors_match_python_messages() -> None:
    pool = _make("CartPole-v1", "gymnasium", num_envs=4, seed=0)
    handle, recv, send, step = pool.xla()
    pool.reset()
    jstep = jax.jit(step)
    bad = np.array([0, 1, 2, 1], np.int32)
    _same_error(lambda: pool.step(bad), lambda: step(handle, bad), lambda: jstep(handle, bad))
    big = np.array([0, 1, 1, 2**31 - 1], np.int32)
    _same_error(lambda: pool.step(big), lambda: step(handle, big), lambda: jstep(handle, big))
    neg = np.array([0, -1, 1, 1], np.int32)
    _same_error(lambda: pool.step(neg), lambda: step(handle, neg), lambda: jstep(handle, neg))
    ok = np.zeros(4, np.int32)
    for ids in ([0, 1, 2, 9], [0, -3, 1, 2], [0, 0, 1, 2]):
        ids = np.array(ids, np.int32)
        _same_error(lambda: pool.step(ok, ids), lambda: step(handle, ok, ids), lambda: jstep(handle, ok, ids))
    # 64-bit values beyond int32, which JAX would wrap without jax_enable_x64: refused
    # in eager calls, as the Python path refuses them
    if not jax.config.jax_enable_x64:
        wide = np.array([0, 2**32 + 1, 0, 0], np.int64)
        for call in (lambda: step(handle, wide), lambda: send(handle, wide)):
            expected, got = _python_error(lambda: pool.step(wide)), _python_error(call)
            assert type(got) is type(expected) and str(got) == str(expected), (got, expected)
        for ids in (np.array([0, 1, 2, 2**33], np.int64), np.array([0, 1, 2, 2**64 - 1], np.uint64)):
            expected, got = _python_error(lambda: pool.step(ok, ids)), _python_error(lambda: step(handle, ok, ids))
            assert type(got) is type(expected) and str(got) == str(expected), (got, expected)
    # inside a scan: the error ends the program; the pool stays usable
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"action 5 \(row 0\) is out of range \[0, 1\]"):
        jax.block_until_ready(
            jax.jit(lambda h: jax.lax.scan(lambda c, a: step(c, a), h, jnp.full((3, 4), 5, jnp.int32)))(handle)
        )
    _, (obs, *_rest) = step(handle, ok)
    assert obs.shape == (4, 4)
    assert pool.step(ok)[0].shape == (4, 4)
    pool.close()


def test_disabled_autoreset_refuses_a_done_env_as_python_does() -> None:
    pool = _make("CartPole-v1", "gymnasium", num_envs=2, seed=0, autoreset_mode="disabled")
    handle, _, _, step = pool.xla()
    pool.reset()
    left = np.zeros(2, np.int32)
    for _ in range(50):  # always left: both poles fall
        handle, (_, _, terminated, truncated, _) = step(handle, left)
        if np.any(terminated | truncated):
            break
    done = int(np.flatnonzero(np.asarray(terminated | truncated))[0])
    assert f"env {done} is done" in str(_python_error(lambda: pool.step(left)))
    _same_error(lambda: pool.step(left), lambda: step(handle, left), lambda: jax.jit(step)(handle, left))
    pool.reset(env_id=np.flatnonzero(np.asarray(terminated | truncated)))
    handle, (obs, *_rest) = step(handle, left)  # every env steps again
    assert obs.shape == (2, 4)
    pool.close()


def test_recv_with_nothing_in_flight_and_env_in_flight() -> None:
    sync = _make("CartPole-v1", "gymnasium", num_envs=2, seed=0)
    handle, recv, send, step = sync.xla()
    sync.reset()
    _same_error(sync.recv, lambda: recv(handle), lambda: jax.jit(recv)(handle))
    # XLA results have batch_size rows: a smaller batch sent from Python cannot be received
    sync.send(np.zeros(1, np.int32), [1])
    with pytest.raises(RuntimeError, match="this batch has 1 envs, but the XLA functions take batches of batch_size"):
        recv(handle)
    assert step(handle, np.zeros(2, np.int32))[1][0].shape == (2, 4)  # and the pool goes on

    pool = _make("CartPole-v1", "gymnasium", num_envs=4, batch_size=2, num_threads=2, seed=0)
    handle, recv, send, step = pool.xla()
    ids = np.array([0, 1], np.int32)
    a = np.zeros(2, np.int32)
    pool.send(a, ids)  # envs 0 and 1 in flight (their first step resets them)
    _same_error(lambda: pool.send(a, ids), lambda: send(handle, a, ids), lambda: jax.jit(send)(handle, a, ids))
    handle, result = recv(handle)
    np.testing.assert_array_equal(np.sort(np.asarray(result[-1]["env_id"])), [0, 1])
    # async recv with nothing in flight raises (one caller), it does not wait
    _same_error(pool.recv, lambda: recv(handle), lambda: jax.jit(recv)(handle))
    # async send without env_id: XLA needs the ids (trace time)
    with pytest.raises(ValueError, match="in async mode an XLA send"):
        send(handle, a)
    sync.close()
    pool.close()


def test_env_failures_raise_the_env_exception_type() -> None:
    """An env that throws: the Python path's exception type and message; the other envs
    go on (a failed env is reset on its next step, so each call is followed by one)."""
    pool = _make(BUSY, "gymnasium", num_envs=2, seed=0)
    ref = _make(BUSY, "gymnasium", num_envs=2, seed=0)
    handle, recv, send, step = pool.xla()
    jstep = jax.jit(step)
    pool.reset()
    ref.reset()
    ok = np.zeros(2, np.int32)
    for code in (-1, -2, -3):
        bad = np.array([0, code], np.int32)
        expected = _python_error(lambda: ref.step(bad))
        assert type(expected) in (ValueError, IndexError, RuntimeError)
        got = _python_error(lambda: step(handle, bad))
        assert type(got) is type(expected) and str(got) == str(expected), (got, expected)
        step(handle, ok)
        with pytest.raises(jax.errors.JaxRuntimeError) as info:
            jax.block_until_ready(jstep(handle, bad))
        assert str(expected) in str(info.value)
        _, (obs, *_rest) = step(handle, ok)
        assert obs[0, 0] == 0 and obs[1, 1] == 0  # env 0 went on, env 1 was reset
        ref.step(ok)
    echo = _make(ECHO, "gymnasium", num_envs=2, seed=0)
    eh, _, _, estep = echo.xla()
    echo.reset()
    nan = {"move": np.array([[0, 0], [np.nan, 0]], np.float32), "pick": np.zeros(2, np.int32)}
    good = {"move": np.zeros((2, 2), np.float32), "pick": np.zeros(2, np.int32)}
    for warm in (False, True):
        # Warm, the engine has timed these cheap steps and the calling thread
        # steps them itself (not the workers).
        for _ in range(40 if warm else 0):
            estep(eh, good)
        with pytest.raises(RuntimeError, match="env 1 failed: Echo: move is NaN"):
            estep(eh, nan)
        _, (obs, *_rest) = estep(eh, good)
        assert obs["pos"].shape == (2, 2)
    for p in (pool, ref, echo):
        p.close()


def test_env_failure_in_a_step_the_calling_thread_runs() -> None:
    """Once the engine has timed these cheap steps the calling thread steps them itself
    (not the workers). A failing env there: the Python path's error; then the same
    results as it, int64 observations unnarrowed under jax_enable_x64."""
    prev = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        pool = _make(BUSY, "gymnasium", num_envs=3, seed=0)
        ref = _make(BUSY, "gymnasium", num_envs=3, seed=0)
        handle, _, _, step = pool.xla()
        pool.reset()
        ref.reset()
        ok = np.zeros(3, np.int32)
        for t in range(40):
            _assert_same_result(ref.step(ok), step(handle, ok)[1], f"warm-up step {t}")
        bad = np.array([0, -2, 0], np.int32)
        expected = _python_error(lambda: ref.step(bad))
        got = _python_error(lambda: step(handle, bad))
        assert type(got) is IndexError and type(got) is type(expected) and str(got) == str(expected)
        for t in range(3):  # env 1 resets, the others go on
            _assert_same_result(ref.step(ok), step(handle, ok)[1], f"step {t} after the failure")
        assert np.asarray(step(handle, ok)[1][0]).dtype == np.int64
        pool.close()
        ref.close()
    finally:
        jax.config.update("jax_enable_x64", prev)


def test_closed_pool_raises_and_reset_rebuilds_it_for_the_same_functions() -> None:
    pool = _make("CartPole-v1", "gymnasium", num_envs=2, seed=3)
    handle, recv, send, step = pool.xla()
    pool.reset()
    a = np.zeros(2, np.int32)
    pool.close()
    _same_error(lambda: pool.step(a), lambda: step(handle, a), lambda: jax.jit(step)(handle, a))
    _same_error(pool.recv, lambda: recv(handle), lambda: jax.jit(recv)(handle))
    pool.reset()  # EnvPool rebuilds a closed pool on reset(); the XLA functions follow
    fresh = _make("CartPole-v1", "gymnasium", num_envs=2, seed=3)
    fresh.reset()
    _assert_same_result(fresh.step(a), step(handle, a)[1], "step after the rebuild")
    fresh.close()
    pool.close()


def test_handle_of_another_pool_is_refused() -> None:
    a = _make("CartPole-v1", "gymnasium", num_envs=2, seed=0)
    b = _make("CartPole-v1", "gymnasium", num_envs=2, seed=0)
    ha, _, _, step_a = a.xla()
    hb, _, _, _ = b.xla()
    a.reset()
    with pytest.raises(ValueError, match="this handle belongs to another env pool"):
        step_a(hb, np.zeros(2, np.int32))
    assert step_a(ha, np.zeros(2, np.int32))[1][0].shape == (2, 4)
    a.close()
    b.close()


def _cuda_devices() -> list:
    try:
        return jax.devices("cuda")
    except RuntimeError:
        return []


@pytest.mark.skipif(not _cuda_devices(), reason="no CUDA GPU for JAX here (run on a GPU machine: tests/gpu_check.sh)")
@pytest.mark.parametrize("env_type", ["gymnasium", "dm"])
def test_cuda_programs_run_the_host_round_trip(env_type: str) -> None:
    """With a GPU as JAX's device, jitted scans of step and of send/recv run through the CUDA
    handlers (inputs and results on the GPU) and equal the Python path bit for bit; errors raised
    inside the call come back as on the CPU. (On a GPU machine every test in this file runs on
    the GPU too, JAX's default device there.)"""
    gpu = _cuda_devices()[0]
    with jax.default_device(gpu):
        _check_sync_scan("CartPole-v1", env_type, STEPS, max_episode_steps=15)
        _check_async_scan("CartPole-v1", env_type, 12, max_episode_steps=15)
        pool = _make("CartPole-v1", env_type, num_envs=2, seed=0)
        handle, recv, send, step = pool.xla()
        _reset_obs(pool, env_type)
        handle, result = jax.jit(step)(handle, jnp.zeros(2, jnp.int32))
        assert {d.platform for d in handle.devices()} == {"gpu"}
        assert all({d.platform for d in x.devices()} == {"gpu"} for x in jax.tree.leaves(result))
        with pytest.raises(jax.errors.JaxRuntimeError, match="action 2 \\(row 1\\) is out of range"):
            jax.block_until_ready(jax.jit(step)(handle, jnp.array([0, 2], jnp.int32)))
        with pytest.raises(ValueError, match="action 2 \\(row 1\\) is out of range"):
            step(handle, jnp.array([0, 2], jnp.int32))
        handle, result = step(handle, jnp.ones(2, jnp.int32))  # the pool is still usable
        assert np.asarray(_leaves(result)[0]).shape[0] == 2
        pool.close()


def test_platforms_cpu_and_cuda_lower_others_raise() -> None:
    """The calls lower for the CPU and CUDA (no GPU needed to lower: the CUDA handlers' host round
    trip runs only on a GPU machine, tests/gpu_check.sh); ROCm raises, naming what works."""
    pool = _make("CartPole-v1", "gymnasium", num_envs=2, seed=0)
    handle, recv, send, step = pool.xla()
    traced = jax.jit(step).trace(handle, jnp.zeros(2, jnp.int32))
    with pytest.raises(RuntimeError, match="run on the CPU and on CUDA GPUs only.*compiled for 'rocm'"):
        traced.lower(lowering_platforms=("rocm",))
    for platform in ("cpu", "cuda"):
        text = traced.lower(lowering_platforms=(platform,)).as_text()
        assert "envpool_step" in text, platform
    pool.close()


def test_unsupported_uses_raise_clearly() -> None:
    if "HalfCheetah-v4" in envpool.list_all_envs():
        stacked = _make("HalfCheetah-v4", "gymnasium", num_envs=1, frame_stack=2)
        with pytest.raises(NotImplementedError, match="frame_stack"):
            stacked.xla()
        stacked.close()
    pool = _make("CartPole-v1", "gymnasium", num_envs=2, seed=0)
    pool.reset()
    pool.xla()
    with pytest.raises(RuntimeError, match="once xla\\(\\) is in use"):
        pool.reset(options={"reset_mask": np.array([True, False])})
    pool.close()


def test_without_jax_xla_raises_import_error_saying_how_to_install() -> None:
    script = (
        "import sys; sys.modules['jax'] = None\n"
        "import envpool\n"
        "e = envpool.make('CartPole-v1', env_type='gym', num_envs=1)\n"
        "try:\n    e.xla()\nexcept ImportError as err:\n    print('ImportError:', err)\n"
        "e.reset()\nprint(e.step([0])[1])\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=os.environ)
    assert proc.returncode == 0, proc.stderr
    assert 'ImportError: pool.xla() needs JAX: pip install "envpool[jax]"' in proc.stdout
    assert "[1.]" in proc.stdout  # the pool itself works without JAX


def test_extension_has_the_xla_handlers() -> None:
    """This build found jaxlib's headers (the test environment has jax)."""
    assert _envpool.has_xla
    assert set(_envpool.xla_handlers()) == {"send", "recv", "step"}


@pytest.mark.slow
def test_bench_xla_engine_sync_and_async(tmp_path) -> None:
    """envpool-bench's xla engine runs (sync: step in a scan; async: send/recv)."""
    out = tmp_path / "b.json"
    proc = subprocess.run(
        [sys.executable, "-m", "envpool.bench", "CartPole-v1", "-n", "4", "4", "-b", "4", "2", "-t", "2",
         "-e", "envpool", "xla", "-s", "0.1", "-w", "0.02", "-r", "1", "--no-progress", "--json", str(out)],
        capture_output=True, text=True, timeout=180, env=dict(os.environ),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = {(r["batch_size"], r["engine"]): r for r in json.loads(out.read_text())["results"]}
    for batch in (4, 2):
        row = rows[(batch, "xla")]
        assert row["status"] == "ok", row
        assert row["steps_per_s"]["median"] > 0


@pytest.mark.slow
def test_build_without_jaxlib_headers_has_no_xla_and_says_how_to_get_it(tmp_path) -> None:
    """The extension builds without XLA's FFI headers (a configure message says so),
    and xla() then raises ImportError saying how to get them."""
    import pybind11

    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake")
    root = Path(__file__).resolve().parents[2]
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []

    def configure(build: Path, *options: str) -> str:
        proc = subprocess.run(
            [cmake, "-S", str(root), "-B", str(build), *generator, "-DENVPOOL_ATARI=OFF", "-DENVPOOL_MUJOCO=OFF",
             "-DENVPOOL_BOX2D=OFF", f"-DPython_EXECUTABLE={sys.executable}", f"-Dpybind11_DIR={pybind11.get_cmake_dir()}",
             *options],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    # ENVPOOL_XLA=OFF: no handlers even though this environment has jaxlib
    off = tmp_path / "off"
    assert "XLA FFI handlers off" in configure(off, "-DENVPOOL_XLA=OFF")
    # the compile definitions: build.ninja with Ninja, each target's flags.make with Makefiles
    build_files = [off / "build.ninja"] if generator else list(off.glob("**/flags.make"))
    assert build_files and not any("ENVPOOL_WITH_XLA" in f.read_text() for f in build_files), build_files
    # no headers where the build looks (as without jaxlib): built without the handlers
    build = tmp_path / "build"
    assert "XLA FFI handlers skipped" in configure(build, f"-DENVPOOL_XLA_FFI_INCLUDE={tmp_path / 'no-jaxlib'}")
    built = subprocess.run([cmake, "--build", str(build), "-j", "2"], capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    # Our Python package with that extension, imported with no .pth processing (-S), so
    # the editable install of the tested build does not take precedence.
    pkg = tmp_path / "pkg" / "envpool"
    shutil.copytree(Path(envpool.__file__).parent, pkg, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    shutil.copy(next(build.glob("_envpool*.so")), pkg)
    site = [p for p in sys.path if p.endswith("site-packages")]
    script = (
        "import envpool\nprint('has_xla', envpool._envpool.has_xla, envpool.__file__)\n"
        "e = envpool.make('CartPole-v1', env_type='gym', num_envs=1)\n"
        "try:\n    e.xla()\nexcept ImportError as err:\n    print('ImportError:', err)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "pkg"), *site])}
    proc = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert f"has_xla False {pkg / '__init__.py'}" in proc.stdout
    assert "ImportError: pool.xla() needs envpool's XLA handlers, which this build of envpool lacks" in proc.stdout
    assert 'pip install "envpool[jax]"' in proc.stdout


def test_readme_example_runs() -> None:
    """The xla() example of the docs (docs/xla.md), as written."""
    section = (Path(__file__).resolve().parents[2] / "docs" / "xla.md").read_text()
    code = section[section.index("```python") + len("```python") : section.index("```", section.index("```python") + 9)]
    if "Pong-v5" not in envpool.list_all_envs():
        pytest.skip("no Atari in this build")
    scope: dict[str, Any] = {}
    exec(compile(code, "docs/xla.md", "exec"), scope)  # noqa: S102
    assert scope["rewards"].shape == (100, 8) and scope["obs"].shape == (8, 4, 84, 84)
    scope["envs"].close()


def test_envpool_documented_patterns() -> None:
    """EnvPool's XLA docs (examples/xla_step.py): a gym-style sync fori_loop over step,
    and an async loop whose send and recv both take the loop's incoming handle (recv
    overlapping the policy), which runs in program order."""
    gym_env = _make("CartPole-v1", "gym", num_envs=4, seed=0)
    handle, recv, send, step = gym_env.xla()

    def actor_step(i: Any, loop_var: Any) -> Any:
        handle0, states = loop_var
        handle1, (new_states, rew, term, trunc, info) = step(handle0, jnp.zeros(states.shape[0], jnp.int32))
        return handle1, new_states

    states, _ = gym_env.reset()
    _, states = jax.jit(lambda n, v: jax.lax.fori_loop(0, n, actor_step, v))(20, (handle, states))
    assert states.shape == (4, 4)

    dm_env = _make("CartPole-v1", "dm", num_envs=8, batch_size=4, num_threads=2, seed=0)
    handle, recv, send, step = dm_env.xla()

    def async_step(i: Any, loop_var: Any) -> Any:
        handle0, states = loop_var
        handle1 = send(handle0, jnp.zeros(4, jnp.int32), states.observation.env_id)
        handle1, new_states = recv(handle0)
        return handle1, new_states

    dm_env.async_reset()
    handle, states = recv(handle)
    handle, states = jax.jit(lambda n, v: jax.lax.fori_loop(0, n, async_step, v))(50, (handle, states))
    assert states.observation.env_id.shape == (4,)
    # 4 envs still in flight (sent in the last iteration), as the loop left them
    handle, last = recv(handle)
    with pytest.raises(RuntimeError, match="would wait forever"):
        recv(handle)
    gym_env.close()
    dm_env.close()

"""Async batches of the first envs to finish, several threads on one pool,
and envs that throw (issue: async, threads, errors).

Most cases use the test-only "Busy" family: an env's step busy-waits for as
many microseconds as its action says, and actions -1..-4 make it throw
std::invalid_argument, std::out_of_range, std::runtime_error or a non-std
exception. Its observation is (env id, steps since reset, resets so far).
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from _isolated import run_python

import envpool
from envpool import _envpool

MUJOCO = "HalfCheetah-v4" in envpool.list_all_envs()


def busy(num_envs: int, batch_size: int = 0, num_threads: int = 2, **config) -> _envpool.Pool:
    return _envpool.Pool("Busy", {"num_envs": num_envs, "batch_size": batch_size, "num_threads": num_threads, **config})


def ids_of(result) -> np.ndarray:
    return np.asarray(result[5]["env_id"]).copy()


# -- first to finish ----------------------------------------------------------


def test_async_batch_is_the_first_envs_to_finish() -> None:
    """A slow env sent first does not hold up the fast envs sent after it:
    they form the first batch, and the slow one comes in a later one."""
    pool = busy(8, 4, num_threads=2)
    pool.send_reset(None, None)
    pool.recv(), pool.recv()
    for _ in range(10):
        pool.send(np.array([200_000], np.int32), [0])  # 0.2 s
        pool.send(np.zeros(4, np.int32), [4, 5, 6, 7])
        first = ids_of(pool.recv())
        assert sorted(first) == [4, 5, 6, 7]
        # The straggler is still owed: three more fast envs complete its batch.
        pool.send(np.zeros(3, np.int32), [1, 2, 3])
        second = ids_of(pool.recv())
        assert sorted(second) == [0, 1, 2, 3]
    pool.close()


def test_async_rows_are_in_finishing_order() -> None:
    """Rows come in the order envs finish, not the order they started: the
    slow env sent first fills the last row."""
    pool = busy(6, 3, num_threads=2)
    pool.send_reset([0, 1, 2], None)
    pool.recv()
    for _ in range(5):
        pool.send(np.array([100_000, 0, 0], np.int32), [2, 0, 1])
        ids = ids_of(pool.recv())
        assert ids[-1] == 2 and sorted(ids[:2]) == [0, 1]
    pool.close()


def test_one_stepping_thread_serves_envs_first_in_first_out() -> None:
    """The same queue with one stepping thread (num_threads=1: a worker, the receiving
    thread only waits), where no preemption can reorder anything: every env comes back
    exactly num_envs / batch_size batches after it was sent, every time. A queue that let
    envs jump ahead, or a lane per consumer, would not."""
    n, b = 16, 4
    pool = busy(n, b, num_threads=1)
    pool.send_reset(None, None)
    sent_at = np.zeros(n, dtype=np.int64)
    waits = []
    for batch_no in range(1, 301):
        ids = ids_of(pool.recv())
        waits.append(int((batch_no - sent_at[ids]).max()))
        sent_at[ids] = batch_no
        pool.send(np.zeros(b, np.int32), ids)
    pool.close()
    assert waits[: n // b] == list(range(1, n // b + 1))  # the reset's batches, in send order
    assert set(waits[n // b :]) == {n // b}, waits


def test_no_env_is_starved() -> None:
    """Queued envs start first in, first out: an env sent comes back within
    num_envs / batch_size batches, plus one for the two stepping threads (a
    worker and the receiving thread, which helps) finishing out of order. The
    OS preempting a thread mid-step delays its env by as many batches as the
    other thread returns meanwhile, which no queue can help; steps are instant,
    so that is rare, but beside the other xdist worker of a whole-suite run an
    env has come back after 6 and after 7 batches: a few batches in 300 may take
    up to 3 more. A queue that let envs jump ahead would blow both bounds: in a
    random order (simulated, 200 runs of 300 batches) about two batches in three
    hold an env that waited over 5 batches, and the longest wait is 19 or more."""
    n, b = 16, 4
    pool = busy(n, b, num_threads=2)
    pool.send_reset(None, None)
    sent_at = np.zeros(n, np.int64)
    waits = []
    for batch_no in range(1, 300):
        ids = ids_of(pool.recv())
        assert len(ids) == b and len(set(ids.tolist())) == b
        waits.append(int((batch_no - sent_at[ids]).max()))
        sent_at[ids] = batch_no
        pool.send(np.zeros(b, np.int32), ids)
    assert max(waits) <= n // b + 4, max(waits)
    assert sum(w > n // b + 1 for w in waits) <= 3, waits
    pool.close()


def test_slow_env_is_overtaken_but_comes_back() -> None:
    """Step times spread 100x at random: fast envs overtake a slow one while it
    runs (that is the point), yet every env keeps coming back."""
    n, b = 16, 4
    pool = busy(n, b, num_threads=2)
    rng = np.random.default_rng(0)
    pool.send_reset(None, None)
    returns = np.zeros(n, np.int64)
    for _ in range(400):
        ids = ids_of(pool.recv())
        returns[ids] += 1
        pool.send(rng.choice([5, 500], size=b).astype(np.int32), ids)
    assert returns.min() >= 20, returns


# -- errors -------------------------------------------------------------------


@pytest.mark.parametrize(("code", "exc"), [(-1, ValueError), (-2, IndexError), (-3, RuntimeError), (-4, RuntimeError)])
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_env_error_keeps_its_type_and_loses_nothing_sync(code: int, exc: type, mode: str) -> None:
    pool = busy(4, autoreset_mode=mode)
    pool.reset(None, None)
    for _ in range(3):
        pool.step(np.zeros(4, np.int32), None)
    with pytest.raises(exc, match="env 2 failed") as info:
        pool.step(np.array([0, 0, code, 0], np.int32), None)
    e = info.value
    np.testing.assert_array_equal(e.env_ids, [0, 1, 2, 3])
    np.testing.assert_array_equal(e.failed_env_ids, [2])
    obs, rew, term, trunc, disc, inf, _ = e.result
    # The other envs did step and their rows are delivered with the error.
    np.testing.assert_array_equal(obs[[0, 1, 3], 1], [4, 4, 4])
    assert term[2] and not term[[0, 1, 3]].any() and disc[2] == 0
    np.testing.assert_array_equal(obs[2], [0, 0, 0])  # the failed row is zeroed
    # Every env can be stepped again; the failed one starts a new episode.
    obs, *_ = pool.step(np.zeros(4, np.int32), None)
    np.testing.assert_array_equal(obs[:, 0], [0, 1, 2, 3])
    np.testing.assert_array_equal(obs[:, 1], [5, 5, 0, 5])
    np.testing.assert_array_equal(obs[:, 2], [1, 1, 2, 1])
    pool.close()


def test_env_error_in_async_mode_names_the_batch_envs() -> None:
    pool = busy(6, 3, num_threads=2)
    pool.send_reset(None, None)
    pool.recv(), pool.recv()
    pool.send(np.array([0, -1, 0], np.int32), [0, 1, 2])
    with pytest.raises(ValueError, match="env 1 failed") as info:
        pool.recv()
    e = info.value
    assert sorted(e.env_ids.tolist()) == [0, 1, 2]
    np.testing.assert_array_equal(e.failed_env_ids, [1])
    np.testing.assert_array_equal(ids_of(e.result), e.env_ids)
    # All of them may be sent again at once; env 1 comes back reset.
    pool.send(np.zeros(3, np.int32), e.env_ids)
    obs = pool.recv()[0]
    rows = {int(r[0]): r for r in obs}
    assert rows[1][1] == 0 and rows[1][2] == 2
    assert rows[0][1] == 2 and rows[2][1] == 2
    pool.close()


def test_bad_action_through_gymnasium_interface_is_refused_before_stepping() -> None:
    envs = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2)
    envs.reset()
    with pytest.raises(ValueError, match="out of range"):
        envs.step(np.array([0, 2**32 + 1], np.int64))
    _, _, _, _, info = envs.step(np.zeros(2, np.int64))  # still usable, nothing stepped twice
    np.testing.assert_array_equal(info["elapsed_step"], [1, 1])


@pytest.fixture
def busy_task():
    """The Busy family as a registered task, so the three interfaces can make it."""
    from envpool.registration import _REGISTRY

    envpool.register("BusyTest-v0", "Busy")
    yield "BusyTest-v0"
    _REGISTRY.pop("BusyTest-v0")


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
@pytest.mark.parametrize("batch_size", [0, 2])
def test_env_error_through_each_interface(busy_task: str, env_type: str, batch_size: int) -> None:
    """Each interface passes the env's exception through with its type, and packages
    the exception's result like one of its own returns."""
    envs = envpool.make(busy_task, env_type=env_type, num_envs=4, batch_size=batch_size, num_threads=2)
    if batch_size:
        envs.async_reset()
        envs.recv(), envs.recv()
        envs.send(np.array([0, -2], np.int32), [0, 1])
        call = envs.recv
    else:
        envs.reset()
        call = lambda: envs.step(np.array([0, -2, 0, 0], np.int32))  # noqa: E731
    with pytest.raises(IndexError, match="env 1 failed: Busy: asked to fail with out_of_range") as info:
        call()
    e = info.value
    np.testing.assert_array_equal(e.failed_env_ids, [1])
    rows = 2 if batch_size else 4
    assert len(e.env_ids) == rows
    if env_type == "dm":
        ts = e.result
        obs, ids, last = ts.observation.obs, ts.observation.env_id, ts.step_type == 2
    else:
        obs, _, term, _, inf = e.result
        ids, last = inf["env_id"], term
    np.testing.assert_array_equal(ids, e.env_ids)
    for row, env in enumerate(ids):
        if env == 1:
            assert last[row] and (obs[row] == 0).all()  # the failed row: zeroed, episode over
        else:
            assert not last[row] and obs[row][0] == env and obs[row][1] == 1  # its step went through


# -- several threads ------------------------------------------------------------


def _async_loop(pool: _envpool.Pool, rounds: int, counts: np.ndarray, errors: list, lock: threading.Lock) -> None:
    try:
        for _ in range(rounds):
            obs = pool.recv()[0]
            ids = obs[:, 0].astype(np.int32)
            with lock:
                # Each env's step count advances by exactly one per result.
                assert (obs[:, 1] == counts[ids]).all(), (obs, counts[ids])
                counts[ids] += 1
            pool.send(np.zeros(len(ids), np.int32), ids)
    except Exception as e:  # noqa: BLE001
        errors.append(e)


@pytest.mark.parametrize("threads", [2, 4, 8])
def test_threads_share_an_async_pool(threads: int) -> None:
    n, b = 4 * threads, 2
    pool = busy(n, b, num_threads=2)
    pool.send_reset(None, None)
    counts = np.zeros(n, np.int64)
    # First results are resets (count 0); later steps count up from 1.
    errors: list = []
    lock = threading.Lock()
    ts = [threading.Thread(target=_async_loop, args=(pool, 300, counts, errors, lock)) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in ts), "a thread hung"
    assert not errors, errors
    assert counts.sum() == 300 * threads * b
    pool.close()


def test_threads_step_disjoint_envs_of_a_sync_pool() -> None:
    """Each thread gets exactly its own envs' rows, in the order it named them."""
    n, threads = 8, 4
    pool = busy(n, num_threads=2)
    pool.reset(None, None)
    errors: list = []

    def run(ids: list[int]) -> None:
        try:
            for k in range(1, 300):
                obs = pool.step(np.zeros(len(ids), np.int32), ids)[0]
                np.testing.assert_array_equal(obs[:, 0], ids)
                np.testing.assert_array_equal(obs[:, 1], k)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ts = [
        threading.Thread(target=run, args=([t + threads * j for j in range(n // threads)][::-1],))
        for t in range(threads)
    ]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in ts) and not errors, errors


def test_with_num_threads_1_every_queued_call_wakes_the_worker() -> None:
    """With num_threads=1 nobody else runs queued work, so a render and a
    send must each wake the sleeping worker (a one-env render or sync send
    used to leave its task for the caller, unwoken): neither may wait forever."""
    out: list = []

    def run() -> None:
        for batch in (4, 2):
            env = envpool.make(
                "CartPole-v1",
                env_type="gymnasium",
                num_envs=4,
                batch_size=batch,
                num_threads=1,
                render_mode="rgb_array",
            )
            env.async_reset() if batch == 2 else env.reset()
            if batch == 2:
                env.recv(), env.recv()
            time.sleep(0.05)  # the worker is asleep by now
            out.append(np.asarray(env.render()).shape)
            time.sleep(0.05)
            n = 1 if batch == 4 else batch  # a sync send of one env: its batch is that env
            env.send(np.zeros(n, np.int64), np.arange(n, dtype=np.int32))
            out.append(len(env.recv()[0]))
            env.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout=60)
    assert out == [(1, 400, 600, 3), 1, (1, 400, 600, 3), 2], out


def test_queued_sync_sends_complete_in_order() -> None:
    """Sync sends queue up as batches of their own; a thread that waits for the
    oldest runs tasks of the later ones meanwhile, and each must still complete
    (a thread counts its finished tasks of one batch at once, when its streak
    of that batch ends)."""
    n = 12
    pool = busy(n, num_threads=2)
    pool.reset(None, None)
    groups = [[0, 1, 2, 3], [8, 9, 10, 11], [4, 5, 6, 7]]  # each env's lane: env * 2 // 12
    out: list = []

    def run() -> None:
        for k in range(1, 301):
            for g in groups:
                pool.send(np.zeros(len(g), np.int32), g)
            for g in groups:
                obs = pool.recv()[0]
                np.testing.assert_array_equal(obs[:, 0], g)
                np.testing.assert_array_equal(obs[:, 1], k)
        out.append(True)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout=120)
    assert out == [True], "a queued sync batch never completed"


def test_two_threads_in_recv_get_different_batches() -> None:
    pool = busy(8, 2, num_threads=2)
    pool.send_reset(None, None)
    got: list = []
    ts = [threading.Thread(target=lambda: got.append(ids_of(pool.recv()))) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=60)
    assert sorted(np.concatenate(got).tolist()) == list(range(8))


def test_recv_waits_for_another_threads_send() -> None:
    """Once several threads use a pool, a recv() with too few envs in flight
    waits for another thread's send instead of raising."""
    pool = busy(4, 2, num_threads=2)
    pool.send_reset(None, None)
    out: list = []
    t = threading.Thread(target=lambda: out.append(ids_of(pool.recv())))
    t.start()
    t.join(timeout=60)
    second = threading.Thread(target=lambda: out.append(ids_of(pool.recv())))
    second.start()
    second.join(timeout=60)
    # Now a third recv finds nothing in flight and waits for the send below.
    waiter = threading.Thread(target=lambda: out.append(ids_of(pool.recv())))
    waiter.start()
    time.sleep(0.2)
    assert waiter.is_alive()
    pool.send(np.zeros(2, np.int32), out[0])
    waiter.join(timeout=60)
    assert not waiter.is_alive()
    assert sorted(out[2].tolist()) == sorted(out[0].tolist())


@pytest.mark.parametrize("batch_size", [0, 2])
def test_close_from_another_thread_wakes_recv(batch_size: int) -> None:
    pool = busy(4, batch_size, num_threads=2)
    pool.reset(None, None) if batch_size == 0 else (pool.send_reset(None, None), pool.recv(), pool.recv())
    caught: list = []

    def wait() -> None:
        try:
            if batch_size == 0:
                pool.step(np.full(4, 300_000, np.int32), None)
            else:
                pool.send(np.zeros(2, np.int32), [0, 1])  # a second thread: recv may wait for sends
                pool.recv()
                pool.recv()  # nothing more in flight: waits until close
        except RuntimeError as e:
            caught.append(e)

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.3)
    pool.close()
    t.join(timeout=30)
    assert not t.is_alive(), "close() did not wake the waiting thread"
    if batch_size:
        assert caught and "closed" in str(caught[0])
    with pytest.raises(RuntimeError, match="closed"):
        pool.recv()


def test_reentrant_call_from_action_conversion_raises() -> None:
    pool = busy(4)
    pool.reset(None, None)

    class Sneaky:
        def __array__(self, dtype=None, copy=None):
            pool.step(np.zeros(4, np.int32), None)
            return np.zeros(4, np.int32)

    with pytest.raises(RuntimeError, match="converting the arguments"):
        pool.step(Sneaky(), None)
    obs = pool.step(np.zeros(4, np.int32), None)[0]
    np.testing.assert_array_equal(obs[:, 0], [0, 1, 2, 3])
    np.testing.assert_array_equal(obs[:, 1], 1)  # the inner call stepped nothing


# -- calls that raise change nothing ------------------------------------------------


def test_async_step_that_cannot_complete_sends_nothing() -> None:
    pool = busy(8, 4, num_threads=2)
    pool.send_reset(None, None)
    pool.recv(), pool.recv()
    with pytest.raises(RuntimeError, match="would wait forever"):
        pool.step(np.zeros(2, np.int32), [0, 1])
    assert pool.in_flight == 0
    pool.send(np.zeros(4, np.int32), [0, 1, 2, 3])  # envs 0 and 1 are free
    assert sorted(ids_of(pool.recv()).tolist()) == [0, 1, 2, 3]


def test_rejected_calls_leave_the_pool_as_it_was() -> None:
    pool = busy(4, 2, num_threads=2)
    pool.send_reset([0, 1], None)
    for bad in ([0, 0], [1, 5], [-1]):
        with pytest.raises((ValueError, IndexError)):
            pool.send(np.zeros(len(bad), np.int32), bad)
    with pytest.raises(ValueError):
        pool.send(np.array([0, 10**8], np.int64), [2, 3])  # out of the action range
    assert pool.in_flight == 2
    assert sorted(ids_of(pool.recv()).tolist()) == [0, 1]


def test_own_batch_reset_returns_exactly_those_envs_in_async_mode() -> None:
    pool = busy(6, 3, num_threads=2)
    pool.send_reset([0, 1, 2], None)
    got = ids_of(pool.recv())
    r = pool.reset(got[::-1], None, own_batch=True)
    np.testing.assert_array_equal(ids_of(r), got[::-1])
    assert pool.in_flight == 0
    # An env still in flight is refused before anything is reset.
    pool.send_reset([3, 4, 5], None)
    with pytest.raises(ValueError, match="in flight"):
        pool.reset([0, 3], None, own_batch=True)
    assert sorted(ids_of(pool.recv()).tolist()) == [3, 4, 5]
    pool.close()


def test_empty_env_ids_give_an_empty_batch() -> None:
    for batch_size in (0, 2):
        pool = busy(4, batch_size)
        obs = pool.reset([], None)[0]
        assert obs.shape == (0, 3)
        obs = pool.step(np.zeros(0, np.int32), [])[0]
        assert obs.shape == (0, 3)
        pool.close()


def test_own_batch_larger_than_batch_size() -> None:
    """An own-batch call may name more envs than batch_size (its batch is sized for them)."""
    pool = busy(16, 2, num_threads=2)
    for _ in range(20):
        r = pool.reset(list(range(16))[::-1], None, own_batch=True)
        np.testing.assert_array_equal(ids_of(r), list(range(16))[::-1])
    assert pool.in_flight == 0


@pytest.mark.parametrize("task", ["CartPole-v1", "HalfCheetah-v4"])
@pytest.mark.parametrize("batch_size", [0, 2])
def test_close_while_another_thread_steps(task: str, batch_size: int) -> None:
    if task not in envpool.list_all_envs():
        pytest.skip(f"no {task} in this build")
    run_python(
        f"""
        import threading, time, numpy as np, envpool
        env = envpool.make({task!r}, env_type="gym", num_envs=4, batch_size={batch_size}, num_threads=2)
        shape = env.action_space.shape
        dtype = env.action_space.dtype
        errors = []
        def loop():
            try:
                if {batch_size}:
                    while True:
                        obs, rew, term, trunc, info = env.recv()
                        env.send(np.zeros((len(info["env_id"]), *shape), dtype), info["env_id"])
                else:
                    env.reset()
                    while True:
                        env.step(np.zeros((4, *shape), dtype))
            except RuntimeError as e:
                errors.append(str(e))
        # Sync: one thread steps every env; async: two threads share the batches.
        if {batch_size}:
            env.async_reset()
        ts = [threading.Thread(target=loop) for _ in range(2 if {batch_size} else 1)]
        for t in ts:
            t.start()
        time.sleep(0.3)
        env.close()
        for t in ts:
            t.join(timeout=30)
        assert not any(t.is_alive() for t in ts), "a thread hung"
        assert len(errors) == len(ts) and all("closed" in e for e in errors), errors
        """
    )


@pytest.mark.skipif(not MUJOCO, reason="no MuJoCo in this build")
def test_threads_step_disjoint_envs_of_one_sync_pool() -> None:
    """Each env's trajectory is the one a single-threaded pool gives."""
    run_python(
        """
        import threading, numpy as np, envpool
        n, steps = 8, 100
        rng = np.random.default_rng(0)
        acts = rng.uniform(-1, 1, (steps, n, 6)).astype(np.float64)
        ref = envpool.make("HalfCheetah-v4", env_type="gymnasium", num_envs=n, seed=5)
        ref.reset()
        want = np.stack([ref.step(acts[t])[0] for t in range(steps)])
        env = envpool.make("HalfCheetah-v4", env_type="gymnasium", num_envs=n, seed=5, num_threads=2)
        env.reset()
        got = np.zeros_like(want)
        def run(ids):
            for t in range(steps):
                obs = env.step(acts[t][ids], np.array(ids))[0]
                got[t][ids] = obs
        ts = [threading.Thread(target=run, args=(list(range(k, n, 4)),)) for k in range(4)]
        for t in ts: t.start()
        for t in ts: t.join(timeout=120)
        np.testing.assert_array_equal(got, want)
        """
    )


def test_thread_creation_failure_raises() -> None:
    """Under an address-space limit, starting 512 threads fails: an exception,
    not std::terminate. The limit leaves room for 20 thread stacks and half of a
    21st: the 21st stack's mmap fails, and the threads that did start keep the
    half stack of room for their own first allocations (glibc aborts the
    process, "cannot allocate memory for thread-local data", when a new
    thread's thread-local storage cannot be allocated; with an arbitrary margin
    the last stack could leave too little for that). One malloc arena, so that
    threads reserve no arenas of their own (64 MiB of address space each)."""
    run_python(
        """
        import ctypes, resource, envpool
        ctypes.CDLL(None).mallopt(-8, 1)  # M_ARENA_MAX
        envpool.make("CartPole-v1", env_type="gym", num_envs=2)  # load everything first

        def used():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[0]) * resource.getpagesize()

        before = used()
        probe = envpool.make("CartPole-v1", env_type="gym", num_envs=9, num_threads=9)
        stack = (used() - before) // 8  # 8 worker threads (the caller is the ninth)
        probe.close()
        del probe
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (used() + 20 * stack + stack // 2, hard))
        try:
            envpool.make("CartPole-v1", env_type="gym", num_envs=512, num_threads=512)
        except (RuntimeError, MemoryError) as e:
            print("raised:", e)
        else:
            raise AssertionError("512 threads with room for 20 stacks did not fail")
        """
    )


def test_pool_usable_from_a_thread_other_than_its_creator() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, batch_size=2)
    out: list = []

    def run() -> None:
        env.async_reset()
        for _ in range(50):
            _, _, _, _, info = env.recv()
            env.send(np.zeros(2, np.int64), info["env_id"])
        out.append(True)

    t = threading.Thread(target=run)
    t.start()
    t.join(timeout=60)
    assert out == [True]

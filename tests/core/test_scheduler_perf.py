"""How the engine's threads spend their time: scheduler states and CPU time
read from Linux's /proc (marker ``perf``: skipped unless pytest is given
``--perf``). They read timing, which another load on the machine skews, so
they stay out of the suite's ordinary run (the guide: speed is measured, not
asserted by timing); run them on an otherwise idle machine:
``python -m pytest tests/core/test_scheduler_perf.py --perf``.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from envpool import _envpool

pytestmark = pytest.mark.perf


def busy(num_envs: int, batch_size: int = 0, num_threads: int = 2, **config) -> _envpool.Pool:
    return _envpool.Pool("Busy", {"num_envs": num_envs, "batch_size": batch_size, "num_threads": num_threads, **config})


def ids_of(result) -> np.ndarray:
    return np.asarray(result[5]["env_id"]).copy()


def _thread_states(tids: set[str]) -> list[str]:
    """Linux's one-letter states of this process's threads `tids` (R runs or may, S sleeps)."""
    states = []
    for tid in tids:
        with open(f"/proc/self/task/{tid}/stat") as f:
            states.append(f.read().rsplit(")", 1)[1].split()[0])
    return states


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads the threads' states from Linux's /proc")
def test_a_waiting_worker_yields_for_two_steps_time_then_sleeps() -> None:
    """Between sync calls a worker keeps its core, yielding (state R), for about
    two steps' time, so the next call finds it awake (waking a sleeping thread
    costs a virtual machine tens to hundreds of microseconds), and then sleeps
    (S). With a fixed 35 us of yields it was asleep 0.3 ms after the call."""
    before = set(os.listdir("/proc/self/task"))
    pool = busy(2, num_threads=2)  # sync: the calling thread and one worker
    workers = set(os.listdir("/proc/self/task")) - before
    assert len(workers) == 1
    pool.reset(None, None)
    acts = np.full(2, 900, np.int32)  # 0.9 ms steps: the worker yields for 1.8 ms after its env
    for _ in range(40):  # the engine times one step in 16 per env
        pool.step(acts, None)
    awake = 0
    for _ in range(20):
        pool.step(acts, None)
        returned = time.perf_counter()
        while time.perf_counter() - returned < 3e-4:  # well past a fixed 35 us of yields
            pass
        awake += _thread_states(workers) == ["R"]
    time.sleep(0.2)
    asleep = _thread_states(workers)
    pool.close()
    assert awake >= 15 and asleep == ["S"], (awake, asleep)


def _cpu_ns(tids: set[str]) -> dict[str, int]:
    """Nanoseconds each of this process's threads `tids` has run (Linux's schedstat)."""
    out = {}
    for tid in tids:
        with open(f"/proc/self/task/{tid}/schedstat") as f:
            out[tid] = int(f.read().split()[0])
    return out


@pytest.mark.skipif(not os.path.exists("/proc/self/schedstat"), reason="reads the threads' CPU time from Linux's /proc")
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_one_thread_steps_at_a_time_with_num_threads_1(mode: str) -> None:
    """num_threads=1 means one stepping thread, as in EnvPool: a batch's steps
    all run on one thread (in sync mode the calling one, the worker idle; in
    async mode the worker, the caller only waiting), where a caller that also
    stepped while it waited shared them out over two threads, two cores."""
    before = set(os.listdir("/proc/self/task"))
    pool = busy(4, 4 if mode == "sync" else 2, num_threads=1)
    threads = set(os.listdir("/proc/self/task")) - before | {str(threading.get_native_id())}
    assert len(threads) == 2  # one worker and this thread
    acts = np.full(4, 20_000, np.int32)  # 20 ms steps, 80 ms in all
    if mode == "sync":
        pool.reset(None, None)
        start = _cpu_ns(threads)
        for _ in range(2):
            pool.step(acts, None)
    else:
        pool.send_reset(None, None)
        pool.recv(), pool.recv()
        for _ in range(20):  # the engine times one step in 16 per env: it learns they take 1 ms
            pool.send(np.full(4, 1000, np.int32), np.arange(4, dtype=np.int32))
            pool.recv(), pool.recv()
        start = _cpu_ns(threads)
        for _ in range(2):
            pool.send(acts, np.arange(4, dtype=np.int32))
            pool.recv(), pool.recv()
    end = _cpu_ns(threads)
    pool.close()
    used = sorted((end[t] - start[t]) / 1e6 for t in threads)  # ms
    # 160 ms of stepping (busy-waits of wall time: a thread preempted meanwhile
    # runs less): one thread ran it; the other only Python and its waits'
    # short yields (35 us each: 1-2 ms in all here; yielding for two steps'
    # time, 2 ms a wait after the 1 ms steps, made it 8 ms more). Shared out,
    # each ran about 80 ms.
    assert used[1] >= 120 and used[0] <= 5, used


@pytest.mark.skipif(not os.path.exists("/proc/self/schedstat"), reason="reads the threads' CPU time from Linux's /proc")
def test_with_num_threads_1_sent_envs_step_before_recv() -> None:
    """With num_threads=1 a worker still steps sent envs while the caller is
    away from the pool (EnvPool's overlap of stepping with the policy)."""
    before = set(os.listdir("/proc/self/task"))
    pool = busy(4, 2, num_threads=1)
    (worker,) = set(os.listdir("/proc/self/task")) - before
    pool.send_reset(None, None)
    pool.recv(), pool.recv()
    start = _cpu_ns({worker})[worker]
    pool.send(np.full(4, 20_000, np.int32), np.arange(4, dtype=np.int32))
    time.sleep(0.3)  # the four 20 ms steps are done long before
    stepped = (_cpu_ns({worker})[worker] - start) / 1e6
    ids = sorted(np.concatenate([ids_of(pool.recv()), ids_of(pool.recv())]))
    pool.close()
    assert stepped >= 50 and ids == [0, 1, 2, 3], (stepped, ids)  # 80 ms of busy-waits, less if preempted

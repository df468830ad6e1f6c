"""Faults of Python-env pools: env exceptions, dying and hanging workers, bad env_fns,
and that closing, garbage collection, Ctrl-C and the parent's death leave no worker
process and no /dev/shm segment behind."""

from __future__ import annotations

import functools
import gc
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import _py_envs
import numpy as np
import pytest

import envpool

TESTS = Path(__file__).resolve().parents[1]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def segments(pid: int | None = None) -> set[str]:
    """This process's (or pid's) pool segments in /dev/shm (their names hold the pid)."""
    return {n for n in os.listdir("/dev/shm") if n.startswith(f"envpool-{pid or os.getpid()}-")}


def wait_gone(pids: list[int], seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def make(num_envs: int = 4, **kw: object) -> object:
    return envpool.make(_py_envs.FaultyEnv, env_type="gymnasium", num_envs=num_envs, num_workers=2, **kw)


def test_env_exception_keeps_its_type() -> None:
    pool = make()
    obs, _ = pool.reset()
    pool.step(np.zeros(4, np.int32))
    with pytest.raises(_py_envs.EnvBoom) as err:
        pool.step(np.array([0, 2, 0, 0], np.int32))
    e = err.value
    assert e.args == ("boom", 42) and e.code == 42
    assert e.failed_env_ids.tolist() == [1] and sorted(e.env_ids.tolist()) == [0, 1, 2, 3]
    obs, rew, term, trunc, info = e.result
    assert term[1] and obs[1].tolist() == [0.0, 0.0, 0.0] and obs[0][0] == 2.0
    assert any("env 1" in n for n in e.__notes__)
    # The pool stays usable; the failed env is reset on its next step.
    obs, *_ = pool.step(np.zeros(4, np.int32))
    assert obs[:, 0].tolist() == [3.0, 0.0, 3.0, 3.0]
    with pytest.raises(ValueError, match="bad action value"):
        pool.step(np.array([3, 0, 0, 0], np.int32))
    # One that cannot be pickled back is the engine's RuntimeError, naming it.
    with pytest.raises(RuntimeError, match="env 2 failed: EnvBoom: .*unpicklable") as err:
        pool.step(np.array([0, 0, 8, 0], np.int32))
    assert err.value.failed_env_ids.tolist() == [2]
    pool.close()


@pytest.mark.parametrize(
    ("action", "error", "match"),
    [
        (9, ValueError, r"step\(\) must return \(obs, reward, terminated, truncated, info\)"),
        (10, TypeError, "must be real number, not NoneType"),
        (11, ValueError, "truth value of an array"),
        (12, ValueError, r"could not broadcast input array from shape \(4,\) into shape \(3,\)"),
        (13, TypeError, "only 0-dimensional arrays can be converted to Python scalars"),
        (14, ValueError, r"could not broadcast input array from shape \(3,1\) into shape \(3,\)"),
    ],
)
@pytest.mark.parametrize("env", [_py_envs.FaultyEnv, _py_envs.FaultyDictEnv])
def test_a_bad_step_return_is_the_envs_error_and_its_worker_lives(env, action: int, error: type, match: str) -> None:  # noqa: ANN001
    """What the step returns is converted in the worker's serving loop (C++ for a plain
    observation, Python for a Dict one, with the same messages): an error there is reported as
    the env's, as one its step raised. In the C++ loop it ended the worker process when it came
    from the C API (no traceback) or was a C++ exception; in Python a None reward was a NaN."""
    if action == 13:
        try:
            float(np.array([1.0]))
            pytest.skip("this NumPy makes a float of an array of shape (1,) (NumPy 2.4 refuses)")
        except TypeError:
            pass
    pool = envpool.make(env, env_type="gymnasium", num_envs=4, num_workers=2)
    obs, _ = pool.reset()
    if isinstance(obs, dict):
        pool = _DictObs(pool)
        obs = obs["x"]
    pids = obs[:, 1].tolist()
    with pytest.raises(error, match=match) as err:
        pool.step(np.array([0, action, 0, 0], np.int32))
    assert err.value.failed_env_ids.tolist() == [1]
    assert any("env 1 failed" in n for n in err.value.__notes__) and not any("died" in n for n in err.value.__notes__)
    obs, *_ = pool.step(np.zeros(4, np.int32))
    assert obs[:, 1].tolist() == pids  # the same worker processes
    assert obs[:, 0].tolist() == [2.0, 0.0, 2.0, 2.0]  # the failed env was reset
    pool.close()


class _DictObs:
    """A pool of FaultyDictEnv read as one of FaultyEnv: its observations' "x"."""

    def __init__(self, pool) -> None:  # noqa: ANN001
        self.pool = pool

    def step(self, action: np.ndarray) -> tuple:
        obs, *rest = self.pool.step(action)
        return (obs["x"], *rest)

    def close(self) -> None:
        self.pool.close()


@pytest.mark.parametrize("env", [_py_envs.FaultyEnv, _py_envs.FaultyDictEnv])
def test_an_observation_that_broadcasts_to_the_space_is_taken(env) -> None:  # noqa: ANN001
    pool = envpool.make(env, env_type="gymnasium", num_envs=2, num_workers=1)
    pool.reset()
    obs = pool.step(np.array([15, 0], np.int32))[0]
    obs = obs["x"] if isinstance(obs, dict) else obs
    np.testing.assert_array_equal(obs[:, 0], [1.0, 1.0])
    pool.close()


def test_env_exception_async() -> None:
    pool = make(batch_size=2)
    pool.async_reset()
    _, _, _, _, info = pool.recv()
    ids = info["env_id"]
    pool.send(np.array([2, 0], np.int32), ids)
    with pytest.raises(_py_envs.EnvBoom) as err:
        while True:
            pool.recv()
    assert err.value.failed_env_ids.tolist() == [ids[0]]
    pool.close()


@pytest.mark.parametrize(("action", "how"), [(4, "exited with code 3"), (5, "signal 9"), (6, "signal 11")])
def test_dead_worker(action: int, how: str) -> None:
    pool = make(seed=5)
    obs, _ = pool.reset()
    first_draws = obs[:, 2].copy()
    pids = pool._pool.worker_pids
    assert sorted(set(obs[:, 1].astype(int).tolist())) == sorted(pids)
    pool.step(np.zeros(4, np.int32))
    # Env 0 kills worker 0 (envs 0 and 1); both were in flight.
    with pytest.raises(RuntimeError, match=how) as err:
        pool.step(np.array([action, 0, 0, 0], np.int32))
    assert err.value.failed_env_ids.tolist() == [0, 1]
    assert "env 0" in str(err.value) and "worker process 0 died" in str(err.value)
    assert wait_gone([pids[0]])
    # Its envs are re-created (a new worker) and reset on their next step.
    obs, *_ = pool.step(np.zeros(4, np.int32))
    assert obs[:, 0].tolist() == [0.0, 0.0, 3.0, 3.0]
    assert int(obs[0, 1]) == int(obs[1, 1]) not in pids and int(obs[2, 1]) == pids[1]
    # The re-created envs were reset with their seeds (5 + i): the same draws.
    assert obs[:, 2].tolist() == first_draws.tolist()
    obs, *_ = pool.step(np.zeros(4, np.int32))
    assert obs[:, 0].tolist() == [1.0, 1.0, 4.0, 4.0]
    pool.close()
    assert not segments()


def test_dead_worker_idle_envs_report_on_their_next_step() -> None:
    pool = make()
    pool.reset()
    # Only env 1 is stepped (and kills worker 0); env 0 learns of it next.
    with pytest.raises(RuntimeError, match="signal 9") as err:
        pool.step(np.array([5], np.int32), env_id=np.array([1]))
    assert err.value.failed_env_ids.tolist() == [1]
    time.sleep(0.5)
    with pytest.raises(RuntimeError, match="env 0: its worker process 0 died"):
        pool.step(np.zeros(2, np.int32), env_id=np.array([0, 2]))
    obs, *_ = pool.step(np.zeros(4, np.int32))
    assert obs[:, 0].tolist() == [0.0, 0.0, 2.0, 1.0]
    pool.close()


def test_an_env_told_of_its_workers_death_by_a_render_is_not_stepped_unreset() -> None:
    pool = envpool.make(
        _py_envs.RenderingFaultyEnv, env_type="gymnasium", num_envs=4, num_workers=2, render_mode="rgb_array"
    )
    pool.reset()
    pool.step(np.zeros(4, np.int32))
    with pytest.raises(RuntimeError, match="signal 9"):  # env 1 kills worker 0 (envs 0 and 1)
        pool.step(np.array([5], np.int32), env_id=np.array([1]))
    # That step raised once the worker's generation had moved on, so env 0 sees it.
    with pytest.raises(RuntimeError, match="env 0: its worker process 0 died .*next step raises this too"):
        pool.render(env_ids=[0])
    # Env 0's new worker holds a re-created env that was never reset: stepping it
    # would raise gymnasium's ResetNeeded there. The step says why, and the next
    # one resets it.
    with pytest.raises(RuntimeError, match="env 0: its worker process 0 died .*not reset since") as err:
        pool.step(np.zeros(2, np.int32), env_id=np.array([0, 2]))
    assert err.value.failed_env_ids.tolist() == [0]
    obs, *_ = pool.step(np.zeros(4, np.int32))
    assert obs[:, 0].tolist() == [0.0, 0.0, 3.0, 2.0]
    assert pool.render(env_ids=[0, 2])[:, 0, 0, 0].tolist() == [0, 3]
    pool.close()


def test_a_workers_death_is_not_taken_for_an_earlier_error_of_the_env() -> None:
    pool = envpool.make(
        _py_envs.RenderRaisingEnv, env_type="gymnasium", num_envs=4, num_workers=2, render_mode="rgb_array"
    )
    pool.reset()
    pool.step(np.zeros(4, np.int32))
    with pytest.raises(KeyError, match="render failed"):  # raised in env 0's worker: its type
        pool.render(env_ids=[0])
    with pytest.raises(RuntimeError, match="signal 9"):  # env 1 kills worker 0 (envs 0 and 1)
        pool.step(np.array([5], np.int32), env_id=np.array([1]))
    # Env 0's next step fails in the engine, before reaching a worker; the render's
    # KeyError, still in env 0's slot, is not this step's error.
    with pytest.raises(RuntimeError, match="env 0: its worker process 0 died") as err:
        pool.step(np.zeros(1, np.int32), env_id=np.array([0]))
    assert err.value.failed_env_ids.tolist() == [0]
    obs, *_ = pool.step(np.zeros(4, np.int32))
    assert obs[:, 0].tolist() == [0.0, 0.0, 2.0, 2.0]
    pool.close()


def test_a_render_of_none_is_the_envs_type_error() -> None:
    pool = envpool.make(
        _py_envs.RenderNoneEnv, env_type="gymnasium", num_envs=2, num_workers=1, render_mode="rgb_array"
    )
    pool.reset()
    pool.step(np.zeros(2, np.int32))
    with pytest.raises(TypeError, match=r"render\(\) returned None, not an rgb_array frame"):
        pool.render(env_ids=[1])
    pool.step(np.zeros(2, np.int32))
    assert pool.render(env_ids=[0, 1])[:, 0, 0, 0].tolist() == [2, 2]
    pool.close()


START_ATTEMPTS = 3  # envpool.python_env.START_ATTEMPTS


def step_until_settled(pool: object) -> object:
    """Steps all envs until the call succeeds (its result) or says a worker could not be
    restarted (that error), while a replacement worker starts."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return pool.step(np.zeros(4, np.int32))
        except RuntimeError as e:
            if "could not be restarted" in str(e):
                return e
        assert time.monotonic() < deadline, "no replacement worker started, and none was given up"
        time.sleep(0.05)


@pytest.mark.parametrize(("deaths", "how"), [(2, "exit"), (3, "exit"), (1, "raise")])
def test_replacement_dying_while_starting(tmp_path: Path, deaths: int, how: str) -> None:
    # Worker 0's replacements die while starting `deaths` times: two are started again
    # and the third start serves; after three failed starts, or one whose env_fn
    # raises, the worker is given up, for good (no process is started again, though
    # the next start would serve), and the other worker's envs keep running.
    counter = tmp_path / "deaths"
    pool = envpool.make(
        functools.partial(_py_envs.env_dying_at_start, str(counter), how),
        env_type="gymnasium",
        num_envs=4,
        num_workers=2,
    )
    pool.reset()
    pids = pool._pool.worker_pids
    counter.write_text(str(deaths))
    with pytest.raises(RuntimeError, match="signal 9"):
        pool.step(np.array([5, 0, 0, 0], np.int32))
    out = step_until_settled(pool)
    assert counter.read_text() == "0"
    if deaths < START_ATTEMPTS and how == "exit":
        obs = out[0]  # envs 0 and 1 re-created and reset; 2 and 3 stepped by each call
        assert obs[:2, 0].tolist() == [0.0, 0.0] and obs[2, 0] == obs[3, 0] >= 2.0
        new = pool._pool.worker_pids
        assert len(new) == 2 and new[1] == pids[1] and new[0] not in pids
        assert len(pool.get_attr("observation_space")) == 4
    else:
        assert out.failed_env_ids.tolist() == [0, 1]
        assert "env 0: its worker process could not be restarted" in str(out)
        steps = out.result[0][2, 0]
        assert out.result[0][3, 0] == steps >= 2.0
        time.sleep(1.0)
        assert pool._pool.worker_pids == [pids[1]]
        with pytest.raises(RuntimeError, match="could not be restarted") as err:
            pool.step(np.zeros(4, np.int32))
        assert err.value.failed_env_ids.tolist() == [0, 1] and err.value.result[0][2:, 0].tolist() == [steps + 1] * 2
        # The errors carry why the last start failed, as a note.
        why = "env_fn failed in worker process 0: " if how == "raise" else "worker process 0 died while starting"
        for e in (out, err.value):
            assert any(n.startswith(f"its last start failed: {why}") for n in getattr(e, "__notes__", [])), e
        with pytest.raises(RuntimeError, match="env 0: its worker process 0 could not be restarted"):
            pool.get_attr("observation_space")  # not waited for
    pool.close()
    assert wait_gone(pids) and not segments()


def test_close_does_not_wait_for_a_replacement_still_starting(tmp_path: Path) -> None:
    marker = tmp_path / "slow"
    pool = envpool.make(
        functools.partial(_py_envs.env_slow_at_start, str(marker)), env_type="gymnasium", num_envs=2, num_workers=1
    )
    pool.reset()
    pids = pool._pool.worker_pids
    marker.touch()
    with pytest.raises(RuntimeError, match="signal 9"):
        pool.step(np.array([5, 0], np.int32))
    deadline = time.monotonic() + 10
    while pool._pool.worker_pids == pids:  # the replacement is in its env_fn's minute
        assert time.monotonic() < deadline
        time.sleep(0.05)
    starting = pool._pool.worker_pids
    waiting: list[BaseException] = []

    def get_attr() -> None:  # waits for the replacement, until close()
        try:
            pool.get_attr("observation_space")
        except BaseException as e:  # noqa: BLE001 - checked below
            waiting.append(e)

    asker = threading.Thread(target=get_attr)
    asker.start()
    asker.join(0.3)
    assert asker.is_alive()
    start = time.monotonic()
    pool.close()
    assert time.monotonic() - start < 2.0  # not the monitor thread's 5 s join, then a kill
    asker.join(10.0)  # the wait sees the close within 50 ms; the bound is for a loaded machine
    assert not asker.is_alive() and "the pool is closed" in str(waiting[0])
    assert wait_gone(pids + starting) and not segments()


def test_bad_env_fn_fails_make() -> None:
    with pytest.raises(OSError, match="cannot build this env"):
        envpool.make(_py_envs.failing_env_fn, env_type="gymnasium", num_envs=2)
    lock = threading.Lock()

    def holds_a_lock() -> object:
        assert lock
        return _py_envs.FaultyEnv()

    with pytest.raises(TypeError, match="cannot be pickled"):
        envpool.make(holds_a_lock, env_type="gymnasium", num_envs=2)
    with pytest.raises(TypeError, match="gymnasium.Env"):
        envpool.make(lambda: object(), env_type="gymnasium", num_envs=1)
    with pytest.raises(TypeError, match="unknown config keys"):
        envpool.make(_py_envs.FaultyEnv, env_type="gymnasium", num_envs=1, colour="red")
    with pytest.raises(ValueError, match="num_workers"):
        envpool.make(_py_envs.FaultyEnv, env_type="gymnasium", num_envs=2, num_workers=3)
    assert not segments()


def test_close_and_gc_leave_nothing() -> None:
    before: set[str] = set()
    pool = make()
    pool.reset()
    pids = pool._pool.worker_pids
    pool.close()
    assert not any(alive(p) for p in pids) and segments() == before
    pool.close()  # idempotent
    # A closed pool rebuilds on reset(), with new workers.
    pool.reset()
    pids = pool._pool.worker_pids
    assert all(alive(p) for p in pids)
    del pool
    gc.collect()
    assert wait_gone(pids, 5) and segments() == before


def test_hung_step_is_interrupted_by_close() -> None:
    pool = make()
    pool.reset()
    pids = pool._pool.worker_pids
    errors: list[BaseException] = []

    def stepping() -> None:
        try:
            pool.step(np.array([7, 0, 0, 0], np.int32))
        except BaseException as e:  # noqa: BLE001 - recorded
            errors.append(e)

    t = threading.Thread(target=stepping)
    t.start()
    time.sleep(1.0)
    pool.close()
    t.join(10)  # the step hangs for ever unless close() interrupts it
    assert not t.is_alive()
    assert errors and isinstance(errors[0], RuntimeError)
    assert wait_gone(pids, 5) and not segments()


def test_step_timeout() -> None:
    pool = make(step_timeout=0.5)
    pool.reset()
    # The step hangs for ever: that it returns at all is the timeout's doing.
    with pytest.raises(RuntimeError, match="step_timeout") as err:
        pool.step(np.array([0, 0, 0, 7], np.int32))
    assert err.value.failed_env_ids.tolist() == [3]
    # Its worker was killed: env 2, its other env, reports that on its next step.
    with pytest.raises(RuntimeError, match="env 2: its worker process 1 died") as err:
        pool.step(np.zeros(4, np.int32))
    obs = err.value.result[0]
    assert obs[:, 0].tolist() == [2.0, 2.0, 0.0, 0.0]
    obs, *_ = pool.step(np.zeros(4, np.int32))
    assert obs[:, 0].tolist() == [3.0, 3.0, 0.0, 1.0]
    pool.close()


@pytest.mark.parametrize("threads", [1, 4])
def test_async_step_timeout(threads: int) -> None:
    # Async, the stepping threads take finished envs first: a hung env must still
    # time out whatever the thread count. Only the hung env is in flight, so no
    # other step can overrun the short timeout on a loaded machine.
    pool = make(step_timeout=0.5, batch_size=1, num_threads=threads)
    pool.async_reset()
    for _ in range(4):
        pool.recv()
    pool.send(np.array([7], np.int32), np.array([3]))
    with pytest.raises(RuntimeError, match="step_timeout") as err:
        pool.recv()
    assert err.value.failed_env_ids.tolist() == [3]
    pool.send(np.array([0], np.int32), np.array([0]))
    assert pool.recv()[-1]["env_id"].tolist() == [0]
    pool.close()


@pytest.mark.parametrize("threads", [1, 4])
def test_async_worker_death(threads: int) -> None:
    # A dead worker is reported as a death whatever the thread count, and its
    # neighbour's step completes. The timeout is long enough never to be what ends
    # the dying env's step, however slowly the machine schedules the monitor.
    pool = make(step_timeout=60.0, batch_size=1, num_threads=threads)
    pool.async_reset()
    for _ in range(4):
        pool.recv()
    pool.send(np.array([5, 0], np.int32), np.array([0, 3]))  # env 0's worker SIGKILLs itself
    got = {}
    for _ in range(2):
        try:
            got[int(pool.recv()[-1]["env_id"][0])] = "ok"
        except RuntimeError as e:
            got[int(e.failed_env_ids[0])] = str(e)
    assert got[3] == "ok"
    assert "env 0: its worker process 0 died (killed by signal 9" in got[0]
    pool.close()


SCRIPT = """
import os, signal, sys, time
sys.path.insert(0, {tests!r})
import numpy as np
import envpool, _py_envs
if __name__ == "__main__":
    pool = envpool.make(_py_envs.FaultyEnv, env_type="gymnasium", num_envs=4, num_workers=2)
    pool.reset()
    print(" ".join(map(str, pool._pool.worker_pids)), flush=True)
    {tail}
"""


def run_script(tail: str, kill: bool = False) -> tuple[list[int], int]:
    code = textwrap.dedent(SCRIPT).format(tests=str(TESTS), tail=tail)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    pids = [int(x) for x in line.split()]
    assert len(pids) == 2, p.stderr.read()
    if kill:
        p.kill()
    p.communicate(timeout=60)
    return pids, p.pid


def test_keyboard_interrupt_in_parent_leaves_nothing() -> None:
    pids, parent = run_script("os.kill(os.getpid(), signal.SIGINT); time.sleep(5)")
    assert wait_gone(pids) and not segments(parent)


def test_exit_without_close_leaves_nothing() -> None:
    pids, parent = run_script("pool.step(np.zeros(4, np.int32))")
    assert wait_gone(pids) and not segments(parent)


@pytest.mark.parametrize("hung", [False, True])
def test_parents_death_leaves_nothing(hung: bool) -> None:
    tail = "pool.send(np.array([7, 0, 0, 0], np.int32)); " if hung else ""
    pids, parent = run_script(tail + "time.sleep(60)", kill=True)
    assert wait_gone(pids) and not segments(parent)

"""Cases that once crashed, hung or silently corrupted results (a random API
fuzz plus thread and teardown runs found them). Those that crashed the
process run in a subprocess, so a regression fails the test instead of
killing the session."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envpool

ATARI = "Pong-v5" in envpool.list_all_envs()
MUJOCO = "HalfCheetah-v4" in envpool.list_all_envs()


def run_python(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter; the test fails on a crash or a hang."""
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


# -- arguments given as NumPy arrays ------------------------------------------------


def test_numpy_array_seeds_equal_list_seeds() -> None:
    run_python(
        """
        import numpy as np, envpool
        a = envpool.make("CartPole-v1", env_type="gym", num_envs=4)
        b = envpool.make("CartPole-v1", env_type="gym", num_envs=4)
        oa, _ = a.reset(seed=np.arange(4) * 7)
        ob, _ = b.reset(seed=[0, 7, 14, 21])
        np.testing.assert_array_equal(oa, ob)
        """
    )


@pytest.mark.skipif(not MUJOCO, reason="no MuJoCo in this build")
def test_numpy_array_config_value() -> None:
    run_python(
        """
        import numpy as np, envpool
        e = envpool.make("Ant-v4", env_type="gymnasium", num_envs=2, healthy_z_range=np.array([0.2, 1.0]))
        assert tuple(e.config["healthy_z_range"]) == (0.2, 1.0)
        e.reset()
        """
    )


# -- values out of range are refused, not wrapped --------------------------------------


@pytest.mark.parametrize("value", [2**32 + 1, 2**31, -(2**32) + 1])
def test_int64_action_checked_before_cast(value: int) -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=2)
    env.reset()
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([0, value], np.int64))
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([0, 2**64 - 1], np.uint64))
    env.step(np.array([0, 1], np.uint64))  # in range: fine, whatever the dtype


@pytest.mark.parametrize("dtype", [">i8", "<i8", ">u2", ">i4", "|i1"])
def test_action_range_checked_in_any_byte_order(dtype: str) -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2, max_episode_steps=3)
    env.reset(seed=0)
    _, _, _, _, info = env.step(np.array([1, 0], dtype))
    assert list(info["elapsed_step"]) == [1, 1]
    # 256 (or 2**32 + 1 in 8 bytes) read in the wrong byte order would be 1 (or 2**56).
    big = np.array([0, 256 if np.dtype(dtype).itemsize > 1 else -1], dtype)
    with pytest.raises(ValueError, match="out of range"):
        env.step(big)


@pytest.mark.parametrize(
    "config",
    [
        {"thread_affinity_offset": 2**40},
        {"thread_affinity_offset": 65536},
        {"num_threads": 2**32 + 2},
        {"num_threads": 1025},
        {"num_envs": 2**20 + 1},
        {"batch_size": 3},
        {"seed": 2**63 - 2},
        {"max_episode_steps": 2**63},
    ],
)
def test_engine_int_options_out_of_range(config: dict) -> None:
    config = {"num_envs": 2, **config}
    with pytest.raises(ValueError):
        envpool.make("CartPole-v1", env_type="gym", **config)


def test_engine_int_options_at_their_bounds() -> None:
    env = envpool.make(
        "CartPole-v1",
        env_type="gym",
        num_envs=2,
        thread_affinity_offset=65535,
        seed=2**63 - 3,
        max_episode_steps=2**63 - 1,
    )
    env.reset()
    env.close()


@pytest.mark.skipif(not MUJOCO, reason="no MuJoCo in this build")
def test_mujoco_frame_skip_bound() -> None:
    with pytest.raises(ValueError, match="frame_skip"):
        envpool.make("HalfCheetah-v5", env_type="gym", num_envs=1, frame_skip=10**6 + 1)


@pytest.mark.skipif(not ATARI, reason="no Atari in this build")
@pytest.mark.parametrize(
    "config",
    [
        {"stack_num": 2**32 + 4},
        {"stack_num": 65},
        {"img_height": 2**32 + 84},
        {"img_width": 2**32 + 84},
        {"frame_skip": 2**32 + 4},
        {"noop_max": 2**32 + 30},
        {"noop_max": 2**31 - 1},
    ],
)
def test_atari_int_options_out_of_range(config: dict) -> None:
    with pytest.raises(ValueError, match=next(iter(config))):
        envpool.make("Pong-v5", env_type="gym", num_envs=1, **config)


@pytest.mark.skipif(not ATARI, reason="no Atari in this build")
def test_memory_is_checked_before_allocating() -> None:
    with pytest.raises(ValueError, match="GiB"):
        envpool.make("Pong-v5", env_type="gym", num_envs=64, img_height=16384, img_width=16384)


def test_autoreset_mode_enum() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2, autoreset_mode=AutoresetMode.SAME_STEP)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.config["autoreset_mode"] == "same_step"


# -- gymnasium masked reset -----------------------------------------------------------


def test_masked_reset_before_a_full_reset_changes_nothing() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3)
    with pytest.raises(RuntimeError, match="full reset"):
        env.reset(options={"reset_mask": np.array([True, False, False, False])})
    ref = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3)
    np.testing.assert_array_equal(env.reset()[0], ref.reset()[0])


def test_masked_reset_after_a_partial_send_returns_the_right_envs() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3)
    obs, _ = env.reset()
    env.send(np.zeros(2, np.int64), [1, 0])  # a partial send still in flight
    mask = np.array([False, False, True, True])
    fresh, info = env.reset(seed=[10, 11], options={"reset_mask": mask})
    ref = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=0)
    ref_obs, _ = ref.reset(seed=[0, 0, 10, 11])
    np.testing.assert_array_equal(fresh[2:], ref_obs[2:])
    np.testing.assert_array_equal(fresh[:2], obs[:2])
    np.testing.assert_array_equal(info["_env_id"], mask)
    np.testing.assert_array_equal(info["env_id"][2:], [2, 3])
    # The in-flight envs are untouched and still come back.
    _, _, _, _, info = env.recv()
    np.testing.assert_array_equal(info["env_id"], [1, 0])
    # Naming an env in flight is refused before anything is reset.
    env.send(np.zeros(1, np.int64), [3])
    with pytest.raises(ValueError, match="in flight"):
        env.reset(options={"reset_mask": np.array([False, False, True, True])})
    env.recv()


def test_masked_reset_in_async_mode_is_refused_cleanly() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, batch_size=2)
    env.async_reset()
    env.recv()
    with pytest.raises(ValueError, match="sync"):
        env.reset(options={"reset_mask": np.array([True, False, False, False])})
    env.recv()  # the other two envs are still there


# -- threads and teardown ---------------------------------------------------------------


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
    not std::terminate."""
    run_python(
        """
        import resource, envpool
        envpool.make("CartPole-v1", env_type="gym", num_envs=2)  # load everything first
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (used + (512 << 20), hard))
        try:
            envpool.make("CartPole-v1", env_type="gym", num_envs=1024, num_threads=512)
        except (RuntimeError, MemoryError) as e:
            print("raised:", e)
        else:
            raise AssertionError("512 threads under a 512 MiB margin did not fail")
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


@pytest.mark.skipif(not MUJOCO, reason="no MuJoCo in this build")
def test_mujoco_fatal_error_is_an_exception(tmp_path) -> None:
    """MuJoCo's mju_error (here: its stack out of memory) ends the process by
    default; here it is a RuntimeError naming the env, and the pool lives on."""
    import os

    import gymnasium

    xml = open(os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets/half_cheetah.xml")).read()
    small = tmp_path / "half_cheetah_small.xml"
    small.write_text(xml.replace('<mujoco model="cheetah">', '<mujoco model="cheetah">\n  <size memory="2K"/>'))
    p = run_python(
        f"""
        import numpy as np, envpool
        e = envpool.make("HalfCheetah-v4", env_type="gymnasium", num_envs=2, xml_file={str(small)!r})
        errors = 0
        for call in (e.reset, lambda: e.step(np.zeros((2, 6))), lambda: e.step(np.zeros((2, 6)))):
            try:
                call()
            except RuntimeError as err:
                assert "MuJoCo error" in str(err) and "out of memory" in str(err), err
                assert len(err.failed_env_ids) > 0
                errors += 1
        assert errors >= 2, errors
        print("survived")
        """
    )
    assert "survived" in p.stdout


@pytest.mark.skipif(not MUJOCO, reason="no MuJoCo in this build")
def test_mujoco_warning_is_a_python_warning(tmp_path) -> None:
    """MuJoCo's mju_warning (here: an unstable simulation, whose step MuJoCo
    resets) prints and appends to MUJOCO_LOG.TXT in the working directory by
    default; here it is a RuntimeWarning from the pool call, and no file."""
    import os

    import gymnasium

    xml = open(os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets/hopper.xml")).read()
    unstable = tmp_path / "hopper_unstable.xml"
    unstable.write_text(xml.replace("<option ", '<option gravity="0 0 -1e12" ', 1))
    p = run_python(
        f"""
        import os, warnings
        import numpy as np, envpool
        os.chdir({str(tmp_path)!r})
        e = envpool.make("Hopper-v4", env_type="gymnasium", num_envs=2, xml_file={str(unstable)!r})
        e.reset()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            e.step(np.zeros((2, 3), np.float32))
        messages = [str(x.message) for x in w if x.category is RuntimeWarning]
        assert any(m.startswith("MuJoCo warning: ") and "unstable" in m for m in messages), messages
        e.step(np.zeros((2, 3), np.float32))  # the pool lives on
        print("warned")
        """
    )
    assert "warned" in p.stdout
    assert "MuJoCo" not in p.stdout
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()


def test_masked_reset_after_partial_batches_merges_every_env() -> None:
    """recv() of a partial send, step(a, env_id) and EnvPool's dict action with env ids
    all update the rows a later masked reset merges into; no copy per step."""
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=1)
    obs, _ = env.reset()
    env.send(np.zeros(2, np.int64), [0, 1])
    o01 = env.recv()[0].copy()
    o3 = env.step(np.zeros(1, np.int64), [3])[0].copy()
    o2 = env.step({"action": np.ones(1, np.int64), "env_id": np.array([2])})[0].copy()
    full, info = env.reset(options={"reset_mask": np.array([False, False, False, False])})
    assert full.shape == (4, 4)
    np.testing.assert_array_equal(full[[0, 1]], o01)
    np.testing.assert_array_equal(full[2], o2[0])
    np.testing.assert_array_equal(full[3], o3[0])


def test_reset_refused_on_a_closed_pool_leaves_it_closed() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2)
    env.seed(7)
    env.close()
    with pytest.raises(ValueError):
        env.reset(seed=-1)
    assert env.closed
    a, _ = env.reset()  # now rebuilt; the pending seed(7) applies
    ref = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2)
    b, _ = ref.reset(seed=7)
    np.testing.assert_array_equal(a, b)

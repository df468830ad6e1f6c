"""Bad input raises a clear Python exception: never a crash, never a hang."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import envpool

ATARI = "Pong-v5" in envpool.list_all_envs()


def make(**config):  # noqa: ANN003, ANN201
    return envpool.make("CartPole-v1", env_type="gymnasium", **config)


@pytest.mark.parametrize(
    ("config", "error", "match"),
    [
        (dict(num_envs=0), ValueError, "num_envs"),
        (dict(num_envs=-3), ValueError, "num_envs"),
        (dict(num_envs=4, batch_size=5), ValueError, "batch_size"),
        (dict(batch_size=-1), ValueError, "batch_size"),
        (dict(num_threads=-1), ValueError, "num_threads"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(seed=2**63), ValueError, "seed"),
        (dict(max_episode_steps=-1), ValueError, "max_episode_steps"),
        (dict(thread_affinity_offset=-2), ValueError, "thread_affinity_offset"),
        (dict(autoreset_mode="sometimes"), ValueError, "autoreset_mode"),
        (dict(num_env=4), TypeError, "num_env"),
        (dict(num_envs="4"), TypeError, "num_envs"),
        (dict(num_envs=4.0), TypeError, "num_envs"),
        (dict(sutton_barto_reward=1), TypeError, "sutton_barto_reward"),
    ],
)
def test_bad_config(config: dict, error: type, match: str) -> None:
    for call in (make, functools.partial(envpool.make_spec, "CartPole-v1")):
        with pytest.raises(error, match=match) as raised:
            call(**config)
        # A bad value is a MakeError: a ValueError, and EnvPool 1.2.5's AssertionError.
        assert isinstance(raised.value, envpool.MakeError) == (error is ValueError)
        assert isinstance(raised.value, AssertionError) == (error is ValueError)


def test_unknown_task_names_close_matches() -> None:
    with pytest.raises(envpool.MakeError, match="CartPole-v1"):
        envpool.make("Cartpole-v1", env_type="gymnasium")


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: envpool.make_gym("Combat-v5"), "unknown task id 'Combat-v5'"),
        (lambda: envpool.make_gymnasium("NoSuchTask-v0"), "unknown task id"),
        (lambda: envpool.make_dm("NoSuchTask-v0"), "unknown task id"),
        (lambda: envpool.make_spec("NoSuchTask-v0"), "unknown task id"),
        (lambda: envpool.make("CartPole-v1", env_type="gym3"), "env_type"),
        (lambda: envpool.make_gym("CartPole-v1", num_envs=0), "num_envs"),
        (lambda: envpool.make_dm("CartPole-v1", num_envs=2, batch_size=3), "batch_size"),
        (lambda: envpool.make_gym("CartPole-v1", max_num_players=0), "max_num_players"),
        (lambda: envpool.make_gym("CartPole-v1", num_envs=2, seed=[1, 2, 3]), "seed list has 3 entries for 2 envs"),
        (lambda: envpool.make_gym("CartPole-v1", num_envs=2, seed=[1, 2], env_seed=[3, 4]), "env_seed"),
        (lambda: envpool.make_gym("CartPole-v1", seed=-1), "seed must be in"),
        (lambda: envpool.make_gym(["CartPole-v1", "CartPole-v1"]), "task ids repeat"),
        (lambda: envpool.make_gym("CartPole-v1", num_envs=2, env_options=[{}]), "env_options has 1 entries"),
        (lambda: envpool.make_gym("FrozenLake-v1", size=5), "size"),  # a family's own check
    ],
)
def test_make_argument_errors_are_envpool_125s_assertion_errors(call, match: str) -> None:  # noqa: ANN001
    """EnvPool 1.2.5 checks make's task id and arguments with ``assert`` (its make_test.py expects
    AssertionError for an unknown id); here they are ValueErrors with a message, and both."""
    with pytest.raises(AssertionError, match=match) as raised:
        call()
    assert isinstance(raised.value, ValueError) and type(raised.value) is envpool.MakeError


def _counted_cartpole():  # noqa: ANN202
    import gymnasium

    _ENV_FN_CALLS.append(1)
    return gymnasium.make("CartPole-v1")


_ENV_FN_CALLS: list[int] = []


@pytest.mark.parametrize(
    ("config", "match"),
    [
        (dict(num_envs=0), "num_envs must be in"),
        (dict(num_envs=2, batch_size=3), "batch_size must be in"),
        (dict(num_envs=2, seed=-1), "seed must be in"),
        (dict(num_envs=2, num_threads=-1), "num_threads must be in"),
        (dict(num_envs=2, num_workers=3), "num_workers must be"),
    ],
)
def test_python_env_pool_checks_the_engine_options_before_env_fn_runs(config: dict, match: str) -> None:
    """The engine's checks run before the probe env is made: num_envs=0 is named as such (it read
    as num_workers' range), and seed=-1 gets the engine's message, not the probe env's reset error."""
    _ENV_FN_CALLS.clear()
    with pytest.raises(envpool.MakeError, match=match):
        envpool.make(_counted_cartpole, env_type="gymnasium", **config)
    assert _ENV_FN_CALLS == []


@pytest.mark.parametrize(
    ("action", "error", "match"),
    [
        (np.zeros(3, np.int32), ValueError, "shape"),
        (np.zeros((4, 1), np.int32), ValueError, "shape"),
        (np.zeros(4, np.float32), TypeError, "dtype"),
        (np.full(4, 1.0 + 1j), TypeError, "dtype"),
        (np.array(["a"] * 4), TypeError, "dtype"),
        (np.array([0, 1, 2, 0]), ValueError, "out of range"),
        (np.array([0, -1, 0, 0]), ValueError, "out of range"),
        ({"act": np.zeros(4, np.int32)}, TypeError, "dict"),  # EnvPool's {"action": a} is accepted
        (None, TypeError, "dtype"),
    ],
)
def test_bad_actions(action: object, error: type, match: str) -> None:
    env = make(num_envs=4)
    env.reset()
    with pytest.raises(error, match=match):
        env.step(action)
    # A rejected call changes nothing: the pool still works.
    _, _, _, _, info = env.step(np.zeros(4, np.int32))
    np.testing.assert_array_equal(info["elapsed_step"], 1)


def test_bad_continuous_action_shape() -> None:
    env = envpool.make("Pendulum-v1", env_type="gymnasium", num_envs=2)
    env.reset()
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((2, 2), np.float32))


@pytest.mark.parametrize(
    ("env_id", "error", "match"),
    [
        ([0, 4], ValueError, "out of range"),
        ([-1, 0], ValueError, "out of range"),
        ([1, 1], ValueError, "repeated"),
        ([0.5, 1.0], TypeError, "env_id"),
    ],
)
def test_bad_env_ids(env_id: list, error: type, match: str) -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=4)
    env.reset()
    with pytest.raises(error, match=match):
        env.step(np.zeros(len(env_id), np.int32), env_id=np.array(env_id))


def test_sending_to_an_env_in_flight() -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=4)
    env.reset()
    env.send(np.zeros(4, np.int32))
    with pytest.raises(ValueError, match="in flight"):
        env.send(np.zeros(1, np.int32), [2])
    env.recv()


def test_recv_without_send() -> None:
    env = make(num_envs=2)
    with pytest.raises(RuntimeError, match="nothing in flight"):
        env.recv()
    a = envpool.make("CartPole-v1", env_type="gym", num_envs=4, batch_size=2)
    a.async_reset()
    a.recv()
    a.recv()
    with pytest.raises(RuntimeError, match="wait forever"):
        a.recv()


def test_use_after_close_and_idempotent_close() -> None:
    env = make(num_envs=2)
    env.reset()
    env.close()
    env.close()
    assert env.closed
    for call in (lambda: env.step(np.zeros(2, np.int32)), env.recv):
        with pytest.raises(RuntimeError, match="closed"):
            call()
    # reset() (and async_reset()) rebuild a closed pool, as EnvPool's reset() after close() works
    env.async_reset()
    assert not env.closed
    env.recv()


def test_bad_seeds() -> None:
    env = make(num_envs=2)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=[1, 2, 3])
    with pytest.raises(TypeError, match="seed"):
        env.reset(seed=1.5)
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.array([True])})


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60, env=dict(os.environ)
    )


def test_destroy_with_work_in_flight_does_not_hang_or_leak_threads() -> None:
    result = _run(
        """
        import os, gc, numpy as np, envpool
        def threads(): return len(os.listdir("/proc/self/task"))
        from envpool.gym_env import _gym_module
        _gym_module()  # importing gym (when installed, as the test extra does) starts threads of its own
        base = threads()
        for mode in (dict(num_envs=64), dict(num_envs=64, batch_size=8)):
            for _ in range(20):
                env = envpool.make("Acrobot-v1", env_type="gym", num_threads=3, **mode)
                env.async_reset()
                del env
                gc.collect()
        env = envpool.make("Acrobot-v1", env_type="gym", num_envs=64, num_threads=3)
        env.reset()
        env.send(np.zeros(64, np.int32))
        env.close()
        del env
        gc.collect()
        print("threads", base, threads())
        assert threads() == base, (base, threads())
        """
    )
    assert result.returncode == 0, result.stderr
    assert "threads" in result.stdout


def test_garbage_inputs_do_not_crash() -> None:
    # Anything odd must come back as a Python exception, never a signal.
    result = _run(
        """
        import numpy as np, envpool
        env = envpool.make("CartPole-v1", env_type="gym", num_envs=3)
        env.reset()
        bad = [object(), "x", [[1, 2]], np.zeros((3, 0)), np.zeros(10**6), np.full(3, 2**40), {"a": 1},
               np.array([1, 0, 1], dtype=np.uint64), np.zeros((3,), dtype=[("x", "i4")]), float("nan")]
        for b in bad:
            try:
                env.step(b)
            except (TypeError, ValueError, RuntimeError):
                pass
        for ids in ([10**12], [2**31], "abc", [[0]], np.array([0, 1], np.float32)):
            try:
                env.step(np.zeros(1, np.int32), env_id=ids)
            except (TypeError, ValueError, RuntimeError):
                pass
        env.step(np.zeros(3, np.int32))
        print("survived")
        """
    )
    assert result.returncode == 0, result.stderr
    assert "survived" in result.stdout


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


@pytest.mark.skipif(not ATARI, reason="no Atari in this build")
def test_memory_is_checked_before_allocating() -> None:
    with pytest.raises(ValueError, match="GiB"):
        envpool.make("Pong-v5", env_type="gym", num_envs=64, img_height=16384, img_width=16384)


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


@pytest.mark.parametrize(
    ("task", "convert"),
    [
        ("CartPole-v1", lambda a: a.astype(np.int64)),
        ("CartPole-v1", lambda a: a.astype(">i8")),
        ("CartPole-v1", lambda a: a.astype(np.uint8)),
        ("CartPole-v1", lambda a: a.astype(bool)),  # 0 and 1, as EnvPool 1.2.5 takes them
        ("CartPole-v1", lambda a: np.repeat(a.astype(np.int64), 2)[::2]),  # not contiguous
        ("CartPole-v1", lambda a: a.tolist()),
        ("Pendulum-v1", lambda a: a.astype(np.float64)),
        ("Pendulum-v1", lambda a: a.astype(">f4")),
        ("Pendulum-v1", lambda a: np.repeat(a, 2, axis=0)[::2]),  # not contiguous
    ],
)
def test_actions_of_another_dtype_or_layout_step_as_their_values(task: str, convert) -> None:  # noqa: ANN001
    # Cast as NumPy's astype casts: the same trajectory as the engine's own dtype
    # (int32 for a discrete action, float32 for Pendulum's).
    rng = np.random.default_rng(0)
    if task == "CartPole-v1":
        actions = [rng.integers(0, 2, 4).astype(np.int32) for _ in range(30)]
    else:  # values a float32 holds exactly, so the float64 copy casts back to them
        actions = [(rng.integers(-8, 9, (4, 1)) / 4).astype(np.float32) for _ in range(30)]
    envs = [envpool.make(task, env_type="gymnasium", num_envs=4, seed=3) for _ in range(2)]
    for env in envs:
        env.reset()
    for a in actions:
        theirs = convert(a)
        assert not isinstance(theirs, np.ndarray) or theirs.dtype != a.dtype or not theirs.flags.c_contiguous
        ref, got = envs[0].step(a), envs[1].step(theirs)
        for x, y in zip(ref[:4], got[:4]):
            np.testing.assert_array_equal(x, y)
    # The caller's array is read, never written.
    a = np.array([1, 0, 1, 0], np.int64) if task == "CartPole-v1" else np.full((4, 1), 0.5)
    before = a.copy()
    envs[1].step(a)
    np.testing.assert_array_equal(a, before)
    for env in envs:
        env.close()


@pytest.mark.parametrize("dtype", [np.int64, bool])
def test_integer_actions_on_a_float_space_step_as_their_values(dtype) -> None:  # noqa: ANN001
    envs = [envpool.make("Pendulum-v1", env_type="gymnasium", num_envs=4, seed=3) for _ in range(2)]
    for env in envs:
        env.reset()
    for a in np.random.default_rng(0).integers(-2 if dtype is not bool else 0, 3, (20, 4, 1)).astype(dtype):
        ref, got = envs[0].step(a.astype(np.float32)), envs[1].step(a)
        for x, y in zip(ref[:4], got[:4]):
            np.testing.assert_array_equal(x, y)
    for env in envs:
        env.close()


def test_action_range_checked_on_a_strided_array() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([0, 7, 256, 7], np.int64)[::2])
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([0, 7, 2**40, 7], ">i8")[::2])
    env.step(np.array([0, 7, 1, 7], np.int64)[::2])
    env.close()

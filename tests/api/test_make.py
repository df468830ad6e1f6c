"""What every interface shares: make() and the registry, async and partial batches, the
engine's batches, copies, views, seeds, thread affinity, errors, rebuild after close."""

from __future__ import annotations

import numpy as np
import pytest
from _isolated import run_python
from _pools import N
from _pools import make_pool as _make
from _registry import one_per_family, tasks

import envpool
from envpool import _envpool

MUJOCO = "HalfCheetah-v4" in envpool.list_all_envs()


def test_make_requires_known_env_type_and_task() -> None:
    with pytest.raises(ValueError, match="env_type"):
        envpool.make("CartPole-v1", env_type="torch")
    with pytest.raises(ValueError, match="CartPole-v1"):
        envpool.make("CartPole-v2", env_type="gymnasium")
    with pytest.raises(TypeError):
        envpool.make("CartPole-v1")  # type: ignore[call-arg]


def test_list_all_envs_and_register() -> None:
    ids = envpool.list_all_envs()
    for task in [
        "CartPole-v0",
        "CartPole-v1",
        "Pendulum-v1",
        "MountainCar-v0",
        "MountainCarContinuous-v0",
        "Acrobot-v1",
    ]:
        assert task in ids
    envpool.register("ShortCartPole-v0", "CartPole", max_episode_steps=5)
    env = envpool.make("ShortCartPole-v0", env_type="gymnasium", num_envs=2)
    env.reset()
    for _ in range(4):
        *_, trunc, _ = env.step(np.zeros(2, np.int32))
    *_, trunc, info = env.step(np.zeros(2, np.int32))
    assert trunc.all() and (info["elapsed_step"] == 5).all()
    with pytest.raises(ValueError, match="already registered"):
        envpool.register("ShortCartPole-v0", "CartPole")


def test_dict_and_continuous_actions() -> None:
    env = envpool.make("Pendulum-v1", env_type="gymnasium", num_envs=2)
    env.reset()
    obs, rew, *_ = env.step(np.array([[1.0], [-1.0]], np.float32))
    assert obs.shape == (2, 3) and (rew <= 0).all()
    # float64 and integer actions are safely cast to the float32 spec.
    env.step(np.array([[1.0], [-1.0]]))
    env.step(np.array([[1], [0]]))


def test_async_returns_batches_with_env_ids() -> None:
    env = envpool.make(
        "CartPole-v1", env_type="gymnasium", num_envs=8, batch_size=3, num_threads=2, seed=0, batched_spaces=True
    )
    assert env.observation_space.shape == (3, 4)
    env.async_reset()
    seen = []
    counts = np.zeros(8, int)
    for _ in range(200):
        obs, rew, term, trunc, info = env.recv()
        ids = info["env_id"]
        assert obs.shape == (3, 4) and len(set(ids.tolist())) == 3
        counts[ids] += 1
        seen.append(ids)
        env.send(np.zeros(3, np.int32), ids)
    assert (counts > 0).all()


def test_async_send_without_env_id_uses_last_batch() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, batch_size=2)
    env.async_reset()
    _, _, _, _, info = env.recv()
    env.send(np.zeros(2, np.int32))
    # The two remaining resets and the two steps finish in no promised
    # order: across the next two batches, the stepped rows are those envs.
    rows = [env.recv()[-1] for _ in range(2)]
    ids = np.concatenate([r["env_id"] for r in rows])
    elapsed = np.concatenate([r["elapsed_step"] for r in rows])
    assert sorted(ids[elapsed == 1].tolist()) == sorted(info["env_id"].tolist())
    assert sorted(ids[elapsed == 0].tolist()) == sorted(set(range(4)) - set(info["env_id"].tolist()))


def test_partial_step_returns_rows_in_given_order() -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=5, seed=0)
    env.reset()
    obs, rew, term, trunc, info = env.step(np.zeros(3, np.int32), env_id=np.array([4, 0, 2]))
    np.testing.assert_array_equal(info["env_id"], [4, 0, 2])
    np.testing.assert_array_equal(info["elapsed_step"], 1)
    obs, *_, info = env.step(np.zeros(5, np.int32))
    np.testing.assert_array_equal(info["elapsed_step"], [2, 1, 2, 1, 2])
    obs, *_, info = env.reset(env_id=[3])
    np.testing.assert_array_equal(info["env_id"], [3])


def test_sync_send_recv_pairs() -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=4)
    env.reset()
    env.send(np.zeros(2, np.int32), [0, 1])
    env.send(np.zeros(2, np.int32), [2, 3])
    a = env.recv()[-1]["env_id"]
    b = env.recv()[-1]["env_id"]
    np.testing.assert_array_equal(a, [0, 1])
    np.testing.assert_array_equal(b, [2, 3])


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_pools_refuse_copy_and_pickle_and_keep_running(env_type: str) -> None:
    """A shallow copy shared the engine, and collecting it closed the original pool."""
    import copy
    import gc
    import pickle

    env = envpool.make("CartPole-v1", env_type=env_type, num_envs=2)
    env.reset()
    for how in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match=f"cannot copy or pickle a {type(env).__name__}: it owns its engine"):
            how(env)
    gc.collect()
    assert not env.closed
    env.step(np.zeros(2, np.int32))
    assert pickle.loads(pickle.dumps(env.spec)).config["num_envs"] == 2


def test_results_are_views_that_outlive_the_pool() -> None:
    import gc

    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, expose_state=True)
    env.reset()
    obs, rew, term, trunc, info = env.step(np.zeros(4, np.int32))
    # Zero copy: views into the engine's batch memory, not arrays NumPy owns.
    assert not obs.flags.owndata and not rew.flags.owndata and not info["env_id"].flags.owndata
    assert type(obs.base).__name__ == "PyCapsule"
    assert obs.base is rew.base is info["env_id"].base  # one batch, one owner
    expected = obs.copy(), info["state"].copy()
    later, *_ = env.step(np.zeros(4, np.int32))
    assert not np.shares_memory(obs, later)  # each batch has its own memory
    env.close()
    del env, later
    gc.collect()
    np.testing.assert_array_equal(obs, expected[0])
    np.testing.assert_array_equal(info["state"], expected[1])


def test_dict_observation_and_dict_action_through_the_binding() -> None:
    from envpool import _envpool

    pool = _envpool.Pool("Echo", {"num_envs": 3, "seed": 0})
    obs, rew, term, trunc, _, info, _ = pool.reset()
    assert set(obs) == {"pos", "last_pick"}
    assert obs["pos"].shape == (3, 2) and obs["pos"].dtype == np.float64
    np.testing.assert_array_equal(obs["last_pick"], -1)
    assert info["seed_draw"].dtype == np.float32
    move = np.array([[0.5, -0.5], [1, 1], [0, 0]], np.float32)
    obs, rew, term, *_ = pool.step({"move": move, "pick": np.array([0, 3, 2])})
    np.testing.assert_array_equal(obs["pos"], move)
    np.testing.assert_array_equal(obs["last_pick"], [0, 3, 2])
    np.testing.assert_array_equal(rew, [0, 3, 2])
    np.testing.assert_array_equal(term, [False, True, False])
    with pytest.raises(ValueError, match="missing key 'pick'"):
        pool.step({"move": move, "other": np.zeros(3, np.int32)})
    with pytest.raises(ValueError, match="exactly the keys"):
        pool.step({"move": move})
    with pytest.raises(TypeError, match="dict action"):
        pool.step(move)
    with pytest.raises(ValueError, match=r"action\['pick'\] 4"):
        pool.step({"move": move, "pick": np.array([0, 4, 0])})
    pool.step({"move": move, "pick": np.zeros(3, np.int64)})  # the pool still works


def test_an_env_that_throws_raises_in_recv_and_the_pool_goes_on() -> None:
    from envpool import _envpool

    def action(n: int, nan_row: int | None = None) -> dict:
        move = np.zeros((n, 2), np.float32)
        if nan_row is not None:
            move[nan_row, 0] = np.nan
        return {"move": move, "pick": np.ones(n, np.int32)}

    pool = _envpool.Pool("Echo", {"num_envs": 3, "num_threads": 2})
    pool.reset()
    pool.send(action(3, nan_row=1))
    with pytest.raises(RuntimeError, match="env 1 failed: Echo: move is NaN"):
        pool.recv()
    # The failed env counts as done: its next step is a reset; the others go on.
    *_, info, _ = pool.step(action(3))
    np.testing.assert_array_equal(info["elapsed_step"], [2, 0, 2])

    pool = _envpool.Pool("Echo", {"num_envs": 4, "batch_size": 2, "num_threads": 2})
    pool.send_reset()
    ids = pool.recv()[5]["env_id"]
    pool.send(action(2, nan_row=0), ids)
    with pytest.raises(RuntimeError, match=f"env {ids[0]} failed"):
        # Four envs are in flight (two resets, two steps), in no promised
        # order: the failure is in one of the next two batches.
        for _ in range(2):
            pool.recv()


def test_thread_affinity_pins_workers() -> None:
    import os

    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or cpus != list(range(len(cpus))):
        pytest.skip("needs CPUs 0..n-1 available")

    def pinned() -> list[str]:
        lists = []
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/status") as f:
                lists += [line.split()[1] for line in f if line.startswith("Cpus_allowed_list")]
        return [c for c in lists if c.isdigit()]

    def new_pins(**config: int) -> list[str]:
        before = pinned()
        env = envpool.make("CartPole-v1", env_type="gym", num_envs=4, thread_affinity_offset=1, **config)
        now = pinned()
        env.close()
        for c in before:
            now.remove(c)
        return sorted(now)

    # Worker i runs on CPU (offset + i) % cores; num_threads - 1 workers are
    # started in both modes, as recv()'s thread steps too, and one with
    # num_threads=1 (recv()'s thread then only waits).
    n = len(cpus)
    assert new_pins(num_threads=2, batch_size=2) == [str(1 % n)]
    assert new_pins(num_threads=3, batch_size=2) == sorted([str(1 % n), str(2 % n)])
    assert new_pins(num_threads=3) == sorted([str(1 % n), str(2 % n)])
    assert new_pins(num_threads=1) == [str(1 % n)]
    assert new_pins(num_threads=1, batch_size=2) == [str(1 % n)]


def test_engine_results_are_named_batches() -> None:
    """Every engine call returns one Batch: named fields, in the documented order."""
    from envpool import _envpool

    pool = _envpool.Pool("CartPole", {"num_envs": 3, "seed": 0})
    result = pool.reset(None, None)
    assert isinstance(result, _envpool.Batch) and isinstance(result, tuple) and len(result) == 7
    names = ("obs", "reward", "terminated", "truncated", "discount", "info", "final")
    for i, name in enumerate(names):
        assert getattr(result, name) is result[i]
    assert result.obs.shape == (3, 4) and result.reward.dtype == np.float32
    assert list(result.info["env_id"]) == [0, 1, 2] and result.final is None
    step = pool.step(np.zeros(3, np.int32), None)
    assert isinstance(step, _envpool.Batch) and step.discount.dtype == np.float32
    # Interfaces that hand out no discount skip its view.
    lean = _envpool.Pool("CartPole", {"num_envs": 2}, False)
    assert lean.reset(None, None).discount is None


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


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
@pytest.mark.parametrize("task", ["CartPole-v1", "Pendulum-v1"])
def test_empty_env_ids_give_an_empty_batch(env_type: str, task: str) -> None:
    env = _make(env_type, task)
    env.reset()
    empty = np.array([], np.int64)
    act_shape = (0,) if task == "CartPole-v1" else (0, 1)
    act = np.zeros(act_shape, np.int32 if task == "CartPole-v1" else np.float32)
    if env_type == "dm":
        for ts in (env.reset(empty), env.step(act, empty)):
            assert ts.reward.shape == (0,) and ts.reward.dtype == np.float32
            assert ts.observation.obs.shape[0] == 0 and ts.step_type.shape == (0,)
        return
    obs, info = env.reset([])
    assert obs.shape == (0, *env.observation_space.shape)
    assert info["env_id"].shape == (0,) and info["env_id"].dtype == np.int32
    obs, rew, term, trunc, info = env.step(act, empty)
    assert obs.shape[0] == 0 and rew.dtype == np.float32 and term.dtype == np.bool_ and trunc.shape == (0,)
    # the pool is unaffected: a full step still works
    assert env.step(np.zeros((N, *act_shape[1:]), act.dtype))[0].shape[0] == N


# One task of each kind from the registry (the engine's test-only and Python-env kinds aside).
ONE_PER_KIND = [
    one_per_family(tasks(k))[0]
    for k in sorted({m["kind"] for m in _envpool.families().values()} - {"testing", "python_env"})
]


@pytest.mark.parametrize("task", ONE_PER_KIND)
def test_reward_is_float32_everywhere(task: str) -> None:
    spec = envpool.make_spec(task)
    assert spec.state_array_spec["reward"].dtype == np.float32
    for env_type in ("gym", "gymnasium"):
        env = _make(env_type, task, num_envs=2)
        env.reset()
        act = env.action_space.sample()
        assert env.step(np.stack([act, act]))[1].dtype == np.float32
    dm = _make("dm", task, num_envs=2)
    assert dm.reward_spec().dtype == np.float32
    dm.reset()
    act = dm.action_spec().generate_value()
    assert dm.step(np.stack([act, act])).reward.dtype == np.float32


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
def test_reset_after_close_rebuilds(env_type: str) -> None:
    env = _make(env_type, seed=5)
    first = env.reset()
    env.close()
    assert env.closed
    again = env.reset()
    assert not env.closed
    if env_type == "dm":
        np.testing.assert_array_equal(first.observation.obs, again.observation.obs)
    else:
        np.testing.assert_array_equal(first[0], again[0])
    env.step(np.zeros(N, np.int32))


def test_make_is_typed_per_interface() -> None:
    """make()'s overloads give a type checker each env_type's pool class (py.typed)."""
    import typing

    from envpool import _interfaces, gymnasium_env
    from envpool._make import make

    returns = [f.__annotations__["return"] for f in typing.get_overloads(make)]
    assert returns[:3] == ["GymnasiumEnvPool", "GymEnvPool", "DmEnvPool"]
    hints = typing.get_type_hints(gymnasium_env.GymnasiumEnvPool.step)
    assert hints["return"] == _interfaces.StepResult
    bases = [str(b) for b in gymnasium_env.GymnasiumEnvPool.__orig_bases__]
    assert any(b.startswith("gymnasium.vector.vector_env.VectorEnv[") for b in bases), bases

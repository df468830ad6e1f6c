"""Multi-task pools: envpool.make([...]) / make({task: count}) runs different tasks in one pool.
Each env follows exactly the trajectory it has in a single-task pool with the same seed."""

from __future__ import annotations

import numpy as np
import pytest

import envpool
from envpool import _envpool

GAMES = ["Pong-v5", "Breakout-v5", "SpaceInvaders-v5", "MsPacman-v5"]
# Every interface in each autoreset mode it has (dm_env has no same_step form).
INTERFACE_MODES = [("gymnasium", "next_step"), ("gymnasium", "same_step"), ("gym", "next_step"), ("gym", "same_step")]
INTERFACE_MODES += [("dm", "next_step")]
atari = pytest.mark.skipif("Atari" not in _envpool.families(), reason="Atari family not built")


def _actions(n: int, steps: int, high: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, high, size=(steps, n))


def _single_task_run(task: str, n: int, seed: int, acts: np.ndarray, **opts) -> list[tuple]:
    """An n-env single-task pool (env i seeded seed + i) stepped with acts[t]."""
    env = envpool.make(task, env_type="gymnasium", num_envs=n, seed=seed, **opts)
    obs, _ = env.reset()
    out = [(obs.copy(), None, None, None)]
    for a in acts:
        obs, rew, term, trunc, _ = env.step(a)
        out.append((obs.copy(), rew.copy(), term.copy(), trunc.copy()))
    env.close()
    return out


@atari
def test_each_env_follows_its_single_task_trajectory() -> None:
    n, seed, steps = 8, 7, 40
    opts = {"full_action_space": True, "episodic_life": True}
    acts = _actions(n, steps, 18)
    env = envpool.make(GAMES, env_type="gymnasium", num_envs=n, seed=seed, **opts)
    assert env.task_ids == GAMES
    obs, info = env.reset()
    assert list(info["task_id"]) == [i % 4 for i in range(n)]
    multi = [(obs.copy(), None, None, None)]
    for a in acts:
        obs, rew, term, trunc, info = env.step(a)
        assert list(info["task_id"]) == [i % 4 for i in range(n)]
        multi.append((obs.copy(), rew.copy(), term.copy(), trunc.copy()))
    for g, game in enumerate(GAMES):
        for i in range(g, n, 4):  # env i runs GAMES[i % 4] with seed + i in both pools
            # the single-task env i alone: a one-env pool seeded seed + i (an Atari env's
            # making is most of the cost, so not n envs for the two compared)
            single = _single_task_run(game, 1, seed + i, acts[:, i : i + 1], **opts)
            for t, (m, s) in enumerate(zip(multi, single, strict=True)):
                np.testing.assert_array_equal(m[0][i], s[0][0], err_msg=f"{game} env {i} step {t}")
                if t:
                    assert (m[1][i], m[2][i], m[3][i]) == (s[1][0], s[2][0], s[3][0])


@atari
def test_async_multi_task_pool_matches_sync_per_env() -> None:
    """Async batches (first to finish) still give each env its own trajectory."""
    n, seed, steps = 8, 3, 12
    opts = {"full_action_space": True}
    act = lambda env_id, t: (env_id * 7 + t * 3) % 18  # noqa: E731
    ref = envpool.make(GAMES, env_type="gymnasium", num_envs=n, seed=seed, **opts)
    obs, _ = ref.reset()
    want = {i: [obs[i].copy()] for i in range(n)}
    for t in range(steps):
        obs, *_ = ref.step(np.array([act(i, t) for i in range(n)]))
        for i in range(n):
            want[i].append(obs[i].copy())
    env = envpool.make(GAMES, env_type="gymnasium", num_envs=n, batch_size=4, num_threads=2, seed=seed, **opts)
    env.async_reset()
    got: dict[int, list] = {i: [] for i in range(n)}
    while min(len(v) for v in got.values()) <= steps:
        obs, _, _, _, info = env.recv()
        ids = info["env_id"]
        assert list(info["task_id"]) == [i % 4 for i in ids]
        for j, i in enumerate(ids):
            got[int(i)].append(obs[j].copy())
        env.send(np.array([act(int(i), len(got[int(i)]) - 1) for i in ids]), ids)
    for i in range(n):
        for t in range(steps + 1):
            np.testing.assert_array_equal(got[i][t], want[i][t], err_msg=f"env {i} step {t}")


@atari
def test_atari_action_sets_must_match() -> None:
    with pytest.raises(ValueError, match="full_action_space=True"):
        envpool.make(GAMES, env_type="gymnasium", num_envs=4)


def test_mixed_mujoco_refused_with_the_first_difference() -> None:
    if "HalfCheetah-v4" not in _envpool.families():
        pytest.skip("MuJoCo family not built")
    with pytest.raises(ValueError, match=r"'HalfCheetah-v4' and 'Hopper-v4' differ: only 'HalfCheetah-v4' has"):
        envpool.make(["HalfCheetah-v4", "Hopper-v4"], env_type="gymnasium", num_envs=2)
    with pytest.raises(ValueError, match=r"differ in 'obs': shape"):
        envpool.make(["Hopper-v4", "Walker2d-v4"], env_type="gymnasium", num_envs=2)


@pytest.mark.parametrize(("env_type", "mode"), INTERFACE_MODES)
def test_counts_task_options_and_interfaces(env_type: str, mode: str) -> None:
    """{task: count} gives envs in blocks; task_options reach one task (here its
    max_episode_steps, which the engine applies per env)."""
    env = envpool.make(
        {"CartPole-v1": 2, "CartPole-v0": 1},
        env_type=env_type,
        seed=5,
        autoreset_mode=mode,
        task_options={"CartPole-v0": {"max_episode_steps": 3}},
    )
    assert env.task_ids == ["CartPole-v1", "CartPole-v0"]
    env.reset()
    for _ in range(3):
        out = env.step(np.zeros(3, np.int64))
    if env_type == "dm":
        task_id, last = out.observation.task_id, out.last()
        np.testing.assert_array_equal(task_id, [0, 0, 1])
        assert list(last) == [False, False, True]
    else:
        info = out[-1]
        np.testing.assert_array_equal(info["task_id"], [0, 0, 1])
        done = out[2] | out[3] if len(out) == 5 else out[2]  # gym < 0.26: (obs, reward, done, info)
        assert list(done) == [False, False, True]


@pytest.mark.parametrize(("env_type", "mode"), INTERFACE_MODES)
@pytest.mark.parametrize("tasks", [["CartPole-v1"], {"CartPole-v1": 3}], ids=["list", "dict"])
def test_a_list_of_one_task_keeps_the_multi_task_keys(tasks, env_type: str, mode: str) -> None:
    """A pool made from a list (or dict) of one task is still a multi-task pool: its spec
    and every result carry info["task_id"] (all 0), with and without env_options."""
    for env_options in (None, {1: {"max_episode_steps": 2}}):
        env = envpool.make(tasks, env_type=env_type, num_envs=3, seed=1, autoreset_mode=mode, env_options=env_options)
        assert env.task_ids == ["CartPole-v1"]
        first = env.reset()
        outs = [first] + [env.step(np.zeros(3, np.int64)) for _ in range(3)]
        for out in outs:
            task_id = out.observation.task_id if env_type == "dm" else out[-1]["task_id"]
            np.testing.assert_array_equal(task_id, [0, 0, 0])
        if env_type == "dm":
            assert "task_id" in env.observation_spec()._fields
        env.close()


def test_bad_multi_task_arguments() -> None:
    with pytest.raises(ValueError, match="repeat"):
        envpool.make(["CartPole-v1", "CartPole-v1"], env_type="gymnasium")
    with pytest.raises(ValueError, match="add up to 3"):
        envpool.make({"CartPole-v1": 2, "CartPole-v0": 1}, env_type="gymnasium", num_envs=4)
    with pytest.raises(ValueError, match="not in the pool"):
        envpool.make(["CartPole-v1"], env_type="gymnasium", task_options={"Acrobot-v1": {}})
    with pytest.raises(TypeError, match="multi-task"):
        envpool.make("CartPole-v1", env_type="gymnasium", task_options={})
    with pytest.raises(ValueError, match="unknown task id"):
        envpool.make(["CartPole-v1", "NoSuchTask-v0"], env_type="gymnasium")


def test_xla_on_a_multi_task_pool() -> None:
    """xla() steps a multi-task pool bit for bit like the Python path (info["task_id"] included)."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    def make():
        return envpool.make(
            ["CartPole-v1", "CartPole-v0"],
            env_type="gymnasium",
            num_envs=4,
            seed=2,
            task_options={"CartPole-v0": {"max_episode_steps": 4}},
        )

    acts = np.random.default_rng(0).integers(0, 2, size=(12, 4)).astype(np.int32)
    ref = make()
    ref.reset()
    want = [ref.step(a) for a in acts]
    env = make()
    handle, _, _, step = env.xla()
    env.reset()

    def body(h, a):
        h, (obs, rew, term, trunc, info) = step(h, a)
        return h, (obs, rew, term, trunc, info["task_id"])

    _, (obs, rew, term, trunc, task_id) = jax.jit(lambda h: jax.lax.scan(body, h, jnp.asarray(acts)))(handle)
    for t, (o, r, te, tr, info) in enumerate(want):
        np.testing.assert_array_equal(np.asarray(obs[t]), o)
        np.testing.assert_array_equal(np.asarray(rew[t]), r)
        np.testing.assert_array_equal(np.asarray(term[t]), te)
        np.testing.assert_array_equal(np.asarray(trunc[t]), tr)
        np.testing.assert_array_equal(np.asarray(task_id[t]), info["task_id"])

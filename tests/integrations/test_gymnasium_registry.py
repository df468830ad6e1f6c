"""gymnasium's registry: every task as ``envpool/<task id>``; ``gymnasium.make_vec``
returns our pool (options passed through), ``gymnasium.make`` a single-env view
whose time limit is the engine's (no TimeLimit wrapper on top)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.envs.registration import registry
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

import envpool
from envpool.gymnasium_env import GymnasiumEnvPool
from envpool.integrations.gymnasium_single import GymnasiumSingleEnv


def _wrappers(env) -> list[type]:
    chain = []
    while True:
        chain.append(type(env))
        if not hasattr(env, "env"):
            return chain
        env = env.env


def test_every_task_is_registered_with_both_entry_points():
    ids = envpool.list_all_envs()
    assert len(ids) > 100  # classic control, Atari, MuJoCo
    # EnvPool 1.2.5's tabular/ and phys2d/ ids: a gymnasium id holds one namespace (docs/integrations.md)
    namespaced = [t for t in ids if "/" in t]
    # and Meta-World's (MetaWorld/<Task>-v3), those built
    assert sorted(t for t in namespaced if not t.startswith("MetaWorld/")) == sorted(
        [
            "tabular/CliffWalking-v0",
            "tabular/Blackjack-v0",
            "phys2d/CartPole-v0",
            "phys2d/CartPole-v1",
            "phys2d/Pendulum-v0",
        ]
    )
    assert not any(f"envpool/{t}" in registry for t in namespaced)
    for task_id in set(ids) - set(namespaced):
        spec = registry[f"envpool/{task_id}"]
        assert spec.namespace == "envpool"
        assert spec.vector_entry_point == "envpool.integrations.gymnasium_registry:make_vector_env"
        assert spec.entry_point == "envpool.integrations.gymnasium_single:GymnasiumSingleEnv"
        assert spec.kwargs == {"task_id": task_id}
        assert spec.max_episode_steps is None  # the engine's limit: no TimeLimit wrapper
    assert registry["envpool/CartPole-v1"].reward_threshold == 475.0


def test_pprint_registry_lists_the_namespace():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        gymnasium.pprint_registry()
    text = out.getvalue()
    assert "===== envpool =====" in text
    section = text.split("===== envpool =====")[1].split("=====")[0]
    for gym_id in ("envpool/Pong-v5", "envpool/CartPole-v1", "envpool/Ant-v5"):
        assert gym_id in section


def test_make_vec_returns_our_pool_with_the_options():
    envs = gymnasium.make_vec(
        "envpool/Pong-v5", num_envs=8, vectorization_mode="vector_entry_point", episodic_life=True, seed=3
    )
    assert isinstance(envs, GymnasiumEnvPool)
    assert envs.num_envs == 8 and envs.config["episodic_life"] is True and envs.config["seed"] == 3
    assert envs.spec.id == "envpool/Pong-v5" and envs.spec.kwargs["episodic_life"] is True
    # gymnasium's VectorEnv spaces (batched), as make_vec callers expect
    assert envs.observation_space == batch_space(envs.single_observation_space, 8)
    assert envs.action_space == batch_space(envs.single_action_space, 8)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    # the same envs as envpool.make with those options
    ref = envpool.make("Pong-v5", env_type="gymnasium", num_envs=8, episodic_life=True, seed=3)
    obs, _ = envs.reset()
    ref_obs, _ = ref.reset()
    np.testing.assert_array_equal(obs, ref_obs)
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = rng.integers(0, 6, size=8)
        got, want = envs.step(actions), ref.step(actions)
        for g, w in zip(got[:4], want[:4], strict=True):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(got[4]["lives"], want[4]["lives"])
    envs.close()
    ref.close()


def test_make_vec_is_the_default_mode_and_takes_engine_options():
    # vector_entry_point is gymnasium's default when an id has one
    envs = gymnasium.make_vec(
        "envpool/Pendulum-v1", num_envs=3, max_episode_steps=5, autoreset_mode="same_step", batch_size=2
    )
    assert isinstance(envs, GymnasiumEnvPool) and envs.is_async
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    envs.close()
    envs = gymnasium.make_vec("envpool/Pendulum-v1", num_envs=2, max_episode_steps=5)
    envs.reset(seed=0)
    for t in range(1, 6):
        _, _, terminated, truncated, _ = envs.step(np.zeros((2, 1), dtype=np.float32))
        assert not terminated.any() and truncated.all() == (t == 5)
    envs.close()


def test_make_vec_sync_mode_vectorizes_single_env_views():
    envs = gymnasium.make_vec("envpool/CartPole-v1", num_envs=2, vectorization_mode="sync")
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    assert all(isinstance(e.unwrapped, GymnasiumSingleEnv) for e in envs.envs)
    obs, _ = envs.reset(seed=7)
    assert obs.shape == (2, 4)
    envs.close()


def test_make_returns_a_single_env_view():
    env = gymnasium.make("envpool/CartPole-v1")
    assert isinstance(env.unwrapped, GymnasiumSingleEnv)
    assert env.unwrapped.pool.num_envs == 1
    assert gymnasium.wrappers.TimeLimit not in _wrappers(env)  # the engine keeps the limit
    pool = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=1)
    assert env.observation_space == pool.single_observation_space and env.observation_space.shape == (4,)
    assert env.action_space == gymnasium.spaces.Discrete(2)
    obs, info = env.reset(seed=0)
    assert obs.shape == (4,) and obs in env.observation_space
    assert "env_id" not in info and info["elapsed_step"] == 0
    obs, reward, terminated, truncated, info = env.step(1)
    assert obs.shape == (4,) and type(reward) is float and type(terminated) is bool and type(truncated) is bool
    assert info["elapsed_step"] == 1
    env.close()
    assert env.unwrapped.pool.closed


def test_single_env_is_env_0_of_a_pool():
    env = gymnasium.make("envpool/Pong-v5", episodic_life=True)
    pool = envpool.make("Pong-v5", env_type="gymnasium", num_envs=1, episodic_life=True)
    obs, _ = env.reset(seed=11)
    ref, _ = pool.reset(seed=11)
    np.testing.assert_array_equal(obs, ref[0])
    rng = np.random.default_rng(1)
    for _ in range(50):
        a = int(rng.integers(0, 6))
        obs, reward, terminated, truncated, info = env.step(a)
        r_obs, r_rew, r_term, r_trunc, r_info = pool.step(np.array([a]))
        np.testing.assert_array_equal(obs, r_obs[0])
        assert (reward, terminated, truncated, info["lives"]) == (r_rew[0], r_term[0], r_trunc[0], r_info["lives"][0])
    env.close()


def test_single_env_episode_ends_by_the_engines_limit_and_reset_starts_anew():
    env = gymnasium.make("envpool/Pendulum-v1")
    env.reset(seed=0)
    for t in range(1, 201):  # Pendulum-v1: 200 steps, the task's limit in the engine
        _, _, terminated, truncated, info = env.step(np.zeros(1, dtype=np.float32))
        assert not terminated and truncated == (t == 200)
    assert info["elapsed_step"] == 200
    obs, info = env.reset()
    assert info["elapsed_step"] == 0
    _, _, _, truncated, info = env.step(np.zeros(1, dtype=np.float32))
    assert info["elapsed_step"] == 1 and not truncated
    env.close()
    # the engine's own option (gymnasium.make takes max_episode_steps itself: next test)
    env = GymnasiumSingleEnv("Pendulum-v1", max_episode_steps=3)
    env.reset(seed=0)
    assert [env.step(np.zeros(1, dtype=np.float32))[3] for _ in range(3)] == [False, False, True]


def test_gymnasium_make_max_episode_steps_is_gymnasiums_time_limit():
    env = gymnasium.make("envpool/Pendulum-v1", max_episode_steps=4)
    assert gymnasium.wrappers.TimeLimit in _wrappers(env)
    env.reset(seed=0)
    assert [env.step(np.zeros(1, dtype=np.float32))[3] for _ in range(4)] == [False, False, False, True]
    env.close()


@pytest.mark.filterwarnings("ignore:.*infinity:UserWarning")  # CartPole's and MuJoCo's unbounded Boxes
@pytest.mark.parametrize("task_id", ["CartPole-v1", "Pong-v5", "Hopper-v5"])
def test_single_env_passes_gymnasiums_env_checker(task_id):
    env = gymnasium.make(f"envpool/{task_id}")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.filterwarnings("ignore:.*infinity:UserWarning")
@pytest.mark.parametrize("task_id", ["CartPole-v1", "FrozenLake-v1", "NChain-v0", "Catch-v0"])
def test_single_env_passes_the_checker_with_its_render_check(task_id):
    """check_env renders each mode the metadata lists: a task that draws no frames lists
    none (unless made with render_mode="rgb_array", which EnvPool takes at make)."""
    env = gymnasium.make(f"envpool/{task_id}")
    check_env(env.unwrapped)
    draws = task_id in ("CartPole-v1", "FrozenLake-v1")
    assert env.unwrapped.metadata["render_modes"] == (["rgb_array"] if draws else [])
    env.close()
    pool = envpool.make(task_id, env_type="gymnasium", num_envs=2)
    assert pool.metadata["render_modes"] == (["rgb_array"] if draws else [])
    pool.close()
    pool = envpool.make(task_id, env_type="gymnasium", num_envs=2, render_mode="rgb_array")
    assert pool.metadata["render_modes"] == ["rgb_array"]
    pool.close()


@pytest.mark.parametrize("task_id", ["FrozenLake-v1", "Taxi-v4", "CliffWalking-v1", "NChain-v0"])
def test_single_env_discrete_obs_is_an_int_as_gymnasiums(task_id):
    env = gymnasium.make(f"envpool/{task_id}")
    obs, _ = env.reset(seed=0)
    assert type(obs) is int and env.observation_space.contains(obs)
    obs = env.step(env.action_space.sample())[0]
    assert type(obs) is int and env.observation_space.contains(obs)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("task_id", ["CartPole-v1", "LunarLander-v3", "FrozenLake-v1"])
def test_single_env_renders_the_pools_frame(task_id):
    env = gymnasium.make(f"envpool/{task_id}", render_mode="rgb_array")
    assert env.render_mode == "rgb_array"
    env.reset(seed=3)
    frame = env.render()
    pool = envpool.make(task_id, env_type="gymnasium", num_envs=1, render_mode="rgb_array")
    pool.reset(seed=3)
    np.testing.assert_array_equal(frame, pool.render()[0])
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert env.unwrapped.metadata["render_fps"] == pool.config["render_fps"]
    env.close()
    env = gymnasium.make("envpool/CartPole-v1")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):  # as gymnasium's envs warn
        assert env.render() is None
    env.close()
    env = gymnasium.make("envpool/NChain-v0", render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(RuntimeError, match="NChain-v0: this task cannot render"):
        env.render()
    env.close()


@pytest.mark.filterwarnings("ignore:.*render_mode:UserWarning")  # gymnasium.make's, before ours
def test_single_env_refuses_what_it_cannot_be():
    with pytest.raises(ValueError, match="render_mode"):
        GymnasiumSingleEnv("CartPole-v1", render_mode="human")
    with pytest.raises(ValueError, match="num_envs"):
        GymnasiumSingleEnv("CartPole-v1", num_envs=2)
    with pytest.raises(ValueError, match="next_step"):
        GymnasiumSingleEnv("CartPole-v1", autoreset_mode="same_step")
    with pytest.raises(ValueError, match="unknown task id"):
        gymnasium.make("envpool/CartPole-v1", task_id="NoSuchTask-v0")


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_blackjack_names_two_families_so_name_the_version():
    """EnvPool's ids give toy-text Blackjack-v1 and the Atari game Blackjack-v5 one name: gymnasium
    calls v1 out of date (v5 is no newer Blackjack), and the unversioned id is the Atari game."""
    with pytest.warns(DeprecationWarning, match="envpool/Blackjack-v1 is out of date"):
        toy = gymnasium.make("envpool/Blackjack-v1")
    assert toy.observation_space.shape == (3,) and toy.action_space.n == 2
    toy.close()
    with pytest.warns(UserWarning, match="Using the latest versioned environment `envpool/Blackjack-v5`"):
        atari = gymnasium.make("envpool/Blackjack")
    assert atari.spec.id == "envpool/Blackjack-v5" and atari.observation_space.shape == (4, 84, 84)
    atari.close()


def test_registration_is_cheap_and_reimport_safe():
    code = """
import sys, importlib, warnings
import gymnasium
# an id another package registered first keeps its entry
gymnasium.register("envpool/CartPole-v1", entry_point="gymnasium.envs.classic_control.cartpole:CartPoleEnv")
with warnings.catch_warnings():
    warnings.simplefilter("error")
    import envpool
    from envpool.integrations import gymnasium_registry
    spec = gymnasium.spec("envpool/CartPole-v1")
    assert spec.entry_point.startswith("gymnasium.envs"), spec
    assert gymnasium.spec("envpool/Pong-v5").vector_entry_point is not None
    # no pool was made, nor a pool class imported, nor Ray
    assert "envpool.gymnasium_env" not in sys.modules and "ray" not in sys.modules
    before = dict(gymnasium.registry)
    importlib.reload(envpool)
    assert gymnasium_registry.register_envs() == []
    assert dict(gymnasium.registry) == before
print("ok")
"""
    assert _run(code).strip() == "ok"


def test_a_task_registered_later_joins_gymnasiums_registry():
    code = """
import gymnasium, envpool
envpool.register("MyCartPole-v0", "CartPole", max_episode_steps=7)
env = gymnasium.make("envpool/MyCartPole-v0")
env.reset(seed=0)
steps = 0
while True:
    steps += 1
    _, _, terminated, truncated, _ = env.step(steps % 2)
    if terminated or truncated:
        break
envs = gymnasium.make_vec("envpool/MyCartPole-v0", num_envs=2)
print(steps, truncated, envs.num_envs)
"""
    assert _run(code).split() == ["7", "True", "2"]

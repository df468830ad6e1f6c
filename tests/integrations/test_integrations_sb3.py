"""Stable-Baselines3: envpool.integrations.sb3.SB3VecEnv is a VecEnv SB3 trains on."""

from __future__ import annotations

import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")

from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv, VecMonitor  # noqa: E402

import envpool  # noqa: E402
from envpool.integrations.sb3 import SB3VecEnv  # noqa: E402


@pytest.fixture(autouse=True)
def _one_torch_thread(tmp_path, monkeypatch):
    import torch

    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3's logger makes a folder, else in /tmp

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def test_is_a_vecenv_with_single_env_spaces():
    venv = SB3VecEnv("CartPole-v1", num_envs=3, seed=0)
    assert isinstance(venv, VecEnv)
    assert venv.num_envs == 3
    assert venv.observation_space.shape == (4,)
    assert venv.action_space.n == 2
    assert venv.get_attr("render_mode") == [None, None, None]
    assert venv.env_is_wrapped(VecMonitor) == [False] * 3
    with pytest.raises(NotImplementedError, match="run in C\\+\\+"):  # a pool of C++ envs: no per-env method
        venv.env_method("seed", 0)
    obs = venv.reset()
    assert obs.shape == (3, 4)
    assert [i["env_id"] for i in venv.reset_infos] == [0, 1, 2]
    venv.close()


def test_python_envs_attributes_and_methods_are_each_envs():
    """A pool of Python envs: get_attr/set_attr/env_method reach each env in its worker (every env at
    once), as SubprocVecEnv's; get_attr of a method gives the method, uncalled."""
    import _py_envs

    pool = envpool.make(_py_envs.AttrEnv, env_type="gymnasium", num_envs=3, num_workers=2, autoreset_mode="same_step")
    venv = SB3VecEnv(pool)
    venv.reset()
    assert venv.get_attr("difficulty") == [1, 1, 1] and venv.get_attr("difficulty", indices=[2]) == [1]
    venv.set_attr("difficulty", 4)
    assert venv.env_method("scaled", 2, add=1) == [9, 9, 9]
    assert [f(3) for f in venv.get_attr("scaled")] == [12, 12, 12]
    np.testing.assert_array_equal(venv.reset(), [4, 4, 4])
    with pytest.raises(NotImplementedError, match="every env at once"):
        venv.env_method("scaled", 2, indices=[0])
    with pytest.raises(NotImplementedError, match="every env at once"):
        venv.set_attr("difficulty", 1, indices=[0])
    venv.close()


def test_seed_reproduces_reset():
    venv = SB3VecEnv("CartPole-v1", num_envs=2)
    venv.seed(7)
    a = venv.reset().copy()
    venv.reset()
    venv.seed(7)
    b = venv.reset()
    np.testing.assert_array_equal(a, b)
    venv.close()


def test_terminal_observation_matches_next_step_pool():
    """The terminal observation SB3 sees is the episode's real last observation:
    the one a next_step pool with the same seed returns on its done step."""
    n = 4
    venv = SB3VecEnv("CartPole-v1", num_envs=n, seed=11)
    ref = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=n, seed=11)
    obs = venv.reset()
    ref_obs, _ = ref.reset()
    np.testing.assert_array_equal(obs, ref_obs)
    rng = np.random.default_rng(0)
    first_done = np.zeros(n, bool)
    for _ in range(200):
        act = rng.integers(0, 2, n)
        obs, rew, dones, infos = venv.step(act)
        ref_obs, ref_rew, ref_term, ref_trunc, _ = ref.step(act)
        assert isinstance(infos, list) and len(infos) == n and all(isinstance(i, dict) for i in infos)
        assert rew.dtype == np.float32 and dones.dtype == np.bool_
        for i in range(n):
            if first_done[i]:
                continue
            assert dones[i] == (ref_term[i] or ref_trunc[i])
            assert rew[i] == ref_rew[i]
            if dones[i]:
                np.testing.assert_array_equal(infos[i]["terminal_observation"], ref_obs[i])
                assert infos[i]["TimeLimit.truncated"] is False
                assert infos[i]["elapsed_step"] > 0  # the finished episode's info
                assert obs[i].shape == (4,) and not np.array_equal(obs[i], ref_obs[i])  # already reset
                first_done[i] = True
            else:
                assert "terminal_observation" not in infos[i]
                np.testing.assert_array_equal(obs[i], ref_obs[i])
        if first_done.all():
            break
    assert first_done.all()
    venv.close()
    ref.close()


def test_truncation_sets_timelimit_flag():
    venv = SB3VecEnv("Pendulum-v1", num_envs=2, seed=0, max_episode_steps=5)
    venv.reset()
    for t in range(1, 11):
        _, _, dones, infos = venv.step(np.zeros((2, 1), np.float32))
        if t % 5 == 0:
            assert dones.all()
            for info in infos:
                assert info["TimeLimit.truncated"] is True
                assert info["terminal_observation"].shape == (3,)
                assert info["elapsed_step"] == 5
        else:
            assert not dones.any()
            assert all("TimeLimit.truncated" not in info for info in infos)
    venv.close()


def test_wraps_an_existing_pool_and_rejects_next_step():
    pool = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2, autoreset_mode="same_step")
    venv = SB3VecEnv(pool)
    assert venv.reset().shape == (2, 4)
    venv.close()
    pool = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2)
    with pytest.raises(ValueError, match="same_step"):
        SB3VecEnv(pool)
    pool.close()
    with pytest.raises(ValueError, match="same_step"):
        SB3VecEnv("CartPole-v1", num_envs=2, autoreset_mode="next_step")


@pytest.mark.parametrize("task_id", ["CartPole-v1", "Pendulum-v1"])
def test_ppo_trains_a_short_budget(task_id):
    venv = VecMonitor(SB3VecEnv(task_id, num_envs=4, seed=0))
    model = PPO("MlpPolicy", venv, n_steps=128, batch_size=128, n_epochs=2, seed=0, device="cpu")
    model.learn(total_timesteps=1024)
    assert model.num_timesteps >= 1024
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw episodes end through the adapter
    obs = venv.reset()
    action, _ = model.predict(obs, deterministic=True)
    assert action.shape[0] == 4
    venv.close()


@pytest.mark.slow
def test_ppo_learns_cartpole():
    """SB3 PPO (default hyperparameters apart from n_steps) on 8 envs, 30k steps."""
    venv = VecMonitor(SB3VecEnv("CartPole-v1", num_envs=8, seed=0))
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=128, seed=0, device="cpu")
    model.learn(total_timesteps=30_000)
    returns = [ep["r"] for ep in model.ep_info_buffer]
    print(f"SB3 PPO CartPole-v1 30k steps: mean return of last {len(returns)} episodes = {np.mean(returns):.1f}")
    assert np.mean(returns) > 150
    venv.close()


@pytest.mark.skipif("Breakout-v5" not in envpool.list_all_envs(), reason="no Atari tasks in this build")
def test_ppo_cnn_policy_on_atari_short_budget():
    """Channel-first uint8 frames go straight to SB3's CnnPolicy (no VecTransposeImage)."""
    venv = VecMonitor(SB3VecEnv("Breakout-v5", num_envs=2, seed=0, episodic_life=True, reward_clip=True))
    assert venv.observation_space.shape == (4, 84, 84)
    model = PPO("CnnPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    assert model.get_env() is venv  # SB3 took the frames as they are: no VecTransposeImage around them
    model.learn(total_timesteps=64)
    assert model.num_timesteps >= 64
    obs, _, dones, infos = venv.step(np.zeros(2, dtype=np.int64))
    assert obs.shape == (2, 4, 84, 84) and obs.dtype == np.uint8
    assert {"lives", "reward", "terminated", "env_id"} <= set(infos[0])
    venv.close()


def test_vec_normalize_and_frame_stack_wrappers():
    """SB3's own VecEnv wrappers stack on the adapter (they rewrite terminal_observation)."""
    from stable_baselines3.common.vec_env import VecFrameStack, VecNormalize

    venv = VecNormalize(
        VecFrameStack(VecMonitor(SB3VecEnv("Pendulum-v1", num_envs=2, seed=1, max_episode_steps=10)), 2)
    )
    obs = venv.reset()
    assert obs.shape == (2, 6)
    for _ in range(1, 11):
        obs, reward, dones, infos = venv.step(np.zeros((2, 1), np.float32))
    assert dones.all() and all(info["terminal_observation"].shape == (6,) for info in infos)
    assert all("episode" in info and info["episode"]["l"] == 10 for info in infos)
    venv.close()

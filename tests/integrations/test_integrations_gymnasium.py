"""gymnasium: the vector wrappers and ``gymnasium.vector`` utilities on envpool pools,
in both autoreset modes, checked against counts made from the raw step outputs."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate
from gymnasium.wrappers import vector as vw
from gymnasium.wrappers.transform_observation import TransformObservation as SingleTransformObservation

import envpool

MODES = ["next_step", "same_step"]
N = 4


def make(task_id="CartPole-v1", mode="next_step", **kw):
    return envpool.make(task_id, env_type="gymnasium", num_envs=N, seed=5, autoreset_mode=mode, **kw)


class EpisodeCounter:
    """Counts episode returns and lengths from raw step outputs, knowing the
    autoreset mode: with next_step, the step after a done is a reset step
    (its action ignored, reward 0) that belongs to no episode."""

    def __init__(self, n: int, mode: str) -> None:
        self.mode = mode
        self.ret = np.zeros(n)
        self.len = np.zeros(n, dtype=int)
        self.resetting = np.zeros(n, dtype=bool)
        self.episodes: list[tuple[int, float, int]] = []  # (env, return, length) in step order

    def step(self, reward, terminated, truncated) -> np.ndarray:
        done = terminated | truncated
        live = ~self.resetting
        if self.mode == "next_step":
            assert (reward[self.resetting] == 0).all()
            assert not done[self.resetting].any()
        self.ret[live] += reward[live]
        self.len[live] += 1
        for i in np.flatnonzero(done):
            self.episodes.append((int(i), float(self.ret[i]), int(self.len[i])))
        self.ret[done | self.resetting] = 0
        self.len[done | self.resetting] = 0
        self.resetting = done.copy() if self.mode == "next_step" else np.zeros_like(done)
        return done


@pytest.mark.parametrize("mode", MODES)
def test_pool_is_a_vector_env(mode):
    # gymnasium's strict batched spaces are the batched_spaces=True option (EnvPool's
    # single-env spaces are the default: tests/api/test_gymnasium.py)
    envs = make(mode=mode, batched_spaces=True)
    assert isinstance(envs, VectorEnv)
    assert (
        envs.metadata["autoreset_mode"]
        == {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}[mode]
    )
    assert envs.observation_space == batch_space(envs.single_observation_space, N)
    assert envs.action_space == batch_space(envs.single_action_space, N)
    envs.close()


@pytest.mark.parametrize("task_id", ["CartPole-v1", "Pendulum-v1"])
def test_vector_utils_round_trip(task_id):
    envs = make(task_id, batched_spaces=True)
    obs, _ = envs.reset(seed=0)
    assert obs in envs.observation_space
    rows = list(iterate(envs.observation_space, obs))
    assert len(rows) == N and all(r in envs.single_observation_space for r in rows)
    out = create_empty_array(envs.single_observation_space, N)
    np.testing.assert_array_equal(concatenate(envs.single_observation_space, rows, out), obs)
    envs.action_space.seed(0)
    actions = envs.action_space.sample()
    assert all(a in envs.single_action_space for a in iterate(envs.action_space, actions))
    obs, reward, terminated, truncated, info = envs.step(actions)
    assert obs.shape == envs.observation_space.shape and reward.shape == (N,)
    assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_
    envs.close()


@pytest.mark.parametrize("mode", MODES)
def test_record_episode_statistics_matches_independent_count(mode):
    # random CartPole episodes end by termination; max_episode_steps=18 adds truncations
    envs = vw.RecordEpisodeStatistics(make(mode=mode, max_episode_steps=18), buffer_length=1000)
    counter = EpisodeCounter(N, mode)
    rng = np.random.default_rng(0)
    envs.reset(seed=5)
    recorded: list[tuple[int, float, int]] = []
    n_trunc = n_term = 0
    for _ in range(300):
        obs, reward, terminated, truncated, info = envs.step(rng.integers(0, 2, N))
        done = counter.step(reward, terminated, truncated)
        n_trunc += int((truncated & ~terminated).sum())
        n_term += int(terminated.sum())
        if done.any():
            assert (info["_episode"] == done).all()
            for i in np.flatnonzero(done):
                recorded.append((int(i), float(info["episode"]["r"][i]), int(info["episode"]["l"][i])))
            # the engine's own step counter agrees on the length
            elapsed = info["final_info"]["elapsed_step"] if mode == "same_step" else info["elapsed_step"]
            np.testing.assert_array_equal(elapsed[done], info["episode"]["l"][done])
        else:
            assert "episode" not in info
    assert n_trunc > 0 and n_term > 0
    assert len(recorded) > 40
    assert recorded == counter.episodes
    assert list(envs.return_queue) == [r for _, r, _ in counter.episodes]
    assert list(envs.length_queue) == [n for _, _, n in counter.episodes]
    assert envs.episode_count == len(counter.episodes)
    envs.close()


def test_same_step_final_obs_is_the_next_step_done_obs():
    """Both modes see the same episodes; same_step's final_obs is next_step's done obs."""
    a, b = make(mode="same_step"), make(mode="next_step")
    a.reset(seed=1)
    b.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(60):
        act = rng.integers(0, 2, N)
        _, ra, ta, tra, ia = a.step(act)
        ob, rb, tb, trb, _ = b.step(act)
        if (ta | tra).any():
            i = int(np.flatnonzero(ta | tra)[0])
            assert tb[i] == ta[i] and ra[i] == rb[i]
            assert ia["_final_obs"][i]
            np.testing.assert_array_equal(ia["final_obs"][i], ob[i])
            break
    else:
        pytest.fail("no episode ended")
    a.close()
    b.close()


class RunningMeanStd:
    """The parallel mean/variance update (Chan et al.), written out independently."""

    def __init__(self, shape=(), epsilon=1e-4):
        self.mean = np.zeros(shape)
        self.var = np.ones(shape)
        self.count = epsilon

    def update(self, x):
        bm, bv, bc = x.mean(0), x.var(0), x.shape[0]
        delta, tot = bm - self.mean, self.count + bc
        self.mean = self.mean + delta * bc / tot
        self.var = (self.var * self.count + bv * bc + delta**2 * self.count * bc / tot) / tot
        self.count = tot


def test_normalize_observation_next_step():
    envs = vw.NormalizeObservation(make("Pendulum-v1"))
    raw = make("Pendulum-v1")
    rms = RunningMeanStd((3,))
    obs, _ = envs.reset(seed=2)
    raw_obs, _ = raw.reset(seed=2)
    rms.update(raw_obs)
    np.testing.assert_allclose(obs, (raw_obs - rms.mean) / np.sqrt(rms.var + 1e-8), rtol=1e-4, atol=1e-5)
    rng = np.random.default_rng(2)
    for _ in range(50):
        act = rng.uniform(-2, 2, (N, 1)).astype(np.float32)
        obs, *_ = envs.step(act)
        raw_obs, *_ = raw.step(act)
        rms.update(raw_obs)
        np.testing.assert_allclose(obs, (raw_obs - rms.mean) / np.sqrt(rms.var + 1e-8), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(envs.obs_rms.mean, rms.mean, rtol=1e-4, atol=1e-6)
    envs.close()
    raw.close()


def _observation_wrappers():
    space = spaces.Box(-np.inf, np.inf, (4,), np.float32)
    return {
        "NormalizeObservation": vw.NormalizeObservation,
        "TransformObservation": lambda e: vw.TransformObservation(e, lambda o: o),
        "VectorizeTransformObservation": lambda e: vw.VectorizeTransformObservation(
            e, wrapper=SingleTransformObservation, func=lambda o: o, observation_space=space
        ),
    }


@pytest.mark.parametrize("name", list(_observation_wrappers()))
def test_observation_wrappers_refuse_same_step_as_for_gymnasium_own_vector_envs(name):
    """gymnasium's VectorObservationWrapper (base of every vector observation
    wrapper) accepts only NEXT_STEP/DISABLED autoreset. That is gymnasium's
    rule: it refuses its own SyncVectorEnv(autoreset_mode=SAME_STEP) the same
    way, so observation wrappers are used with our default next_step mode."""
    import gymnasium

    wrap = _observation_wrappers()[name]
    ours = make(mode="same_step")
    theirs = gymnasium.make_vec(
        "CartPole-v1", num_envs=2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}
    )
    for envs in (ours, theirs):
        with pytest.raises(ValueError, match="NEXT_STEP"):
            wrap(envs)
        envs.close()


def test_transform_observation_next_step():
    envs = vw.TransformObservation(make(), lambda o: 2 * o)
    raw = make()
    obs, _ = envs.reset(seed=3)
    raw_obs, _ = raw.reset(seed=3)
    np.testing.assert_array_equal(obs, 2 * raw_obs)
    for _ in range(30):
        act = np.ones(N, dtype=np.int64)
        obs, *_ = envs.step(act)
        raw_obs, *_ = raw.step(act)
        np.testing.assert_array_equal(obs, 2 * raw_obs)
    envs.close()
    raw.close()


@pytest.mark.parametrize("mode", MODES)
def test_normalize_reward(mode):
    envs = vw.NormalizeReward(make(mode=mode, max_episode_steps=20), gamma=0.9)
    raw = make(mode=mode, max_episode_steps=20)
    envs.reset(seed=6)
    raw.reset(seed=6)
    rng = np.random.default_rng(6)
    # independent discounted-return accumulator, skipping next_step's reset steps
    acc = np.zeros(N)
    rms = RunningMeanStd(())
    resetting = np.zeros(N, bool)
    for _ in range(80):
        act = rng.integers(0, 2, N)
        _, reward, term, trunc, _ = envs.step(act)
        _, raw_reward, raw_term, raw_trunc, _ = raw.step(act)
        np.testing.assert_array_equal(term, raw_term)
        active = ~resetting
        acc[active] = acc[active] * 0.9 * (1 - raw_term[active]) + raw_reward[active]
        if active.any():
            rms.update(acc[active])
        done = raw_term | raw_trunc
        if mode == "same_step":
            acc[done] = 0
            resetting[:] = False
        else:
            resetting = done
        np.testing.assert_allclose(reward, raw_reward / np.sqrt(rms.var + 1e-8), rtol=1e-5)
    np.testing.assert_allclose(envs.return_rms.var, rms.var, rtol=1e-6)
    envs.close()
    raw.close()


@pytest.mark.parametrize("mode", MODES)
def test_clip_action(mode):
    envs = vw.ClipAction(make("Pendulum-v1", mode=mode))
    ref = make("Pendulum-v1", mode=mode)
    obs, _ = envs.reset(seed=7)
    ref_obs, _ = ref.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(20):
        act = rng.uniform(-10, 10, (N, 1)).astype(np.float32)
        obs, reward, *_ = envs.step(act)
        ref_obs, ref_reward, *_ = ref.step(np.clip(act, -2.0, 2.0))
        np.testing.assert_array_equal(obs, ref_obs)
        np.testing.assert_array_equal(reward, ref_reward)
    envs.close()
    ref.close()


@pytest.mark.parametrize("mode", MODES)
def test_wrapper_stack(mode):
    """The usual continuous-control stack, with episode statistics outermost-but-one."""
    envs = make("Pendulum-v1", mode=mode, max_episode_steps=25)
    envs = vw.RecordEpisodeStatistics(envs)
    envs = vw.ClipAction(envs)
    if mode == "next_step":
        envs = vw.NormalizeObservation(envs)
    envs = vw.NormalizeReward(envs)
    envs.reset(seed=8)
    episodes = 0
    for _ in range(60):
        obs, reward, term, trunc, info = envs.step(np.full((N, 1), 3.0, np.float32))
        assert np.isfinite(obs).all() and np.isfinite(reward).all()
        if "episode" in info:
            episodes += int(info["_episode"].sum())
            assert (info["episode"]["l"][info["_episode"]] == 25).all()
    assert episodes == 2 * N
    envs.close()


ATARI = "Breakout-v5" in envpool.list_all_envs()


@pytest.mark.skipif(not ATARI, reason="no Atari tasks in this build")
@pytest.mark.parametrize("mode", MODES)
def test_atari_episode_statistics_are_game_scores(mode):
    """Whole games (episodic_life=False) with raw scores (reward_clip=False): the
    wrapper's returns match our count, and a terminated game has no lives left."""
    envs = envpool.make(
        "Breakout-v5", env_type="gymnasium", num_envs=N, seed=3, autoreset_mode=mode,
        episodic_life=False, reward_clip=False, max_episode_steps=150,
    )  # fmt: skip
    envs = vw.RecordEpisodeStatistics(envs)
    counter = EpisodeCounter(N, mode)
    rng = np.random.default_rng(3)
    envs.reset(seed=3)
    recorded = []
    n_term = 0
    for _ in range(330):
        _, reward, terminated, truncated, info = envs.step(rng.integers(0, 4, N))
        np.testing.assert_array_equal(reward, info["reward"])
        done = counter.step(reward, terminated, truncated)
        if done.any():
            last_info = info["final_info"] if mode == "same_step" else info
            for i in np.flatnonzero(done):
                recorded.append((int(i), float(info["episode"]["r"][i]), int(info["episode"]["l"][i])))
                if terminated[i]:
                    n_term += 1
                    assert last_info["lives"][i] == 0 and last_info["terminated"][i]
    assert recorded == counter.episodes and len(recorded) >= N
    assert n_term > 0
    envs.close()


@pytest.mark.skipif(not ATARI, reason="no Atari tasks in this build")
def test_atari_reward_clip_and_episodic_life_flags():
    envs = envpool.make("Breakout-v5", env_type="gymnasium", num_envs=N, seed=4, episodic_life=True, reward_clip=True)
    envs.reset(seed=4)
    rng = np.random.default_rng(4)
    life_losses = 0
    for _ in range(200):
        _, reward, terminated, truncated, info = envs.step(rng.integers(0, 4, N))
        np.testing.assert_array_equal(reward, np.sign(info["reward"]))
        # a lost life ends the training episode; info["terminated"] is the game's end
        assert (terminated >= info["terminated"]).all()
        life_losses += int((terminated & ~info["terminated"]).sum())
    assert life_losses > 0
    envs.close()

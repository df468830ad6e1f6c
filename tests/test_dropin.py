"""EnvPool 1.2 drop-in behaviour (issue 17), written from EnvPool's documented API.

Each test states the EnvPool behaviour it checks; the strict gymnasium behaviour
stays available behind an option (batched_spaces=True, ...).
"""

from __future__ import annotations

import collections

import dm_env
import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envpool
import envpool.python.api
import envpool.python.envpool
import envpool.python.protocol

N = 4


def _make(env_type: str, task: str = "CartPole-v1", **config):
    return envpool.make(task, env_type=env_type, num_envs=config.pop("num_envs", N), **config)


# -- 1. config keys EnvPool accepts ------------------------------------------------


def test_envpool_config_keys_are_accepted_and_kept() -> None:
    spec = envpool.make_spec("CartPole-v1", gym_reset_return_info=True, max_num_players=1, base_path="/tmp")
    assert spec.config["gym_reset_return_info"] is True
    assert spec.config["max_num_players"] == 1
    assert spec.config["base_path"] == "/tmp"
    default = envpool.make_spec("CartPole-v1").config
    assert default["gym_reset_return_info"] is True  # EnvPool 1.2's default
    assert default["max_num_players"] == 1
    assert isinstance(default["base_path"], str)
    env = _make("gym", gym_reset_return_info=True, max_num_players=1)
    assert env.config["gym_reset_return_info"] is True


def test_envpool_config_keys_are_validated() -> None:
    with pytest.raises(ValueError, match="max_num_players"):
        envpool.make_spec("CartPole-v1", max_num_players=2)
    with pytest.raises(TypeError, match="gym_reset_return_info"):
        envpool.make_spec("CartPole-v1", gym_reset_return_info=1)
    with pytest.raises(TypeError, match="unknown config key"):
        envpool.make_spec("CartPole-v1", no_such_key=1)


def test_gym_reset_return_info() -> None:
    env = _make("gym")  # default True (gym >= 0.26 or no gym installed): (obs, info)
    obs, info = env.reset()
    assert obs.shape == (N, 4) and list(info["env_id"]) == list(range(N))
    env = _make("gym", gym_reset_return_info=False)  # EnvPool's old behaviour: obs only
    obs = env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (N, 4)
    with pytest.raises(ValueError, match="gym_reset_return_info"):
        _make("gymnasium", gym_reset_return_info=False)


# -- 2. gymnasium pools: positional env ids ---------------------------------------


def test_gymnasium_env_id_reset_and_step_return_those_rows() -> None:
    env = _make("gymnasium", seed=3)
    ref = _make("gymnasium", seed=3)
    ref_obs, _ = ref.reset()
    obs, info = env.reset(np.array([2, 0]))
    assert obs.shape == (2, 4)
    assert list(info["env_id"]) == [2, 0]
    np.testing.assert_array_equal(obs, ref_obs[[2, 0]])
    obs, rew, term, trunc, info = env.step(np.array([1, 0], np.int32), np.array([2, 0]))
    assert obs.shape == (2, 4) and rew.shape == (2,) and list(info["env_id"]) == [2, 0]
    ref_step = ref.step(np.array([0, 0, 1, 0], np.int32))[0]
    np.testing.assert_array_equal(obs, ref_step[[2, 0]])
    obs, info = env.reset(env_id=[1])  # keyword too, as Tianshou calls it
    assert obs.shape == (1, 4) and list(info["env_id"]) == [1]


def test_gymnasium_reset_mask_still_returns_full_batch() -> None:
    env = _make("gymnasium")
    env.reset()
    mask = np.array([True, False, False, True])
    obs, info = env.reset(options={"reset_mask": mask})
    assert obs.shape == (N, 4)
    np.testing.assert_array_equal(info["_env_id"], mask)
    with pytest.raises(ValueError, match="not both"):
        env.reset([0], options={"reset_mask": mask})


# -- 3. spaces --------------------------------------------------------------------


def test_gymnasium_spaces_single_by_default_batched_as_option() -> None:
    env = _make("gymnasium")
    assert env.observation_space.shape == (4,)
    assert env.action_space == gymnasium.spaces.Discrete(2)
    assert env.single_action_space == env.action_space
    assert env.single_observation_space == env.observation_space
    assert env.action_space.sample().shape == ()
    batched = _make("gymnasium", batched_spaces=True)
    assert batched.observation_space.shape == (N, 4)
    assert batched.action_space == gymnasium.spaces.MultiDiscrete([2] * N)
    assert batched.single_action_space == gymnasium.spaces.Discrete(2)


def test_gym_pool_spec_spaces_are_the_pools() -> None:
    env = _make("gym")
    assert env.spec.observation_space is env.observation_space
    assert env.spec.action_space is env.action_space
    assert type(env.spec.action_space) is type(env.action_space)


# -- 4. gym pool is a gymnasium.Env; empty env ids -----------------------------


def test_gym_pool_is_a_gymnasium_env_and_wraps() -> None:
    env = _make("gym")
    assert isinstance(env, gymnasium.Env)
    wrapped = gymnasium.Wrapper(env)
    obs, info = wrapped.reset()
    assert obs.shape == (N, 4)
    out = wrapped.step(np.zeros(N, np.int32))
    assert out[0].shape == (N, 4)


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


# -- 5. reward dtype -----------------------------------------------------------------


@pytest.mark.parametrize("task", ["CartPole-v1", "Pendulum-v1", "Pong-v5", "HalfCheetah-v4"])
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


# -- 6. spec helpers, dm seed, Atari info, dm dict actions, dm bounds --------------


def test_spec_config_attribute_access() -> None:
    spec = envpool.make_spec("CartPole-v1", num_envs=3)
    assert spec.config.num_envs == 3 == spec.config["num_envs"]
    assert spec.config.max_episode_steps == 500
    env = _make("gymnasium")
    assert env.spec.config.num_envs == N == env.config["num_envs"]
    with pytest.raises(AttributeError):
        _ = spec.config.no_such_key


def test_state_and_action_array_spec() -> None:
    spec = envpool.make_spec("CartPole-v1")
    state = spec.state_array_spec
    for key in (
        "info:env_id",
        "info:players.env_id",
        "elapsed_step",
        "done",
        "reward",
        "discount",
        "step_type",
        "trunc",
        "obs",
    ):
        assert key in state, key
    assert state["obs"].shape == [4] and state["obs"].dtype == np.float32
    assert isinstance(state["obs"], envpool.python.protocol.ArraySpec)
    action = spec.action_array_spec
    assert list(action) == ["env_id", "players.env_id", "action"]
    assert action["action"].dtype == np.int32 and action["action"].minimum == 0 and action["action"].maximum == 1
    assert envpool.make_spec("Pong-v5").state_array_spec["info:lives"].dtype == np.int32


def test_observation_spec_and_action_spec_helpers() -> None:
    spec = envpool.make_spec("CartPole-v1")
    obs_spec = spec.observation_spec()
    assert isinstance(obs_spec, tuple) and type(obs_spec).__name__ == "State"
    assert obs_spec._fields[:3] == ("env_id", "players", "obs")
    assert obs_spec.players.env_id.dtype == np.int32
    assert isinstance(obs_spec.obs, dm_env.specs.BoundedArray)
    act = spec.action_spec()
    assert isinstance(act, dm_env.specs.DiscreteArray) and act.num_values == 2
    cont = envpool.make_spec("Pendulum-v1").action_spec()
    assert isinstance(cont, dm_env.specs.BoundedArray) and cont.shape == (1,)
    np.testing.assert_allclose(cont.minimum, -2.0)
    # the dm pool gives the same structure
    dm = _make("dm")
    assert dm.observation_spec()._fields == obs_spec._fields
    ts = dm.reset()
    assert ts.observation._fields == obs_spec._fields


def test_dm_bounded_array_bounds_as_envpool() -> None:
    # EnvPool gives BoundedArray even where a bound is infinite (CartPole's velocities).
    obs = _make("dm").observation_spec().obs
    assert isinstance(obs, dm_env.specs.BoundedArray)
    assert np.isinf(obs.minimum[1]) and obs.minimum[0] == np.float32(-4.8)
    env_id = _make("dm").observation_spec().env_id
    assert env_id.minimum == np.iinfo(np.int32).min and env_id.maximum == np.iinfo(np.int32).max


def test_dm_seed_reseeds_at_next_reset() -> None:
    a = _make("dm", seed=7)
    b = _make("dm", seed=0)
    b.seed(7)
    np.testing.assert_array_equal(a.reset().observation.obs, b.reset().observation.obs)


def test_dm_dict_actions() -> None:
    env = _make("dm")
    ref = _make("dm")
    env.reset(), ref.reset()
    act = np.array([1, 0, 1, 1], np.int32)
    ts = env.step(
        {"action": act, "env_id": np.arange(N, dtype=np.int32), "players.env_id": np.arange(N, dtype=np.int32)}
    )
    np.testing.assert_array_equal(ts.observation.obs, ref.step(act).observation.obs)
    ts = env.step({"action": act[:2], "env_id": np.array([3, 1], np.int32)})
    assert list(ts.observation.env_id) == [3, 1]


@pytest.mark.parametrize("env_type", ["gym", "gymnasium"])
def test_players_env_id_in_info(env_type: str) -> None:
    env = _make(env_type, "Pong-v5", num_envs=2)
    obs, info = env.reset()
    np.testing.assert_array_equal(info["players"]["env_id"], info["env_id"])
    info = env.step(np.zeros(2, np.int32))[-1]
    np.testing.assert_array_equal(info["players"]["env_id"], [0, 1])


def test_atari_ram_in_info() -> None:
    import ale_py

    env = _make("gymnasium", "Breakout-v5", num_envs=2, noop_max=0, use_fire_reset=False)
    _, info = env.reset()
    assert info["ram"].shape == (2, 128) and info["ram"].dtype == np.uint8
    ale = ale_py.ALEInterface()
    ale.loadROM(ale_py.roms.get_rom_path("breakout"))
    ale.reset_game()
    ram0 = ale.getRAM()
    # Without no-ops or FIRE the reset RAM is the game's reset RAM, bar RNG-dependent bytes.
    assert np.mean(info["ram"][0] == ram0) > 0.9
    rams = [info["ram"].copy()]
    for _ in range(20):
        rams.append(env.step(np.ones(2, np.int32))[-1]["ram"].copy())
    assert not all(np.array_equal(rams[0], r) for r in rams[1:])
    off = _make("gymnasium", "Breakout-v5", num_envs=2, info_ram=False)
    assert "ram" not in off.reset()[1]


# -- 7. EnvPool module paths --------------------------------------------------------


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
def test_envpool_mixin_isinstance(env_type: str) -> None:
    env = _make(env_type)
    assert isinstance(env, envpool.python.envpool.EnvPoolMixin)
    assert isinstance(env, envpool.python.protocol.EnvPool)
    assert isinstance(envpool.make_spec("CartPole-v1"), envpool.python.protocol.EnvSpec)
    assert envpool.python.api.make is not None
    assert len(env) == N and not env.is_async
    np.testing.assert_array_equal(env.all_env_ids, np.arange(N, dtype=np.int32))


# -- 8. Atari episodic life ---------------------------------------------------------


def test_episodic_life_ends_only_while_lives_remain() -> None:
    # EnvPool: a life loss ends an episode only when 0 < lives < previous lives;
    # the step where lives reach 0 ends it only if the game is over.
    env = _make("gymnasium", "Breakout-v5", num_envs=2, episodic_life=True, seed=1)
    env.reset()
    prev = None
    life_ends = 0
    game_overs = 0
    for _ in range(3000):
        obs, rew, term, trunc, info = env.step(np.random.default_rng(0).integers(0, 4, 2).astype(np.int32))
        lives = info["lives"]
        for i in range(2):
            if term[i] and not info["terminated"][i]:
                life_ends += 1
                assert lives[i] > 0
            if info["terminated"][i]:
                game_overs += 1
        prev = lives
        if game_overs >= 2:
            break
    assert prev is not None and life_ends > 0 and game_overs > 0


def test_episodic_life_plays_on_when_lives_reach_zero() -> None:
    # WizardOfWor's last life is lives == 0: the step where lives drop to 0 is a life
    # loss without a game over. EnvPool (0 < lives < previous lives) does not end the
    # episode there; the old rule (lives < previous lives) did. Checked step for step
    # against EnvPool 1.2.5 with these settings (terminated, lives, game overs, rewards).
    env = _make(
        "gymnasium", "WizardOfWor-v5", num_envs=2, seed=1, episodic_life=True, noop_max=1, repeat_action_probability=0.0
    )
    _, info = env.reset()
    prev = np.array(info["lives"])
    rng = np.random.default_rng(0)
    to_zero = 0
    life_ends = 0
    for _ in range(2000):
        _, _, term, trunc, info = env.step(rng.integers(0, env.action_space.n, 2).astype(np.int32))
        lives, game_over = info["lives"], np.asarray(info["terminated"], dtype=bool)
        np.testing.assert_array_equal(term, game_over | ((0 < lives) & (lives < prev)))
        assert not trunc.any()
        to_zero += int(np.sum((lives == 0) & (prev > 0) & ~game_over))
        life_ends += int(np.sum(term & ~game_over))
        prev = np.array(lives)
        if to_zero >= 2:
            break
    assert to_zero >= 2 and life_ends > 0  # the case the old rule got wrong did happen


# -- 9. reset after close ------------------------------------------------------------


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


# -- 10. MuJoCo v2/v3 ids and frame_stack ---------------------------------------------


def test_legacy_mujoco_ids_run_the_v4_dynamics() -> None:
    ids = envpool.list_all_envs()
    for task in (
        "Ant-v3",
        "HalfCheetah-v3",
        "Hopper-v3",
        "Humanoid-v3",
        "HumanoidStandup-v2",
        "InvertedDoublePendulum-v2",
        "InvertedPendulum-v2",
        "Pusher-v2",
        "Reacher-v2",
        "Swimmer-v3",
        "Walker2d-v3",
    ):
        assert task in ids
    # Ant-v3 observes the contact forces (gym's v3): 27 + 84
    assert envpool.make_spec("Ant-v3").observation_space.shape == (111,)
    a = _make("gymnasium", "Ant-v3", num_envs=2, seed=1)
    b = _make("gymnasium", "Ant-v4", num_envs=2, seed=1, use_contact_forces=True)
    np.testing.assert_array_equal(a.reset()[0], b.reset()[0])
    act = np.full((2, 8), 0.3, np.float32)
    ra, rb = a.step(act), b.step(act)
    np.testing.assert_array_equal(ra[0], rb[0])
    np.testing.assert_array_equal(ra[1], rb[1])
    c = _make("gymnasium", "HalfCheetah-v3", num_envs=2, seed=1)
    d = _make("gymnasium", "HalfCheetah-v4", num_envs=2, seed=1)
    np.testing.assert_array_equal(c.reset()[0], d.reset()[0])


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_mujoco_frame_stack(mode: str) -> None:
    k = 3
    env = _make("gymnasium", "InvertedPendulum-v4", num_envs=2, frame_stack=k, seed=2, autoreset_mode=mode)
    ref = _make("gymnasium", "InvertedPendulum-v4", num_envs=2, seed=2, autoreset_mode=mode)
    assert env.observation_space.shape == (k, 4)
    assert envpool.make_spec("InvertedPendulum-v4", frame_stack=k).observation_space.shape == (k, 4)
    obs, _ = env.reset()
    r, _ = ref.reset()
    history = collections.deque([r] * k, maxlen=k)
    np.testing.assert_array_equal(obs, np.stack(history, 1))
    rng = np.random.default_rng(0)
    resets = 0
    for _ in range(60):
        a = rng.uniform(-3, 3, (2, 1)).astype(np.float32)
        obs, _, term, trunc, info = env.step(a)
        r, _, rterm, rtrunc, rinfo = ref.step(a)
        if mode == "same_step" and (rterm | rtrunc).any():
            i = int(np.flatnonzero(rterm | rtrunc)[0])
            expect_final = np.stack([*list(np.stack(history, 1)[i][1:]), rinfo["final_obs"][i]])
            np.testing.assert_array_equal(info["final_obs"][i], expect_final)
        fresh = rinfo["elapsed_step"] == 0
        resets += int(fresh.sum())
        history.append(r)
        stacked = np.stack(history, 1)
        stacked[fresh] = r[fresh][:, None]
        history = collections.deque(list(np.moveaxis(stacked, 1, 0)), maxlen=k)
        np.testing.assert_array_equal(obs, stacked)
    assert resets > 0
    with pytest.raises(TypeError):
        envpool.make_spec("CartPole-v1", frame_stack=2)  # MuJoCo tasks only, as EnvPool


# -- 10b. differential check against EnvPool 1.2.5 ----------------------------------------


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
def test_config_batch_size_is_resolved(env_type: str) -> None:
    # EnvPool's config reports batch_size = num_envs in sync mode (batch_size=0 given or not).
    assert envpool.make_spec("CartPole-v1", num_envs=3).config["batch_size"] == 3
    assert envpool.make_spec("CartPole-v1", num_envs=3, batch_size=0).config.batch_size == 3
    env = _make(env_type)
    assert env.config["batch_size"] == N and not env.is_async
    env = _make(env_type, batch_size=2)
    assert env.config["batch_size"] == 2 and env.is_async


@pytest.mark.parametrize("env_type", ["gym", "gymnasium"])
def test_gym_and_gymnasium_pools_are_env_and_vector_env(env_type: str) -> None:
    # EnvPool 1.2's gym/gymnasium pool is both a gymnasium.vector.VectorEnv and a gymnasium.Env.
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = _make(env_type)
    assert isinstance(env, gymnasium.Env) and isinstance(env, gymnasium.vector.VectorEnv)
    assert env.single_observation_space == env.observation_space
    assert env.single_action_space == env.action_space
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    wrapped = gymnasium.Wrapper(env)
    assert wrapped.reset()[0].shape == (N, 4)
    assert wrapped.step(np.zeros(N, np.int32))[0].shape == (N, 4)
    stats = RecordEpisodeStatistics(env)
    stats.reset()
    assert stats.step(np.zeros(N, np.int32))[0].shape == (N, 4)
    # CleanRL's envpool scripts assign these themselves
    env.single_action_space = env.action_space
    env.single_observation_space = env.observation_space


def test_spec_config_namedtuple_helpers() -> None:
    # EnvPool's spec.config is a namedtuple: _fields, _asdict(), _replace().
    config = envpool.make_spec("CartPole-v1", num_envs=3).config
    assert config._fields[:3] == ("num_envs", "batch_size", "num_threads")
    assert config._asdict()["num_envs"] == 3
    changed = config._replace(num_envs=5)
    assert changed.num_envs == 5 and config.num_envs == 3
    with pytest.raises(ValueError):
        config._replace(no_such_key=1)


# -- 11. AutoresetMode members ----------------------------------------------------------


def test_autoreset_mode_accepts_gymnasium_enum() -> None:
    env = _make("gymnasium", autoreset_mode=AutoresetMode.SAME_STEP)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.config["autoreset_mode"] == "same_step"
    assert (
        envpool.make_spec("CartPole-v1", autoreset_mode=AutoresetMode.NEXT_STEP).config["autoreset_mode"] == "next_step"
    )
    with pytest.raises(ValueError):
        envpool.make_spec("CartPole-v1", autoreset_mode=AutoresetMode.DISABLED)


# -- Sample Factory's sf_examples/envpool calls (it pins gymnasium < 1.0) ---------------


class _ResetFix(gymnasium.Wrapper):
    """The calls Sample Factory's EnvPoolResetFixWrapper makes: reset the done envs
    with reset(ids) after every step (often with no ids), writing into obs."""

    def step(self, actions):
        obs, reward, terminated, truncated, info = self.env.step(actions)
        needs_reset = np.nonzero(terminated | truncated)[0]
        obs[needs_reset], _ = self.env.reset(needs_reset)
        return obs, reward, terminated, truncated, info

    def reset(self, **kwargs):
        kwargs.pop("seed", None)
        kwargs.pop("options", None)
        return self.env.reset(**kwargs)


@pytest.mark.parametrize(
    "task, kwargs",
    [
        ("Pong-v5", dict(reward_clip=True, episodic_life=True, frame_skip=4, max_episode_steps=100, seed=0)),
        ("HalfCheetah-v4", dict(batch_size=4, num_threads=2, thread_affinity_offset=-1, seed=0)),
    ],
)
def test_sample_factory_envpool_calls(task: str, kwargs: dict) -> None:
    env = envpool.make(task, env_type="gym", num_envs=4, **kwargs)
    env = _ResetFix(env)
    obs, infos = env.reset()
    assert obs.shape[0] == 4
    space = env.action_space
    episode_returns = np.zeros(4, np.float32)
    for _ in range(120):
        act = np.stack([space.sample() for _ in range(4)])
        obs, rew, term, trunc, infos = env.step(act)
        if task == "Pong-v5":
            episode_returns += infos["reward"]
        assert obs.shape[0] == 4


# -- the README's "Differences from EnvPool 1.2" table ----------------------------------


def test_differences_table_claims() -> None:
    env = _make("gymnasium")
    env.reset()
    with pytest.raises(TypeError):  # float actions on Discrete are refused
        env.step(np.zeros(N, np.float32))
    with pytest.raises(ValueError):  # out-of-range discrete actions too
        env.step(np.full(N, 2, np.int32))
    with pytest.raises(TypeError):  # seed is an int in make
        _make("gymnasium", seed=[1, 2, 3, 4])
    env.close()
    with pytest.raises(RuntimeError):  # step after close raises until reset()
        env.step(np.zeros(N, np.int32))
    env.reset()
    env.step(np.zeros(N, np.int32))
    before = np.array(env.reset()[0])
    obs, _ = env.reset(options={"reset_mask": np.zeros(N, bool)})  # all-False mask: a no-op
    np.testing.assert_array_equal(obs, before)
    assert envpool.make_spec("CartPole-v1").action_array_spec["action"].shape == []
    assert "elapsed_step" in _make("dm").observation_spec()._fields
    pong = _make("gymnasium", "Pong-v5", num_envs=1)
    assert pong.reset()[1]["reward"].dtype == np.float64
    # reset(seed=...) reseeds (EnvPool ignores it): same seed, same first obs
    a = _make("gymnasium", seed=0)
    b = _make("gymnasium", seed=9)
    np.testing.assert_array_equal(a.reset(seed=9)[0], b.reset()[0])


def test_differences_table_claims_from_the_envpool_125_check() -> None:
    # Rows added after a differential run against EnvPool 1.2.5.
    pong = _make("gymnasium", "Pong-v5", num_envs=1)
    assert pong.reset()[1]["terminated"].dtype == np.bool_  # EnvPool: int32
    hc = _make("gymnasium", "HalfCheetah-v4", num_envs=2)
    assert hc.action_space.dtype == np.float32  # EnvPool: float64, accepted here too
    hc.reset()
    assert hc.step(np.zeros((2, 6), np.float64))[0].shape == (2, 17)
    env = _make("gymnasium", seed=1)
    env.reset(options={"no_such_option": 1})  # ignored (EnvPool: ValueError)
    with pytest.raises(RuntimeError):  # recv() with nothing in flight (EnvPool: an empty batch)
        env.recv()
    gym_pool = _make("gym", gym_reset_return_info=False)  # EnvPool 1.2.5: ValueError
    assert isinstance(gym_pool.reset(), np.ndarray)
    async_env = _make("gymnasium", batch_size=2)
    async_env.async_reset()
    with pytest.raises(ValueError, match="in flight"):  # EnvPool: undefined
        async_env.send(np.zeros(1, np.int32), np.array([0]))
    assert envpool.make_spec("Pong-v5", noop_max=0).config["noop_max"] == 0  # EnvPool 1.2.5 crashes

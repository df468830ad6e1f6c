"""The spec: make_spec, its config (EnvPool 1.2's namedtuple), array specs and
the dm_env spec helpers, and the config keys EnvPool accepts."""

from __future__ import annotations

import dm_env
import gymnasium
import numpy as np
import pytest

import envpool
import envpool.python.protocol

N = 4


def _make(env_type: str, task: str = "CartPole-v1", **config):
    return envpool.make(task, env_type=env_type, num_envs=config.pop("num_envs", N), **config)


def test_make_spec() -> None:
    spec = envpool.make_spec("CartPole-v1", num_envs=3)
    assert spec.config["num_envs"] == 3
    assert spec.config["max_episode_steps"] == 500
    assert spec.observation_space.shape == (4,)
    assert spec.action_space == gymnasium.spaces.Discrete(2)


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


def test_gym_pool_spec_spaces_are_the_pools() -> None:
    env = _make("gym")
    assert env.spec.observation_space is env.observation_space
    assert env.spec.action_space is env.action_space
    assert type(env.spec.action_space) is type(env.action_space)


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
def test_gymnasium_spaces_under_envpools_names(env_type: str) -> None:
    """EnvPool 1.2's spec.gymnasium_observation_space / gymnasium_action_space: gymnasium
    spaces even where spec.observation_space is a gym one (gym pools, gym installed)."""
    spec = envpool.make("LunarLanderContinuous-v3", env_type=env_type, num_envs=1).spec
    ref = gymnasium.make("LunarLanderContinuous-v3")
    assert isinstance(spec.gymnasium_observation_space, gymnasium.spaces.Box)
    assert spec.gymnasium_observation_space == ref.observation_space
    assert spec.gymnasium_action_space == ref.action_space


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
def test_config_batch_size_is_resolved(env_type: str) -> None:
    # EnvPool's config reports batch_size = num_envs in sync mode (batch_size=0 given or not).
    assert envpool.make_spec("CartPole-v1", num_envs=3).config["batch_size"] == 3
    assert envpool.make_spec("CartPole-v1", num_envs=3, batch_size=0).config.batch_size == 3
    env = _make(env_type)
    assert env.config["batch_size"] == N and not env.is_async
    env = _make(env_type, batch_size=2)
    assert env.config["batch_size"] == 2 and env.is_async


def test_spec_config_namedtuple_helpers() -> None:
    # EnvPool's spec.config is a namedtuple: _fields, _asdict(), _replace().
    config = envpool.make_spec("CartPole-v1", num_envs=3).config
    assert config._fields[:3] == ("num_envs", "batch_size", "num_threads")
    assert config._asdict()["num_envs"] == 3
    changed = config._replace(num_envs=5)
    assert changed.num_envs == 5 and config.num_envs == 3
    with pytest.raises(ValueError):
        config._replace(no_such_key=1)

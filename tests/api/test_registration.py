"""The task registry's subscriptions and the config layers of src/envpool/_config.py, in
the order its docstring gives them."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

import envpool
from envpool import _config, registration
from envpool._config import PY_DEFAULTS
from envpool.registration import PythonSide


@pytest.fixture
def tasks():
    """Task ids registered by a test, removed afterwards (with its subscribers)."""
    added: list[str] = []
    subscribers = list(registration._SUBSCRIBERS)
    yield added
    for t in added:
        registration._REGISTRY.pop(t, None)
    registration._SUBSCRIBERS[:] = subscribers


def test_a_subscriber_gets_every_task_once_in_order(tasks: list[str]) -> None:
    seen: list[str] = []

    def callback(task: registration.TaskSpec) -> None:
        seen.append(task.task_id)

    registration.subscribe(callback)
    assert seen == envpool.list_all_envs()
    registration.subscribe(callback)  # again: nothing replayed twice
    assert seen == envpool.list_all_envs()
    tasks.append("SubscribedCartPole-v0")
    envpool.register("SubscribedCartPole-v0", "CartPole", max_episode_steps=3)
    assert seen == envpool.list_all_envs() and seen[-1] == "SubscribedCartPole-v0"


def test_importing_envpool_registers_each_task_with_gymnasium_once() -> None:
    code = """
import collections, gymnasium
calls = collections.Counter()
register = gymnasium.register
def counting(*args, **kwargs):
    env_id = args[0] if args else kwargs["id"]
    if env_id.startswith("envpool/"):
        calls[env_id] += 1
    return register(*args, **kwargs)
gymnasium.register = counting
import envpool
envpool.register("LateCartPole-v0", "CartPole")
ids = ["envpool/" + t for t in envpool.list_all_envs()]
assert sorted(calls) == sorted(ids), set(calls) ^ set(ids)
assert set(calls.values()) == {1}, calls.most_common(3)
# gymnasium refuses a second namespace: EnvPool 1.2.5's tabular/ and phys2d/ ids have no entry.
assert [i for i in ids if i not in gymnasium.registry] == ["envpool/" + t for t in envpool.list_all_envs() if "/" in t]
assert len([t for t in envpool.list_all_envs() if "/" in t and not t.startswith("MetaWorld/")]) == 5
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "ok"


def test_prepare_is_given_alone_or_in_the_python_side(tasks: list[str]) -> None:
    def hook(config: dict[str, Any], user: Any) -> None:
        pass

    with pytest.raises(TypeError, match="not both"):
        envpool.register("TwoHooks-v0", "CartPole", prepare=hook, python=PythonSide(prepare=hook))
    assert "TwoHooks-v0" not in envpool.list_all_envs()
    tasks.append("OneHook-v0")
    envpool.register("OneHook-v0", "CartPole", prepare=hook)
    assert registration.lookup("OneHook-v0").python.prepare is hook


def test_engine_defaults_are_the_documented_ones() -> None:
    defaults = dict(envpool._envpool.family_defaults("Busy"))  # a family that overrides none
    documented = {
        "num_envs": 1,
        "batch_size": 0,
        "num_threads": 0,
        "thread_affinity_offset": -1,
        "seed": 42,
        "max_episode_steps": 0,
        "autoreset_mode": "next_step",
    }
    assert {k: defaults[k] for k in documented} == documented
    # a family's defaults override the engine's (CartPole: gymnasium's episode length)
    assert envpool._envpool.family_defaults("CartPole")["max_episode_steps"] == 500
    # The engine's list is the only one: Python's keys (what make() passes to the engine
    # for a pool of Python envs, what env_options refuses) are read from it.
    assert envpool._envpool.engine_defaults() == documented
    assert _config.ENGINE_KEYS == tuple(documented)
    assert set(_config.POOL_KEYS) == set(documented) - {"max_episode_steps"}


def test_a_tasks_reference_is_its_registration(tasks: list[str]) -> None:
    """gymnasium's id of the env a task reproduces is a field of its registration."""
    assert registration.lookup("CartPole-v1").reference is None
    assert registration.lookup("CartPole-v1").gymnasium_id == "CartPole-v1"
    assert registration.lookup("phys2d/CartPole-v1").gymnasium_id == "CartPole-v1"
    assert registration.lookup("Taxi-v3").gymnasium_id == "Taxi-v4"
    tasks.append("RefTask-v0")
    envpool.register("RefTask-v0", "CartPole", reference="CartPole-v0")
    assert registration.lookup("RefTask-v0").gymnasium_id == "CartPole-v0"


def test_only_families_that_size_their_frames_say_so() -> None:
    """render() resizes a family's frames to render_width/render_height unless its table
    says that its options size them (sized_frames): the MuJoCo families' (gymnasium's, dm_control's,
    Gymnasium-Robotics', Meta-World's), and all of those."""
    families = envpool._envpool.families()
    sized = {name for name, meta in families.items() if meta["sized_frames"]}
    mujoco_kinds = {"mujoco", "dmc", "robotics", "metaworld"}
    assert {meta["kind"] for name, meta in families.items() if name in sized} <= mujoco_kinds
    assert {name for name, meta in families.items() if meta["kind"] in mujoco_kinds} == sized
    for name in sized:
        assert "camera_id" in envpool._envpool.family_defaults(name)
    assert "CartPole" not in sized


def test_config_layers_override_in_order(tasks: list[str]) -> None:
    """Engine < family < Python options < the task's Python options < the task's
    registration < the user's options; Python options and metadata never reach the
    engine (which refuses unknown keys), and prepare sees the engine config."""
    seen: list[tuple[dict, dict]] = []

    def prepare(config: dict[str, Any], user: Any) -> None:
        seen.append((dict(config), dict(user)))

    side = PythonSide(defaults={"my_option": 1, "other_option": "a"}, prepare=prepare)
    tasks.append("LayeredCartPole-v0")
    envpool.register(
        "LayeredCartPole-v0",
        "CartPole",
        python=side,
        max_episode_steps=9,  # over the engine's 0
        other_option="b",  # the registration over the task's Python default
        gym_reset_return_info=False,  # ... and over every pool's Python default
        reward_threshold=5.0,
    )
    config = envpool.make_spec("LayeredCartPole-v0", seed=3, other_option="c").config
    assert config["seed"] == 3 and config["max_episode_steps"] == 9 and config["num_envs"] == 1
    assert config["my_option"] == 1 and config["other_option"] == "c"
    assert config["gym_reset_return_info"] is False
    assert config["batched_spaces"] is PY_DEFAULTS["batched_spaces"]
    assert config["reward_threshold"] == 5.0
    engine, user = seen[-1]
    assert user == {"seed": 3, "other_option": "c"}
    assert engine == {"max_episode_steps": 9, "seed": 3}
    assert envpool.make_spec("LayeredCartPole-v0", max_episode_steps=4).config["max_episode_steps"] == 4
    envs = envpool.make("LayeredCartPole-v0", env_type="gym", num_envs=2, my_option=7)
    assert envs.config["my_option"] == 7
    envs.close()
    with pytest.raises(TypeError, match="unknown config key 'my_option'"):
        envpool.make_spec("CartPole-v1", my_option=7)  # another task's Python option


def test_a_users_task_on_a_mujoco_family_gets_its_frame_stack(tasks: list[str]) -> None:
    # The family's Python side (set by src/envpool/tasks/mujoco.py and dmc.py) applies to a
    # task registered without python=, as when the side was keyed on the config.
    tasks.extend(["MyCheetah-v0", "MyCheetahDmc-v0"])
    envpool.register("MyCheetah-v0", "HalfCheetah-v5", **registration.lookup("HalfCheetah-v5").config)
    spec = envpool.make_spec("MyCheetah-v0", frame_stack=3)
    assert spec.observation_space.shape == (3, 17)
    base = registration.lookup("CheetahRun-v1")
    envpool.register("MyCheetahDmc-v0", base.family, **base.config)
    envs = envpool.make("MyCheetahDmc-v0", env_type="dm", num_envs=2, frame_stack=2)
    ts = envs.reset()
    assert ts.observation.position.shape == (2, 2, 8)
    envs.close()

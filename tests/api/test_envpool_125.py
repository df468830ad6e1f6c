"""EnvPool 1.2.5's names: its make keywords, render sizes, type names and module paths, task
lists, and the claims of docs/differences.md."""

from __future__ import annotations

import numpy as np
import pytest
from _isolated import run_python
from _pools import N
from _pools import make_pool as _make

import envpool
import envpool.python.api
import envpool.python.envpool
import envpool.python.protocol
from envpool import _envpool


def test_envpool_125_make_keywords_under_their_names_here() -> None:
    """EnvPool 1.2.5's env_seed, render_env_id and from_pixels=False work as seed=[...],
    render_env_ids=[id] and the default; render_width/height/camera_id as MuJoCo's
    width/height/camera_id; giving both names, or a render size to a task of fixed frame
    size, is refused, naming the keyword."""
    a = envpool.make("CartPole-v1", "gymnasium", num_envs=2, env_seed=[3, 9])
    b = envpool.make("CartPole-v1", "gymnasium", num_envs=2, seed=[3, 9])
    assert a.config["seed"] == [3, 9]
    np.testing.assert_array_equal(a.reset()[0], b.reset()[0])
    env = envpool.make("CartPole-v1", "gymnasium", num_envs=2, render_mode="rgb_array", render_env_id=1)
    env.reset()
    np.testing.assert_array_equal(env.render(), env.render([1]))
    assert not np.array_equal(env.render(), env.render([0]))
    assert "from_pixels" not in envpool.make("CartPole-v1", "dm", num_envs=1, from_pixels=False).config
    assert envpool.make("CartPole-v1", "gymnasium", num_envs=2, seed=5, env_seed=[3, 9]).config["seed"] == [3, 9]
    with pytest.raises(ValueError, match="either seed=.* or env_seed"):
        envpool.make("CartPole-v1", "gymnasium", num_envs=2, env_seed=[1, 2], seed=[1, 2])
    with pytest.raises(ValueError, match="either render_env_ids or render_env_id"):
        envpool.make("CartPole-v1", "gymnasium", render_env_id=0, render_env_ids=[0])
    with pytest.raises(TypeError, match="'render_camera_id'.*not an option of CartPole: its frames have no camera"):
        envpool.make("CartPole-v1", "gymnasium", render_camera_id=0)
    for e in (a, b, env):
        e.close()


@pytest.mark.parametrize("task", ["CartPole-v1", "FrozenLake-v1", "LunarLander-v3", "Pong-v5"])
def test_envpool_125_render_size_resizes_fixed_size_frames(task: str) -> None:
    """EnvPool 1.2.5's render_width/render_height on a task of fixed frame size (classic control, toy
    text, Box2D, Atari): render() gives the task's own frames resized as OpenCV's INTER_LINEAR
    (EnvPool's cv::resize) does, byte for byte (the engine's OpenCV-exact resize, which Atari uses
    too); 0 or less keeps that side; the config
    round-trips through make; a non-int is refused."""
    cv2 = pytest.importorskip("cv2")
    if task not in envpool.list_all_envs():
        pytest.skip(f"{task}'s family is not built")
    native = envpool.make(task, "gymnasium", num_envs=2, seed=3, render_mode="rgb_array")
    sized = envpool.make(
        task, "gymnasium", num_envs=2, seed=3, render_mode="rgb_array", render_width=64, render_height=48
    )
    tall = envpool.make(
        task, "gymnasium", num_envs=2, seed=3, render_mode="rgb_array", render_height=0, render_width=33
    )
    for e in (native, sized, tall):
        e.reset()
    full = native.render([0, 1])
    small = sized.render([0, 1])
    assert small.shape == (2, 48, 64, 3) and small.dtype == np.uint8
    expected = np.stack([cv2.resize(f, (64, 48)) for f in full])
    assert np.array_equal(small, expected)
    narrow = tall.render([0, 1])  # a side of 0 keeps the task's height
    assert narrow.shape == (2, full.shape[1], 33, 3)
    assert np.array_equal(narrow, np.stack([cv2.resize(f, (33, full.shape[1])) for f in full]))
    big = envpool.make(
        task, "gymnasium", num_envs=1, seed=3, render_mode="rgb_array", render_width=700, render_height=-1
    )
    big.reset()
    assert np.array_equal(big.render()[0], cv2.resize(full[0], (700, full.shape[1])))
    big.close()
    assert sized.config["render_width"] == 64
    again = envpool.make(task, "gymnasium", **sized.config)
    again.reset()
    np.testing.assert_array_equal(again.render([0, 1]), small)
    for bad in (6.5, True, "64"):
        with pytest.raises(TypeError, match="render_width must be an int"):
            envpool.make(task, "gymnasium", render_width=bad)
    with pytest.raises(ValueError, match="option of the whole pool"):
        envpool.make(task, "gymnasium", num_envs=2, env_options=[{"render_width": 8}, {}])
    for e in (native, sized, tall, again):
        e.close()


@pytest.mark.skipif("HalfCheetah-v5" not in _envpool.families(), reason="MuJoCo family not built")
def test_envpool_125_render_size_keywords_on_mujoco() -> None:
    env = envpool.make(
        "HalfCheetah-v5", "gymnasium", num_envs=1, render_mode="rgb_array", render_width=64, render_height=48
    )
    env.reset()
    assert env.render().shape == (1, 48, 64, 3) and env.config["width"] == 64
    env.close()
    # from_pixels=False stays an option of a family that has pixel observations
    assert envpool.make_spec("HalfCheetah-v5", from_pixels=False).config["from_pixels"] is False
    with pytest.raises(ValueError, match="either camera_id or render_camera_id"):
        envpool.make("HalfCheetah-v5", "gymnasium", render_camera_id=0, camera_id=0)


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
def test_envpool_mixin_isinstance(env_type: str) -> None:
    env = _make(env_type)
    assert isinstance(env, envpool.python.envpool.EnvPoolMixin)
    assert isinstance(env, envpool.python.protocol.EnvPool)
    assert isinstance(envpool.make_spec("CartPole-v1"), envpool.python.protocol.EnvSpec)
    assert isinstance(envpool.python.api.make("CartPole-v1", env_type, num_envs=1), envpool.python.protocol.EnvPool)
    assert len(env) == N and not env.is_async
    np.testing.assert_array_equal(env.all_env_ids, np.arange(N, dtype=np.int32))


def test_public_typing_interface() -> None:
    """As EnvPool 1.2.5: a typed package (py.typed, shipped in the wheel), its protocol names at the top
    level, and make_*'s return types (make_gym's pool is also a GymnasiumEnvPool, as there)."""
    import importlib.resources
    import typing

    protocol = envpool.python.protocol
    assert importlib.resources.files("envpool").joinpath("py.typed").is_file()
    names = ["EnvSpec", "EnvPool", "DMEnvPool", "GymnasiumEnvPool"]
    assert [n for n in envpool.__all__ if n in names] == names
    for name in names:
        assert getattr(envpool, name) is getattr(protocol, name)
    hints = {
        f: typing.get_type_hints(getattr(envpool, f))["return"]
        for f in ("make_spec", "make_dm", "make_gym", "make_gymnasium")
    }
    assert hints == {
        "make_spec": protocol.EnvSpec,
        "make_dm": protocol.DMEnvPool,
        "make_gym": protocol.GymnasiumEnvPool,
        "make_gymnasium": protocol.GymnasiumEnvPool,
    }
    for f, env_type in [("make_dm", "dm"), ("make_gym", "gym"), ("make_gymnasium", "gymnasium")]:
        env = getattr(envpool, f)("CartPole-v1", num_envs=1)
        assert isinstance(env, hints[f]), (f, env_type)
        env.close()


def test_envpool_125_module_paths_import() -> None:
    """EnvPool 1.2's tests and code import envpool.<family>.registration (registering nothing
    here: import envpool registers every task) and envpool.registration's make functions."""
    code = """
        import importlib, sys
        from envpool.registration import make, make_dm, make_gym, make_gymnasium, make_spec
        import envpool
        from envpool import _envpool
        from envpool.python.module_paths import PATHS
        assert (make, make_dm, make_gym, make_gymnasium, make_spec) == (
            envpool.make, envpool.make_dm, envpool.make_gym, envpool.make_gymnasium, envpool.make_spec)
        tables = {meta["task_module"] for meta in _envpool.families().values()}
        assert "envpool.tasks.box2d" in tables and "envpool.tasks.toy_text" in tables
        for path, table in PATHS.items():
            if table and table not in tables:  # a family this build leaves out
                try:
                    importlib.import_module(path)
                except ModuleNotFoundError:
                    continue
                raise AssertionError(path)
            module = importlib.import_module(path)
            assert module is sys.modules[path] and "registers every task" in module.__doc__
        import envpool.box2d.registration as reg
        assert envpool.box2d.registration is reg
        assert make_gym("LunarLander-v3", num_envs=2).reset()[0].shape == (2, 8)
        for missing in ("envpool.procgen.procgen_envpool", "envpool.box2d.box2d_envpool", "envpool.mujoco.playground"):
            try:
                importlib.import_module(missing)
            except ModuleNotFoundError:
                pass
            else:
                raise AssertionError(missing)
    """
    run_python(code)


def test_envpool_125_task_lists() -> None:
    """EnvPool 1.2.5's registration modules' task lists, which its own tests iterate (e.g.
    mujoco_gym_deterministic_test.py: ``for task, versions, _ in reg.gym_mujoco_envs``), list the
    tasks registered here, in EnvPool's shapes: ROM names; (task, versions, max_episode_steps);
    (domain, task, max_episode_steps) with dm_control's names."""
    code = """
        import importlib
        import envpool
        from envpool import _envpool
        from envpool.registration import lookup
        tables = {meta["task_module"] for meta in _envpool.families().values()}
        ids = envpool.list_all_envs()
        if "envpool.tasks.atari" in tables:
            games = importlib.import_module("envpool.atari.registration").atari_game_list
            atari = [t for t in ids if lookup(t).family == "Atari"]
            assert "pong" in games and "space_invaders" in games and len(games) == len(set(games)) > 100
            assert {lookup(t).config["task"] for t in atari} == set(games)
        if "envpool.tasks.mujoco" in tables:
            gym = importlib.import_module("envpool.mujoco.gym.registration").gym_mujoco_envs
            assert ("Ant", ("v3", "v4", "v5"), 1000) in gym and ("Reacher", ("v2", "v4", "v5"), 50) in gym
            listed = {f"{task}-{v}" for task, versions, _ in gym for v in versions}
            assert listed == {t for t in ids if t.split("-")[0] in {task for task, _, _ in gym}}
            for task, versions, steps in gym:
                assert all(envpool.make_spec(f"{task}-{v}").config["max_episode_steps"] == steps for v in versions)
        if "envpool.tasks.dmc" in tables:
            dmc = importlib.import_module("envpool.mujoco.dmc.registration").dmc_mujoco_envs
            assert len(dmc) == 51 and ("ball_in_cup", "catch", 1000) in dmc and ("lqr", "lqr_2_1", 0) in dmc
            assert ("humanoid_CMU", "run", 1000) in dmc
            from envpool.tasks.dmc import task_id
            for domain, task, steps in dmc:
                assert envpool.make_spec(task_id(domain, task)).config["max_episode_steps"] == steps
        if "envpool.tasks.metaworld" in tables:
            mw = importlib.import_module("envpool.mujoco.metaworld.registration").metaworld_v3_envs
            assert "reach-v3" in mw and "pick-place-v3" in mw
            from envpool.tasks.metaworld import task_id
            assert {task_id(n) for n in mw} == {t for t in ids if t.startswith("MetaWorld/")}
            assert all(envpool.make_spec(task_id(n)).config["max_episode_steps"] == 500 for n in mw)
        assert not hasattr(importlib.import_module("envpool.box2d.registration"), "box2d_envs")
    """
    run_python(code)


def test_differences_table_claims() -> None:
    env = _make("gymnasium")
    env.reset()
    with pytest.raises(TypeError):  # float actions on Discrete are refused
        env.step(np.zeros(N, np.float32))
    with pytest.raises(ValueError):  # out-of-range discrete actions too
        env.step(np.full(N, 2, np.int32))
    assert _make("gymnasium", seed=[1, 2, 3, 4]).config["seed"] == [1, 2, 3, 4]  # one seed per env, as EnvPool
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


def test_envpool_12_python_paths_are_the_compat_modules() -> None:
    """EnvPool 1.2's envpool.python.* import as the compatibility package's modules
    themselves (one module object under both names), in a fresh interpreter too."""
    import importlib

    for name in ("", ".api", ".envpool", ".protocol", ".env_spec", ".dm_envpool", ".gymnasium_envpool"):
        assert importlib.import_module("envpool.python" + name) is importlib.import_module("envpool.compat" + name)
    run_python(
        "import envpool.python.envpool, envpool.compat.envpool, envpool\n"
        "assert envpool.python.envpool is envpool.compat.envpool\n"
        "from envpool.python.protocol import EnvPool\n"
        "assert EnvPool is envpool.EnvPool\n"
    )
